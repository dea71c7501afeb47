// `check` on 167 real API pages of op-plugin@517f2e7 against the hand labels of
// tests/data/real_pages/labels.jsonl: pages that agree with their schema give no finding, every
// labelled mismatch is found on its argument, and nothing else is reported beyond the findings
// checked by hand in expected_extra.jsonl (known_misses.jsonl lists the labels a different but
// defensible overload choice does not reproduce).
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "apidoc.hpp"

using skillrt::Json;

namespace {

const std::string kPages = SKILLRT_OPAPIDOC_REAL_PAGES;
const std::string kYaml = SKILLRT_OPAPIDOC_YAML;

std::vector<Json> read_jsonl(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::vector<Json> out;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(Json::parse(line));
  }
  return out;
}

// Label kinds and the check kinds that report them.
bool kind_matches(const std::string& label, const std::string& tool) {
  static const std::map<std::string, std::set<std::string>> kKinds = {
      {"missing-argument", {"missing-parameter"}},
      {"renamed-argument", {"misnamed-parameter"}},
      {"default-mismatch", {"wrong-default"}},
      {"kwonly-marker", {"keyword-only"}},
      {"param-section", {"missing-parameter", "extra-parameter", "misnamed-parameter"}},
      {"extra-argument", {"extra-parameter"}},
      {"order", {"order"}},
      {"return-mismatch", {"return"}}};
  const auto it = kKinds.find(label);
  return it != kKinds.end() && it->second.count(tool) != 0;
}

}  // namespace

TEST_CASE("check on real pages agrees with the hand labels", "[op-apidoc][real_pages]") {
  std::set<std::pair<std::string, std::string>> extra_ok;  // page, parameter
  for (const Json& e : read_jsonl(kPages + "/expected_extra.jsonl")) {
    extra_ok.insert({e.at("page").get<std::string>(), e.at("parameter").get<std::string>()});
  }
  std::set<std::pair<std::string, std::string>> misses_ok;
  for (const Json& m : read_jsonl(kPages + "/known_misses.jsonl")) {
    misses_ok.insert({m.at("page").get<std::string>(), m.at("argument").get<std::string>()});
  }
  size_t agree = 0;
  size_t agree_clean = 0;
  size_t labelled = 0;
  size_t found = 0;
  for (const Json& lab : read_jsonl(kPages + "/labels.jsonl")) {
    const std::string page = lab.at("page").get<std::string>();
    INFO(page);
    const Json out = skillrt::op_apidoc::run_check({{"mode", "check"},
                                                    {"doc", kPages + "/pages/" + page},
                                                    {"op", lab.at("op")},
                                                    {"source", kYaml}});
    const Json& findings = out.at("findings");
    INFO(findings.dump(1));
    std::vector<bool> used(findings.size(), false);
    for (const Json& f : lab.at("findings")) {
      ++labelled;
      const std::set<std::string> names = {f.at("argument").get<std::string>(),
                                           f.value("page_argument", std::string())};
      bool hit = false;
      for (size_t i = 0; i < findings.size() && !hit; ++i) {
        if (used[i] || names.count(findings[i].value("parameter", "")) == 0) continue;
        if (kind_matches(f.at("kind").get<std::string>(),
                         findings[i].at("kind").get<std::string>())) {
          used[i] = hit = true;
        }
      }
      found += hit ? 1 : 0;
      if (!hit) {
        INFO("labelled " << f.at("kind") << " " << f.at("argument") << " not found");
        CHECK(misses_ok.count({page, f.at("argument").get<std::string>()}) != 0);
      }
    }
    for (size_t i = 0; i < findings.size(); ++i) {
      if (used[i]) continue;
      INFO("unlabelled finding " << findings[i].dump());
      CHECK(extra_ok.count({page, findings[i].value("parameter", "")}) != 0);
    }
    if (lab.at("agree").get<bool>()) {
      ++agree;
      agree_clean += findings.empty() ? 1 : 0;
    }
    // Every page is read: an empty result must not come from a reader that saw nothing.
    CHECK(out.at("read").at("prototypes").get<size_t>() > 0);
  }
  CHECK(agree >= 100);
  CHECK(agree_clean >= agree - 4);  // the four pages whose only findings are hand-checked types
  CHECK(labelled == 101);
  CHECK(found >= labelled - 4);
}

TEST_CASE("check reads the page formats op-plugin uses", "[op-apidoc][real_pages]") {
  // One synthetic page with the variants measured in the real ones (labels README): no prefix,
  // typed and Python-annotated arguments over several lines, an escaped full-width item, an item
  // without bullet or colon, a `*` separator item, a doctest example, `out=(a, b)`.
  const std::string page =
      "\xEF\xBB\xBF# torch\\_npu.npu\\_demo\n\n## 函数原型\n\n```python\n"
      "npu_demo(Tensor x, int head_num,\n    float glu_alpha=1.702, *, can_refresh:bool=False,\n"
      "    eps=0.00001)\n    -> tuple(Tensor, Tensor)\n```\n\n## 参数说明\n\n"
      "- **x**（`Tensor`）：必选参数。\n"
      " **head\\_num**(`int`)必选参数，无冒号。\n"
      "- \\*：代表其之前的参数是位置相关的。\n"
      "- **glu\\_alpha** (`float`): 可选参数，默认值为1.702。\n"
      "- **can\\_refresh**（bool）：可选参数，默认值为False。\n"
      "- **eps**（`float`）：可选参数，默认值为1e-5。\n\n"
      "## 调用示例\n\n```python\n>>> y = torch_npu.npu_demo(x, 8,  # a comment, not an argument\n"
      "...     eps=1e-5)\n```\n";
  const Json out = skillrt::op_apidoc::run_check(
      {{"mode", "check"},
       {"schema",
        "npu_demo(Tensor x, int head_num, float glu_alpha=1.702, *, bool can_refresh=False, "
        "float eps=1e-05) -> (Tensor, Tensor)"},
       {"doc_text", page}});
  INFO(out.dump(1));
  CHECK(out.at("findings").empty());
  CHECK(out.at("read").at("parameter_items") == 5);
  CHECK(out.at("read").at("example_calls") == 1);
}
