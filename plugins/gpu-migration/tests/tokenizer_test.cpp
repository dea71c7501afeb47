#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "test_support.hpp"

#include "detail/python_tokenizer.hpp"

using skillrt::gpu_migration::detail::LineFilter;
using skillrt::gpu_migration::detail::LineIndex;
using skillrt::gpu_migration::detail::Token;
using skillrt::gpu_migration::detail::tokenize_python;
using skillrt::gpu_migration::detail::TokenKind;
using skillrt::gpu_migration::detail::TokenStream;

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
  // `w` sits in the format specification's own replacement field: code as well.
  CHECK(inner_names == std::vector<std::string>{"x", "cuda", "w", "if", "y", "else"});
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
  CHECK(names == std::vector<std::string>{"s", "d", "x", "w", "t"});
}

TEST_CASE("tokenizer: names in nested format specifications are code", "[tokenizer]") {
  const std::string src =
      "s = f\"{x:{width}} {v:>{torch.cuda.device_count()}.{p}f} {y!r:{'cuda'}}\"\n";
  std::vector<std::string> inner_names, inner_strings;
  for (const Seen& s : tokens(src)) {
    if (!s.in_fstring) continue;
    if (s.kind == TokenKind::kName) inner_names.push_back(s.text);
    if (s.kind == TokenKind::kString) inner_strings.push_back(s.text);
  }
  CHECK(inner_names ==
        std::vector<std::string>{"x", "width", "v", "torch", "cuda", "device_count", "p", "y"});
  CHECK(inner_strings == std::vector<std::string>{"'cuda'"});
  CHECK(tokenize_python(src).errors.empty());
  // A spec without fields holds no code, and doubled braces outside fields stay literal.
  CHECK(of_kind("t = f\"{when:%Y-%m-%d} {{cuda}}\"\n", TokenKind::kName) ==
        std::vector<std::string>{"t", "when"});
}

namespace {

// The tokens a filter should keep: every logical line (its tokens up to and including its newline
// token) that has a wanted name or a string holding the needle, worked out from the full stream.
std::vector<Token> wanted_lines(const std::string& src, const TokenStream& all,
                                const std::vector<std::string>& names, const std::string& needle) {
  std::vector<Token> out, line;
  bool wanted = false;
  for (const Token& t : all.tokens) {
    line.push_back(t);
    const std::string text = src.substr(t.begin, t.end - t.begin);
    if (t.kind == TokenKind::kName && std::find(names.begin(), names.end(), text) != names.end()) {
      wanted = true;
    }
    if (t.kind == TokenKind::kString &&
        src.substr(t.content_begin, t.content_end - t.content_begin).find(needle) !=
            std::string::npos) {
      wanted = true;
    }
    if (t.kind == TokenKind::kNewline) {
      if (wanted) out.insert(out.end(), line.begin(), line.end());
      line.clear();
      wanted = false;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("tokenizer: a line filter keeps exactly the wanted logical lines", "[tokenizer]") {
  const std::vector<std::string> names = {"cuda", "import", "DataParallel"};
  const std::string needle = "nccl";
  LineFilter filter;
  for (const std::string& n : names) filter.add_name(n);
  filter.add_needle(needle);
  std::vector<std::string> sources = {
      "import torch\nx = 1\ny = x.cuda()  # move\n# own-line comment\nz = (1,\n     2)\n",
      "a = '''multi\nline cuda'''\nb = f\"{m:{w.cuda()}}\"\nc = 3 \\\n  + x.cuda()\nd = 'nccl'",
      "s = 'never closed\nt = x.cuda()\nu = 1\nv = \"nccl\"\n\\ stray\nw = nn.DataParallel(m)",
      "",
      "only = 1\n",
  };
  for (const char* fx : {"ddp_amp/train.py", "dp_caps/run.py", "flash_ext/model.py"}) {
    sources.push_back(gm_test::read_file(gm_test::fixture(fx)));
  }
  for (const std::string& src : sources) {
    INFO(src);
    TokenStream all, kept;
    skillrt::gpu_migration::detail::tokenize_python(src, &all);
    skillrt::gpu_migration::detail::tokenize_python(src, &kept, &filter);
    const std::vector<Token> want = wanted_lines(src, all, names, needle);
    REQUIRE(kept.tokens.size() == want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      CHECK(kept.tokens[i].kind == want[i].kind);
      CHECK(kept.tokens[i].begin == want[i].begin);
      CHECK(kept.tokens[i].end == want[i].end);
      CHECK(kept.tokens[i].content_end == want[i].content_end);
      CHECK(kept.tokens[i].in_fstring == want[i].in_fstring);
    }
    // Errors are found in every line, wanted or not, and reported once.
    REQUIRE(kept.errors.size() == all.errors.size());
    for (size_t i = 0; i < all.errors.size(); ++i) {
      CHECK(kept.errors[i].offset == all.errors[i].offset);
      CHECK(kept.errors[i].message == all.errors[i].message);
    }
  }
  // The plain lines are gone: `x = 1` and the bracketed `z = (1, 2)` (with the comment before it).
  TokenStream kept;
  skillrt::gpu_migration::detail::tokenize_python(sources[0], &kept, &filter);
  std::string seen;
  for (const Token& t : kept.tokens) seen += sources[0].substr(t.begin, t.end - t.begin) + " ";
  CHECK(seen == "import torch \n y = x . cuda ( ) # move \n ");
}
