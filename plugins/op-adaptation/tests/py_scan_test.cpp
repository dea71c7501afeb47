// The Python tokenizer and the registration reader.
#include <catch2/catch.hpp>

#include "py_scan.hpp"

using skillrt::opa::PyToken;
using skillrt::opa::scan_registrations;
using skillrt::opa::tokenize_python;

TEST_CASE("py tokenizer: strings keep '#' and quotes, comments vanish, brackets join lines") {
  const auto t = tokenize_python(
      "x = f('a # not a comment', \"b\")  # a comment\n"
      "y = [1,\n     2e-06]\n"
      "s = '''doc\nstill doc'''\n");
  std::vector<std::string> texts;
  for (const PyToken& k : t) {
    if (k.kind != PyToken::Kind::kNewline) texts.push_back(k.text);
  }
  CHECK(texts == std::vector<std::string>{"x", "=", "f", "(", "'a # not a comment'", ",", "\"b\"",
                                          ")", "y", "=", "[", "1", ",", "2e-06", "]", "s", "=",
                                          "'''doc\nstill doc'''"});
  size_t newlines = 0;
  for (const PyToken& k : t) newlines += k.kind == PyToken::Kind::kNewline ? 1 : 0;
  CHECK(newlines == 3);
}

TEST_CASE("py registrations: decorators, kw-only, nested defaults, string prefixes") {
  const auto regs = scan_registrations(
      "@impl(m, \"npu_x.out\")\n"
      "def npu_x_meta(a, b=(1, [2, 3]), *, mode=r'half', scale: float = 1.0, out):\n"
      "    def helper(t):\n"
      "        return t, t\n"
      "    if a is None:\n"
      "        return (out,)\n"
      "    return out\n"
      "\n"
      "@torch.library.register_fake(\"npu::npu_y\")\n"
      "def npu_y_fake(*args, **kwargs):\n"
      "    return None\n");
  REQUIRE(regs.size() == 2);
  const auto& x = regs[0];
  CHECK(x.op == "npu_x.out");
  CHECK(x.library == "m");
  CHECK(x.decorator_line == 1);
  CHECK(x.def_line == 2);
  REQUIRE(x.params.size() == 5);
  CHECK(x.params[1].default_text == std::optional<std::string>("(1,[2,3])"));
  CHECK_FALSE(x.params[1].kwonly);
  CHECK(x.params[2].kwonly);
  CHECK(x.params[2].default_text == std::optional<std::string>("r'half'"));
  CHECK(x.params[3].name == "scale");
  CHECK(x.params[3].default_text == std::optional<std::string>("1.0"));
  CHECK_FALSE(x.params[4].default_text.has_value());
  // The nested helper's return is not the kernel's.
  REQUIRE(x.returns.size() == 2);
  CHECK(x.returns[0].count == 1);
  CHECK(x.returns[0].line == 6);
  CHECK(x.returns[1].count == -1);
  const auto& y = regs[1];
  CHECK(y.op == "npu_y");
  CHECK(y.library == "fake");
  REQUIRE(y.params.size() == 2);
  CHECK(y.params[0].varargs);
  CHECK(y.returns.at(0).is_none);
}

TEST_CASE("py registrations: return arity of tuples, constructors and helpers") {
  const auto regs = scan_registrations(
      "@impl(m, \"a\")\ndef a(x):\n    return x.new_empty(x.shape), torch.empty_like(x)\n"
      "@impl(m, \"b\")\ndef b(x):\n    return torch.empty_like(x)\n"
      "@impl(m, \"c\")\ndef c(x):\n    return _helper(x)\n"
      "@impl(m, \"d\")\ndef d(x):\n    return [torch.empty_like(t) for t in x]\n");
  REQUIRE(regs.size() == 4);
  CHECK(regs[0].returns.at(0).count == 2);
  CHECK(regs[1].returns.at(0).count == 1);
  CHECK(regs[2].returns.at(0).count == -1);
  CHECK(regs[3].returns.at(0).count == -1);
}

TEST_CASE("py tokenizer: backslash continuation, augmented operators, lines of tokens") {
  const auto t = tokenize_python("x = 1 + \\\n    2\nx += 3\n");
  REQUIRE(t.size() == 10);
  CHECK(t[5].kind == PyToken::Kind::kNewline);
  CHECK(t[6].line == 3);
  CHECK(t[6].line_start);
  CHECK(t[7].text == "+=");
}
