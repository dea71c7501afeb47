// End-to-end tests of the ci-static-errors-fix skill on fixture repositories, with the real
// linters (flake8 from Debian, clang-format 14) run by the tests themselves.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "ci_fix_test_support.hpp"
#include "proof.hpp"
#include "skill.hpp"
#include "tokens.hpp"

using ci_fix_test::ScratchRepo;
using nlohmann::json;
using skillrt::ci_fix::run_ci_fix;

namespace {

json run(const json& input) {
  INFO(input.dump());
  REQUIRE(ci_fix_test::input_schema().errors(input).empty());
  json out = run_ci_fix(input);
  std::string errs = ci_fix_test::output_schema().errors(out);
  INFO(errs);
  REQUIRE(errs.empty());
  return out;
}

std::multiset<std::pair<std::string, uint32_t>> residual_keys(const json& out,
                                                              const std::string& file) {
  std::multiset<std::pair<std::string, uint32_t>> k;
  for (const json& r : out.at("residual")) {
    if (r.at("file") == file)
      k.insert(
          {r.at("rule").get<std::string>(), r.value("line_after", r.at("line").get<uint32_t>())});
  }
  return k;
}

}  // namespace

TEST_CASE("flake8 findings: whitelisted ones fixed, flake8 then reports exactly the residual ones",
          "[ci-fix][flake8]") {
  if (!ci_fix_test::have("flake8")) {
    FAIL("flake8 is not installed: scripts/install-deps.sh installs the Debian package");
  }
  ScratchRepo repo;
  repo.copy_fixture("py/violations.py", "pkg/violations.py");
  auto before = ci_fix_test::flake8(repo.root(), {"pkg/violations.py"});
  REQUIRE(before.size() == 39);  // the fixture's real violations, counted by flake8 itself

  json out = run({{"repo", repo.root()}, {"run", {"flake8"}}, {"apply", true}});
  auto after = ci_fix_test::flake8(repo.root(), {"pkg/violations.py"});

  // Every applied fix passed its proof.
  REQUIRE(out.at("fixes").size() > 0);
  for (const json& f : out.at("fixes")) {
    INFO(f.dump());
    CHECK(f.at("proof").at("passed").get<bool>());
    CHECK(f.at("proof").at("method") == "tokens");
    CHECK(!f.at("hunk").get<std::string>().empty());
    CHECK(!f.at("why").get<std::string>().empty());
  }
  // flake8 now reports exactly the residual findings (same rule, same line in the fixed file).
  CHECK(ci_fix_test::keys(after) == residual_keys(out, "pkg/violations.py"));
  // Residual ones are the unsafe classes, each with a reason and a suggestion.
  std::set<std::string> residual_rules;
  for (const json& r : out.at("residual")) {
    residual_rules.insert(r.at("rule").get<std::string>());
    CHECK(!r.at("reason").get<std::string>().empty());
    CHECK(!r.at("suggestion").get<std::string>().empty());
  }
  CHECK(residual_rules == std::set<std::string>{"F401", "E401", "F403", "E711", "E501", "W291"});
  // The skill's own re-run agrees and saw nothing new.
  REQUIRE(out.at("verification").size() == 1);
  const json& v = out.at("verification")[0];
  CHECK(v.at("tool") == "flake8");
  CHECK(v.at("available").get<bool>());
  CHECK(v.at("new").empty());
  CHECK(v.at("not_cleared").empty());
  CHECK(v.at("before").get<size_t>() == before.size());
  CHECK(v.at("after").get<size_t>() == after.size());
  CHECK(out.at("summary").at("verified").get<bool>());
  CHECK(out.at("written") == json::array({"pkg/violations.py"}));
}

