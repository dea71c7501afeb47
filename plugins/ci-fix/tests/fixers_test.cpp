// Each whitelisted fixer on small inputs, through the engine (so each fix is also proven).
#include <catch2/catch.hpp>

#include <string>

#include "engine.hpp"
#include "ingest.hpp"
#include "patch.hpp"
#include "skill.hpp"

using namespace skillrt::ci_fix;

namespace {

struct Run {
  FileResult result;
  std::vector<Finding> findings;
};

// Runs the engine on one file with the findings of a report.
Run fix(const std::string& path, const std::string& text, const std::string& report,
        const std::string& format = "auto") {
  static const Whitelist wl = Whitelist::parse(embedded_data("whitelist.json"));
  static const TypoTable typos = TypoTable::parse(embedded_data("typos.tsv"));
  Run run;
  run.findings = ingest_report(report, format).findings;
  LineIndex lines(text);
  TokenStream ts = tokenize(text, language_for(path));
  FileContext ctx;
  ctx.rel_path = path;
  ctx.lang = language_for(path);
  ctx.text = text;
  ctx.lines = &lines;
  ctx.tokens = &ts;
  ctx.typos = &typos;
  ctx.eol = std::string(dominant_eol(text));
  prepare_context(&ctx);
  std::vector<size_t> ids;
  for (size_t k = 0; k < run.findings.size(); ++k) ids.push_back(k);
  run.result = process_file(ctx, run.findings, ids, wl, EngineOptions{});
  return run;
}

std::string fixed(const std::string& path, const std::string& text, const std::string& report) {
  Run r = fix(path, text, report);
  for (const auto& x : r.result.residual) UNSCOPED_INFO(x.kind << ": " << x.reason);
  for (const auto& f : r.result.fixes) CHECK(f.proof.passed);
  return r.result.fixed;
}

}  // namespace

TEST_CASE("trailing whitespace, final newline, blank lines at the end", "[ci-fix][fixers]") {
  CHECK(fixed("a.py", "x = 1  \t\ny = 2\n", "a.py:1:6: W291 trailing whitespace\n") ==
        "x = 1\ny = 2\n");
  CHECK(fixed("a.py", "def f():\n    pass\n    \n", "a.py:3:1: W293 whitespace on blank line\n") ==
        "def f():\n    pass\n\n");
  CHECK(fixed("a.py", "x = 1", "a.py:1:6: W292 no newline at end of file\n") == "x = 1\n");
  CHECK(fixed("a.py", "x = 1\n\n  \n\n", "a.py:4:1: W391 blank line at end of file\n") ==
        "x = 1\n");
  CHECK(fixed("a.cpp", "int x;\r\nint y;",
              "a.cpp:2:  Could not find a newline character at the end of the file.  "
              "[whitespace/ending_newline] [5]\n") == "int x;\r\nint y;\r\n");
}

TEST_CASE("blank-line counts (E301-E306)", "[ci-fix][fixers]") {
  CHECK(fixed("a.py", "import os\ndef f():\n    pass\n",
              "a.py:2:1: E302 expected 2 blank lines, found 0\n") ==
        "import os\n\n\ndef f():\n    pass\n");
  // Comments that lead into the definition stay attached to it.
  CHECK(fixed("a.py", "x = 1\n# about f\ndef f():\n    pass\n",
              "a.py:3:1: E302 expected 2 blank lines, found 0\n") ==
        "x = 1\n\n\n# about f\ndef f():\n    pass\n");
  CHECK(fixed("a.py", "x = 1\n\n# about f\ndef f():\n    pass\n",
              "a.py:4:1: E302 expected 2 blank lines, found 1\n") ==
        "x = 1\n\n\n# about f\ndef f():\n    pass\n");
  CHECK(fixed("a.py", "x = 1\n\n\n\n\ny = 2\n", "a.py:6:1: E303 too many blank lines (4)\n") ==
        "x = 1\n\n\ny = 2\n");
  CHECK(fixed("a.py", "class A:\n    x = 1\n\n\n    def f(self):\n        pass\n",
              "a.py:5:5: E303 too many blank lines (2)\n") ==
        "class A:\n    x = 1\n\n    def f(self):\n        pass\n");
  CHECK(fixed("a.py", "@d\n\ndef f():\n    pass\n",
              "a.py:3:1: E304 blank lines found after function decorator (1)\n") ==
        "@d\ndef f():\n    pass\n");
  CHECK(
      fixed(
          "a.py", "def f():\n    pass\nx = 1\n",
          "a.py:3:1: E305 expected 2 blank lines after class or function definition, found 0\n") ==
      "def f():\n    pass\n\n\nx = 1\n");
  // A "blank" line inside a triple-quoted string is not a blank line.
  Run r = fix("a.py", "s = '''\n\n\n\n'''\ny = 2\n", "a.py:6:1: E303 too many blank lines (3)\n");
  CHECK(r.result.fixes.empty());
  CHECK(r.result.fixed == "s = '''\n\n\n\n'''\ny = 2\n");
}

