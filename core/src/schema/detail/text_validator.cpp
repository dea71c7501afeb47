#include "schema/detail/text_validator.hpp"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <valijson/constraints/concrete_constraints.hpp>
#include <valijson/constraints/constraint_visitor.hpp>
#include <valijson/subschema.hpp>
#include <vector>

#include "common/json_scan.hpp"
#include "schema/detail/rules.hpp"

namespace skillrt::schema::detail {

using json_scan::decode_string;
using json_scan::JsonNumber;
using json_scan::kNoPosition;
using json_scan::read_number;
using json_scan::skip_space;
using json_scan::skip_string;
using json_scan::skip_value;
using json_scan::string_code_points;

namespace vc = valijson::constraints;
using Json = nlohmann::json;

namespace {

// The walker's bound on nesting under a schema that descends into the value (explainer.cpp).
constexpr int kMaxDepth = 256;

// A member or subschema slot that is absent: for additionalProperties and additionalItems it
// means false, as a null subschema does in valijson's tree.
constexpr int kNone = -1;

// How deep enum, const and uniqueItems compare objects and arrays before leaving the text
// path, so that a hostile text cannot exhaust the stack.
constexpr int kMaxCompareDepth = 512;

// Objects up to this size are checked for repeated keys pairwise; larger ones are sorted.
constexpr std::size_t kPairwiseLimit = 48;

enum TypeBit : unsigned {
  kNullBit = 1U << 0,
  kBooleanBit = 1U << 1,
  kObjectBit = 1U << 2,
  kArrayBit = 1U << 3,
  kStringBit = 1U << 4,
  kNumberBit = 1U << 5,
  kIntegerBit = 1U << 6,
  kAnyBit = 1U << 7,
};

enum class StepKind : std::uint8_t {
  kType,
  kAllOf,
  kAnyOf,
  kOneOf,
  kNot,
  kIf,
  kConst,
  kEnum,
  kProperties,
  kRequired,
  kDependencies,
  kPropertyNames,
  kMinProperties,
  kMaxProperties,
  kItems,
  kLinearItems,
  kContains,
  kMinItems,
  kMaxItems,
  kUniqueItems,
  kMinimum,
  kMaximum,
  kMinLength,
  kMaxLength,
  kPattern,
  kFormat,
  kMultipleOf,
  kUnsupported,
};

struct Step {
  StepKind kind = StepKind::kUnsupported;
  unsigned types = 0;
  bool exclusive = false;
  double limit = 0;
  std::uint64_t count = 0;
  int child = kNone;  // items, contains, not, if, propertyNames
  int then_child = kNone;
  int else_child = kNone;
  int additional = kNone;                               // additionalProperties / additionalItems
  std::vector<int> children;                            // allOf, anyOf, oneOf, items as an array
  std::vector<std::pair<std::string, int>> properties;  // also schema dependencies
  std::vector<std::pair<const Regex*, int>> pattern_properties;
  std::vector<std::string> names;  // required
  std::vector<std::pair<std::string, std::vector<std::string>>> property_dependencies;
  const Regex* regex = nullptr;
  std::string format;
  Json value;  // const value, enum values, multipleOf divisor
};

struct Node {
  bool always_invalid = false;
  std::vector<Step> steps;
};

// A schema for an object of named scalar members ("type": "object", "properties" whose
// subschemas only constrain a scalar's type, length or bounds, "required" among them, and
// "additionalProperties" false or absent): the usual shape of a tool's input and output. Such an
// object is checked in one walk over its members, without the general steps' member lists.
struct FlatPlan {
  unsigned types = kAnyBit;                             // of the object itself
  std::vector<std::pair<std::string, int>> properties;  // name, node of its scalar steps
  bool others_allowed = true;                           // additionalProperties absent or {}
  std::uint64_t required = 0;                           // bits of `properties`
};

}  // namespace

struct TextProgramData {
  std::vector<Node> nodes;       // nodes[0] is the root
  std::optional<FlatPlan> flat;  // when the root schema has that shape
};

namespace {

// Translates valijson's tree into steps, one node per subschema; a subschema reached twice
// (a shared definition, a recursive "$ref") becomes one node.
class Compiler final : public vc::ConstraintVisitor {
 public:
  Compiler(const ExplainContext& context, TextProgramData& data) : context_(context), data_(data) {}

  int node_of(const valijson::Subschema* schema) {
    if (auto it = ids_.find(schema); it != ids_.end()) return it->second;
    const int id = static_cast<int>(data_.nodes.size());
    ids_.emplace(schema, id);
    data_.nodes.emplace_back();
    std::vector<Step> steps;
    std::vector<Step>* saved_steps = steps_;
    const Json* saved_source = source_;
    steps_ = &steps;
    source_ = schema->hasTitle() ? context_.index.find(schema->getTitle()) : nullptr;
    valijson::Subschema::ApplyFunction each = [this](const vc::Constraint& constraint) {
      return constraint.accept(*this);
    };
    schema->apply(each);
    steps_ = saved_steps;
    source_ = saved_source;
    // The vector may have grown while compiling children: index it again.
    data_.nodes[static_cast<std::size_t>(id)].always_invalid = schema->getAlwaysInvalid();
    data_.nodes[static_cast<std::size_t>(id)].steps = std::move(steps);
    return id;
  }

  bool visit(const vc::AllOfConstraint& constraint) override {
    return add_list(StepKind::kAllOf, constraint);
  }
  bool visit(const vc::AnyOfConstraint& constraint) override {
    return add_list(StepKind::kAnyOf, constraint);
  }
  bool visit(const vc::OneOfConstraint& constraint) override {
    return add_list(StepKind::kOneOf, constraint);
  }

  bool visit(const vc::ConditionalConstraint& constraint) override {
    Step step;
    step.kind = StepKind::kIf;
    step.child = optional_node(constraint.getIfSubschema());
    step.then_child = optional_node(constraint.getThenSubschema());
    step.else_child = optional_node(constraint.getElseSubschema());
    if (step.child == kNone) return add_unsupported();
    return add(std::move(step));
  }

