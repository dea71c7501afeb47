// Pure text analysis for the pipeline: test ids, failure signatures, unittest results, routing,
// root-cause rules, tracebacks, commit message and PR description. No I/O except reading the
// files it is pointed at, so every rule is testable on strings.
#ifndef SKILLRT_ISSUE_PIPELINE_ANALYSIS_HPP_
#define SKILLRT_ISSUE_PIPELINE_ANALYSIS_HPP_

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace skillrt::issue_pipeline {

using Json = nlohmann::json;

// A pytest node id (`test/test_nn.py::TestNN::test_conv2d`) or a unittest id
// (`test_nn.TestNN.test_conv2d`), reduced to the parts a runner needs.
struct TestId {
  std::string raw;
  std::string file;  // repository-relative; for unittest ids a candidate, resolved by locate
  std::string cls;   // empty for a module-level pytest function
  std::string method;
  bool pytest = false;
  std::vector<std::string> file_candidates;
};

// Throws std::invalid_argument with what is wrong and an example of a valid id.
TestId parse_test_id(const std::string& raw);

// Where the test is defined in a checkout. Device-generic tests (TestCommonCPU,
// test_out_add_cpu_float32) are found through their template class and method.
struct TestLocation {
  bool found = false;
  std::string file;  // repository-relative
  int class_line = 0;
  std::string class_name;
  int method_line = 0;
  std::string method_name;
  std::string why_not;  // when not found: what was searched
};
TestLocation locate_test(const std::string& checkout, const TestId& id);

// One line of text with its 1-based number.
struct Line {
  int line = 0;
  std::string text;
};
Json to_json(const Line& l);

// The failure a log shows: exception type and message of the last traceback (or pytest E line),
// and the tests it names as failed.
struct Signature {
  bool found = false;
  std::string exception;
  std::string message;
  Line where;
  std::vector<std::string> failed_tests;
};
Signature failure_signature(const std::string& text);
Json to_json(const Signature& s);
// Digits and addresses masked, whitespace collapsed: two runs of one failure compare equal.
std::string normalize_message(const std::string& message);

// reproduced | different_failure with the reason.
struct Comparison {
  bool same = false;
  std::string reason;
};
Comparison compare_signatures(const Signature& expected, const Signature& actual);

// Per-test outcomes from `python -m unittest -v` style output: "Class.method" -> ok | FAIL |
// ERROR | skipped | expected failure | unexpected success.
std::map<std::string, std::string> unittest_results(const std::string& text);

// Traceback frames ("File "...", line N, in f"), innermost last.
struct Frame {
  std::string file;
  int line = 0;
  std::string function;
  int log_line = 0;
};
std::vector<Frame> traceback_frames(const std::string& text);

// core | distributed with the signals that decided it.
struct Route {
  std::string route;
  int core_score = 0;
  int distributed_score = 0;
  Json evidence = Json::array();
};
Route route_case(const std::string& test_file, const std::string& test_source,
                 const std::string& log);

// Root-cause classes of the issue (stable identifiers; labels in class_label()).
//   missing-dispatch, behaviour-mismatch, memory, environment-build, upstream-problem,
//   not-applicable, undetermined
std::string class_label(const std::string& cls);

struct RuleHit {
  std::string rule;
  std::string cls;
  std::string title;
  std::vector<Line> evidence;
  std::string op;  // aten operator named by the failure, when the rule captures one
};

// Every rule that matches, in priority order (the first decides). `worktrees` maps repository
// name to worktree path so traceback frames can be attributed to pytorch, torch_npu or op_plugin.
std::vector<RuleHit> match_rules(const std::string& text,
                                 const std::map<std::string, std::string>& worktrees,
                                 const std::string& test_file);

// Replaces each heading's placeholder body in a PR template with the given sections (matched by
// a substring of the heading); headings not given keep the template's text. Returns the filled
// text; `used` says which headings got content.
std::string fill_template(const std::string& templ,
                          const std::vector<std::pair<std::string, std::string>>& sections,
                          std::vector<std::string>* used);

// The headings of the Ascend PR template
// (Ascend/op-plugin@517f2e7:.gitcode/PULL_REQUEST_TEMPLATE.md, per
// shared/domain/upstream-coupling.md 4.2) used when a repository has no template.
const std::vector<std::string>& default_template_headings();

// Case directory name from a test id: [A-Za-z0-9._-], no "..", at most 100 characters.
std::string case_id_from_test(const std::string& test_id);

}  // namespace skillrt::issue_pipeline

#endif  // SKILLRT_ISSUE_PIPELINE_ANALYSIS_HPP_
