#include <catch2/catch.hpp>

#include <string>

#include "detail/yaml_tree.hpp"
#include "test_support.hpp"

using optoolkit_test::read_text;
using optoolkit_test::source_path;
using skillrt::ops::detail::read_yaml_full;
using skillrt::ops::detail::read_yaml_subset;
using skillrt::ops::detail::YamlNode;
using skillrt::ops::detail::YamlUnsupported;

namespace {

// The first difference between two trees, as "path: what"; empty when equal. Lines are
// compared for every node that is not null (yaml-cpp gives null values no position of their
// own).
std::string difference(const YamlNode& a, const YamlNode& b, const std::string& path) {
  if (a.kind != b.kind) return path + ": kind differs";
  if (a.kind != YamlNode::Kind::kNull && a.line != b.line) {
    return path + ": line " + std::to_string(a.line) + " vs " + std::to_string(b.line);
  }
  if (a.scalar != b.scalar) return path + ": '" + a.scalar + "' vs '" + b.scalar + "'";
  if (a.items.size() != b.items.size()) return path + ": item count differs";
  for (size_t i = 0; i < a.items.size(); ++i) {
    std::string d = difference(a.items[i], b.items[i], path + "/" + std::to_string(i));
    if (!d.empty()) return d;
  }
  if (a.entries.size() != b.entries.size()) return path + ": entry count differs";
  for (size_t i = 0; i < a.entries.size(); ++i) {
    const std::string p = path + "/" + a.entries[i].first.scalar;
    std::string d = difference(a.entries[i].first, b.entries[i].first, p + "(key)");
    if (d.empty()) d = difference(a.entries[i].second, b.entries[i].second, p);
    if (!d.empty()) return d;
  }
  return "";
}

}  // namespace

TEST_CASE("the fast YAML reader gives yaml-cpp's tree on every schema file") {
  for (const char* file :
       {"tests/data/pytorch-2.11/native_functions.yaml", "tests/data/pytorch-2.11/derivatives.yaml",
        "tests/data/op-plugin/op_plugin_functions.yaml", "tests/data/op-plugin/derivatives.yaml",
        "tests/data/op-plugin/deprecated.yaml",
        "plugins/op-tools/tests/data/native_functions_old.yaml"}) {
    INFO(file);
    const std::string text = read_text(source_path(file));
    const YamlNode fast = read_yaml_subset(text);
    const YamlNode full = read_yaml_full(text);
    CHECK(difference(fast, full, "") == "");
  }
}

TEST_CASE("the fast YAML reader matches yaml-cpp on the constructs it supports") {
  const char* cases[] = {
      "a: 1\nb:\n  - x\n  - y # comment\nc: [p, q, [r]]\nd: {k: v, l: [1, 2]}\n",
      "- func: f(Tensor x) -> Tensor\n  dispatch:\n    CPU, CUDA: f_out\n  tags: core\n",
      "key:\n- at the key's indentation\n- 'quoted: with '' quote'\n- \"dq \\\" \\\\ \\n\"\n",
      "formula: first part\n  continued here\n  and here\nnext: ~\nempty:\nlast: null\n",
      "# only a comment\n\n- a\n-\n- b\n",
      "list:\n  -\n    nested: map\n    other: 2\n",
      "x: []\ny: {}\nz: ''\n",
      "q: 'folded\n   over lines'\nr: \"and \\\"this\\\"\n  too\"\n",
  };
  for (const char* text : cases) {
    INFO(text);
    CHECK(difference(read_yaml_subset(text), read_yaml_full(text), "") == "");
  }
}

TEST_CASE("the fast YAML reader refuses what it does not implement") {
  const char* cases[] = {
      "a: |\n  block\n", "a: &anchor 1\nb: *anchor\n", "---\na: 1\n",      "a: !tag x\n",
      "a: [1,\n  2]\n",  "a: 'multi\n\n  line'\n",     "a:\tb\n",          "? complex\n: key\n",
      "a: b: c\n",       "a: x\n\n  continued\n",      "a: \"\\u00e9\"\n", "- - nested\n",
  };
  for (const char* text : cases) {
    INFO(text);
    CHECK_THROWS_AS(read_yaml_subset(text), YamlUnsupported);
  }
}