TEST_CASE("whitespace inside a docstring: the fix fails its token proof and is reverted",
          "[ci-fix][proof]") {
  ScratchRepo repo;
  repo.copy_fixture("py/violations.py", "violations.py");
  std::string original = repo.read("violations.py");
  // flake8's W291 on lines 14 and 15 points into the triple-quoted docstring.
  std::string report =
      "violations.py:14:17: W291 trailing whitespace\n"
      "violations.py:15:56: W291 trailing whitespace\n"
      "violations.py:5:10: W291 trailing whitespace\n";
  json out = run({{"repo", repo.root()}, {"report_text", report}, {"verify", false}});
  REQUIRE(out.at("fixes").size() == 1);
  CHECK(out.at("fixes")[0].at("line") == 5);
  REQUIRE(out.at("residual").size() == 2);
  for (const json& r : out.at("residual")) {
    CHECK(r.at("kind") == "proof-failed");
    CHECK(r.at("proof").at("passed") == false);
    CHECK_THAT(r.at("proof").at("detail").get<std::string>(), Catch::Contains("STRING"));
    CHECK(!r.at("attempted_hunk").get<std::string>().empty());
  }
  // Dry run: nothing written, and the patch leaves the docstring alone.
  CHECK(repo.read("violations.py") == original);
  std::string patch = out.at("patch");
  CHECK(patch.find("Keeps this whitespace") == std::string::npos);
  CHECK(out.at("summary").at("proofs_failed") == 2);
}

TEST_CASE("a typo inside a string literal is refused - the same typo in a comment is fixed",
          "[ci-fix][proof]") {
  ScratchRepo repo;
  repo.copy_fixture("py/violations.py", "violations.py");
  // codespell finds `teh` in the comment (line 20) and in the string (line 21).
  std::string report =
      "violations.py:20: teh ==> the\n"
      "violations.py:21: teh ==> the\n";
  json out = run({{"repo", repo.root()}, {"report_text", report}, {"apply", true}});
  REQUIRE(out.at("fixes").size() == 1);
  CHECK(out.at("fixes")[0].at("line") == 20);
  CHECK(out.at("fixes")[0].at("proof").at("level") == "comments-only");
  REQUIRE(out.at("residual").size() == 1);
  CHECK(out.at("residual")[0].at("line") == 21);
  CHECK(out.at("residual")[0].at("kind") == "refused");
  CHECK_THAT(out.at("residual")[0].at("reason").get<std::string>(),
             Catch::Contains("string literal"));
  std::string fixed = repo.read("violations.py");
  CHECK(fixed.find("#the name is fixed here") != std::string::npos);
  CHECK(fixed.find("return \"teh  name   \"") != std::string::npos);
}

TEST_CASE("a planted fix that changes behaviour is reverted, not applied", "[ci-fix][proof]") {
  // lintrunner's TABS replacement (s/\t/    /) also rewrites a tab inside a string literal; the
  // whole-file hunk comes with the report, so the skill must refuse it by proof.
  ScratchRepo repo;
  std::string before = "def f():\n\treturn 'a\tb'\n";
  std::string after = "def f():\n    return 'a    b'\n";
  repo.put("m.py", before);
  json msg = {
      {"path", "m.py"},          {"line", 2},        {"char", nullptr},    {"code", "CLANGFORMAT"},
      {"severity", "warning"},   {"name", "format"}, {"original", before}, {"replacement", after},
      {"description", "planted"}};
  json out = run({{"repo", repo.root()}, {"report_text", msg.dump() + "\n"}, {"apply", true}});
  CHECK(out.at("fixes").empty());
  REQUIRE(out.at("residual").size() == 1);
  CHECK(out.at("residual")[0].at("kind") == "proof-failed");
  CHECK(repo.read("m.py") == before);
}

