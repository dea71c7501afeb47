#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "router/detail/analyzer.hpp"

namespace {

using skillrt::router::detail::analyze;
using skillrt::router::detail::Lexicon;
using skillrt::router::detail::split_identifier;
using skillrt::router::detail::stem;
using skillrt::router::detail::TermKind;

std::vector<std::string> words(std::string_view text, const Lexicon& lexicon = Lexicon{}) {
  std::vector<std::string> out;
  for (const auto& t : analyze(text, lexicon)) {
    if (t.kind == TermKind::kWord) out.push_back(t.text);
  }
  return out;
}

bool has_term(std::string_view text, std::string_view term, TermKind kind) {
  auto terms = analyze(text, Lexicon::builtin());
  return std::any_of(terms.begin(), terms.end(),
                     [&](const auto& t) { return t.text == term && t.kind == kind; });
}

std::vector<std::string> as_strings(const std::vector<std::string_view>& v) {
  return {v.begin(), v.end()};
}

}  // namespace

TEST_CASE("identifiers split on underscores and case changes", "[router][analyzer]") {
  CHECK(as_strings(split_identifier("npu_fusion_attention")) ==
        std::vector<std::string>{"npu", "fusion", "attention"});
  CHECK(as_strings(split_identifier("aclnnAddRmsNorm")) ==
        std::vector<std::string>{"aclnn", "Add", "Rms", "Norm"});
  CHECK(as_strings(split_identifier("RMSNorm")) == std::vector<std::string>{"RMS", "Norm"});
  CHECK(as_strings(split_identifier("__add__")) == std::vector<std::string>{"add"});
  CHECK(as_strings(split_identifier("fp16")) == std::vector<std::string>{"fp16"});
}

TEST_CASE("English words are lower-cased, stemmed and stripped of stop words",
          "[router][analyzer]") {
  CHECK(words("aclnnAddRmsNorm") == std::vector<std::string>{"aclnn", "add", "rms", "norm"});
  CHECK(words("Please fix the failing tests") == std::vector<std::string>{"fix", "fail", "test"});
  CHECK(stem("tests") == stem("testing"));
  CHECK(stem("tested") == stem("test"));
  CHECK(stem("migration") == stem("migrate"));
  CHECK(stem("migrating") == stem("migrated"));
  CHECK(stem("generation") == stem("generated"));
  CHECK(stem("profiling") == stem("profile"));
  CHECK(stem("operators") == "operator");
  CHECK(stem("analysis") == "analysis");
  CHECK(stem("fp16") == "fp16");
}

TEST_CASE("Chinese text gives lexicon words, their concepts and character bigrams",
          "[router][analyzer]") {
  // Longest match: 算子适配 is one lexicon word, not 算子 + 适配.
  CHECK(has_term("帮我做算子适配", "算子适配", TermKind::kCjkWord));
  CHECK_FALSE(has_term("帮我做算子适配", "适配", TermKind::kCjkWord));
  CHECK(has_term("帮我做算子适配", stem("adaptation"), TermKind::kConcept));
  CHECK(has_term("帮我做算子适配", "子适", TermKind::kCjkBigram));
  // Function-word bigrams are dropped.
  CHECK_FALSE(has_term("帮我做算子适配", "帮我", TermKind::kCjkBigram));
  // Mixed text: both halves are analysed.
  CHECK(has_term("图模式 graph break 报错", "error", TermKind::kConcept));
  CHECK(has_term("图模式 graph break 报错", "break", TermKind::kWord));
}

TEST_CASE("content units weigh English words and Chinese characters", "[router][analyzer]") {
  auto a = skillrt::router::detail::analyze_units("fix 精度", Lexicon::builtin());
  REQUIRE(a.units.size() == 3);
  CHECK(a.units[0].weight == 1.0);
  CHECK(a.units[1].weight == 0.5);
  // A term stands on the units of its surface text.
  auto it =
      std::find_if(a.terms.begin(), a.terms.end(), [](const auto& t) { return t.text == "精度"; });
  REQUIRE(it != a.terms.end());
  CHECK(it->unit_begin == 1);
  CHECK(it->unit_end == 3);
}

TEST_CASE("four-byte CJK characters form bigrams", "[router][analyzer]") {
  // U+20000 and U+20001 (CJK Extension B) are four bytes each.
  CHECK(has_term("\xF0\xA0\x80\x80\xF0\xA0\x80\x81", "\xF0\xA0\x80\x80\xF0\xA0\x80\x81",
                 TermKind::kCjkBigram));
}

TEST_CASE("malformed UTF-8 degrades to separators", "[router][analyzer]") {
  std::string bad = "test\xff\xfe算\xe7子 fix";
  auto terms = analyze(bad, Lexicon::builtin());
  CHECK(std::any_of(terms.begin(), terms.end(), [](const auto& t) { return t.text == "fix"; }));
  // A truncated sequence at the end of the text is not read past.
  CHECK(analyze("ok \xE7\xAE", Lexicon::builtin()).size() == 1);
}

TEST_CASE("the built-in lexicon parses without problems", "[router][analyzer]") {
  std::vector<std::string> problems;
  auto lexicon = Lexicon::parse(Lexicon::builtin_text(), &problems);
  for (const auto& p : problems) UNSCOPED_INFO(p);
  CHECK(problems.empty());
  CHECK(lexicon.size() == Lexicon::builtin().size());
  CHECK(lexicon.size() > 200);
}

TEST_CASE("lexicon problems name the line", "[router][analyzer]") {
  std::vector<std::string> problems;
  auto lexicon = Lexicon::parse("# comment\n算子\toperator\nno tab here\n精度\t\n", &problems);
  CHECK(lexicon.size() == 1);
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].find("line 3") != std::string::npos);
  CHECK(problems[1].find("line 4") != std::string::npos);
}
