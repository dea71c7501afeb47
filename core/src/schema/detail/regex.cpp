#define PCRE2_CODE_UNIT_WIDTH 8
#include "schema/detail/regex.hpp"

#include <pcre2.h>

namespace skillrt::schema::detail {

namespace {

// ECMA-262 as PCRE2 can approach it: \d and \w stay ASCII (no UCP), `$` ends the subject only,
// a back-reference to a group that did not take part matches the empty string, \uHHHH is a code
// point, and subjects are UTF-8 text.
constexpr uint32_t kOptions = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_DOLLAR_ENDONLY |
                              PCRE2_ALT_BSUX | PCRE2_MATCH_UNSET_BACKREF;

struct MatchDataDeleter {
  void operator()(pcre2_match_data* data) const { pcre2_match_data_free(data); }
};

// One ovector pair is enough to learn whether a pattern matched (a match that does not fit
// still returns 0, not an error), so every pattern can share a thread's match data.
pcre2_match_data* thread_match_data() {
  thread_local std::unique_ptr<pcre2_match_data, MatchDataDeleter> data(
      pcre2_match_data_create(1, nullptr));
  return data.get();
}

// PCRE2 reads \A, \Z, \z and \G as anchors; ECMA-262 has none of them and reads each as the
// letter itself (an identity escape), so the letter is what PCRE2 is given.
std::string ecma_escapes(std::string_view pattern) {
  std::string out;
  out.reserve(pattern.size());
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '\\' || i + 1 == pattern.size()) {
      out += pattern[i];
      continue;
    }
    const char next = pattern[i + 1];
    if (next == 'A' || next == 'Z' || next == 'z' || next == 'G') {
      out += next;
    } else {
      out += pattern[i];
      out += next;
    }
    ++i;  // an escaped character is never the start of another escape
  }
  return out;
}

std::string error_text(int code) {
  PCRE2_UCHAR buffer[256];
  const int n = pcre2_get_error_message(code, buffer, sizeof(buffer));
  return n < 0 ? "error " + std::to_string(code) : std::string(reinterpret_cast<char*>(buffer));
}

}  // namespace

struct Regex::Code {
  pcre2_code* code = nullptr;
  ~Code() { pcre2_code_free(code); }
};

std::string ecma_regex_problem(std::string_view text) {
  // The letters ECMA-262 gives a meaning after a backslash; in Unicode mode any other letter
  // there is a syntax error.
  constexpr std::string_view kEcmaLetterEscapes = "bBcdDfknpPrsStuvwWx";
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] != '\\') continue;
    const char next = text[++i];
    const bool letter = (next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z');
    if (letter && kEcmaLetterEscapes.find(next) == std::string_view::npos) {
      return "at offset " + std::to_string(i - 1) + ": \\" + std::string(1, next) +
             " is not an ECMA-262 escape";
    }
  }
  try {
    Regex compiled(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

Regex::Regex(std::string_view pattern) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_compile_context* context = pcre2_compile_context_create(nullptr);
  pcre2_set_compile_extra_options(context, PCRE2_EXTRA_ALT_BSUX);
  const std::string ecma = ecma_escapes(pattern);
  pcre2_code* compiled = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(ecma.data()), ecma.size(),
                                       kOptions, &error, &offset, context);
  pcre2_compile_context_free(context);
  if (compiled == nullptr) {
    throw std::invalid_argument("at offset " + std::to_string(offset) + ": " + error_text(error));
  }
  // Without JIT support (or memory for it) the interpreter runs the same pattern.
  pcre2_jit_compile(compiled, PCRE2_JIT_COMPLETE);
  auto code = std::make_shared<Code>();
  code->code = compiled;
  code_ = std::move(code);
}

bool Regex::search(std::string_view text) const {
  const int rc = pcre2_match(code_->code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0,
                             0, thread_match_data(), nullptr);
  if (rc >= 0) return true;
  if (rc == PCRE2_ERROR_NOMATCH) return false;
  throw RegexGaveUp("the pattern could not be evaluated on this text: " + error_text(rc));
}

}  // namespace skillrt::schema::detail
