#include "mcp/tool_definition.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "skillrt/abi.h"

namespace skillrt::mcp {

using json = nlohmann::json;

namespace {

constexpr size_t kDescriptionLimit = 250;   // the tool's own description
constexpr size_t kPropertyDescLimit = 100;  // one line per property
constexpr size_t kEnumLimit = 240;          // longer enums are left to the full schema
constexpr size_t kDefaultLimit = 40;        // long defaults cost more than they tell
constexpr int kMaxRefHops = 8;              // a $ref chain longer than this is not followed
constexpr std::string_view kAdvanced = "x-skillrt-advanced";

bool is_continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Abbreviations whose period does not end a sentence.
bool ends_with_abbreviation(std::string_view before) {
  for (std::string_view abbr : {"e.g", "i.e", "etc", "vs", "cf", "approx"}) {
    if (before.size() >= abbr.size() && before.substr(before.size() - abbr.size()) == abbr &&
        (before.size() == abbr.size() || before[before.size() - abbr.size() - 1] == ' ' ||
         before[before.size() - abbr.size() - 1] == '(')) {
      return true;
    }
  }
  return false;
}

// Collapses runs of whitespace (descriptions are written across lines in the schema files).
std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// The end of each sentence in `text`: after ". ", "! ", "? " (not an abbreviation) or after a
// full-width "。", "！", "？".
std::vector<size_t> sentence_ends(std::string_view text) {
  std::vector<size_t> ends;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c == '.' || c == '!' || c == '?') && i + 1 < text.size() && text[i + 1] == ' ' &&
        !(c == '.' && ends_with_abbreviation(text.substr(0, i)))) {
      ends.push_back(i + 1);
    }
    for (std::string_view mark : {"\u3002", "\uFF01", "\uFF1F"}) {
      if (text.substr(i, mark.size()) == mark) ends.push_back(i + mark.size());
    }
  }
  ends.push_back(text.size());
  return ends;
}

// Cuts at a word (or, in text without spaces, a character) boundary and marks the cut.
std::string cut(std::string_view text, size_t limit) {
  if (text.size() <= limit) return std::string(text);
  size_t end = limit;
  while (end > 0 && is_continuation_byte(text[end])) --end;
  const size_t space = text.substr(0, end).rfind(' ');
  if (space != std::string_view::npos && space > limit / 2) end = space;
  std::string out(text.substr(0, end));
  while (!out.empty() && (out.back() == ' ' || out.back() == ',' || out.back() == ';')) {
    out.pop_back();
  }
  return out + "\u2026";
}

// As many whole sentences as fit in `limit` (at least the first, cut if it alone is longer).
std::string leading_sentences(std::string_view raw, size_t limit, size_t max_sentences) {
  const std::string text = one_line(raw);
  size_t end = 0, count = 0;
  for (size_t e : sentence_ends(text)) {
    if (count == max_sentences || (e > limit && count > 0)) break;
    end = e;
    ++count;
  }
  std::string_view kept = std::string_view(text).substr(0, end);
  while (!kept.empty() && kept.back() == ' ') kept.remove_suffix(1);
  return cut(kept, limit);
}

// Follows a local "$ref" (#/definitions/x, #/$defs/x, or any JSON pointer into the document).
const json& resolve(const json& root, const json& schema) {
  const json* at = &schema;
  for (int hop = 0; hop < kMaxRefHops && at->is_object() && at->contains("$ref"); ++hop) {
    const json& ref = (*at)["$ref"];
    if (!ref.is_string()) break;
    const std::string& text = ref.get_ref<const std::string&>();
    if (!text.starts_with('#')) break;
    try {
      const json::json_pointer pointer(text.substr(1));
      if (!root.contains(pointer)) break;
      at = &root.at(pointer);
    } catch (const json::exception&) {
      break;
    }
  }
  return *at;
}

std::string json_type_of(const json& value) {
  if (value.is_string()) return "string";
  if (value.is_boolean()) return "boolean";
  if (value.is_number_integer() || value.is_number_unsigned()) return "integer";
  if (value.is_number()) return "number";
  if (value.is_array()) return "array";
  if (value.is_object()) return "object";
  return "null";
}