  bool visit(const vc::ConstConstraint&) override {
    if (source_ == nullptr || !source_->contains("const")) return add_unsupported();
    Step step;
    step.kind = StepKind::kConst;
    step.value = (*source_)["const"];
    return add(std::move(step));
  }

  bool visit(const vc::ContainsConstraint& constraint) override {
    Step step;
    step.kind = StepKind::kContains;
    step.child = optional_node(constraint.getSubschema());
    if (step.child == kNone) return add_unsupported();
    return add(std::move(step));
  }

  bool visit(const vc::DependenciesConstraint& constraint) override {
    Step step;
    step.kind = StepKind::kDependencies;
    constraint.applyToPropertyDependencies([&](const auto& name, const auto& needed) {
      std::vector<std::string> others;
      for (const auto& other : needed) others.emplace_back(other.c_str());
      step.property_dependencies.emplace_back(name.c_str(), std::move(others));
      return true;
    });
    constraint.applyToSchemaDependencies([&](const auto& name, const valijson::Subschema* sub) {
      step.properties.emplace_back(name.c_str(), node_of(sub));
      return true;
    });
    return add(std::move(step));
  }

  bool visit(const vc::EnumConstraint&) override {
    if (source_ == nullptr || !source_->contains("enum") || !(*source_)["enum"].is_array()) {
      return add_unsupported();
    }
    Step step;
    step.kind = StepKind::kEnum;
    step.value = (*source_)["enum"];
    return add(std::move(step));
  }

  bool visit(const vc::FormatConstraint& constraint) override {
    return add_format(constraint.getFormat());
  }

  bool visit(const vc::LinearItemsConstraint& constraint) override {
    Step step;
    step.kind = StepKind::kLinearItems;
    constraint.applyToItemSubschemas([&](unsigned, const valijson::Subschema* sub) {
      step.children.push_back(node_of(sub));
      return true;
    });
    step.additional = optional_node(constraint.getAdditionalItemsSubschema());
    return add(std::move(step));
  }

  bool visit(const vc::MaximumConstraint& constraint) override {
    return add_bound(StepKind::kMaximum, constraint.getMaximum(), constraint.getExclusiveMaximum());
  }
  bool visit(const vc::MinimumConstraint& constraint) override {
    return add_bound(StepKind::kMinimum, constraint.getMinimum(), constraint.getExclusiveMinimum());
  }
  bool visit(const vc::MaxItemsConstraint& constraint) override {
    return add_count(StepKind::kMaxItems, constraint.getMaxItems());
  }
  bool visit(const vc::MinItemsConstraint& constraint) override {
    return add_count(StepKind::kMinItems, constraint.getMinItems());
  }
  bool visit(const vc::MaxLengthConstraint& constraint) override {
    return add_count(StepKind::kMaxLength, constraint.getMaxLength());
  }
  bool visit(const vc::MinLengthConstraint& constraint) override {
    return add_count(StepKind::kMinLength, constraint.getMinLength());
  }
  bool visit(const vc::MaxPropertiesConstraint& constraint) override {
    return add_count(StepKind::kMaxProperties, constraint.getMaxProperties());
  }
  bool visit(const vc::MinPropertiesConstraint& constraint) override {
    return add_count(StepKind::kMinProperties, constraint.getMinProperties());
  }

  bool visit(const vc::MultipleOfDoubleConstraint& constraint) override {
    return add_multiple(Json(constraint.getDivisor()));
  }
  bool visit(const vc::MultipleOfIntConstraint& constraint) override {
    return add_multiple(Json(constraint.getDivisor()));
  }

  bool visit(const vc::NotConstraint& constraint) override {
    Step step;
    step.kind = StepKind::kNot;
    step.child = optional_node(constraint.getSubschema());
    return add(std::move(step));
  }

  bool visit(const vc::PatternConstraint& constraint) override {
    const Regex* regex = table_regex(constraint.getPattern<std::allocator<char>>());
    if (regex == nullptr) return add_unsupported();
    Step step;
    step.kind = StepKind::kPattern;
    step.regex = regex;
    return add(std::move(step));
  }

  bool visit(const vc::PolyConstraint& constraint) override {
    if (const auto* format = dynamic_cast<const FormatRule*>(&constraint)) {
      return add_format(format->format());
    }
    if (const auto* multiple = dynamic_cast<const MultipleOfRule*>(&constraint)) {
      return add_multiple(multiple->divisor());
    }
    if (const auto* pattern = dynamic_cast<const PatternRule*>(&constraint)) {
      Step step;
      step.kind = StepKind::kPattern;
      step.regex = &pattern->regex();
      return add(std::move(step));
    }
    if (const auto* unique = dynamic_cast<const UniqueItemsRule*>(&constraint)) {
      if (!unique->enabled()) return true;
      Step step;
      step.kind = StepKind::kUniqueItems;
      return add(std::move(step));
    }
    return add_unsupported();
  }

  bool visit(const vc::PropertiesConstraint& constraint) override {
    Step step;
    step.kind = StepKind::kProperties;
    constraint.applyToProperties([&](const auto& name, const valijson::Subschema* sub) {
      step.properties.emplace_back(name.c_str(), node_of(sub));
      return true;
    });
    bool known_patterns = true;
    constraint.applyToPatternProperties([&](const auto& pattern, const valijson::Subschema* sub) {
      const Regex* regex = table_regex(std::string(pattern.c_str()));
      if (regex == nullptr) known_patterns = false;
      step.pattern_properties.emplace_back(regex, node_of(sub));
      return true;
    });
    if (!known_patterns) return add_unsupported();
    step.additional = optional_node(constraint.getAdditionalPropertiesSubschema());
    return add(std::move(step));
  }

  bool visit(const vc::PropertyNamesConstraint& constraint) override {
    Step step;
    step.kind = StepKind::kPropertyNames;
    step.child = optional_node(constraint.getSubschema());
    if (step.child == kNone) return add_unsupported();
    return add(std::move(step));
  }

  bool visit(const vc::RequiredConstraint& constraint) override {
    Step step;
    step.kind = StepKind::kRequired;
    constraint.applyToRequiredProperties([&](const auto& name) {
      step.names.emplace_back(name.c_str());
      return true;
    });
    return add(std::move(step));
  }

