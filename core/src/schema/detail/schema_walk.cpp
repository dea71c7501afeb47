#include "schema/detail/schema_walk.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <map>

#include "schema/detail/rules.hpp"
#include "schema/detail/text.hpp"
#include "schema/detail/uri.hpp"

namespace skillrt::schema::detail {
namespace {

// A control character keeps the marker apart from any title a person would write; the marker
// stays short enough for std::string's small-buffer storage, as valijson returns it by value.
constexpr std::string_view kMarkerPrefix = "\x1f#";

std::string percent_decode(std::string_view text) {
  const auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
      out += static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2]));
      i += 2;
      continue;
    }
    out += text[i];
  }
  return out;
}

// valijson percent-decodes reference fragments, so a literal '%' in a key must be encoded.
std::string percent_encode_fragment(std::string_view pointer) {
  std::string out;
  for (char c : pointer) {
    if (c == '%') {
      out += "%25";
    } else {
      out += c;
    }
  }
  return out;
}

struct RefSite {
  nlohmann::json* copy;  // the object holding "$ref" in the valijson copy
  std::string base;      // base URI in effect at that object
  std::string pointer;   // where the object sits in the document
  std::string ref;
};

class Walker {
 public:
  Walker(SchemaIndex& index, PreparedSchema& out) : index_(index), out_(out) {}