TEST_CASE(
    "clang-format fixes with op-plugin's .clang-format pass their proofs - unsafe edits are "
    "refused",
    "[ci-fix][clang-format]") {
  if (!ci_fix_test::have("clang-format")) FAIL("clang-format is not on PATH");
  ScratchRepo repo;
  repo.copy_fixture("cpp/op_api.cpp", "op_plugin/ops/op_api.cpp");
  repo.put(
      ".clang-format",
      ci_fix_test::slurp(ci_fix_test::source_path("plugins/ci-fix/data/op-plugin.clang-format")));
  std::string original = repo.read("op_plugin/ops/op_api.cpp");
  json out = run({{"repo", repo.root()}, {"run", {"clang-format"}}, {"apply", true}});
  REQUIRE(out.at("fixes").size() >= 8);
  for (const json& f : out.at("fixes")) {
    INFO(f.dump());
    CHECK(f.at("proof").at("passed").get<bool>());
    CHECK(f.at("class") == "clang-format");
  }
  std::map<std::string, int> kinds;
  std::string reasons;
  for (const json& r : out.at("residual")) {
    kinds[r.at("kind").get<std::string>()]++;
    reasons += r.at("reason").get<std::string>() + "\n";
  }
  INFO(reasons);
  // `> >` to `>>` merges two tokens; TORCH_CHECK(a>=0) -> (a >= 0) changes #cond's text; the long
  // comment's reflow is not whitespace-only.
  CHECK(kinds["proof-failed"] >= 3);
  CHECK(kinds["refused"] >= 1);
  CHECK_THAT(reasons, Catch::Contains("macro argument"));
  CHECK_THAT(reasons, Catch::Contains("`>`"));
  std::string fixed = repo.read("op_plugin/ops/op_api.cpp");
  CHECK(fixed.find("int npu_add(int a, int b) {") != std::string::npos);
  CHECK(fixed.find("TORCH_CHECK(a>=0,") != std::string::npos);                      // untouched
  CHECK(fixed.find("std::vector<std::vector<int> > nested") != std::string::npos);  // untouched
  CHECK(fixed.find("R\"doc(usage:   \n  npu_add(self, other)   \n)doc\"") != std::string::npos);
  // The whole file, before and after, gives the same significant token stream.
  auto tb = skillrt::ci_fix::tokenize_cpp(original);
  auto ta = skillrt::ci_fix::tokenize_cpp(fixed);
  CHECK(skillrt::ci_fix::compare_streams(original, tb, fixed, ta,
                                         skillrt::ci_fix::ProofLevel::kWhitespace)
            .passed);
  // Independent check through the compiler: both versions compile to the same object bytes.
  if (ci_fix_test::have("g++")) {
    // Same file name in both builds: the name is recorded in the object's symbol table.
    repo.put("before/op_api.cpp", original);
    repo.put("after/op_api.cpp", fixed);
    auto cc = [&](const std::string& dir) {
      return skillrt::ci_fix::run_command(
          {"g++", "-std=c++17", "-c", "-O1", "-g0", "-o", "op_api.o", "op_api.cpp"},
          repo.path(dir));
    };
    auto a = cc("before");
    auto b = cc("after");
    INFO(a.err << b.err);
    REQUIRE(a.exit_code == 0);
    REQUIRE(b.exit_code == 0);
    CHECK(repo.read("before/op_api.o") == repo.read("after/op_api.o"));
  }
  // clang-format re-run: fewer replacements, and the skill reports no new ones.
  REQUIRE(out.at("verification").size() == 1);
  CHECK(out.at("verification")[0].at("tool") == "clang-format");
  CHECK(out.at("verification")[0].at("after").get<size_t>() <
        out.at("verification")[0].at("before").get<size_t>());
}

