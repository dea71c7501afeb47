// doc-review: a static review of a documentation tree (or one page) against a code checkout,
// on the five axes of CANN documentation quality. Reads only; writes nothing but the two
// reports, into the output folder the caller names.
#ifndef SKILLRT_DOC_REVIEW_REVIEW_HPP_
#define SKILLRT_DOC_REVIEW_REVIEW_HPP_

#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace skillrt::doc_review {

using Json = nlohmann::json;

struct ReviewHooks {
  std::function<void(double done, double total, const std::string& message)> progress;
  std::function<bool()> cancelled;
};

// Bad input: a missing path, a file that is not Markdown, an output folder inside the docs.
// The message names the input field and what to do.
class InputError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class Cancelled : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The input and output are described by schemas/skills/doc-review.{input,output}.json.
Json run_review(const Json& input, const ReviewHooks& hooks = {});

}  // namespace skillrt::doc_review

#endif  // SKILLRT_DOC_REVIEW_REVIEW_HPP_
