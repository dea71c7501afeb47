// yaml-cpp behind the loaders' tree type: the fallback for YAML outside the fast subset.
#include <yaml-cpp/yaml.h>

#include "detail/yaml_tree.hpp"

namespace skillrt::ops::detail {
namespace {

size_t line_of(const YAML::Node& node) {
  return node.Mark().line < 0 ? 0 : static_cast<size_t>(node.Mark().line) + 1;
}

YamlNode convert(const YAML::Node& node) {
  YamlNode out;
  out.line = line_of(node);
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      out.kind = YamlNode::Kind::kScalar;
      out.scalar = node.Scalar();
      break;
    case YAML::NodeType::Sequence:
      out.kind = YamlNode::Kind::kSequence;
      for (const YAML::Node& item : node) out.items.push_back(convert(item));
      break;
    case YAML::NodeType::Map:
      out.kind = YamlNode::Kind::kMap;
      for (const auto& kv : node) out.entries.emplace_back(convert(kv.first), convert(kv.second));
      break;
    default:
      break;
  }
  return out;
}

}  // namespace

YamlNode read_yaml_full(const std::string& text) {
  try {
    return convert(YAML::Load(text));
  } catch (const YAML::Exception& e) {
    throw std::runtime_error("line " + std::to_string(e.mark.line + 1) + ", column " +
                             std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
}

}  // namespace skillrt::ops::detail