TEST_CASE(
    "binary, non-UTF-8, symlinked-outside and out-of-scope files are left untouched and reported",
    "[ci-fix][scope]") {
  ScratchRepo repo;
  ScratchRepo outside;
  repo.put("in_scope.py", "x = 1   \n");
  repo.put("other.py", "y = 2   \n");
  repo.put("blob.py", std::string("z = 3   \n\0\1\2", 12));
  repo.put("latin1.py", "s = 'caf\xe9'   \n");
  outside.put("target.py", "w = 4   \n");
  REQUIRE(symlink(outside.path("target.py").c_str(), repo.path("link.py").c_str()) == 0);
  std::string report =
      "in_scope.py:1:6: W291 trailing whitespace\n"
      "other.py:1:6: W291 trailing whitespace\n"
      "blob.py:1:6: W291 trailing whitespace\n"
      "latin1.py:1:13: W291 trailing whitespace\n"
      "link.py:1:6: W291 trailing whitespace\n"
      "../elsewhere.py:1:1: W291 trailing whitespace\n";
  json out = run({{"repo", repo.root()},
                  {"report_text", report},
                  {"scope", {{"files", {"in_scope.py", "blob.py", "latin1.py", "link.py"}}}},
                  {"apply", true}});
  CHECK(repo.read("in_scope.py") == "x = 1\n");
  CHECK(repo.read("other.py") == "y = 2   \n");
  CHECK(repo.read("blob.py") == std::string("z = 3   \n\0\1\2", 12));
  CHECK(repo.read("latin1.py") == "s = 'caf\xe9'   \n");
  CHECK(outside.read("target.py") == "w = 4   \n");
  std::map<std::string, std::string> why;
  for (const json& s : out.at("skipped_files")) why[s.at("file")] = s.at("reason");
  CHECK_THAT(why["other.py"], Catch::Contains("outside the requested scope"));
  CHECK_THAT(why["blob.py"], Catch::Contains("binary"));
  CHECK_THAT(why["latin1.py"], Catch::Contains("UTF-8"));
  CHECK_THAT(why["link.py"], Catch::Contains("outside the repository"));
  CHECK_THAT(why["../elsewhere.py"], Catch::Contains("outside the repository"));
  CHECK(out.at("written") == json::array({"in_scope.py"}));
  CHECK(out.at("summary").at("skipped_files") == 5);
}

TEST_CASE("dry run returns one patch that git apply turns into the applied result",
          "[ci-fix][patch]") {
  if (!ci_fix_test::have("flake8") || !ci_fix_test::have("git"))
    FAIL("flake8 and git are required");
  ScratchRepo dry, wet;
  dry.copy_fixture("py/violations.py", "violations.py");
  wet.copy_fixture("py/violations.py", "violations.py");
  json d = run({{"repo", dry.root()}, {"run", {"flake8"}}});
  json w = run({{"repo", wet.root()}, {"run", {"flake8"}}, {"apply", true}, {"verify", false}});
  CHECK(dry.read("violations.py") == ci_fix_test::slurp(ci_fix_test::fixture("py/violations.py")));
  ci_fix_test::spit(dry.path("fix.patch"), d.at("patch").get<std::string>());
  auto r = skillrt::ci_fix::run_command({"git", "apply", "--unsafe-paths", "-p1", "fix.patch"},
                                        dry.root());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(dry.read("violations.py") == wet.read("violations.py"));
  CHECK(d.at("summary").at("mode") == "dry-run");
  CHECK(d.contains("markdown"));
  CHECK_THAT(d.at("markdown").get<std::string>(), Catch::Contains("## Residual findings"));
}

TEST_CASE("report_dir gets the Markdown, JSON and patch - commands are recorded",
          "[ci-fix][report]") {
  if (!ci_fix_test::have("flake8")) FAIL("flake8 is required");
  ScratchRepo repo, reports;
  repo.copy_fixture("py/violations.py", "violations.py");
  json out = run({{"repo", repo.root()}, {"run", {"flake8"}}, {"report_dir", reports.root()}});
  CHECK(!out.contains("markdown"));
  json disk = json::parse(reports.read("ci-fix-report.json"));
  CHECK(disk.at("summary") == out.at("summary"));
  std::string md = reports.read("ci-fix-report.md");
  CHECK_THAT(md, Catch::Contains("## Summary by rule"));
  CHECK_THAT(md, Catch::Contains("## Commands run"));
  CHECK_THAT(md, Catch::Contains("flake8 --format=default violations.py"));
  CHECK(reports.read("ci-fix.patch") == out.at("patch").get<std::string>());
  bool ran_flake8 = false;
  for (const json& c : out.at("commands")) {
    if (c.at("command").get<std::string>().rfind("flake8 ", 0) == 0) ran_flake8 = true;
  }
  CHECK(ran_flake8);
}