  bool visit(const vc::SingularItemsConstraint& constraint) override {
    if (constraint.getItemsSubschema() == nullptr) return true;
    Step step;
    step.kind = StepKind::kItems;
    step.child = node_of(constraint.getItemsSubschema());
    return add(std::move(step));
  }

  bool visit(const vc::TypeConstraint& constraint) override {
    Step step;
    step.kind = StepKind::kType;
    constraint.applyToNamedTypes([&](vc::TypeConstraint::JsonType type) {
      step.types |= type_bit(type);
      return true;
    });
    bool schema_types = false;
    constraint.applyToSchemaTypes([&](unsigned, const valijson::Subschema*) {
      schema_types = true;
      return false;
    });
    if (schema_types) return add_unsupported();  // draft 3 only
    return add(std::move(step));
  }

  bool visit(const vc::UniqueItemsConstraint&) override {
    Step step;
    step.kind = StepKind::kUniqueItems;
    return add(std::move(step));
  }

 private:
  static unsigned type_bit(vc::TypeConstraint::JsonType type) {
    switch (type) {
      case vc::TypeConstraint::kAny:
        return kAnyBit;
      case vc::TypeConstraint::kArray:
        return kArrayBit;
      case vc::TypeConstraint::kBoolean:
        return kBooleanBit;
      case vc::TypeConstraint::kInteger:
        return kIntegerBit;
      case vc::TypeConstraint::kNull:
        return kNullBit;
      case vc::TypeConstraint::kNumber:
        return kNumberBit;
      case vc::TypeConstraint::kObject:
        return kObjectBit;
      case vc::TypeConstraint::kString:
        return kStringBit;
    }
    return 0;
  }

  int optional_node(const valijson::Subschema* schema) {
    return schema == nullptr ? kNone : node_of(schema);
  }

  const Regex* table_regex(const std::string& pattern) const {
    auto it = context_.regexes.find(pattern);
    return it == context_.regexes.end() ? nullptr : &it->second;
  }

  template <typename Constraint>
  bool add_list(StepKind kind, const Constraint& constraint) {
    Step step;
    step.kind = kind;
    constraint.applyToSubschemas([&](unsigned, const valijson::Subschema* sub) {
      step.children.push_back(node_of(sub));
      return true;
    });
    return add(std::move(step));
  }

  bool add_bound(StepKind kind, double limit, bool exclusive) {
    Step step;
    step.kind = kind;
    step.limit = limit;
    step.exclusive = exclusive;
    return add(std::move(step));
  }

  bool add_count(StepKind kind, std::uint64_t count) {
    Step step;
    step.kind = kind;
    step.count = count;
    return add(std::move(step));
  }

  bool add_format(const std::string& format) {
    Step step;
    step.kind = StepKind::kFormat;
    step.format = format;
    return add(std::move(step));
  }

  bool add_multiple(Json divisor) {
    Step step;
    step.kind = StepKind::kMultipleOf;
    step.value = std::move(divisor);
    return add(std::move(step));
  }

  bool add_unsupported() { return add(Step{}); }

  bool add(Step step) {
    steps_->push_back(std::move(step));
    return true;
  }

  const ExplainContext& context_;
  TextProgramData& data_;
  std::unordered_map<const valijson::Subschema*, int> ids_;
  std::vector<Step>* steps_ = nullptr;
  const Json* source_ = nullptr;
};

// Thrown to abandon the text path: the caller parses and asks the DOM walker.
struct GiveUp {};
// Thrown where the walker would have thrown outside any alternative: its verdict is false.
struct Rejected {};

struct Member {
  std::size_t key_pos = 0;     // the opening quote
  std::size_t key_offset = 0;  // into the text, or into the key arena when escaped
  std::size_t key_length = 0;
  std::size_t value_pos = 0;
  std::size_t value_end = 0;
  bool escaped = false;
  bool value_escaped = false;  // when the value is a string
  bool superseded = false;     // a later member has the same key; nlohmann keeps the last
};

enum class ScalarKind : std::uint8_t { kObject, kArray, kString, kBoolean, kNull, kNumber };

// An array item as uniqueItems compares it.
struct Scalar {
  ScalarKind kind = ScalarKind::kNull;
  std::size_t pos = 0;
  bool truth = false;
  bool decoded = false;    // the string lives in Scratch::other, not in the text
  std::size_t offset = 0;  // of a string
  std::size_t length = 0;
  JsonNumber number;
};

// Per-thread buffers, so that a check allocates only while they grow.
struct Scratch {
  std::vector<Member> members;  // a stack: each object's members above its parent's
  std::string keys;             // decoded escaped keys, same discipline
  std::string text;             // the decoded string a keyword is looking at
  std::string other;            // decoded escaped strings of uniqueItems
  std::vector<Scalar> items;
  std::vector<std::pair<std::string_view, std::size_t>> sorted;
};

Scratch& scratch() {
  thread_local Scratch instance;
  return instance;
}

// One value of the text, with what the steps have learned about it so far.
struct Value {
  explicit Value(std::size_t at, char first) : pos(at), kind(first) {}

  std::size_t pos;
  char kind;  // its first byte
  bool members_ready = false;
  std::size_t first = 0;
  std::size_t last = 0;
  std::size_t distinct = 0;
  bool number_ready = false;
  JsonNumber number;
  bool string_ready = false;
  bool escaped = false;
  std::string_view raw;  // string content between the quotes
  bool items_ready = false;
  std::size_t items = 0;

  bool is_object() const { return kind == '{'; }
  bool is_array() const { return kind == '['; }
  bool is_string() const { return kind == '"'; }
  bool is_number() const { return kind == '-' || (kind >= '0' && kind <= '9'); }
};

// What a scalar step tests, shared by the general steps (Evaluator::apply()) and the one-walk
// path for objects of named scalars (check_scalar()).

// The type bits of a value whose first byte is `first`; `is_integer` is asked for numbers only.
template <typename IsInteger>
unsigned type_bits_of(char first, IsInteger&& is_integer) {
  switch (first) {
    case '{':
      return kObjectBit;
    case '[':
      return kArrayBit;
    case '"':
      return kStringBit;
    case 't':
    case 'f':
      return kBooleanBit;
    case 'n':
      return kNullBit;
    default:
      return is_integer() ? (kNumberBit | kIntegerBit) : kNumberBit;
  }
}

// minLength / maxLength on a string of `length` code points.
bool length_within(const Step& step, std::size_t length) {
  return step.kind == StepKind::kMinLength ? length >= step.count : length <= step.count;
}

// minimum / maximum (exclusive or not) on a number.
bool number_within(const Step& step, double d) {
  if (step.kind == StepKind::kMaximum) return step.exclusive ? d < step.limit : d <= step.limit;
  return step.exclusive ? d > step.limit : d >= step.limit;
}

class Evaluator {
 public:
  Evaluator(const TextProgramData& program, std::string_view text, Scratch& scratch)
      : nodes_(program.nodes), text_(text), scratch_(scratch) {}

