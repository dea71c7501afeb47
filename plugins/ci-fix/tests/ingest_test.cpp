// Report parsers: one case per format the skill ingests.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "ingest.hpp"

using namespace skillrt::ci_fix;

TEST_CASE("flake8, pycodestyle and ruff text", "[ci-fix][ingest]") {
  auto r = ingest_report(
      "torch_npu/utils/a.py:12:80: E501 line too long (130 > 120 characters)\n"
      "./b.py:3:1: F401 'os' imported but unused\n"
      "c.py:7:5: SIM102 Use a single if-statement\n",
      "auto");
  REQUIRE(r.findings.size() == 3);
  CHECK(r.findings[0].path == "torch_npu/utils/a.py");
  CHECK(r.findings[0].line == 12);
  CHECK(r.findings[0].col == 80);
  CHECK(r.findings[0].code == "E501");
  CHECK(r.findings[0].message == "line too long (130 > 120 characters)");
  CHECK(r.findings[1].path == "./b.py");
  CHECK(r.findings[2].code == "SIM102");
  auto ruff = ingest_report("x.py:1:1: F401 [*] `os` imported but unused\n", "ruff");
  REQUIRE(ruff.findings.size() == 1);
  CHECK(ruff.findings[0].tool == "ruff");
  CHECK(ruff.findings[0].message == "`os` imported but unused");
}

TEST_CASE("lintrunner JSON lines", "[ci-fix][ingest]") {
  nlohmann::json f8 = {
      {"path", "torch_npu/a.py"},
      {"line", 4},
      {"char", 1},
      {"code", "FLAKE8"},
      {"severity", "advice"},
      {"name", "E302"},
      {"original", nullptr},
      {"replacement", nullptr},
      {"description",
       "expected 2 blank lines, found 1\nSee https://www.flake8rules.com/rules/E302.html"}};
  nlohmann::json cf = {{"path", "torch_npu/csrc/x.cpp"},
                       {"line", nullptr},
                       {"char", nullptr},
                       {"code", "CLANGFORMAT"},
                       {"severity", "warning"},
                       {"name", "format"},
                       {"original", "int  x;\n"},
                       {"replacement", "int x;\n"},
                       {"description", "See https://clang.llvm.org/docs/ClangFormat.html."}};
  auto r = ingest_report(f8.dump() + "\n" + cf.dump() + "\n", "lintrunner");
  REQUIRE(r.findings.size() == 2);
  CHECK(r.findings[0].tool == "flake8");
  CHECK(r.findings[0].via == "lintrunner");
  CHECK(r.findings[0].code == "E302");
  CHECK(r.findings[0].message == "expected 2 blank lines, found 1");
  CHECK(r.findings[1].tool == "lintrunner");
  CHECK(r.findings[1].code == "CLANGFORMAT");
  CHECK(r.findings[1].line == 0);
  REQUIRE(r.findings[1].replacement);
  CHECK(*r.findings[1].replacement == "int x;\n");
}

TEST_CASE("cpplint, clang-tidy and cppcheck text", "[ci-fix][ingest]") {
  auto r = ingest_report(
      "op_plugin/ops/a.cpp:12:  Line ends in whitespace.  Consider deleting these extra spaces.  "
      "[whitespace/end_of_line] [4]\n"
      "op_plugin/ops/a.cpp:0:  No copyright message found.  [legal/copyright] [5]\n"
      "src/b.cpp:10:5: warning: use nullptr [modernize-use-nullptr]\n"
      "src/b.cpp:10:5: note: expanded from here\n"
      "src/c.cpp:3:7: style: Variable 'x' is assigned a value that is never used. "
      "[unreadVariable]\n",
      "auto");
  REQUIRE(r.findings.size() == 4);
  CHECK(r.findings[0].tool == "cpplint");
  CHECK(r.findings[0].code == "whitespace/end_of_line");
  CHECK(r.findings[0].severity == "4");
  CHECK(r.findings[1].code == "legal/copyright");
  CHECK(r.findings[2].tool == "clang-tidy");
  CHECK(r.findings[2].code == "modernize-use-nullptr");
  CHECK(r.findings[3].tool == "cppcheck");
  CHECK(r.findings[3].code == "unreadVariable");
}