TEST_CASE("the whitelist narrows but never widens", "[ci-fix][whitelist]") {
  ScratchRepo repo;
  repo.put("a.py", "x=1   \n");
  std::string report =
      "a.py:1:2: E225 missing whitespace around operator\na.py:1:4: W291 trailing whitespace\n";
  json out = run({{"repo", repo.root()},
                  {"report_text", report},
                  {"whitelist", {{"classes", {"trailing-whitespace"}}}},
                  {"verify", false}});
  REQUIRE(out.at("fixes").size() == 1);
  CHECK(out.at("fixes")[0].at("rule") == "W291");
  REQUIRE(out.at("residual").size() == 1);
  CHECK_THAT(out.at("residual")[0].at("reason").get<std::string>(), Catch::Contains("left out"));
  // Asking for a class that is not built in is refused outright.
  CHECK_THROWS_WITH(run_ci_fix({{"repo", repo.root()},
                                {"report_text", report},
                                {"whitelist", {{"classes", {"unused-imports"}}}}}),
                    Catch::Contains("never widened"));
  // A whitelist file narrows too.
  repo.put("wl.json", R"({"disable": ["W291"]})");
  json out2 = run({{"repo", repo.root()},
                   {"report_text", report},
                   {"whitelist_file", "wl.json"},
                   {"verify", false}});
  REQUIRE(out2.at("fixes").size() == 1);
  CHECK(out2.at("fixes")[0].at("rule") == "E225");
}

TEST_CASE("F401 and E711 are never fixed, and say why", "[ci-fix][whitelist]") {
  ScratchRepo repo;
  repo.put("a.py", "import torch_npu\nif x == None:\n    pass\n");
  std::string report =
      "a.py:1:1: F401 'torch_npu' imported but unused\na.py:2:6: E711 comparison to None should be "
      "'if cond is None:'\n";
  json out = run({{"repo", repo.root()}, {"report_text", report}, {"apply", true}});
  CHECK(out.at("fixes").empty());
  REQUIRE(out.at("residual").size() == 2);
  CHECK_THAT(out.at("residual")[0].at("reason").get<std::string>(),
             Catch::Contains("imports run code"));
  CHECK_THAT(out.at("residual")[1].at("reason").get<std::string>(), Catch::Contains("__eq__"));
  CHECK(repo.read("a.py") == "import torch_npu\nif x == None:\n    pass\n");
}

TEST_CASE("scope.diff limits fixes to the files changed between two revisions", "[ci-fix][scope]") {
  if (!ci_fix_test::have("git")) FAIL("git is required");
  ScratchRepo repo;
  auto git = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"git", "-c", "user.email=t@example.com", "-c", "user.name=t"});
    auto r = skillrt::ci_fix::run_command(args, repo.root());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
  };
  git({"init", "-q"});
  repo.put("old.py", "a = 1   \n");
  git({"add", "."});
  git({"commit", "-q", "-m", "base"});
  git({"tag", "base"});
  repo.put("new.py", "b = 2   \n");
  git({"add", "."});
  git({"commit", "-q", "-m", "change"});
  json out = run({{"repo", repo.root()},
                  {"run", {"whitespace"}},
                  {"scope", {{"diff", "base..HEAD"}}},
                  {"apply", true}});
  CHECK(repo.read("new.py") == "b = 2\n");
  CHECK(repo.read("old.py") == "a = 1   \n");
  bool listed = false;
  for (const json& c : out.at("commands")) {
    if (c.at("command").get<std::string>().find("diff --name-only") != std::string::npos)
      listed = true;
  }
  CHECK(listed);
}

