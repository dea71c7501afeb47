// npu-graph-qa on the built-in knowledge base: answerable questions must cite the right
// section, unanswerable ones must get "I don't know".
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "qa.hpp"

namespace ng = skillrt::npu_graph;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const ng::Bm25Index& builtin_index() {
  static const ng::Bm25Index kIndex(ng::load_knowledge({}, true));
  return kIndex;
}

}  // namespace

TEST_CASE("tokenizer: English words without stop words, Chinese bigrams") {
  CHECK(ng::tokenize("What is a Graph Break?") == std::vector<std::string>{"graph", "break"});
  CHECK(ng::tokenize("图模式断图") == std::vector<std::string>{"图模", "模式", "式断", "断图"});
  CHECK(ng::tokenize("torch.compile 动态") == std::vector<std::string>{"torch", "compile", "动态"});
}

TEST_CASE("markdown is split into headed sections with heading paths and lines") {
  const auto s = ng::split_markdown(
      "# Top\nintro\n## A\ntext a\n```\n# not a heading\n```\n## B\nb\n", "f.md");
  REQUIRE(s.size() == 3);
  CHECK(s[0].heading == "Top");
  CHECK(s[1].heading == "Top > A");
  CHECK(s[1].line == 3);
  CHECK(s[1].text.find("# not a heading") != std::string::npos);
  CHECK(s[2].heading == "Top > B");
}

TEST_CASE("15 answerable questions cite the expected section") {
  // question -> expected heading (last part of the heading path); "|" separates sections that
  // both answer it (the base covers some topics as a concept and as a failure mode).
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"What is a graph break and what causes it?", "Graph breaks|Graph break from user code"},
      {"Why does my model recompile when guards fail?", "Guards and recompilation"},
      {"What does reduce-overhead mode do compared with max-autotune?",
       "config.mode: max-autotune and reduce-overhead"},
      {"What is a FakeTensor Meta implementation needed for?",
       "FakeTensor and Meta implementations"},
      {"What does a torchair converter do?", "Converters|Missing converter in torchair"},
      {"What is the GE graph engine?", "GE graph engine"},
      {"Which operations are capture-unsafe during NPU graph capture?",
       "Capture-unsafe operations"},
      {"What does ASCEND_LAUNCH_BLOCKING do?", "Environment variables for debugging|Task queue"},
      {"What do the aclnn return codes 161002 and 561002 mean?", "aclnn return codes"},
      {"What does the module character in CANN error codes like EZ9999 mean?", "CANN error codes"},
      {"What does the OpPlugin operator layer do?", "OpPlugin operator layer"},
      {"Where is the host plog written?", "Where logs are"},
      {"torchair 的 reduce-overhead 模式是什么意思", "图模式的 reduce-overhead 模式"},
      {"图模式下动态 shape 要怎么配置", "动态 shape 配置"},
      {"torch_npu 错误码 ERR 的子模块怎么划分", "错误码分类"},
  };
  int right = 0;
  for (const auto& [q, expected] : cases) {
    const json r = ng::answer_question(q, builtin_index(), {});
    const bool known = r["known"].get<bool>();
    const std::string got = r["citations"].empty()
                                ? std::string("(none)")
                                : r["citations"][0]["heading"].get<std::string>();
    bool ok = false;
    size_t start = 0;
    while (known && start <= expected.size()) {
      size_t bar = expected.find('|', start);
      if (bar == std::string::npos) bar = expected.size();
      const std::string heading = expected.substr(start, bar - start);
      ok = ok || (got.size() >= heading.size() &&
                  got.compare(got.size() - heading.size(), heading.size(), heading) == 0);
      start = bar + 1;
    }
    const std::string& heading = expected;
    if (ok) ++right;
    UNSCOPED_INFO(q << " -> " << got << (ok ? "" : "   <-- expected " + heading));
    if (ok) {
      CHECK(r["answer"].get<std::string>().find("[1]") != std::string::npos);
      CHECK(r["citations"][0]["source"].get<std::string>().rfind("npu-graph:kb/", 0) == 0);
    }
  }
  CHECK(right == static_cast<int>(cases.size()));
}

TEST_CASE("5 unanswerable questions get I don't know") {
  const std::vector<std::string> questions = {
      "How do I bake sourdough bread at home?",
      "What is the price of an Atlas 800 server in Europe?",
      "Which football team won the 2018 world cup?",
      "今天北京的天气怎么样",
      "How do I configure Kubernetes ingress TLS certificates?",
  };
  for (const std::string& q : questions) {
    const json r = ng::answer_question(q, builtin_index(), {});
    INFO(q << " best=" << (r["passages"].empty() ? json("none") : r["passages"][0]["heading"]));
    CHECK_FALSE(r["known"].get<bool>());
    CHECK(r["answer"].get<std::string>().rfind("I don't know", 0) == 0);
    CHECK(r["citations"].empty());
  }
}

TEST_CASE("user docs are searched and cited by path") {
  const fs::path dir =
      fs::temp_directory_path() / ("npu_graph_qa_docs_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "team.md") << "# Team notes\n\n## Cluster quota policy\n\nEach team gets "
                                    "sixteen Ascend cards per quota window.\n";
  const json r = ng::run_qa(json{{"question", "What is the cluster quota policy per team?"},
                                 {"docs", json::array({dir.string()})}});
  CHECK(r["known"] == true);
  CHECK(r["citations"][0]["source"] == (dir / "team.md").string());
  CHECK(r["citations"][0]["heading"] == "Team notes > Cluster quota policy");
  fs::remove_all(dir);
}