  bool run(std::size_t root) { return check_at(0, root, 0); }

 private:
  bool check_at(int id, std::size_t pos, int depth) {
    const std::size_t members = scratch_.members.size();
    const std::size_t keys = scratch_.keys.size();
    Value value(pos, text_[pos]);
    const bool ok = check(id, value, depth);
    release(members, keys);
    return ok;
  }

  // Drops what a value pushed onto the member and key stacks; most push nothing.
  void release(std::size_t members, std::size_t keys) {
    if (scratch_.members.size() != members) scratch_.members.resize(members);
    if (scratch_.keys.size() != keys) scratch_.keys.resize(keys);
  }

  // A member's or an item's value, with what finding its end already learned about a string.
  bool check_member(int id, const Member& member, int depth) {
    const std::size_t members = scratch_.members.size();
    const std::size_t keys = scratch_.keys.size();
    Value value(member.value_pos, text_[member.value_pos]);
    if (value.is_string()) {
      value.raw = text_.substr(member.value_pos + 1, member.value_end - member.value_pos - 2);
      value.escaped = member.value_escaped;
      value.string_ready = true;
    }
    const bool ok = check(id, value, depth);
    release(members, keys);
    return ok;
  }

  bool check(int id, Value& value, int depth) {
    if (depth > kMaxDepth) return false;
    const Node& node = nodes_[static_cast<std::size_t>(id)];
    if (node.always_invalid) return false;
    for (const Step& step : node.steps) {
      if (!apply(step, value, depth)) return false;
    }
    return true;
  }

  // Inside an alternative a failure may not decide the verdict, so a regex that gives up there
  // leaves the text path; elsewhere it fails the value as the walker's exception does.
  bool check_alternative(int id, Value& value, int depth) {
    ++speculative_;
    const bool ok = check(id, value, depth);
    --speculative_;
    return ok;
  }

  bool apply(const Step& step, Value& value, int depth) {
    switch (step.kind) {
      case StepKind::kType:
        return (step.types & kAnyBit) != 0 || (step.types & type_bits(value)) != 0;
      case StepKind::kAllOf: {
        bool ok = true;
        for (const int child : step.children) ok = check(child, value, depth) && ok;
        return ok;
      }
      case StepKind::kAnyOf:
        for (const int child : step.children) {
          if (check_alternative(child, value, depth)) return true;
        }
        return false;
      case StepKind::kOneOf: {
        std::size_t matches = 0;
        for (const int child : step.children) {
          if (check_alternative(child, value, depth)) ++matches;
        }
        return matches == 1;
      }
      case StepKind::kNot:
        return step.child != kNone && !check_alternative(step.child, value, depth);
      case StepKind::kIf: {
        const bool condition = check_alternative(step.child, value, depth);
        const int branch = condition ? step.then_child : step.else_child;
        return branch == kNone || check(branch, value, depth);
      }
      case StepKind::kConst:
        return equals(value, step.value);
      case StepKind::kEnum:
        return in_enum(value, step.value);
      case StepKind::kProperties:
        return properties(step, value, depth);
      case StepKind::kRequired:
        if (!value.is_object()) return true;
        collect_members(value);
        return std::all_of(step.names.begin(), step.names.end(),
                           [&](const std::string& name) { return has_member(value, name); });
      case StepKind::kDependencies:
        return dependencies(step, value, depth);
      case StepKind::kPropertyNames:
        return property_names(step, value, depth);
      case StepKind::kMinProperties:
        if (!value.is_object()) return true;
        collect_members(value);
        return value.distinct >= step.count;
      case StepKind::kMaxProperties:
        if (!value.is_object()) return true;
        collect_members(value);
        return value.distinct <= step.count;
      case StepKind::kItems:
        return items(step, value, depth);
      case StepKind::kLinearItems:
        return linear_items(step, value, depth);
      case StepKind::kContains:
        return contains(step, value, depth);
      case StepKind::kMinItems:
        return !value.is_array() || item_count(value) >= step.count;
      case StepKind::kMaxItems:
        return !value.is_array() || item_count(value) <= step.count;
      case StepKind::kUniqueItems:
        return unique_items(value);
      case StepKind::kMinimum:
      case StepKind::kMaximum:
        return bound(step, value);
      case StepKind::kMinLength:
      case StepKind::kMaxLength: {
        if (!value.is_string()) return true;
        load_string(value);
        return length_within(step, string_code_points(value.raw, value.escaped));
      }
      case StepKind::kPattern:
        return !value.is_string() || search(*step.regex, decoded(value));
      case StepKind::kFormat:
        return !value.is_string() || matches_format(step.format, decoded(value));
      case StepKind::kMultipleOf:
        return !value.is_number() || is_multiple_of(number(value).as_json(), step.value);
      case StepKind::kUnsupported:
        break;
    }
    throw GiveUp{};
  }

  unsigned type_bits(Value& value) {
    return type_bits_of(value.kind, [&] { return number(value).is_integer(); });
  }

  const JsonNumber& number(Value& value) {
    if (!value.number_ready) {
      std::size_t end = 0;
      value.number = read_number(text_, value.pos, end);
      value.number_ready = true;
    }
    return value.number;
  }

  void load_string(Value& value) {
    if (value.string_ready) return;
    bool escaped = false;
    const std::size_t end = skip_string(text_, value.pos, escaped);
    value.raw = text_.substr(value.pos + 1, end - value.pos - 2);
    value.escaped = escaped;
    value.string_ready = true;
  }