TEST_CASE("pre-commit output and lintrunner JSON lines are ingested and fixed",
          "[ci-fix][ingest]") {
  ScratchRepo repo;
  repo.put("a.py", "x = 1   \ny = 2\n\n\n");
  repo.put("b.cpp", "int f() {\n  return 1;  \n}");
  std::string precommit =
      "trim trailing whitespace.................................................Failed\n"
      "- hook id: trailing-whitespace\n"
      "- exit code: 1\n"
      "- files were modified by this hook\n"
      "\n"
      "Fixing a.py\n"
      "\n"
      "fix end of files.........................................................Failed\n"
      "- hook id: end-of-file-fixer\n"
      "- exit code: 1\n"
      "\n"
      "Fixing a.py\n"
      "check yaml...........................................(no files to check)Skipped\n";
  json nl = {
      {"path", "b.cpp"},     {"line", nullptr},        {"char", nullptr},
      {"code", "NEWLINE"},   {"severity", "error"},    {"name", "testestTrailing newline"},
      {"original", nullptr}, {"replacement", nullptr}, {"description", "Trailing newline found"}};
  json sp = {{"path", "b.cpp"},
             {"line", 2},
             {"char", nullptr},
             {"code", "SPACES"},
             {"severity", "warning"},
             {"name", "trailing spaces"},
             {"original", nullptr},
             {"replacement", nullptr},
             {"description", "This line has trailing spaces"}};
  json out = run({{"repo", repo.root()},
                  {"report_text", precommit + nl.dump() + "\n" + sp.dump() + "\n"},
                  {"apply", true}});
  CHECK(repo.read("a.py") == "x = 1\ny = 2\n");
  CHECK(repo.read("b.cpp") == "int f() {\n  return 1;\n}\n");
  CHECK(out.at("residual").empty());
  CHECK(out.at("inputs").at("report_formats") == json::array({"pre-commit", "lintrunner"}));
  // Verified with the built-in checks, which re-check what those hooks check.
  REQUIRE(out.at("verification").size() == 1);
  CHECK(out.at("verification")[0].at("tool") == "builtin");
  CHECK(out.at("verification")[0].at("ok").get<bool>());
}

TEST_CASE("CRLF files are converted - a CR inside a C++ raw string is refused", "[ci-fix][proof]") {
  ScratchRepo repo;
  repo.put("a.py", "x = 1\r\ns = '''a\r\nb'''\r\n");
  repo.put("b.cpp", "int x;\r\nconst char* s = R\"(a\r\nb)\";\r\n");
  json out = run({{"repo", repo.root()}, {"run", {"whitespace"}}, {"apply", true}});
  CHECK(repo.read("a.py") == "x = 1\ns = '''a\nb'''\n");  // Python reads universal newlines
  CHECK(repo.read("b.cpp") == "int x;\r\nconst char* s = R\"(a\r\nb)\";\r\n");
  bool refused = false;
  for (const json& r : out.at("residual")) {
    if (r.at("file") == "b.cpp" && r.at("kind") == "proof-failed") refused = true;
  }
  CHECK(refused);
}

