#ifndef SKILLRT_OPTOOLKIT_DETAIL_YAML_TREE_HPP_
#define SKILLRT_OPTOOLKIT_DETAIL_YAML_TREE_HPP_

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace skillrt::ops::detail {

// The part of a YAML document the loaders need: collections, scalars as written (never typed),
// and the 1-based line of every node and key, for evidence.
struct YamlNode {
  enum class Kind { kNull, kScalar, kSequence, kMap };
  Kind kind = Kind::kNull;
  size_t line = 0;
  std::string scalar;
  std::vector<YamlNode> items;                         // kSequence
  std::vector<std::pair<YamlNode, YamlNode>> entries;  // kMap: key node, value node

  const YamlNode* find(std::string_view key) const {
    for (const auto& [k, v] : entries) {
      if (k.scalar == key) return &v;
    }
    return nullptr;
  }
};

// The fast reader meets a construct it does not implement; the caller falls back to yaml-cpp.
class YamlUnsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads the block-style subset the schema files use (block mappings and sequences, plain and
// quoted scalars, one-line flow collections, comments, multi-line plain scalars) in one pass.
// Throws YamlUnsupported on anything else (anchors, tags, block scalars, multi-line flow or
// quoted scalars, several documents, tabs), so a result is never a guess.
YamlNode read_yaml_subset(std::string_view text);

// Reads any YAML with yaml-cpp. Throws std::runtime_error with line and column on bad YAML.
YamlNode read_yaml_full(const std::string& text);

}  // namespace skillrt::ops::detail

#endif  // SKILLRT_OPTOOLKIT_DETAIL_YAML_TREE_HPP_