  // Valid until the next call: escaped strings are decoded into one shared buffer.
  std::string_view decoded(Value& value) {
    load_string(value);
    if (!value.escaped) return value.raw;
    scratch_.text.clear();
    decode_string(value.raw, scratch_.text);
    return scratch_.text;
  }

  bool search(const Regex& regex, std::string_view text) {
    try {
      return regex.search(text);
    } catch (const RegexGaveUp&) {
      if (speculative_ > 0) throw GiveUp{};
      throw Rejected{};
    }
  }

  bool bound(const Step& step, Value& value) {
    if (!value.is_number()) return true;
    return number_within(step, number(value).as_double());
  }

  // The walker's equality (explainer.cpp): numbers compare as doubles when either is a double,
  // otherwise as nlohmann compares integers; other types must match exactly.
  bool equals(Value& value, const Json& expected) {
    if (value.is_object() || value.is_array()) return equal_json(value.pos, expected, 0);
    switch (value.kind) {
      case '"':
        return expected.is_string() && decoded(value) == expected.get_ref<const std::string&>();
      case 't':
      case 'f':
        return expected.is_boolean() && expected.get<bool>() == (value.kind == 't');
      case 'n':
        return expected.is_null();
      default:
        break;
    }
    if (!expected.is_number()) return false;
    const JsonNumber& n = number(value);
    if (n.kind == JsonNumber::Kind::kFloat || expected.is_number_float()) {
      return n.as_double() == expected.get<double>();
    }
    return n.as_json() == expected;
  }

  // Structural equality of the value at `pos` with `expected`, objects compared by their
  // distinct keys with the last of repeated ones, as the DOM holds them.
  bool equal_json(std::size_t pos, const Json& expected, int depth) {
    if (depth > kMaxCompareDepth) throw GiveUp{};
    Value value(pos, text_[pos]);
    if (value.is_array()) {
      if (!expected.is_array()) return false;
      std::size_t index = 0;
      bool same = true;
      for_each_item(pos, [&](std::size_t item) {
        same = index < expected.size() && equal_json(item, expected[index], depth + 1);
        ++index;
        return same;
      });
      return same && index == expected.size();
    }
    if (value.is_object()) {
      if (!expected.is_object()) return false;
      const std::size_t members = scratch_.members.size();
      const std::size_t keys = scratch_.keys.size();
      collect_members(value);
      bool same = value.distinct == expected.size();
      for (std::size_t i = value.first; same && i < value.last; ++i) {
        const Member member = scratch_.members[i];
        if (member.superseded) continue;
        const auto it = expected.find(key(member));
        same = it != expected.end() && equal_json(member.value_pos, *it, depth + 1);
      }
      release(members, keys);
      return same;
    }
    return equals(value, expected);
  }

  bool in_enum(Value& value, const Json& values) {
    for (const Json& expected : values) {
      if (equals(value, expected)) return true;
    }
    return false;
  }

  // Lists the object's members once per value; marks every key that a later one repeats.
  void collect_members(Value& value) {
    if (value.members_ready) return;
    value.members_ready = true;
    auto& members = scratch_.members;
    value.first = members.size();
    std::size_t pos = skip_space(text_, value.pos + 1);
    if (text_[pos] != '}') {
      for (;;) {
        Member member;
        member.key_pos = pos;
        bool escaped = false;
        const std::size_t end = skip_string(text_, pos, escaped);
        member.escaped = escaped;
        if (escaped) {
          member.key_offset = scratch_.keys.size();
          decode_string(text_.substr(pos + 1, end - pos - 2), scratch_.keys);
          member.key_length = scratch_.keys.size() - member.key_offset;
        } else {
          member.key_offset = pos + 1;
          member.key_length = end - pos - 2;
        }
        pos = skip_space(text_, skip_space(text_, end) + 1);
        member.value_pos = pos;
        if (text_[pos] == '"') {
          pos = skip_string(text_, pos, member.value_escaped);
        } else {
          pos = skip_value(text_, pos);
        }
        member.value_end = pos;
        pos = skip_space(text_, pos);
        members.push_back(member);
        if (text_[pos] != ',') break;
        pos = skip_space(text_, pos + 1);
      }
    }
    value.last = members.size();
    mark_repeated(value);
  }

  void mark_repeated(Value& value) {
    auto& members = scratch_.members;
    const std::size_t n = value.last - value.first;
    value.distinct = n;
    if (n < 2) return;
    if (n <= kPairwiseLimit) {
      for (std::size_t i = value.first; i < value.last; ++i) {
        for (std::size_t j = i + 1; j < value.last; ++j) {
          if (same_bytes(key(members[i]), key(members[j]))) {
            members[i].superseded = true;
            --value.distinct;
            break;
          }
        }
      }
      return;
    }
    auto& sorted = scratch_.sorted;
    sorted.clear();
    for (std::size_t i = value.first; i < value.last; ++i) sorted.emplace_back(key(members[i]), i);
    // Equal keys end up in text order, so all but the last of each run are superseded.
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t i = 0; i + 1 < sorted.size(); ++i) {
      if (sorted[i].first != sorted[i + 1].first) continue;
      members[sorted[i].second].superseded = true;
      --value.distinct;
    }
  }

