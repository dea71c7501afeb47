// Segmentation: identifiers whole and by part, Chinese bigrams, markdown escapes, language.
#include <catch2/catch.hpp>

#include <algorithm>

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

TEST_CASE("the language of a question is told apart", "[segmenter]") {
  CHECK(detect_language("TASK_QUEUE_ENABLE 有什么用") == Language::kZh);
  CHECK(detect_language("What does TASK_QUEUE_ENABLE do?") == Language::kEn);
  CHECK(detect_language("npu_prefetch 的 max_size 有什么 constraint 和 default？") ==
        Language::kMixed);
}

TEST_CASE("markdown is cut at headings with the heading path kept", "[passage]") {
  const std::string doc =
      "# Title\n\nintro\n\n## Part A\n\nalpha line\n\n```\n# not a heading\n```\n";
  const auto passages = split_markdown(doc);
  REQUIRE(passages.size() == 2);
  CHECK(passages[1].heading == "Title > Part A");
  CHECK(passages[1].line_start == 5);
  CHECK(passages[1].text.find("# not a heading") != std::string::npos);
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
