#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "detail/python_tokenizer.hpp"

using skillrt::gpu_migration::detail::LineIndex;
using skillrt::gpu_migration::detail::Token;
using skillrt::gpu_migration::detail::tokenize_python;
using skillrt::gpu_migration::detail::TokenKind;

namespace {

struct Seen {
  TokenKind kind;
  std::string text;
  bool in_fstring;
};

std::vector<Seen> tokens(const std::string& src) {
  std::vector<Seen> out;
  for (const Token& t : tokenize_python(src).tokens) {
    out.push_back({t.kind, src.substr(t.begin, t.end - t.begin), t.in_fstring});
  }
  return out;
}

std::vector<std::string> of_kind(const std::string& src, TokenKind kind) {
  std::vector<std::string> out;
  for (const Seen& s : tokens(src)) {
    if (s.kind == kind) out.push_back(s.text);
  }
  return out;
}

}  // namespace

TEST_CASE("tokenizer: names inside strings and comments are not code", "[tokenizer]") {
  const std::string src =
      "x.cuda()  # y.cuda() in a comment\n"
      "s = 'z.cuda()'\n"
      "t = \"a.cuda() # not a comment\"\n";
  const auto names = of_kind(src, TokenKind::kName);
  CHECK(names == std::vector<std::string>{"x", "cuda", "s", "t"});
  CHECK(of_kind(src, TokenKind::kComment) == std::vector<std::string>{"# y.cuda() in a comment"});
  CHECK(of_kind(src, TokenKind::kString) ==
        std::vector<std::string>{"'z.cuda()'", "\"a.cuda() # not a comment\""});
}

TEST_CASE("tokenizer: triple-quoted strings span lines and hold quotes", "[tokenizer]") {
  const std::string src = "a = '''one\n\"two\" 'three'\ntorch.cuda.x()\n'''\nb = \"\"\"q\"\"\"\n";
  const auto strings = of_kind(src, TokenKind::kString);
  REQUIRE(strings.size() == 2);
  CHECK(strings[0] == "'''one\n\"two\" 'three'\ntorch.cuda.x()\n'''");
  CHECK(strings[1] == "\"\"\"q\"\"\"");
  CHECK(of_kind(src, TokenKind::kName) == std::vector<std::string>{"a", "b"});
}

TEST_CASE("tokenizer: prefixes and escapes", "[tokenizer]") {
  const std::string src = "a = r'\\'' + b\"x\" + Rb'y' + u'z' + br\"\\\"\"\nrb = 1\n";
  CHECK(of_kind(src, TokenKind::kString) ==
        std::vector<std::string>{"r'\\''", "b\"x\"", "Rb'y'", "u'z'", "br\"\\\"\""});
  // A name that only looks like a prefix stays a name.
  CHECK(of_kind(src, TokenKind::kName) == std::vector<std::string>{"a", "rb"});
}

TEST_CASE("tokenizer: f-string replacement fields are code", "[tokenizer]") {
  const std::string src = "s = f\"{{lit}} {x.cuda()!r:>{w}} {'cuda' if y else 'cpu'}\"\n";
  std::vector<std::string> inner_names, inner_strings;
  for (const Seen& s : tokens(src)) {
    if (!s.in_fstring) continue;
    if (s.kind == TokenKind::kName) inner_names.push_back(s.text);
    if (s.kind == TokenKind::kString) inner_strings.push_back(s.text);
  }
  CHECK(inner_names == std::vector<std::string>{"x", "cuda", "if", "y", "else"});
  CHECK(inner_strings == std::vector<std::string>{"'cuda'", "'cpu'"});
}

TEST_CASE("tokenizer: logical lines follow brackets and backslash continuations", "[tokenizer]") {
  const std::string src = "a = (1,\n  2)\nb = a \\\n  .c\n\nd = 3";
  int newlines = 0;
  for (const Seen& s : tokens(src)) newlines += s.kind == TokenKind::kNewline;
  CHECK(newlines == 3);
  CHECK(tokenize_python(src).errors.empty());
}

TEST_CASE("tokenizer: unterminated strings are reported and scanning goes on", "[tokenizer]") {
  const std::string src = "a = 'open\nb.cuda()\nc = '''never closed\n";
  const auto result = tokenize_python(src);
  REQUIRE(result.errors.size() == 2);
  CHECK(result.errors[0].message == "unterminated string literal");
  CHECK(result.errors[1].message == "unterminated triple-quoted string");
  CHECK(of_kind(src, TokenKind::kName) == std::vector<std::string>{"a", "b", "cuda", "c"});
}

TEST_CASE("tokenizer: numbers with exponents and a line index", "[tokenizer]") {
  CHECK(of_kind("x = 1e-5 + 0x1F + 3.5j + .5\n", TokenKind::kNumber) ==
        std::vector<std::string>{"1e-5", "0x1F", "3.5j", ".5"});
  LineIndex idx("ab\ncd\r\n\nef");
  CHECK(idx.line_count() == 4);
  CHECK(idx.line_of(4) == 2);
  CHECK(idx.column_of(4) == 2);
  CHECK(idx.line_text(2) == "cd");
  CHECK(idx.line_text(4) == "ef");
}

TEST_CASE("tokenizer: Python 3.12 f-strings reuse the enclosing quote in fields", "[tokenizer]") {
  const std::string src = "s = f\"{d[\"cuda\"]} and {x:{w}}\"\nt = 1\n";
  const auto strings = of_kind(src, TokenKind::kString);
  REQUIRE(strings.size() == 2);
  CHECK(strings[0] == "f\"{d[\"cuda\"]} and {x:{w}}\"");
  CHECK(strings[1] == "\"cuda\"");
  CHECK(tokenize_python(src).errors.empty());
  std::vector<std::string> names;
  for (const auto& n : of_kind(src, TokenKind::kName)) names.push_back(n);
  CHECK(names == std::vector<std::string>{"s", "d", "x", "t"});
}