  // Keys are short: comparing them inline beats a call to memcmp.
  static bool same_bytes(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i] != b[i]) return false;
    }
    return true;
  }

  std::string_view key(const Member& member) const {
    const char* base = member.escaped ? scratch_.keys.data() : text_.data();
    return {base + member.key_offset, member.key_length};
  }

  // The index of the member nlohmann keeps for `name`, or kNoPosition.
  std::size_t find_member(const Value& value, std::string_view name) const {
    const Member* members = scratch_.members.data();
    for (std::size_t i = value.first; i < value.last; ++i) {
      const Member& member = members[i];
      // Most keys differ in length from the name: that test alone settles them.
      if (member.key_length != name.size() || member.superseded) continue;
      if (same_bytes(key(member), name)) return i;
    }
    return kNoPosition;
  }

  bool has_member(const Value& value, std::string_view name) const {
    return find_member(value, name) != kNoPosition;
  }

  bool properties(const Step& step, Value& value, int depth) {
    if (!value.is_object()) return true;
    collect_members(value);
    std::size_t declared = 0;
    for (const auto& [name, child] : step.properties) {
      const std::size_t index = find_member(value, name);
      if (index == kNoPosition) continue;
      ++declared;
      const Member member = scratch_.members[index];
      if (!check_member(child, member, depth + 1)) return false;
    }
    if (step.pattern_properties.empty() && declared == value.distinct) return true;
    // The walker visits the members in key order and stops at the first failure; visiting all
    // of them runs every regex it could have run, so that one giving up is never missed.
    bool ok = true;
    for (std::size_t i = value.first; i < value.last; ++i) {
      if (scratch_.members[i].superseded) continue;
      const Member member = scratch_.members[i];
      bool matched = std::any_of(step.properties.begin(), step.properties.end(),
                                 [&](const auto& p) { return same_bytes(key(member), p.first); });
      for (const auto& [regex, child] : step.pattern_properties) {
        if (!search(*regex, key(scratch_.members[i]))) continue;
        matched = true;
        ok = check_member(child, member, depth + 1) && ok;
      }
      if (matched) continue;
      ok = step.additional != kNone && check_member(step.additional, member, depth + 1) && ok;
    }
    return ok;
  }

  bool dependencies(const Step& step, Value& value, int depth) {
    if (!value.is_object()) return true;
    collect_members(value);
    bool ok = true;
    for (const auto& [name, needed] : step.property_dependencies) {
      if (!has_member(value, name)) continue;
      for (const auto& other : needed) {
        if (!has_member(value, other)) ok = false;
      }
    }
    for (const auto& [name, child] : step.properties) {
      if (!has_member(value, name)) continue;
      ok = check(child, value, depth) && ok;
      if (!ok) break;
    }
    return ok;
  }

  bool property_names(const Step& step, Value& value, int depth) {
    if (!value.is_object()) return true;
    collect_members(value);
    bool ok = true;
    for (std::size_t i = value.first; i < value.last; ++i) {
      if (scratch_.members[i].superseded) continue;
      ok = check_at(step.child, scratch_.members[i].key_pos, depth) && ok;
    }
    return ok;
  }

  // Pairwise on items read once, as the walker compares; items that are objects or arrays of
  // the same kind would need a structural comparison and leave the text path.
  bool unique_items(const Value& value) {
    if (!value.is_array()) return true;
    auto& items = scratch_.items;
    auto& strings = scratch_.other;
    items.clear();
    strings.clear();
    for_each_item(value.pos, [&](std::size_t pos) {
      Scalar item;
      item.pos = pos;
      item.kind = kind_class(text_[pos]);
      if (item.kind == ScalarKind::kString) {
        bool escaped = false;
        const std::size_t end = skip_string(text_, pos, escaped);
        const std::string_view raw = text_.substr(pos + 1, end - pos - 2);
        item.decoded = escaped;
        if (escaped) {
          item.offset = strings.size();
          decode_string(raw, strings);
          item.length = strings.size() - item.offset;
        } else {
          item.offset = pos + 1;
          item.length = raw.size();
        }
      } else if (item.kind == ScalarKind::kNumber) {
        std::size_t end = 0;
        item.number = read_number(text_, pos, end);
      } else if (item.kind == ScalarKind::kBoolean) {
        item.truth = text_[pos] == 't';
      }
      items.push_back(item);
      return true;
    });
    for (std::size_t j = 1; j < items.size(); ++j) {
      for (std::size_t i = 0; i < j; ++i) {
        if (same(items[i], items[j])) return false;
      }
    }
    return true;
  }

  // Structural equality of two values of the text, as the walker compares two items.
  bool equal_texts(std::size_t a, std::size_t b, int depth) {
    if (depth > kMaxCompareDepth) throw GiveUp{};
    const ScalarKind kind = kind_class(text_[a]);
    if (kind != kind_class(text_[b])) return false;
    if (kind == ScalarKind::kArray) {
      std::size_t x = first_item(a);
      std::size_t y = first_item(b);
      while (x != kNoPosition && y != kNoPosition) {
        if (!equal_texts(x, y, depth + 1)) return false;
        x = next_item(x);
        y = next_item(y);
      }
      return x == y;
    }
    if (kind == ScalarKind::kObject) {
      const std::size_t members = scratch_.members.size();
      const std::size_t keys = scratch_.keys.size();
      Value left(a, text_[a]);
      Value right(b, text_[b]);
      collect_members(left);
      collect_members(right);
      bool same = left.distinct == right.distinct;
      for (std::size_t i = left.first; same && i < left.last; ++i) {
        const Member member = scratch_.members[i];
        if (member.superseded) continue;
        const std::size_t other = find_member(right, key(member));
        same = other != kNoPosition &&
               equal_texts(member.value_pos, scratch_.members[other].value_pos, depth + 1);
      }
      release(members, keys);
      return same;
    }
    Value left(a, text_[a]);
    Value right(b, text_[b]);
    return same_scalar(left, right);
  }

  bool same_scalar(Value& a, Value& b) {
    switch (a.kind) {
      case '"': {
        load_string(a);
        load_string(b);
        if (!a.escaped && !b.escaped) return a.raw == b.raw;
        std::string left;
        std::string right;
        decode_string(a.raw, left);
        decode_string(b.raw, right);
        return left == right;
      }
      case 't':
      case 'f':
        return a.kind == b.kind;
      case 'n':
        return true;
      default:
        break;
    }
    const JsonNumber& x = number(a);
    const JsonNumber& y = number(b);
    if (x.kind == JsonNumber::Kind::kFloat || y.kind == JsonNumber::Kind::kFloat) {
      return x.as_double() == y.as_double();
    }
    return x.as_json() == y.as_json();
  }

  std::size_t first_item(std::size_t array) const {
    const std::size_t pos = skip_space(text_, array + 1);
    return text_[pos] == ']' ? kNoPosition : pos;
  }

  std::size_t next_item(std::size_t item) const {
    const std::size_t pos = skip_space(text_, skip_value(text_, item));
    return text_[pos] == ',' ? skip_space(text_, pos + 1) : kNoPosition;
  }

  static ScalarKind kind_class(char first) {
    switch (first) {
      case '{':
        return ScalarKind::kObject;
      case '[':
        return ScalarKind::kArray;
      case '"':
        return ScalarKind::kString;
      case 't':
      case 'f':
        return ScalarKind::kBoolean;
      case 'n':
        return ScalarKind::kNull;
      default:
        return ScalarKind::kNumber;
    }
  }

  std::string_view text_of(const Scalar& item) const {
    return item.decoded ? std::string_view(scratch_.other).substr(item.offset, item.length)
                        : text_.substr(item.offset, item.length);
  }

  bool same(const Scalar& a, const Scalar& b) {
    if (a.kind != b.kind) return false;
    switch (a.kind) {
      case ScalarKind::kObject:
      case ScalarKind::kArray:
        return equal_texts(a.pos, b.pos, 0);
      case ScalarKind::kString:
        return text_of(a) == text_of(b);
      case ScalarKind::kBoolean:
        return a.truth == b.truth;
      case ScalarKind::kNull:
        return true;
      case ScalarKind::kNumber:
        break;
    }
    const JsonNumber& x = a.number;
    const JsonNumber& y = b.number;
    if (x.kind != y.kind || x.kind == JsonNumber::Kind::kFloat) {
      if (x.kind == JsonNumber::Kind::kFloat || y.kind == JsonNumber::Kind::kFloat) {
        return x.as_double() == y.as_double();
      }
      return x.as_json() == y.as_json();
    }
    return x.kind == JsonNumber::Kind::kSigned ? x.i == y.i : x.u == y.u;
  }

  // Calls visit(position) for each item until it returns false.
  template <typename Visit>
  void for_each_item(std::size_t array, Visit visit) {
    std::size_t pos = skip_space(text_, array + 1);
    if (text_[pos] == ']') return;
    for (;;) {
      if (!visit(pos)) return;
      pos = skip_space(text_, skip_value(text_, pos));
      if (text_[pos] != ',') return;
      pos = skip_space(text_, pos + 1);
    }
  }

  std::size_t item_count(Value& value) {
    if (!value.items_ready) {
      std::size_t n = 0;
      for_each_item(value.pos, [&](std::size_t) {
        ++n;
        return true;
      });
      value.items = n;
      value.items_ready = true;
    }
    return value.items;
  }

  // As for_each_item(), handing over each item as a Member whose end is known, so that a string
  // item is not scanned a second time.
  template <typename Visit>
  void for_each_item_member(std::size_t array, Visit visit) {
    std::size_t pos = skip_space(text_, array + 1);
    if (text_[pos] == ']') return;
    for (;;) {
      Member item;
      item.value_pos = pos;
      pos =
          text_[pos] == '"' ? skip_string(text_, pos, item.value_escaped) : skip_value(text_, pos);
      item.value_end = pos;
      if (!visit(item)) return;
      pos = skip_space(text_, pos);
      if (text_[pos] != ',') return;
      pos = skip_space(text_, pos + 1);
    }
  }

  bool items(const Step& step, Value& value, int depth) {
    if (!value.is_array()) return true;
    bool ok = true;
    for_each_item_member(value.pos, [&](const Member& item) {
      ok = check_member(step.child, item, depth + 1) && ok;
      return true;
    });
    return ok;
  }

  bool linear_items(const Step& step, Value& value, int depth) {
    if (!value.is_array()) return true;
    bool ok = true;
    std::size_t index = 0;
    for_each_item_member(value.pos, [&](const Member& item) {
      if (index < step.children.size()) {
        ok = check_member(step.children[index], item, depth + 1) && ok;
      } else if (step.additional == kNone) {
        ok = false;
        return false;
      } else {
        ok = check_member(step.additional, item, depth + 1) && ok;
      }
      ++index;
      return true;
    });
    return ok;
  }

  bool contains(const Step& step, Value& value, int depth) {
    if (!value.is_array()) return true;
    bool found = false;
    ++speculative_;
    for_each_item(value.pos, [&](std::size_t pos) {
      found = check_at(step.child, pos, depth);
      return !found;
    });
    --speculative_;
    return found;
  }

  const std::vector<Node>& nodes_;
  std::string_view text_;
  Scratch& scratch_;
  int speculative_ = 0;
};