TEST_CASE("codespell and typos (brief, long, JSON)", "[ci-fix][ingest]") {
  auto r = ingest_report(
      "docs/a.md:3: teh ==> the\n"
      "docs/b.rst:9: ot ==> to, of, or, not\n"
      "src/x.py:4:10: `recieve` -> `receive`\n"
      "error: `seperate` should be `separate`\n"
      "  --> ./src/y.py:7:3\n"
      "{\"type\":\"typo\",\"path\":\"z.py\",\"line_num\":2,\"byte_offset\":4,\"typo\":\"occured\","
      "\"corrections\":[\"occurred\"]}\n",
      "auto");
  REQUIRE(r.findings.size() == 5);
  CHECK(r.findings[0].tool == "codespell");
  CHECK(r.findings[0].word == "teh");
  CHECK(r.findings[0].correction == "the");
  CHECK(r.findings[1].correction.empty());  // ambiguous: left for a person
  CHECK(r.findings[2].tool == "typos");
  CHECK(r.findings[2].col == 10);
  CHECK(r.findings[2].correction == "receive");
  CHECK(r.findings[3].path == "./src/y.py");
  CHECK(r.findings[3].line == 7);
  CHECK(r.findings[3].correction == "separate");
  CHECK(r.findings[4].path == "z.py");
  CHECK(r.findings[4].correction == "occurred");
}

TEST_CASE("pre-commit output wraps hook sections", "[ci-fix][ingest]") {
  auto r = ingest_report(
      "trim trailing whitespace.................................................Failed\n"
      "- hook id: trailing-whitespace\n"
      "- exit code: 1\n"
      "- files were modified by this hook\n"
      "\n"
      "Fixing op_plugin/ops/a.cpp\n"
      "\n"
      "check yaml...............................................................Failed\n"
      "- hook id: check-yaml\n"
      "- exit code: 1\n"
      "\n"
      "while parsing a block mapping\n"
      "  in \"op_plugin/config/x.yaml\", line 3, column 1\n"
      "codespell................................................................Failed\n"
      "- hook id: codespell\n"
      "- exit code: 65\n"
      "\n"
      "README.txt:5: recieve ==> receive\n"
      "bandit...................................................................Passed\n",
      "auto");
  REQUIRE(r.findings.size() == 3);
  CHECK(r.findings[0].tool == "pre-commit");
  CHECK(r.findings[0].code == "trailing-whitespace");
  CHECK(r.findings[0].path == "op_plugin/ops/a.cpp");
  CHECK(r.findings[1].code == "check-yaml");  // a failed hook with nothing parseable: one finding
  CHECK(r.findings[1].path.empty());
  CHECK(r.findings[2].tool == "codespell");
  CHECK(r.findings[2].via == "pre-commit");
  CHECK(r.formats.front() == "pre-commit");
}

TEST_CASE("unknown lines and formats", "[ci-fix][ingest]") {
  auto r = ingest_report("some banner\na.py:1:1: E302 expected 2 blank lines, found 0\n", "auto");
  CHECK(r.findings.size() == 1);
  CHECK(r.unparsed_count == 1);
  CHECK_THROWS_WITH(ingest_report("", "pylint"), Catch::Contains("report_format"));
}

TEST_CASE("clang-format replacements XML", "[ci-fix][ingest]") {
  std::string src = "int  f(int a,int b){\n  return a+b;\n}\n";
  std::string xml =
      "<?xml version='1.0'?>\n<replacements xml:space='preserve' incomplete_format='false'>\n"
      "<replacement offset='3' length='2'> </replacement>\n"
      "<replacement offset='19' length='0'> </replacement>\n"
      "<replacement offset='20' length='1'>&#10;</replacement>\n"
      "</replacements>\n";
  std::string err;
  auto reps = parse_clang_format_xml(xml, "x.cpp", src, &err);
  REQUIRE(err.empty());
  REQUIRE(reps.size() == 3);
  CHECK(reps[0].edit.begin == 3);
  CHECK(reps[0].edit.end == 5);
  CHECK(reps[0].edit.text == " ");
  CHECK(reps[0].line == 1);
  CHECK(reps[2].edit.text == "\n");
  CHECK(reps[2].line == 1);
  CHECK(reps[2].end_line == 1);
}