TEST_CASE("token spacing (E2xx)", "[ci-fix][fixers]") {
  CHECK(fixed("a.py", "x=a+b\n", "a.py:1:2: E225 missing whitespace around operator\n") ==
        "x = a+b\n");
  CHECK(fixed("a.py", "x = a if(b) else c\n",
              "a.py:1:9: E275 missing whitespace after keyword\n") == "x = a if (b) else c\n");
  CHECK(fixed("a.py", "f(a = 1)\n",
              "a.py:1:4: E251 unexpected spaces around keyword / parameter equals\n"
              "a.py:1:6: E251 unexpected spaces around keyword / parameter equals\n") ==
        "f(a=1)\n");
  CHECK(
      fixed(
          "a.py", "y = [1,2 , 3]\n",
          "a.py:1:7: E231 missing whitespace after ','\na.py:1:9: E203 whitespace before ','\n") ==
      "y = [1, 2, 3]\n");
  CHECK(fixed("a.py", "f( x )\n",
              "a.py:1:3: E201 whitespace after '('\na.py:1:5: E202 whitespace before ')'\n") ==
        "f(x)\n");
  CHECK(fixed("a.py", "x = 1 # c\n",
              "a.py:1:6: E261 at least two spaces before inline comment\n") == "x = 1  # c\n");
  CHECK(fixed("a.py", "x  = 1\n", "a.py:1:2: E221 multiple spaces before operator\n") == "x = 1\n");
  CHECK(fixed("a.py", "return  x\n", "a.py:1:7: E271 multiple spaces after keyword\n") ==
        "return x\n");
}

TEST_CASE("comment prefixes and directive comments (E262/E265/E266)", "[ci-fix][fixers]") {
  CHECK(fixed("a.py", "#block\nx = 1  #inline\n",
              "a.py:1:1: E265 block comment should start with '# '\n"
              "a.py:2:8: E262 inline comment should start with '# '\n") ==
        "# block\nx = 1  # inline\n");
  CHECK(fixed("a.py", "## section\n", "a.py:1:1: E266 too many leading '#' for block comment\n") ==
        "# section\n");
  Run r =
      fix("a.py", "import x  #noqa\n", "a.py:1:11: E262 inline comment should start with '# '\n");
  CHECK(r.result.fixes.empty());
  REQUIRE(r.result.residual.size() == 1);
  CHECK_THAT(r.result.residual[0].reason, Catch::Contains("tools obey"));
}

TEST_CASE("indentation: re-indent to 4 spaces keeping the block structure", "[ci-fix][fixers]") {
  std::string src = "if x:\n\ty = (1,\n\t     2)\n\tif z:\n\t\tpass\n";
  std::string got =
      fixed("a.py", src,
            "a.py:2:1: W191 indentation contains tabs\na.py:5:1: W191 indentation contains tabs\n");
  CHECK(got == "if x:\n    y = (1,\n         2)\n    if z:\n        pass\n");
  CHECK(fixed("a.py", "if x:\n  y = 1\n", "a.py:2:3: E111 indentation is not a multiple of 4\n") ==
        "if x:\n    y = 1\n");
  // A string that spans lines is never re-indented.
  CHECK(fixed("a.py", "if x:\n  s = '''a\n  b'''\n",
              "a.py:2:3: E111 indentation is not a multiple of 4\n") ==
        "if x:\n    s = '''a\n  b'''\n");
}

