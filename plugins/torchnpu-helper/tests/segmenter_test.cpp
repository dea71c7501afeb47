// Segmentation: identifiers whole and by part, Chinese bigrams, markdown escapes, language.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "passage.hpp"
#include "segmenter.hpp"

using namespace skillrt::torchnpu_helper;

namespace {

bool has(const std::vector<std::string>& terms, const std::string& term) {
  return std::find(terms.begin(), terms.end(), term) != terms.end();
}

}  // namespace

TEST_CASE("identifiers are indexed whole and by their parts", "[segmenter]") {
  const auto terms = segment("torch_npu.npu_fusion_attention(query, sparse_mode=3)");
  CHECK(has(terms, "torch_npu.npu_fusion_attention"));
  CHECK(has(terms, "npu_fusion_attention"));
  CHECK(has(terms, "fusion"));
  CHECK(has(terms, "sparse_mode"));
  CHECK(has(terms, "sparse"));
}

TEST_CASE("markdown escapes do not split a variable name", "[segmenter]") {
  const auto terms = segment("# TASK\\_QUEUE\\_ENABLE");
  CHECK(has(terms, "task_queue_enable"));
}

TEST_CASE("Chinese is cut into bigrams and function characters end a run", "[segmenter]") {
  const auto terms = segment("算子下发队列的优化");
  CHECK(has(terms, "算子"));
  CHECK(has(terms, "下发"));
  CHECK(has(terms, "队列"));
  CHECK_FALSE(has(terms, "列的"));
}

TEST_CASE("question words are dropped and English words gain the docs' Chinese", "[segmenter]") {
  const auto terms = segment_question("What is the default value of HCCL_EVENT_TIMEOUT?");
  const auto find = [&](const std::string& text) {
    return std::find_if(terms.begin(), terms.end(),
                        [&](const QueryTerm& t) { return t.text == text; });
  };
  CHECK(find("what") == terms.end());
  REQUIRE(find("default") != terms.end());
  CHECK(has(find("default")->synonyms, "默认"));
  REQUIRE(find("hccl_event_timeout") != terms.end());
  CHECK(find("hccl_event_timeout")->identifier);
}

TEST_CASE("English contractions leave no fragments behind", "[segmenter]") {
  std::vector<std::string> texts;
  for (const QueryTerm& term :
       segment_question("Why isn't ccache used, and what\u2019s the build's NPU_CACHE_DIR?")) {
    texts.push_back(term.text);
  }
  for (const char* fragment : {"isn", "t", "s"}) CHECK_FALSE(has(texts, fragment));
  CHECK(has(texts, segment("ccache").front()));
  CHECK(has(texts, "npu_cache_dir"));
  CHECK(has(texts, segment("build").front()));
}

TEST_CASE("the language of a question is told apart", "[segmenter]") {
  CHECK(detect_language("TASK_QUEUE_ENABLE 有什么用") == Language::kZh);
  CHECK(detect_language("What does TASK_QUEUE_ENABLE do?") == Language::kEn);
  CHECK(detect_language("npu_prefetch 的 max_size 有什么 constraint 和 default？") ==
        Language::kMixed);
}

TEST_CASE("markdown is cut at headings with the heading path kept", "[passage]") {
  const std::string doc =
      "# Title\n\none\ntwo\nthree\nfour\n\n## Part A\n\nalpha line\n\n```\n# not a heading\n```\n";
  const auto passages = split_markdown(doc);
  REQUIRE(passages.size() == 2);
  CHECK(passages[1].heading == "Title > Part A");
  CHECK(passages[1].line_start == 8);
  CHECK(passages[1].text.find("# not a heading") != std::string::npos);
}

TEST_CASE("a bare title joins the section under it, so a quote can show the name", "[passage]") {
  const auto passages =
      split_markdown("# OOM_SNAPSHOT_ENABLE\n\n## 功能描述\n\n内存不足时保存内存数据。\n");
  REQUIRE(passages.size() == 1);
  CHECK(passages[0].line_start == 1);
  CHECK(passages[0].heading == "OOM_SNAPSHOT_ENABLE > 功能描述");
  CHECK(passages[0].text.find("# OOM_SNAPSHOT_ENABLE") == 0);
}

