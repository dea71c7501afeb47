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
  // A plural s ends an acronym: PRs, NPUsReady.
  CHECK(as_strings(split_identifier("PRs")) == std::vector<std::string>{"PRs"});
  CHECK(as_strings(split_identifier("NPUsReady")) == std::vector<std::string>{"NPUs", "Ready"});
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

namespace {

using skillrt::router::detail::Analysis;
using skillrt::router::detail::analyze_units;
using skillrt::router::detail::Role;
using skillrt::router::detail::role_of;
using skillrt::router::detail::Structure;
using skillrt::router::detail::structure_of;

struct Read {
  Analysis analysis;
  Structure structure;
  // The role of the first term written `surface` (a word as the text has it, or a Chinese
  // lexicon word or bigram).
  Role role(std::string_view surface) const {
    for (const auto& t : analysis.terms) {
      if (t.kind != TermKind::kConcept && t.surface == surface) return role_of(t, structure);
    }
    FAIL_CHECK("no term '" << surface << "'");
    return Role::kPlain;
  }
};

Read read(std::string_view text) {
  Read r{analyze_units(text, Lexicon::builtin()), {}};
  r.structure = structure_of(r.analysis);
  return r;
}

}  // namespace

TEST_CASE("the built-in grammar parses without problems", "[router][analyzer]") {
  std::vector<std::string> problems;
  auto lexicon = Lexicon::parse(Lexicon::builtin_text(), &problems);
  lexicon.add_grammar(Lexicon::builtin_grammar_text(), &problems);
  for (const auto& p : problems) UNSCOPED_INFO(p);
  CHECK(problems.empty());
  CHECK(lexicon.size() == Lexicon::builtin().size());
}

TEST_CASE("grammar problems name the line", "[router][analyzer]") {
  std::vector<std::string> problems;
  Lexicon lexicon;
  lexicon.add_grammar(
      "# comment\naction\treview\nverb\tfix\nsequence\tand then\nnegation\treview\naction\n",
      &problems);
  REQUIRE(problems.size() == 4);
  CHECK(problems[0].find("line 3") != std::string::npos);  // unknown cue
  CHECK(problems[0].find("one of action") != std::string::npos);
  CHECK(problems[1].find("line 4") != std::string::npos);  // two words
  CHECK(problems[1].find("one English word") != std::string::npos);
  CHECK(problems[2].find("line 5") != std::string::npos);  // a second cue for one word
  CHECK(problems[3].find("line 6") != std::string::npos);  // no word
  CHECK(lexicon.cue("review") == skillrt::router::detail::Cue::kAction);
}

TEST_CASE("the head of an action's object outranks what it only mentions", "[router][analyzer]") {
  // Chinese objects are head-final: 文档 is reviewed, 精度 only describes it.
  auto zh = read("审一遍这篇精度调优文档");
  CHECK(zh.role("文档") == Role::kObject);
  CHECK(zh.role("精度") == Role::kPlain);
  // English object phrases end at a preposition: the guide is reviewed, for outdated steps.
  auto en = read("review the precision tuning guide for outdated steps");
  CHECK(en.role("review") == Role::kAction);
  CHECK(en.role("guide") == Role::kObject);
  CHECK(en.role("precision") == Role::kPlain);
  CHECK(en.role("steps") == Role::kPlain);
  // An embedded question ends the object phrase too: the tutorial is checked.
  CHECK(read("检查教程有没有死链").role("教程") == Role::kObject);
  // With nothing after the verb, the object came first.
  CHECK(read("这份 plog 帮我分析一下").role("plog") == Role::kObject);
}

TEST_CASE("an object marker puts the object before the verb", "[router][analyzer]") {
  auto r = read("把 api 精度对比脚本放到服务器上跑一遍");
  // 对比 is part of the object phrase here, not the task; the script is what is run.
  CHECK(r.role("对比") == Role::kPlain);
  CHECK(r.role("脚本") == Role::kObject);
  CHECK(r.role("跑") != Role::kNegated);
}

