#include "pytest_parser.hpp"

#include <map>
#include <regex>
#include <string>
#include <vector>

#include "detail/lines.hpp"

namespace skillrt::npu_remote {

namespace {

using nlohmann::json;

std::string outcome_of(const std::string& word) {
  static const std::map<std::string, std::string> kWords = {
      {"PASSED", "passed"},   {"FAILED", "failed"}, {"ERROR", "error"},
      {"SKIPPED", "skipped"}, {"XFAIL", "xfailed"}, {"XPASS", "xpassed"}};
  auto it = kWords.find(word);
  return it == kWords.end() ? "" : it->second;
}

// pytest's plural and singular forms both map to one key.
std::string count_key(const std::string& word) {
  if (word == "errors") return "error";
  if (word == "warning") return "warnings";
  return word;
}

class CaseList {
 public:
  void add(const std::string& name, const std::string& outcome, const std::string& message) {
    auto it = index_.find(name);
    if (it == index_.end()) {
      index_[name] = cases_.size();
      json c = {{"name", name}, {"outcome", outcome}};
      if (!message.empty()) c["message"] = message;
      cases_.push_back(std::move(c));
      return;
    }
    // The summary line carries the reason the verbose line lacks; an error at teardown after
    // a pass is still an error.
    json& c = cases_[it->second];
    if (outcome == "error") c["outcome"] = outcome;
    if (!message.empty()) c["message"] = message;
  }
  json to_json() const { return json(cases_); }
  bool empty() const { return cases_.empty(); }

 private:
  std::vector<json> cases_;
  std::map<std::string, size_t> index_;
};

}  // namespace

std::optional<json> parse_pytest(std::string_view log) {
  // "tests/test_x.py::test_a[1] PASSED   [ 25%]" and "... SKIPPED (reason) [ 50%]"
  static const std::regex kVerbose(
      R"(^(\S+::\S+) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)(?: \((.*)\))?\s*(?:\[\s*\d+%\])?\s*$)");
  // "FAILED tests/test_x.py::test_b - AssertionError: ..." and "XPASS t.py::test_c reason"
  static const std::regex kSummary(
      R"(^(PASSED|FAILED|ERROR|XFAIL|XPASS) (\S+::\S+|\S+\.py)(?: - (.*)| (.*))?$)");
  // "SKIPPED [1] tests/test_x.py:22: skipping this test"
  static const std::regex kSkipSummary(R"(^SKIPPED \[(\d+)\] ([^:]+:\d+): (.*)$)");
  // "== 1 failed, 1 passed, 1 skipped, 1 error in 0.12s ==" (also "in 68.00 seconds")
  static const std::regex kFinal(
      R"(^=+ (.*\d+ \w+.*) in ([0-9.]+)s(?:econds)?(?: \([^)]*\))? =+$)");
  static const std::regex kCount(R"((\d+) (\w+))");

  bool session = false;
  CaseList cases;
  json result = json::object();
  for (std::string_view view : detail::split_lines(log)) {
    const std::string line(detail::strip(view));
    if (line.find("test session starts") != std::string::npos) session = true;
    std::smatch m;
    if (std::regex_match(line, m, kVerbose)) {
      cases.add(m[1].str(), outcome_of(m[2].str()), m[3].str());
      continue;
    }
    if (std::regex_match(line, m, kSkipSummary)) {
      cases.add(m[2].str(), "skipped", m[3].str());
      continue;
    }
    if (std::regex_match(line, m, kSummary)) {
      cases.add(m[2].str(), outcome_of(m[1].str()), m[3].matched ? m[3].str() : m[4].str());
      continue;
    }
    if (std::regex_match(line, m, kFinal)) {
      json counts = json::object();
      const std::string body = m[1].str();
      for (auto it = std::sregex_iterator(body.begin(), body.end(), kCount);
           it != std::sregex_iterator(); ++it) {
        counts[count_key((*it)[2].str())] = std::stoll((*it)[1].str());
      }
      result["counts"] = counts;
      result["summary_line"] = line;
      result["duration_s"] = std::stod(m[2].str());
      session = true;
    }
  }
  if (!session && cases.empty()) return std::nullopt;
  result["cases"] = cases.to_json();
  return result;
}

}  // namespace skillrt::npu_remote