TEST_CASE("a section cut in two keeps its code state and its names", "[passage]") {
  std::string doc = "## Rules\n\n```yaml\n# op_plugin_functions.yaml\n";
  for (int i = 0; i < 30; ++i) doc += "  - func: op_" + std::to_string(i) + "(Tensor self)\n";
  doc += "```\n\n- gen_opapi：对于支持op_api调用的算子\n";
  const auto passages = split_markdown(doc);
  REQUIRE(passages.size() >= 2);
  CHECK_FALSE(passages[0].starts_in_code);
  CHECK(passages[1].starts_in_code);
  CHECK(passages[1].context.find("op_plugin_functions.yaml") != std::string::npos);
}

TEST_CASE("a Chinese question is cut into the words the docs use", "[segmenter]") {
  const std::map<std::string, int64_t> frequency = {
      {"训练", 568}, {"练中", 4}, {"手动", 39},  {"导出", 29}, {"出一", 1},
      {"一次", 44},  {"次内", 3}, {"内存", 176}, {"存快", 10}, {"快照", 12}};
  const auto terms =
      segment_question("训练中途怎么手动导出一次内存快照？", [&](const std::string& t) {
        const auto found = frequency.find(t);
        return found == frequency.end() ? int64_t{0} : found->second;
      });
  std::vector<std::string> texts;
  for (const QueryTerm& term : terms) texts.push_back(term.text);
  CHECK(has(texts, "内存"));
  CHECK(has(texts, "快照"));
  CHECK(has(texts, "手动"));
  CHECK_FALSE(has(texts, "存快"));
  CHECK_FALSE(has(texts, "途怎"));
  CHECK_FALSE(has(texts, "中途"));  // phrasing, not a topic
  // Without frequencies every bigram stays, as documents are indexed.
  std::vector<std::string> all;
  for (const QueryTerm& term : segment_question("内存快照")) all.push_back(term.text);
  CHECK(has(all, "存快"));
}

TEST_CASE("English words are stemmed alike in docs and questions", "[segmenter]") {
  const auto terms = segment("submitting enabled caches configure");
  CHECK(has(terms, "submit"));
  CHECK(has(terms, "enabl"));
  CHECK(has(terms, "cach"));
  CHECK(has(terms, "configur"));
  const auto question = segment_question("How do I enable caching?");
  const auto enable = std::find_if(question.begin(), question.end(),
                                   [](const QueryTerm& t) { return t.text == "enabl"; });
  REQUIRE(enable != question.end());
  CHECK(enable->surface == "enable");
  CHECK(has(enable->synonyms, "开启"));
}

TEST_CASE("a dotted API name is indexed with its tails, a version is not", "[segmenter]") {
  const auto terms = segment("torch_npu.profiler.dynamic_profile.init(path)");
  CHECK(has(terms, "dynamic_profile.init"));
  CHECK(has(terms, "profiler.dynamic_profile.init"));
  CHECK_FALSE(has(segment("2.9.0.post6"), "9.0.post6"));
  const auto question = segment_question("torch.npu.set_device_limit 能调用几次？");
  REQUIRE_FALSE(question.empty());
  CHECK(question[0].identifier);
  CHECK(has(question[0].synonyms, "npu.set_device_limit"));
  const auto version = segment_question("PyTorch 2.1 and later");
  const auto minor = std::find_if(version.begin(), version.end(),
                                  [](const QueryTerm& t) { return t.text == "2.1"; });
  REQUIRE(minor != version.end());
  CHECK(has(minor->synonyms, "2.1.0"));
}

TEST_CASE("source files yield env reads, TORCH_CHECK calls and yaml op entries", "[passage]") {
  const auto py = extract_source("x.py", "import os\nlevel = os.getenv(\"MY_NPU_FLAG\", \"0\")\n");
  REQUIRE(py.size() == 1);
  CHECK(py[0].heading.find("MY_NPU_FLAG") == 0);
  const auto cpp = extract_source(
      "x.cpp", "void f() {\n  TORCH_CHECK(n > 0,\n    \"n must be positive\");\n}\n");
  REQUIRE(cpp.size() == 1);
  CHECK(cpp[0].line_start == 2);
  CHECK(cpp[0].line_end == 3);
  const auto yaml = extract_source("op_plugin_functions.yaml",
                                   "official:\n  - func: abs(Tensor self) -> Tensor\n    op_api: "
                                   "all_version\n  - func: neg(Tensor self) -> Tensor\n");
  REQUIRE(yaml.size() == 2);
  CHECK(yaml[0].heading == "abs (op entry)");
  CHECK(yaml[0].line_end == 3);
}