TEST_CASE("tabs: lintrunner TABS and cpplint whitespace/tab leave tabs in literals alone",
          "[ci-fix][fixers]") {
  Run r = fix("a.cpp", "int x;\n\tconst char* s = \"a\tb\";\n",
              "a.cpp:2:  Tab found; better to use spaces  [whitespace/tab] [1]\n");
  CHECK(r.result.fixed == "int x;\n    const char* s = \"a\tb\";\n");
  REQUIRE(r.result.residual.size() == 1);
  CHECK_THAT(r.result.residual[0].reason, Catch::Contains("inside string literals"));
}

TEST_CASE("typos: comments and prose only, never identifiers, strings or code spans",
          "[ci-fix][fixers]") {
  CHECK(fixed("a.py", "x = 1  # Teh value\n", "a.py:1:10: `Teh` -> `The`\n") ==
        "x = 1  # The value\n");
  Run s = fix("a.py", "x = 'teh'\n", "a.py:1: teh ==> the\n");
  CHECK(s.result.fixes.empty());
  REQUIRE(s.result.residual.size() == 1);
  CHECK_THAT(s.result.residual[0].reason, Catch::Contains("string literal"));
  // The misspelling also names code in this file: renaming is not whitelisted.
  Run id =
      fix("a.py", "pre_tockens = 1  # pre_tockens and tockens\n", "a.py:1: tockens ==> tokens\n");
  CHECK(id.result.fixes.empty());
  CHECK_THAT(id.result.residual[0].reason, Catch::Contains("identifier"));
  CHECK(fixed("docs/a.md", "Teh intro, `teh_fn` and:\n\n```\nteh\n```\n",
              "docs/a.md:1: Teh ==> The\n") == "The intro, `teh_fn` and:\n\n```\nteh\n```\n");
  // No single correction: left for a person.
  Run amb = fix("a.py", "# ot\n", "a.py:1: ot ==> to, of, or, not\n");
  CHECK(amb.result.fixes.empty());
  // A misspelling in a file type without a tokenizer cannot be proven.
  Run txt = fix("notes.txt", "teh\n", "notes.txt:1: teh ==> the\n");
  CHECK(txt.result.fixes.empty());
  CHECK(txt.result.residual[0].kind == "refused");
}

TEST_CASE("exclusions: Markdown trailing spaces, Makefile tabs, protected paths",
          "[ci-fix][fixers]") {
  Run md = fix("README.md", "line  \nnext\n", "", "auto");
  (void)md;
  static const Whitelist wl = Whitelist::parse(embedded_data("whitelist.json"));
  Finding f;
  f.tool = "pre-commit";
  f.code = "trailing-whitespace";
  Verdict v = wl.judge(f, "docs/README.md");
  CHECK(!v.fixable);
  CHECK_THAT(v.why_not, Catch::Contains("line break"));
  f.tool = "lintrunner";
  f.code = "TABS";
  CHECK(!wl.judge(f, "build/Makefile").fixable);
  CHECK(wl.is_protected("op_plugin/OpApiInterface.h"));
  CHECK(wl.is_protected("third_party/acl/inc/x.h"));
  CHECK(!wl.is_protected("op_plugin/ops/add.cpp"));
}

TEST_CASE("patch hunks and line mapping", "[ci-fix][patch]") {
  std::string text = "a\nb\nc\nd\n";
  LineIndex li(text);
  std::vector<Edit> edits = {{2, 2, "\n"}, {5, 5, " "}};  // blank line before b; space after c
  std::string h = diff_hunks(text, li, edits, 1);
  CHECK(h == "@@ -1,4 +1,5 @@\n a\n+\n b\n-c\n+c \n d\n");
  std::string after = apply_edits(text, edits);
  LineIndex la(after);
  CHECK(map_line(li, edits, la, 2) == 3);
  CHECK(map_line(li, edits, la, 4) == 5);
  // A file without a final newline.
  std::string t2 = "x";
  LineIndex l2(t2);
  CHECK(diff_hunks(t2, l2, {{1, 1, "\n"}}, 3) ==
        "@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+x\n");
}
