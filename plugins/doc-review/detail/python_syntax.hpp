// Syntax of Python examples, checked by the system's own parser: one python3 process reads
// every snippet and runs ast.parse() on each. ast.parse compiles nothing and executes nothing,
// so an example's imports and calls never run.
#ifndef SKILLRT_DOC_REVIEW_DETAIL_PYTHON_SYNTAX_HPP_
#define SKILLRT_DOC_REVIEW_DETAIL_PYTHON_SYNTAX_HPP_

#include <optional>
#include <string>
#include <vector>

namespace skillrt::doc_review::detail {

struct SyntaxError {
  int line = 0;  // 1-based inside the snippet
  std::string message;
};

// /usr/bin/python3 when present, else python3 on PATH; empty when neither exists.
std::string find_python();

// One result per snippet: nullopt when it parses. Throws std::runtime_error naming the
// interpreter and what went wrong when the checker itself cannot run (not when a snippet fails).
std::vector<std::optional<SyntaxError>> check_python_syntax(
    const std::string& python, const std::vector<std::string>& snippets, int timeout_s = 120);

}  // namespace skillrt::doc_review::detail

#endif  // SKILLRT_DOC_REVIEW_DETAIL_PYTHON_SYNTAX_HPP_
