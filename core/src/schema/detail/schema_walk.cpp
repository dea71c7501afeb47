#include "schema/detail/schema_walk.hpp"

#include <charconv>

#include "schema/detail/rules.hpp"
#include "schema/detail/text.hpp"

namespace skillrt::schema::detail {
namespace {

// A control character keeps the marker apart from any title a person would write.
constexpr std::string_view kMarkerPrefix = "\x1fskillrt-node:";

class Walker {
 public:
  Walker(SchemaIndex& index, PreparedSchema& out) : index_(index), out_(out) {}

  void schema(const nlohmann::json& original, nlohmann::json& copy, const std::string& pointer) {
    if (!original.is_object()) return;
    copy["title"] = index_.add(&original);
    rename(copy, "format", std::string(kFormatKeyword));
    rename(copy, "multipleOf", std::string(kMultipleOfKeyword));
    // Draft 7 spells the identifier "$id"; a plain "id" is no keyword there and must not
    // change the base URI, yet valijson would read it as one.
    copy.erase("id");
    rename(copy, "$id", "id");
    if (!pointer.empty() && original.contains("$id")) out_.has_nested_id = true;

    if (auto it = original.find("$ref"); it != original.end() && it->is_string()) {
      out_.refs.push_back({pointer + "/$ref", it->get<std::string>()});
    }
    if (auto it = original.find("pattern"); it != original.end() && it->is_string()) {
      out_.patterns.push_back({pointer + "/pattern", it->get<std::string>()});
    }
    if (auto it = original.find("patternProperties"); it != original.end() && it->is_object()) {
      for (const auto& [key, value] : it->items()) {
        out_.patterns.push_back({pointer + "/patternProperties/" + escape_pointer_token(key), key});
      }
    }

    for (const char* keyword : {"additionalItems", "additionalProperties", "contains",
                                "propertyNames", "not", "if", "then", "else"}) {
      one(original, copy, pointer, keyword);
    }
    for (const char* keyword : {"allOf", "anyOf", "oneOf"}) list(original, copy, pointer, keyword);
    for (const char* keyword :
         {"properties", "patternProperties", "definitions", "$defs", "dependencies"}) {
      map(original, copy, pointer, keyword);
    }
    if (auto it = original.find("items"); it != original.end()) {
      if (it->is_array()) {
        list(original, copy, pointer, "items");
      } else {
        one(original, copy, pointer, "items");
      }
    }
  }

 private:
  static void rename(nlohmann::json& object, const std::string& from, const std::string& to) {
    auto it = object.find(from);
    if (it == object.end()) return;
    nlohmann::json value = std::move(*it);
    object.erase(it);
    object[to] = std::move(value);
  }

  void one(const nlohmann::json& original, nlohmann::json& copy, const std::string& pointer,
           const char* keyword) {
    auto it = original.find(keyword);
    if (it == original.end()) return;
    schema(*it, copy[keyword], pointer + "/" + escape_pointer_token(keyword));
  }

  void list(const nlohmann::json& original, nlohmann::json& copy, const std::string& pointer,
            const char* keyword) {
    auto it = original.find(keyword);
    if (it == original.end() || !it->is_array()) return;
    const std::string base = pointer + "/" + keyword + "/";
    nlohmann::json& target = copy[keyword];
    for (std::size_t i = 0; i < it->size(); ++i) {
      schema((*it)[i], target[i], base + std::to_string(i));
    }
  }

  void map(const nlohmann::json& original, nlohmann::json& copy, const std::string& pointer,
           const char* keyword) {
    auto it = original.find(keyword);
    if (it == original.end() || !it->is_object()) return;
    const std::string base = pointer + "/" + escape_pointer_token(keyword) + "/";
    nlohmann::json& target = copy[keyword];
    for (const auto& [key, value] : it->items()) {
      schema(value, target[key], base + escape_pointer_token(key));
    }
  }

  SchemaIndex& index_;
  PreparedSchema& out_;
};

}  // namespace

std::string SchemaIndex::add(const nlohmann::json* node) {
  nodes_.push_back(node);
  std::string marker(kMarkerPrefix);
  marker += std::to_string(nodes_.size() - 1);
  return marker;
}

const nlohmann::json* SchemaIndex::find(std::string_view title) const {
  if (!title.starts_with(kMarkerPrefix)) return nullptr;
  title.remove_prefix(kMarkerPrefix.size());
  std::size_t slot = 0;
  const auto [end, ec] = std::from_chars(title.data(), title.data() + title.size(), slot);
  if (ec != std::errc() || end != title.data() + title.size() || slot >= nodes_.size()) {
    return nullptr;
  }
  return nodes_[slot];
}

PreparedSchema prepare_schema(const nlohmann::json& original, SchemaIndex& index) {
  PreparedSchema out;
  out.for_valijson = original;
  Walker walker(index, out);
  walker.schema(original, out.for_valijson, "");
  return out;
}

}  // namespace skillrt::schema::detail