// The JSON types a schema admits, looking through local refs and oneOf/anyOf branches; empty
// when it does not say (then the published form says nothing either: the looser choice).
std::set<std::string> types_of(const json& root, const json& raw, int depth = 0) {
  const json& schema = resolve(root, raw);
  std::set<std::string> out;
  if (!schema.is_object() || depth > kMaxRefHops) return out;
  if (const auto it = schema.find("type"); it != schema.end()) {
    if (it->is_string()) return {it->get<std::string>()};
    if (it->is_array()) {
      for (const auto& t : *it) {
        if (t.is_string()) out.insert(t.get<std::string>());
      }
      return out;
    }
  }
  for (const char* key : {"oneOf", "anyOf"}) {
    const auto it = schema.find(key);
    if (it == schema.end() || !it->is_array()) continue;
    for (const auto& branch : *it) {
      const auto branch_types = types_of(root, branch, depth + 1);
      // A branch that admits anything makes the union "anything".
      if (branch_types.empty()) return {};
      out.insert(branch_types.begin(), branch_types.end());
    }
    return out;
  }
  if (const auto it = schema.find("enum"); it != schema.end() && it->is_array()) {
    for (const auto& v : *it) out.insert(json_type_of(v));
  } else if (const auto c = schema.find("const"); c != schema.end()) {
    out.insert(json_type_of(*c));
  }
  return out;
}

json type_value(std::set<std::string> types) {
  if (types.contains("number")) types.erase("integer");  // number admits every integer
  if (types.size() == 1) return *types.begin();
  json list = json::array();
  for (const auto& t : types) list.push_back(t);
  return list;
}

bool is_advanced(const json& schema) {
  const auto it = schema.find(kAdvanced);
  return it != schema.end() && it->is_boolean() && it->get<bool>();
}

// One property (or array item) in brief: type, one line of description, short enum and default;
// an object's own properties only while `depth` < `max_depth`.
json brief(const json& root, const json& raw, int depth, int max_depth,
           std::vector<std::string>* hidden) {
  const json& schema = resolve(root, raw);
  json out = json::object();
  if (!schema.is_object()) return out;
  if (const auto types = types_of(root, schema); !types.empty()) out["type"] = type_value(types);
  if (const auto d = schema.find("description"); d != schema.end() && d->is_string() && depth > 0) {
    out["description"] = leading_sentences(d->get<std::string>(), kPropertyDescLimit, 1);
  }
  if (const auto e = schema.find("enum"); e != schema.end() && e->dump().size() <= kEnumLimit) {
    out["enum"] = *e;
  }
  if (const auto c = schema.find("const"); c != schema.end()) out["const"] = *c;
  if (const auto d = schema.find("default");
      d != schema.end() && d->dump().size() <= kDefaultLimit) {
    out["default"] = *d;
  }
  if (const auto p = schema.find("properties");
      p != schema.end() && p->is_object() && depth < max_depth) {
    json properties = json::object();
    bool left_out = false;
    for (const auto& [name, sub] : p->items()) {
      if (is_advanced(sub)) {
        left_out = true;
        if (hidden != nullptr && depth == 0) hidden->push_back(name);
        continue;
      }
      properties[name] = brief(root, sub, depth + 1, max_depth, nullptr);
    }
    out["properties"] = std::move(properties);
    if (const auto r = schema.find("required"); r != schema.end() && r->is_array()) {
      json required = json::array();
      for (const auto& name : *r) {
        if (name.is_string() && out["properties"].contains(name.get<std::string>())) {
          required.push_back(name);
        }
      }
      if (!required.empty()) out["required"] = std::move(required);
    }
    // Closing the object while some of its properties are not shown would make the published
    // form stricter than the full one.
    if (const auto a = schema.find("additionalProperties");
        a != schema.end() && a->is_boolean() && !a->get<bool>() && !left_out) {
      out["additionalProperties"] = false;
    }
  }
  if (const auto i = schema.find("items"); i != schema.end() && i->is_object()) {
    // Items at the depth limit keep their type: "array of strings" costs little and says much.
    json item = depth < max_depth ? brief(root, *i, depth + 1, max_depth, nullptr)
                                  : brief(root, *i, max_depth, max_depth, nullptr);
    item.erase("description");
    if (!item.empty()) out["items"] = std::move(item);
  }
  return out;
}