// Steps that look at a scalar only, each the same test as Evaluator::apply() makes.
bool scalar_steps_only(const Node& node) {
  if (node.always_invalid) return false;
  return std::all_of(node.steps.begin(), node.steps.end(), [](const Step& step) {
    switch (step.kind) {
      case StepKind::kType:
      case StepKind::kMinLength:
      case StepKind::kMaxLength:
      case StepKind::kMinimum:
      case StepKind::kMaximum:
        return true;
      default:
        return false;
    }
  });
}

// One member's value, from `pos` to `end`, against scalar steps (scalar_steps_only()), with the
// rules Evaluator::apply() uses.
bool check_scalar(const Node& node, std::string_view text, std::size_t pos, std::size_t end,
                  bool escaped) {
  const char kind = text[pos];
  const bool is_number = kind == '-' || (kind >= '0' && kind <= '9');
  JsonNumber number;
  bool number_ready = false;
  const auto read = [&]() -> const JsonNumber& {
    if (!number_ready) {
      std::size_t number_end = 0;
      number = read_number(text, pos, number_end);
      number_ready = true;
    }
    return number;
  };
  for (const Step& step : node.steps) {
    switch (step.kind) {
      case StepKind::kType:
        if ((step.types & kAnyBit) == 0 &&
            (step.types & type_bits_of(kind, [&] { return read().is_integer(); })) == 0) {
          return false;
        }
        break;
      case StepKind::kMinLength:
      case StepKind::kMaxLength:
        if (kind == '"' &&
            !length_within(step,
                           string_code_points(text.substr(pos + 1, end - pos - 2), escaped))) {
          return false;
        }
        break;
      case StepKind::kMinimum:
      case StepKind::kMaximum:
        if (is_number && !number_within(step, read().as_double())) return false;
        break;
      default:
        return false;  // not reached: the plan admits the kinds above only
    }
  }
  return true;
}