  void schema(const nlohmann::json& original, nlohmann::json& copy, const std::string& pointer,
              std::string base) {
    if (!original.is_object()) return;
    copy["title"] = index_.add(&original);
    rename(copy, "format", std::string(kFormatKeyword));
    rename(copy, "multipleOf", std::string(kMultipleOfKeyword));
    rename(copy, "pattern", std::string(kPatternKeyword));
    rename(copy, "uniqueItems", std::string(kUniqueItemsKeyword));
    // Draft 7 spells the identifier "$id"; a plain "id" is no keyword there. Neither is left
    // for valijson: references are rewritten below so that it needs none.
    copy.erase("id");
    copy.erase("$id");

    const auto ref = original.find("$ref");
    const bool has_ref = ref != original.end() && ref->is_string();
    // Beside "$ref" every keyword is ignored in draft 7, "$id" included.
    if (auto id = original.find("$id"); !has_ref && id != original.end() && id->is_string()) {
      const std::string& text = id->get_ref<const std::string&>();
      if (text.starts_with('#')) {
        anchors_[strip_fragment(base) + text] = pointer;
      } else {
        base = strip_fragment(resolve_uri(base, text));
        if (!base.empty()) resources_.emplace(base, pointer);
      }
    }
    if (has_ref) refs_.push_back({&copy, base, pointer, ref->get<std::string>()});

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
      one(original, copy, pointer, base, keyword);
    }
    for (const char* keyword : {"allOf", "anyOf", "oneOf"}) {
      list(original, copy, pointer, base, keyword);
    }
    for (const char* keyword :
         {"properties", "patternProperties", "definitions", "$defs", "dependencies"}) {
      map(original, copy, pointer, base, keyword);
    }
    if (auto it = original.find("items"); it != original.end()) {
      if (it->is_array()) {
        list(original, copy, pointer, base, "items");
      } else {
        one(original, copy, pointer, base, "items");
      }
    }
  }

  // A cycle among schema objects through keywords that apply to the same value, if any.
  std::vector<std::string> find_cycle() const {
    std::map<std::string, int> state;  // 1: on the current path, 2: done
    std::vector<std::string> path;
    std::vector<std::string> found;
    std::function<bool(const std::string&)> visit = [&](const std::string& node) {
      const int seen = state[node];
      if (seen == 2) return false;
      if (seen == 1) {
        const auto start = std::find(path.begin(), path.end(), node);
        found.assign(start, path.end());
        found.push_back(node);
        return true;
      }
      state[node] = 1;
      path.push_back(node);
      if (auto it = edges_.find(node); it != edges_.end()) {
        for (const auto& next : it->second) {
          if (visit(next)) return true;
        }
      }
      path.pop_back();
      state[node] = 2;
      return false;
    };
    for (const auto& [node, next] : edges_) {
      if (visit(node)) return found;
    }
    return {};
  }

  void add_resource(const std::string& uri, const std::string& pointer) {
    if (!uri.empty()) resources_.emplace(uri, pointer);
  }

  // Rewrites each "$ref" once every identifier of the document is known.
  void rewrite_refs(const nlohmann::json& original) {
    for (const auto& site : refs_) {
      const std::string target = resolve_uri(site.base, site.ref);
      const std::size_t hash = target.find('#');
      const std::string document = target.substr(0, hash);
      const std::string fragment = hash == std::string::npos ? "" : target.substr(hash + 1);
      auto resource = resources_.find(document);
      if (!document.empty() && resource == resources_.end()) {
        (*site.copy)["$ref"] = target;  // another document: valijson fetches it
        ++out_.remote_refs;
        continue;
      }
      const std::string root = document.empty() ? std::string() : resource->second;
      std::string pointer;
      if (fragment.empty() || fragment.starts_with('/')) {
        pointer = root + percent_decode(fragment);
      } else if (auto anchor = anchors_.find(document + "#" + fragment); anchor != anchors_.end()) {
        pointer = anchor->second;
      } else {
        out_.unresolved.push_back({site.pointer + "/$ref", site.ref});
        continue;
      }
      bool found = false;
      try {
        found = original.contains(nlohmann::json::json_pointer(pointer));
      } catch (const nlohmann::json::exception&) {
      }
      if (!found) {
        out_.unresolved.push_back({site.pointer + "/$ref", site.ref});
        continue;
      }
      (*site.copy)["$ref"] = "#" + percent_encode_fragment(pointer);
      edges_[site.pointer].push_back(pointer);
    }
  }

 private:
  // Keywords whose subschemas apply to the same value rather than to a part of it.
  static bool in_place(std::string_view keyword) {
    return keyword == "allOf" || keyword == "anyOf" || keyword == "oneOf" || keyword == "not" ||
           keyword == "if" || keyword == "then" || keyword == "else" || keyword == "dependencies";
  }

  static void rename(nlohmann::json& object, const std::string& from, const std::string& to) {
    auto it = object.find(from);
    if (it == object.end()) return;
    nlohmann::json value = std::move(*it);
    object.erase(it);
    object[to] = std::move(value);
  }

  void one(const nlohmann::json& original, nlohmann::json& copy, const std::string& pointer,
           const std::string& base, const char* keyword) {
    auto it = original.find(keyword);
    if (it == original.end()) return;
    const std::string child = pointer + "/" + escape_pointer_token(keyword);
    if (in_place(keyword)) edges_[pointer].push_back(child);
    schema(*it, copy[keyword], child, base);
  }

  void list(const nlohmann::json& original, nlohmann::json& copy, const std::string& pointer,
            const std::string& base, const char* keyword) {
    auto it = original.find(keyword);
    if (it == original.end() || !it->is_array()) return;
    const std::string prefix = pointer + "/" + keyword + "/";
    nlohmann::json& target = copy[keyword];
    for (std::size_t i = 0; i < it->size(); ++i) {
      const std::string child = prefix + std::to_string(i);
      if (in_place(keyword)) edges_[pointer].push_back(child);
      schema((*it)[i], target[i], child, base);
    }
  }

  void map(const nlohmann::json& original, nlohmann::json& copy, const std::string& pointer,
           const std::string& base, const char* keyword) {
    auto it = original.find(keyword);
    if (it == original.end() || !it->is_object()) return;
    const std::string prefix = pointer + "/" + escape_pointer_token(keyword) + "/";
    nlohmann::json& target = copy[keyword];
    for (const auto& [key, value] : it->items()) {
      const std::string child = prefix + escape_pointer_token(key);
      if (in_place(keyword)) edges_[pointer].push_back(child);
      schema(value, target[key], child, base);
    }
  }

  SchemaIndex& index_;
  PreparedSchema& out_;
  std::map<std::string, std::string> resources_;  // absolute URI -> pointer in this document
  std::map<std::string, std::string> anchors_;    // "uri#name" -> pointer in this document
  std::vector<RefSite> refs_;
  std::map<std::string, std::vector<std::string>> edges_;  // in-place steps between objects
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

PreparedSchema prepare_schema(const nlohmann::json& original, SchemaIndex& index,
                              const std::string& retrieval_uri) {
  PreparedSchema out;
  out.for_valijson = original;
  std::string base = strip_fragment(retrieval_uri);
  if (original.is_object()) {
    auto id = original.find("$id");
    if (id != original.end() && id->is_string() && !original.contains("$ref") &&
        !id->get_ref<const std::string&>().starts_with('#')) {
      base = strip_fragment(resolve_uri(base, id->get<std::string>()));
    }
  }
  Walker walker(index, out);
  walker.add_resource(strip_fragment(retrieval_uri), "");
  walker.add_resource(base, "");
  walker.schema(original, out.for_valijson, "", strip_fragment(retrieval_uri));
  walker.rewrite_refs(original);
  out.cycle = walker.find_cycle();
  out.base_uri = base;
  // The one identifier valijson keeps: it names the document, so that valijson caches the
  // subschemas of different documents apart.
  if (out.for_valijson.is_object() && base.find("://") != std::string::npos) {
    out.for_valijson["id"] = base;
  }
  return out;
}

}  // namespace skillrt::schema::detail