// The names a branch of a root combinator requires: {"required": [..]} with nothing else that
// constrains (a description is fine).
std::optional<std::vector<std::string>> required_only(const json& branch) {
  if (!branch.is_object()) return std::nullopt;
  std::vector<std::string> names;
  for (const auto& [key, value] : branch.items()) {
    if (key == "description" || key == "title") continue;
    if (key != "required" || !value.is_array()) return std::nullopt;
    for (const auto& n : value) {
      if (!n.is_string()) return std::nullopt;
      names.push_back(n.get<std::string>());
    }
  }
  if (names.empty()) return std::nullopt;
  return names;
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += names.size() == 2 ? " and " : ", ";
    out += "`" + names[i] + "`";
  }
  return out;
}

// "Give at least one of: `log`, `traceback`." for anyOf/oneOf over required lists; nullopt for
// a rule the sentence form cannot carry.
std::optional<std::string> combinator_sentence(std::string_view key, const json& branches) {
  if (!branches.is_array() || branches.empty()) return std::nullopt;
  std::vector<std::string> options;
  for (const auto& branch : branches) {
    const auto names = required_only(branch);
    if (!names) return std::nullopt;
    std::string option = quoted_list(*names);
    if (const auto d = branch.find("description"); d != branch.end() && d->is_string()) {
      std::string what = leading_sentences(d->get<std::string>(), 60, 1);
      while (!what.empty() && what.back() == '.') what.pop_back();
      option += " (" + what + ")";
    }
    options.push_back(std::move(option));
  }
  std::string out = key == "oneOf"   ? "Give exactly one of: "
                    : key == "anyOf" ? "Give at least one of: "
                                     : "Give all of: ";
  for (size_t i = 0; i < options.size(); ++i) out += (i > 0 ? "; " : "") + options[i];
  return out + ".";
}

}  // namespace

PublishedSchema publish_schema(const json& full, bool input) {
  PublishedSchema out;
  if (!full.is_object()) {
    if (input) out.schema = {{"type", "object"}};
    return out;
  }
  const json& root = resolve(full, full);
  // A root that is a union of objects (op-schema's output: one object per request kind) is
  // published as one object with every branch's properties, all optional.
  json merged = root;
  for (const char* key : {"oneOf", "anyOf"}) {
    const auto it = root.find(key);
    if (it == root.end() || !it->is_array() || root.contains("properties")) continue;
    json properties = json::object();
    bool all_objects = true;
    for (const auto& raw : *it) {
      const json& branch = resolve(full, raw);
      if (types_of(full, branch) != std::set<std::string>{"object"}) {
        all_objects = false;
        break;
      }
      const auto own = branch.find("properties");
      if (own == branch.end() || !own->is_object()) continue;
      for (const auto& [name, sub] : own->items()) {
        if (!properties.contains(name)) properties[name] = sub;
      }
    }
    if (!all_objects || properties.empty()) continue;
    merged.erase(key);
    merged["type"] = "object";
    merged["properties"] = std::move(properties);
    merged.erase("required");
    merged.erase("additionalProperties");
  }
  const auto types = types_of(full, merged);
  if (!input && types != std::set<std::string>{"object"}) return out;  // null: text only
  out.schema = brief(full, merged, 0, 1, &out.hidden);
  out.schema["type"] = "object";
  if (input) {
    for (const char* key : {"oneOf", "anyOf", "allOf"}) {
      const auto it = root.find(key);
      if (it == root.end()) continue;
      if (auto sentence = combinator_sentence(key, *it)) {
        out.rules.push_back(std::move(*sentence));
      } else {
        out.rules.push_back("Some combinations of fields are refused; the error names the rule.");
        out.warnings.push_back(std::string("the input schema's root \"") + key +
                               "\" is not a list of required-field alternatives, so clients are "
                               "only told that a rule exists; express it as {\"required\": [..]} "
                               "branches or describe it in the schema's description");
      }
    }
    for (const char* key : {"not", "if"}) {
      if (!root.contains(key)) continue;
      out.rules.push_back("Some combinations of fields are refused; the error names the rule.");
      out.warnings.push_back(std::string("the input schema's root \"") + key +
                             "\" cannot be shown to clients; describe the rule in the schema's "
                             "description");
    }
    if (const auto e = root.find("examples"); e != root.end() && e->is_array() && !e->empty()) {
      out.schema["examples"] = json::array({e->front()});
    }
  }
  return out;
}