std::optional<FlatPlan> make_flat_plan(const TextProgramData& data) {
  const Node& root = data.nodes.front();
  if (root.always_invalid) return std::nullopt;
  FlatPlan plan;
  const Step* type = nullptr;
  const Step* properties = nullptr;
  const Step* required = nullptr;
  for (const Step& step : root.steps) {
    if (step.kind == StepKind::kType && type == nullptr) {
      type = &step;
      plan.types = step.types;
    } else if (step.kind == StepKind::kProperties && properties == nullptr) {
      properties = &step;
    } else if (step.kind == StepKind::kRequired && required == nullptr) {
      required = &step;
    } else {
      return std::nullopt;
    }
  }
  // Members are marked in a 64-bit set.
  if (properties == nullptr || !properties->pattern_properties.empty() ||
      properties->properties.size() > 64) {
    return std::nullopt;
  }
  for (const auto& [name, child] : properties->properties) {
    if (!scalar_steps_only(data.nodes[static_cast<std::size_t>(child)])) return std::nullopt;
    plan.properties.emplace_back(name, child);
  }
  if (properties->additional != kNone) {
    const Node& others = data.nodes[static_cast<std::size_t>(properties->additional)];
    if (others.always_invalid || !others.steps.empty()) return std::nullopt;
  }
  plan.others_allowed = properties->additional != kNone;
  if (required != nullptr) {
    for (const std::string& name : required->names) {
      const auto it = std::find_if(plan.properties.begin(), plan.properties.end(),
                                   [&](const auto& p) { return p.first == name; });
      if (it == plan.properties.end()) return std::nullopt;
      plan.required |= std::uint64_t{1} << (it - plan.properties.begin());
    }
  }
  return plan;
}

// The verdict of the general steps on the object at `pos` (its opening brace), or nothing where
// they must decide: a key with an escape (it may decode to a declared name) or a declared name
// given twice (nlohmann keeps the last, so an earlier failure may not count). `kWhole`: `text`
// has not been checked yet; the walk checks it as well_formed_root() would, and gives up on
// anything unusual (then the caller's two passes decide, malformed text included): no byte order
// mark, nothing after the object but spaces.
template <bool kWhole>
std::optional<bool> check_flat(const FlatPlan& plan, const std::vector<Node>& nodes,
                               std::string_view text, std::size_t pos) {
  const auto at = [&](std::size_t i) { return i < text.size() ? text[i] : '\0'; };
  // Without a verdict on the rest of the text, a mismatch of the type cannot end the walk.
  bool ok = (plan.types & (kAnyBit | kObjectBit)) != 0;
  if (!kWhole && !ok) return false;
  std::uint64_t seen = 0;
  pos = skip_space(text, pos + 1);
  if (at(pos) != '}') {
    for (;;) {
      bool escaped = false;
      std::size_t key_end = 0;
      if constexpr (kWhole) {
        key_end = json_scan::well_formed_string(text, pos, escaped);  // checks the quote too
        if (key_end == kNoPosition) return std::nullopt;
      } else {
        key_end = skip_string(text, pos, escaped);
      }
      if (escaped) return std::nullopt;
      const std::string_view key = text.substr(pos + 1, key_end - pos - 2);
      pos = skip_space(text, key_end);
      if (kWhole && at(pos) != ':') return std::nullopt;
      pos = skip_space(text, pos + 1);
      const std::size_t value_pos = pos;
      bool value_escaped = false;
      if constexpr (kWhole) {
        if (pos >= text.size()) return std::nullopt;
        pos = text[pos] == '"' ? json_scan::well_formed_string(text, pos, value_escaped)
                               : json_scan::well_formed_value(text, pos);
        if (pos == kNoPosition) return std::nullopt;
      } else {
        pos = text[pos] == '"' ? skip_string(text, pos, value_escaped) : skip_value(text, pos);
      }
      std::size_t index = 0;
      while (index < plan.properties.size() && plan.properties[index].first != key) ++index;
      if (index == plan.properties.size()) {
        ok = ok && plan.others_allowed;
      } else {
        const std::uint64_t bit = std::uint64_t{1} << index;
        if ((seen & bit) != 0) return std::nullopt;
        seen |= bit;
        if (ok) {
          const Node& node = nodes[static_cast<std::size_t>(plan.properties[index].second)];
          ok = check_scalar(node, text, value_pos, pos, value_escaped);
        }
      }
      pos = skip_space(text, pos);
      if (at(pos) != ',') break;
      pos = skip_space(text, pos + 1);
    }
  }
  if constexpr (kWhole) {
    if (at(pos) != '}' || skip_space(text, pos + 1) != text.size()) return std::nullopt;
  }
  return ok && (seen & plan.required) == plan.required;
}

}  // namespace

TextProgram::TextProgram(const ExplainContext& context, const valijson::Subschema& root)
    : data_(std::make_unique<TextProgramData>()) {
  Compiler compiler(context, *data_);
  compiler.node_of(&root);
  data_->flat = make_flat_plan(*data_);
}

TextProgram::~TextProgram() = default;

std::optional<TextVerdict> TextProgram::check_whole(std::string_view text) const {
  if (!data_->flat) return std::nullopt;
  const std::size_t root = skip_space(text, 0);
  if (root >= text.size() || text[root] != '{') return std::nullopt;
  const auto verdict = check_flat<true>(*data_->flat, data_->nodes, text, root);
  if (!verdict) return std::nullopt;
  return *verdict ? TextVerdict::kValid : TextVerdict::kInvalid;
}

TextVerdict TextProgram::check(std::string_view text, std::size_t root) const {
  if (data_->flat && text[root] == '{') {
    if (const auto verdict = check_flat<false>(*data_->flat, data_->nodes, text, root)) {
      return *verdict ? TextVerdict::kValid : TextVerdict::kInvalid;
    }
  }
  Scratch& buffers = scratch();
  buffers.members.clear();
  buffers.keys.clear();
  Evaluator evaluator(*data_, text, buffers);
  try {
    return evaluator.run(root) ? TextVerdict::kValid : TextVerdict::kInvalid;
  } catch (const GiveUp&) {
    return TextVerdict::kUnsupported;
  } catch (const Rejected&) {
    return TextVerdict::kInvalid;
  }
}

}  // namespace skillrt::schema::detail