TEST_CASE("apply writes atomically and keeps the file mode", "[ci-fix][apply]") {
  ScratchRepo repo;
  repo.put("tool.py", "#!/usr/bin/env python3\nx = 1   \n");
  REQUIRE(chmod(repo.path("tool.py").c_str(), 0755) == 0);
  json out = run({{"repo", repo.root()}, {"run", {"whitespace"}}, {"apply", true}});
  CHECK(repo.read("tool.py") == "#!/usr/bin/env python3\nx = 1\n");
  struct stat st {};
  REQUIRE(stat(repo.path("tool.py").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0755);
  // No temporary file is left behind.
  size_t entries = 0;
  for (const auto& e : ci_fix_test::fs::directory_iterator(repo.root())) {
    (void)e;
    ++entries;
  }
  CHECK(entries == 1);
}

TEST_CASE("bad requests name the field and what to do", "[ci-fix][errors]") {
  CHECK_THROWS_WITH(run_ci_fix({{"repo", "/nonexistent/ci-fix"}}),
                    Catch::Contains("not a directory"));
  ScratchRepo repo;
  CHECK_THROWS_WITH(run_ci_fix({{"repo", repo.root()}, {"report", "missing.txt"}}),
                    Catch::Contains("cannot read"));
  CHECK_THROWS_WITH(
      run_ci_fix({{"repo", repo.root()}, {"report_text", "x"}, {"report_format", "pylint"}}),
      Catch::Contains("report_format"));
  CHECK_THROWS_WITH(run_ci_fix({{"repo", repo.root()}, {"scope", {{"files", {"../x.py"}}}}}),
                    Catch::Contains("outside the repository"));
}

TEST_CASE("real torch_npu files: continuation lines, escapes and backslashes fixed, nothing new",
          "[ci-fix][flake8][real]") {
  if (!ci_fix_test::have("flake8")) {
    FAIL("flake8 is not installed: scripts/install-deps.sh installs the Debian package");
  }
  const std::vector<std::string> files = {
      "torch_npu/onnx/wrapper_ops_combined.py",
      "torch_npu/utils/_error_code.py",
      "torch_npu/optim/npu_fused_adamp.py",
      "torch_npu/optim/npu_fused_rmsprop.py",
      "torch_npu/distributed/tensor/_math_ops.py",
      "torch_npu/profiler/analysis/prof_view/_trace_step_time_parser.py",
      "torch_npu/profiler/analysis/prof_view/prof_db_parse/_trace_step_time_db_parser.py",
      "torch_npu/contrib/__init__.py"};
  ScratchRepo repo;
  repo.copy_fixture("torch_npu_slice/dot.flake8", ".flake8");
  for (const std::string& f : files) repo.copy_fixture("torch_npu_slice/" + f, f);
  const auto before = ci_fix_test::flake8(repo.root(), files);
  REQUIRE(before.size() == 58);

  // A dry run first: one patch per class for a reviewer, each against the original tree.
  json dry = run({{"repo", repo.root()}, {"run", {"flake8"}}, {"patch_by_class", true}});
  const json& cp = dry.at("class_patches");
  for (const char* k : {"continuation-layout", "string-escapes", "token-spacing"}) {
    INFO(k);
    REQUIRE(cp.contains(k));
    CHECK(cp.at(k).get<std::string>().find("+++ b/torch_npu/") != std::string::npos);
  }
  CHECK(cp.at("string-escapes").get<std::string>().find("\\\\[ERROR\\\\]") != std::string::npos);
  const std::string md = dry.at("markdown");
  CHECK(md.find("## By file") != std::string::npos);
  CHECK(md.find("| torch_npu/utils/_error_code.py | string-escapes 12 | - |") != std::string::npos);
  // Every changed file (all but npu_fused_adamp.py, whose one finding stays) had its tree compared.
  CHECK(dry.at("summary").at("syntax_trees").at("checked") == files.size() - 1);
  CHECK(dry.at("summary").at("syntax_trees").at("reverted") == 0);

  json out = run({{"repo", repo.root()}, {"run", {"flake8"}}, {"apply", true}});
  const auto after = ci_fix_test::flake8(repo.root(), files);
  // What is left is what must stay: two closing brackets whose only accepted places are the
  // indent of the block their statement opens.
  CHECK(ci_fix_test::keys(after) ==
        std::multiset<std::pair<std::string, uint32_t>>{{"E124", 683}, {"E122", 216}});
  const json& v = out.at("verification")[0];
  CHECK(v.at("new").empty());
  std::map<std::string, int> fixed_by_class;
  for (const json& f : out.at("fixes")) {
    CHECK(f.at("proof").at("passed").get<bool>());
    ++fixed_by_class[f.at("class").get<std::string>()];
  }
  CHECK(fixed_by_class["continuation-layout"] >= 4);
  CHECK(fixed_by_class["string-escapes"] == 14);
  for (const json& r : out.at("residual")) {
    CHECK(!r.at("reason").get<std::string>().empty());
    CHECK(!r.at("suggestion").get<std::string>().empty());
  }
  // The syntax tree of every file is what it was (Python's own ast, an independent proof).
  for (const std::string& f : files) {
    INFO(f);
    const std::string script =
        "import ast,sys\n"
        "a=ast.dump(ast.parse(open(sys.argv[1],'rb').read()))\n"
        "b=ast.dump(ast.parse(open(sys.argv[2],'rb').read()))\n"
        "sys.exit(0 if a==b else 1)\n";
    repo.put("ast_check.py", script);
    const std::string cmd = "/usr/bin/python3 '" + repo.path("ast_check.py") + "' '" +
                            ci_fix_test::fixture("torch_npu_slice/" + f) + "' '" + repo.path(f) +
                            "'";
    CHECK(std::system(cmd.c_str()) == 0);
  }
  std::filesystem::remove(repo.path("ast_check.py"));
  // A second run finds nothing more to fix.
  json again = run({{"repo", repo.root()}, {"run", {"flake8"}}, {"apply", true}});
  CHECK(again.at("fixes").empty());
  CHECK(again.at("written").empty());
}

TEST_CASE("undefined and redefined names: the suggestion names them", "[ci-fix][whitelist]") {
  if (!ci_fix_test::have("flake8")) {
    FAIL("flake8 is not installed: scripts/install-deps.sh installs the Debian package");
  }
  ScratchRepo repo;
  repo.put(
      "m.py",
      "def f():\n    return undefined_thing\n\n\ndef g():\n    pass\n\n\ndef g():\n    pass\n");
  json out = run({{"repo", repo.root()}, {"run", {"flake8"}}});
  std::map<std::string, std::string> by_rule;
  for (const json& r : out.at("residual")) by_rule[r.at("rule")] = r.at("suggestion");
  REQUIRE(by_rule.count("F821") == 1);
  CHECK(by_rule["F821"].find("`undefined_thing`") != std::string::npos);
  REQUIRE(by_rule.count("F811") == 1);
  CHECK(by_rule["F811"].find("`g`") != std::string::npos);
}

TEST_CASE("W504 moves the operator below the break when the config wants W503 off",
          "[ci-fix][flake8]") {
  if (!ci_fix_test::have("flake8")) {
    FAIL("flake8 is not installed: scripts/install-deps.sh installs the Debian package");
  }
  const std::string src =
      "def f(a, b, c):\n"
      "    x = (a +\n"
      "         b)\n"
      "    if (a and\n"
      "            b):\n"
      "        return [a,\n"
      "                b *\n"
      "                c]\n"
      "    y = (a +  # keep this comment\n"
      "         b)\n"
      "    return x, y\n";
  ScratchRepo repo;
  repo.put("setup.cfg", "[flake8]\nselect = E,W\nignore = W503\n");
  repo.put("m.py", src);
  REQUIRE(ci_fix_test::flake8(repo.root(), {"m.py"}).size() == 4);
  json out = run({{"repo", repo.root()}, {"run", {"flake8"}}, {"apply", true}});
  // The operator with a comment after it stays, with the reason.
  CHECK(ci_fix_test::keys(ci_fix_test::flake8(repo.root(), {"m.py"})) ==
        std::multiset<std::pair<std::string, uint32_t>>{{"W504", 9}});
  CHECK(repo.read("m.py").find("    x = (a\n         + b)\n") != std::string::npos);
  CHECK(repo.read("m.py").find("    if (a\n            and b):\n") != std::string::npos);
  CHECK(out.at("verification")[0].at("new").empty());
  bool comment_reason = false;
  for (const json& r : out.at("residual")) {
    if (r.at("rule") == "W504" &&
        r.at("reason").get<std::string>().find("comment") != std::string::npos) {
      comment_reason = true;
    }
  }
  CHECK(comment_reason);
  // With both W503 and W504 reported, moving would trade one for the other: refused.
  ScratchRepo both;
  both.put("setup.cfg", "[flake8]\nselect = E,W\nignore = E121\n");
  both.put("m.py", src);
  json refused = run({{"repo", both.root()}, {"run", {"flake8"}}, {"apply", true}});
  CHECK(both.read("m.py") == src);
  for (const json& r : refused.at("residual")) {
    if (r.at("rule") == "W504") {
      CHECK(r.at("reason").get<std::string>().find("trade one finding for the other") !=
            std::string::npos);
    }
  }
}