ToolDefinition tool_definition(const Skill& skill, bool has_guide) {
  ToolDefinition def;
  json& tool = def.tool;
  tool["name"] = skill.name;
  if (!skill.title.empty()) tool["title"] = skill.title;
  PublishedSchema in = skill.input_schema ? publish_schema(skill.input_schema->source(), true)
                                          : PublishedSchema{{{"type", "object"}}, {}, {}, {}};
  std::string description = leading_sentences(skill.description, kDescriptionLimit, 2);
  for (const auto& rule : in.rules) description += " " + rule;
  if (has_guide) {
    // The hidden names are not listed: the guide documents them, and naming them costs context.
    description += (in.hidden.empty() ? " Guide: skill://" : " More options: skill://") +
                   skill.name + "/SKILL.md.";
  }
  tool["description"] = std::move(description);
  tool["inputSchema"] = std::move(in.schema);
  if (skill.output_schema) {
    PublishedSchema out = publish_schema(skill.output_schema->source(), false);
    if (!out.schema.is_null()) tool["outputSchema"] = std::move(out.schema);
  }
  json annotations = {
      {"readOnlyHint", (skill.flags & SKILLRT_SKILL_READ_ONLY) != 0},
      {"destructiveHint", (skill.flags & SKILLRT_SKILL_DESTRUCTIVE) != 0},
      {"idempotentHint", (skill.flags & SKILLRT_SKILL_IDEMPOTENT) != 0},
      {"openWorldHint", (skill.flags & SKILLRT_SKILL_OPEN_WORLD) != 0},
  };
  if (!skill.title.empty()) annotations["title"] = skill.title;
  tool["annotations"] = std::move(annotations);
  def.warnings = std::move(in.warnings);
  if (const size_t size = tool_context_size(tool); size > kToolContextBudget) {
    def.warnings.push_back("the tool definition takes " + std::to_string(size) +
                           " characters of an agent's context (budget " +
                           std::to_string(kToolContextBudget) +
                           "); shorten the description's first sentences or mark rarely used "
                           "properties \"x-skillrt-advanced\": true and document them in SKILL.md");
  }
  return def;
}

size_t tool_context_size(const json& tool) {
  return tool.value("name", "").size() + tool.value("description", "").size() +
         tool.value("inputSchema", json::object()).dump().size();
}

std::vector<std::string> tool_rule_breaches(const json& tool) {
  std::vector<std::string> out;
  const std::string name = tool.value("name", "?");
  const json input = tool.value("inputSchema", json());
  if (!input.is_object() || input.value("type", "") != "object") {
    out.push_back("tool '" + name + "': inputSchema has no root \"type\": \"object\"");
  }
  for (const char* key : {"oneOf", "anyOf", "allOf", "not", "if", "then", "else"}) {
    if (input.is_object() && input.contains(key)) {
      out.push_back("tool '" + name + "': inputSchema has \"" + key + "\" at the root");
    }
  }
  if (tool.contains("outputSchema")) {
    const json& output = tool["outputSchema"];
    if (!output.is_object() || output.value("type", "") != "object") {
      out.push_back("tool '" + name + "': outputSchema has no root \"type\": \"object\"");
    }
  }
  return out;
}

}  // namespace skillrt::mcp
