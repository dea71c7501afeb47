// The tokenizers and the token-stream proof.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "proof.hpp"
#include "tokens.hpp"

using namespace skillrt::ci_fix;

namespace {

// "KIND:text" for each significant token.
std::vector<std::string> sig(std::string_view src, Language lang) {
  TokenStream ts = tokenize(src, lang);
  std::vector<std::string> out;
  for (const Token& t : ts.tokens) {
    if (!is_significant(t.kind)) continue;
    std::string text = token_text(src, t, lang);
    out.push_back(std::string(kind_name(t.kind)) + (text.empty() ? "" : ":" + text));
  }
  return out;
}

bool same(std::string_view a, std::string_view b, Language lang,
          ProofLevel level = ProofLevel::kWhitespace) {
  TokenStream ta = tokenize(a, lang);
  TokenStream tb = tokenize(b, lang);
  ProofResult r = compare_streams(a, ta, b, tb, level);
  INFO(r.detail);
  return r.passed;
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("python: logical lines, indentation and continuations", "[ci-fix][tokens][python]") {
  CHECK(sig("if x:\n    y = (1,\n  2)\n", Language::kPython) ==
        V{"NAME:if", "NAME:x", "OP::", "NEWLINE:\n", "INDENT", "NAME:y", "OP:=", "OP:(", "NUMBER:1",
          "OP:,", "NUMBER:2", "OP:)", "NEWLINE:\n", "DEDENT", "END"});
  // Blank and comment-only lines are layout; a backslash joins lines.
  CHECK(sig("x = 1 + \\\n    2  # c\n\n# only\n", Language::kPython) ==
        V{"NAME:x", "OP:=", "NUMBER:1", "OP:+", "NUMBER:2", "NEWLINE:\n", "END"});
  // The missing final newline is implied, as CPython does.
  CHECK(sig("x = 1", Language::kPython) == sig("x = 1\n", Language::kPython));
  // A backslash followed by blanks is not a continuation: an error token.
  CHECK(sig("x = 1 \\ \n", Language::kPython)[3] == "ERROR:\\");
  // Tabs: CPython's TabError is an error token, so making the file valid changes the stream.
  CHECK(!same("if x:\n\ty = 1\n        z = 2\n", "if x:\n        y = 1\n        z = 2\n",
              Language::kPython));
  CHECK(same("if x:\n\ty = 1\n\tz = 2\n", "if x:\n    y = 1\n    z = 2\n", Language::kPython));
}

TEST_CASE("python: strings, prefixes and f-strings", "[ci-fix][tokens][python]") {
  CHECK(sig("s = rb'a\\'b' + f\"{x!r:>{w}}\"\n", Language::kPython) ==
        V{"NAME:s", "OP:=", "STRING:rb'a\\'b'", "OP:+", "STRING:f\"{x!r:>{w}}\"", "NEWLINE:\n",
          "END"});
  // PEP 701: a nested string with the same quotes stays inside the f-string.
  CHECK(sig("f\"{d[\"k\"]}  \"\n", Language::kPython) ==
        V{"STRING:f\"{d[\"k\"]}  \"", "NEWLINE:\n", "END"});
  // Triple-quoted strings keep their blanks: changing them fails the proof.
  CHECK(!same("s = '''a   \nb'''\n", "s = '''a\nb'''\n", Language::kPython));
  CHECK(!same("s = f'{x}  '\n", "s = f'{x} '\n", Language::kPython));
  // Universal newlines: CRLF inside a literal reads as LF.
  CHECK(same("s = '''a\r\nb'''\r\n", "s = '''a\nb'''\n", Language::kPython));
  // Numbers: 1if is NUMBER NAME, hex digits stop at a non-hex letter.
  CHECK(sig("1if x else 0x1f\n", Language::kPython) ==
        V{"NUMBER:1", "NAME:if", "NAME:x", "NAME:else", "NUMBER:0x1f", "NEWLINE:\n", "END"});
}

TEST_CASE("python: directive comments are tokens", "[ci-fix][tokens][python]") {
  CHECK(!same("import x  # noqa: F401\n", "import x  # noqa:F401\n", Language::kPython));
  CHECK(!same("# -*- coding: latin-1 -*-\nx = 1\n", "# -*- coding: utf-8 -*-\nx = 1\n",
              Language::kPython));
  // A coding cookie only works on lines 1-2: moving it, or moving a comment into them, fails.
  CHECK(!same("#!/usr/bin/env python\n# coding: latin-1\nx = 1\n",
              "#!/usr/bin/env python\n\n# coding: latin-1\nx = 1\n", Language::kPython));
  CHECK(
      !same("\n\n\n# coding: latin-1\nx = 1\n", "\n# coding: latin-1\nx = 1\n", Language::kPython));
  CHECK(same("x = 1  # teh\n", "x = 1  # the\n", Language::kPython, ProofLevel::kComment));
  // A comment-only fix must not touch anything outside comments.
  CHECK(!same("x = 1  # teh\n", "x = 1 # the\n", Language::kPython, ProofLevel::kComment));
}

TEST_CASE("python: whitespace fixes keep the stream - token changes do not",
          "[ci-fix][tokens][python]") {
  CHECK(same("def f(a = 1):\n  return  a+1   \n", "def f(a=1):\n    return a + 1\n",
             Language::kPython));
  CHECK(!same("x = a if b else c\n", "x = a if b else  d\n", Language::kPython));
  CHECK(!same("x = 1 ** 2\n", "x = 1 * * 2\n", Language::kPython));
  CHECK(!same("x == None\n", "x is None\n", Language::kPython));
}

TEST_CASE("c++: splices, raw strings, pp-numbers, header names, directives",
          "[ci-fix][tokens][cpp]") {
  CHECK(sig("#include <a b.h>\nint x = 0xe+1;\n", Language::kCpp) ==
        V{"OP:#", "NAME:include", "HEADER_NAME:<a b.h>", "DIRECTIVE_END:\n", "NAME:int", "NAME:x",
          "OP:=", "NUMBER:0xe+1", "OP:;", "END"});
  // A splice inside an identifier joins it; a splice in a directive continues it.
  CHECK(sig("#define A 1 \\\n  + 2\nin\\\nt y;\n", Language::kCpp) ==
        V{"OP:#", "NAME:define", "NAME:A", "NUMBER:1", "OP:+", "NUMBER:2", "DIRECTIVE_END:\n",
          "NAME:int", "NAME:y", "OP:;", "END"});
  // Raw strings keep everything, also what looks like a splice or a comment.
  CHECK(sig("auto s = R\"x(a\\\n// b)x\"_sv;\n", Language::kCpp)[3] ==
        "STRING:R\"x(a\\\n// b)x\"_sv");
  CHECK(!same("auto s = R\"(a   \n)\";\n", "auto s = R\"(a\n)\";\n", Language::kCpp));
  // A line comment continued by a splice swallows the next line.
  CHECK(sig("// c \\\nint x;\n", Language::kCpp) == V{"END"});
  // Removing the blank after a backslash creates a splice: a different program.
  CHECK(!same("// c \\ \nint x;\n", "// c \\\nint x;\n", Language::kCpp));
  CHECK(sig("a<::b>c;\n", Language::kCpp) ==
        V{"NAME:a", "OP:<", "OP:::", "NAME:b", "OP:>", "NAME:c", "OP:;", "END"});
}

TEST_CASE("c++: spacing inside macro arguments and #define bodies is observable",
          "[ci-fix][tokens][cpp]") {
  // TORCH_CHECK(a==b) reports "a==b" through #cond.
  CHECK(!same("TORCH_CHECK(a==b, \"m\");\n", "TORCH_CHECK(a == b, \"m\");\n", Language::kCpp));
  // Spacing around the argument separators and parentheses is not spelled.
  CHECK(same("TORCH_CHECK( a==b,\"m\" );\n", "TORCH_CHECK(a==b, \"m\");\n", Language::kCpp));
  // Amount of whitespace does not matter, only whether there is any.
  CHECK(same("CHECK(a  ==   b);\n", "CHECK(a == b);\n", Language::kCpp));
  // Ordinary calls are not macros.
  CHECK(same("check(a==b);\n", "check(a == b);\n", Language::kCpp));
  // #define F(x) vs #define F (x): function-like vs object-like.
  CHECK(!same("#define F(x) x\n", "#define F (x) x\n", Language::kCpp));
  CHECK(same("#if  A&&B\n#endif\n", "#if A && B\n#endif\n", Language::kCpp));
  // Merging '> >' into '>>' changes the token stream.
  CHECK(!same("std::vector<std::vector<int> > v;\n", "std::vector<std::vector<int>> v;\n",
              Language::kCpp));
}

// Found by the ci_fix_tokens fuzz target (tests/fuzz), which checks what the proofs assume of the
// streams; its corpus keeps the inputs.
TEST_CASE("python: a vertical tab is an error, not a blank", "[ci-fix][tokens][python]") {
  // CPython rejects U+000B outside literals and comments ("invalid non-printable character"):
  // removing it turns an invalid file into a valid one, which the proof must see.
  CHECK(sig("x =\v1\n", Language::kPython) ==
        V{"NAME:x", "OP:=", "ERROR:\v", "NUMBER:1", "NEWLINE:\n", "END"});
  CHECK(!same("x = 1\v\n", "x = 1\n", Language::kPython));
  // Inside a comment it is comment text.
  CHECK(same("x = 1  # c\v\n", "x = 1  # c\n", Language::kPython));
}

TEST_CASE("c++: a token's line is the line of its first byte", "[ci-fix][tokens][cpp]") {
  // Splices inside or after a token, and punctuators tried across a splice, move the line on
  // for the next token only.
  auto lines = [](std::string_view src) {
    std::vector<uint32_t> out;
    for (const Token& t : tokenize(src, Language::kCpp).tokens) {
      if (is_significant(t.kind) && t.kind != TokKind::kEnd) out.push_back(t.line);
    }
    return out;
  };
  CHECK(lines("int ab\\\ncd;\n") == std::vector<uint32_t>{1, 1, 2});
  CHECK(lines("a.\\\nb;\n") == std::vector<uint32_t>{1, 1, 2, 2});
  CHECK(lines("auto s = R\\\n\"(x\ny)\";\nint z;\n") ==
        std::vector<uint32_t>{1, 1, 1, 1, 3, 4, 4, 4});
}

TEST_CASE("c++: line ends are layout in directives too", "[ci-fix][tokens][cpp][proof]") {
  // CRLF, CR and LF end a directive alike; the end of the file ends the last one.
  CHECK(same("#include <x>\r\nint a;\r\n", "#include <x>\nint a;\n", Language::kCpp));
  CHECK(same("#if A\r#endif\r", "#if A\n#endif\n", Language::kCpp));
  CHECK(same("#pragma once\n#endif", "#pragma once\n#endif\n", Language::kCpp));
  // A CR inside a raw string is still content.
  CHECK(!same("auto s = R\"(a\r\nb)\";\n", "auto s = R\"(a\nb)\";\n", Language::kCpp));
}

TEST_CASE("c++: blanks alone between a lone CR and an LF are not trailing blanks",
          "[ci-fix][tokens][cpp][proof]") {
  // Found by the ci_fix_tokens fuzz target: stripping the form feed of backslash, CR, FF, LF joins
  // two line ends into one CRLF, so a splice that ended at the CR now takes the next line into
  // the directive. The proof must refuse that edit.
  CHECK(!same("#define A 1 \\\r\f\nint x;\n", "#define A 1 \\\r\nint x;\n", Language::kCpp));
  // The same blank before a plain LF is layout.
  CHECK(same("#define A 1\f\nint x;\n", "#define A 1\nint x;\n", Language::kCpp));
}

TEST_CASE("documents: code blocks, inline code and URLs are significant",
          "[ci-fix][tokens][docs]") {
  std::string md = "Teh text.\n\n```python\nx = teh\n```\n\nUse `teh_fn` at https://teh.example.\n";
  CHECK(same(md, "The text.\n\n```python\nx = teh\n```\n\nUse `teh_fn` at https://teh.example.\n",
             Language::kMarkdown, ProofLevel::kComment));
  CHECK(!same(md, "Teh text.\n\n```python\nx = the\n```\n\nUse `teh_fn` at https://teh.example.\n",
              Language::kMarkdown, ProofLevel::kComment));
  CHECK(!same(md, "Teh text.\n\n```python\nx = teh\n```\n\nUse `the_fn` at https://teh.example.\n",
              Language::kMarkdown, ProofLevel::kComment));
  std::string rst = "Teh intro::\n\n    code teh\n\nSee :func:`teh`.\n";
  CHECK(same(rst, "The intro::\n\n    code teh\n\nSee :func:`teh`.\n", Language::kRst,
             ProofLevel::kComment));
  CHECK(!same(rst, "Teh intro::\n\n    code the\n\nSee :func:`teh`.\n", Language::kRst,
              ProofLevel::kComment));
}

TEST_CASE("value proofs for JSON and YAML", "[ci-fix][proof]") {
  CHECK(prove_values(Language::kJson, "{\"a\": 1}   \n", "{\"a\": 1}\n").passed);
  CHECK(!prove_values(Language::kJson, "{\"a\": \"x \"}", "{\"a\": \"x\"}").passed);
  CHECK(prove_values(Language::kYaml, "a: 1   \nb: [1, 2]\n", "a: 1\nb: [1, 2]\n").passed);
  // Trailing blanks in a literal block scalar are content.
  CHECK(!prove_values(Language::kYaml, "a: |\n  x   \n  y\n", "a: |\n  x\n  y\n").passed);
  CHECK(!prove_values(Language::kNone, "x", "x").passed);
}