TEST_CASE("English actions are matched by verb form, not by stem", "[router][analyzer]") {
  CHECK(read("I reviewed the guide").role("reviewed") == Role::kAction);
  CHECK(read("running the benchmark").role("running") == Role::kAction);
  // The stemmer folds these into find and clean; they are nouns here.
  CHECK(read("the findings of the lint").role("findings") != Role::kAction);
  CHECK(read("compare prices of vacuum cleaners").role("cleaners") != Role::kAction);
}

TEST_CASE("a declined action and what already happened weigh less", "[router][analyzer]") {
  auto zh = read("不用登录服务器跑压测，只看 InferenceX 公开的数据");
  CHECK(zh.role("服务器") == Role::kNegated);
  CHECK(zh.role("Inference") == Role::kPlain);
  auto en = read("fix the typos without changing behaviour");
  CHECK(en.role("behaviour") == Role::kNegated);
  CHECK(en.role("typos") == Role::kObject);
  // A negation that reaches no action is just words ("do not match").
  CHECK(read("the NPU results do not match the CPU ones").role("CPU") == Role::kPlain);
  auto done = read("迁移评估已经做完了，现在把代码里的 cuda 改成 npu");
  CHECK(done.role("评估") == Role::kContext);
  CHECK(done.role("cuda") == Role::kObject);
  // A request that is all context is still the request.
  CHECK(read("after the migration").role("migration") == Role::kPlain);
}

TEST_CASE("sequence words split a request into the tasks it asks for", "[router][analyzer]") {
  CHECK(read("先解析 index_put 的 schema，然后生成单元测试").structure.segments.size() == 2);
  CHECK(read("find the first error in this plog, then diagnose the traceback")
            .structure.segments.size() == 2);
  // "and" starts a task only when an action follows at once.
  CHECK(read("adapt the op in op-plugin and generate its tests").structure.segments.size() == 2);
  CHECK(read("compare the NPU and CPU outputs").structure.segments.size() == 1);
  // A part that is only a verb is no task of its own.
  CHECK(read("按流程诊断并修复").structure.segments.size() == 1);
  // A question is one task however it goes on.
  CHECK(read("how do I build torch_npu from source and run its tests?").structure.segments.size() ==
        1);
  // A question word after an action is what the action acts on, not a question asked.
  CHECK(read("assess how hard the port is, then apply the migration").structure.segments.size() ==
        2);
  // "and" that opens a clause starts a task when an action follows later in the request.
  CHECK(read("compare the NPU and CPU outputs, and if they differ, write unit tests")
            .structure.segments.size() == 2);
  // The parts cover the request in order.
  auto r = read("解析 schema，然后写接口文档");
  REQUIRE(r.structure.segments.size() == 2);
  CHECK(r.structure.segments[0].first == 0);
  CHECK(r.structure.segments[0].second == r.structure.segments[1].first);
  CHECK(r.structure.segments[1].second == r.analysis.units.size());
}

TEST_CASE("function words the lexicon gives a meaning add it", "[router][analyzer]") {
  // "what" is a stop word, yet a question is evidence for the skills that answer questions.
  CHECK(has_term("what does TASK_QUEUE_ENABLE do", "question", TermKind::kConcept));
  CHECK_FALSE(has_term("what does TASK_QUEUE_ENABLE do", "what", TermKind::kWord));
}

TEST_CASE("the objects of actions that make something are noted", "[router][analyzer]") {
  // write/写/recommend make or pick their object; the router answers none when no card knows it.
  auto en = read("write a limerick about graph mode");
  REQUIRE(en.structure.made.size() == 1);
  CHECK(en.role("limerick") == Role::kObject);
  CHECK(read("写一首关于 NPU 的诗").structure.made.size() == 1);
  CHECK(read("review the guide").structure.made.empty());
  // Chinese adverbs and result complements are never the head: kernel is what is written.
  auto zh = read("把 yaml 和 kernel 都写好");
  CHECK(zh.role("kernel") == Role::kObject);
}
