// Two failure kinds the skill maps to different codes: the input cannot work (bad path,
// unknown revision, bad rule pack) versus a source that failed (HTTP errors, bad responses).
#ifndef SKILLRT_PR_ANALYSIS_ERRORS_HPP_
#define SKILLRT_PR_ANALYSIS_ERRORS_HPP_

#include <stdexcept>

namespace skillrt::pr_analysis {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SourceFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace skillrt::pr_analysis

#endif  // SKILLRT_PR_ANALYSIS_ERRORS_HPP_
