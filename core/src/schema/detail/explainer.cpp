#include "schema/detail/explainer.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <string_view>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/constraints/concrete_constraints.hpp>
#include <valijson/constraints/constraint_visitor.hpp>
#include <valijson/subschema.hpp>

#include "schema/detail/rules.hpp"
#include "schema/detail/text.hpp"

namespace skillrt::schema::detail {
namespace {

namespace vc = valijson::constraints;
using Json = nlohmann::json;

// A violation plus what a type failure expected, so that failed alternatives of anyOf/oneOf
// that differ only in type read as one sentence ("must be string or null").
struct Finding {
  Violation violation;
  std::vector<std::string> expected_types;  // set when the value has the wrong type
};

// How deep a value may nest under a schema that descends into it. The walk is recursive, so a
// bound keeps a hostile input from exhausting the stack; real skill inputs nest a few levels.
constexpr int kMaxDepth = 256;

// How many alternatives, properties or values a message lists before it stops.
constexpr std::size_t kListLimit = 12;

bool is_json_integer(const Json& value) { return json_type_name(value) == "integer"; }

bool has_type(const Json& value, vc::TypeConstraint::JsonType type) {
  switch (type) {
    case vc::TypeConstraint::kAny:
      return true;
    case vc::TypeConstraint::kArray:
      return value.is_array();
    case vc::TypeConstraint::kBoolean:
      return value.is_boolean();
    case vc::TypeConstraint::kInteger:
      return value.is_number() && is_json_integer(value);
    case vc::TypeConstraint::kNull:
      return value.is_null();
    case vc::TypeConstraint::kNumber:
      return value.is_number();
    case vc::TypeConstraint::kObject:
      return value.is_object();
    case vc::TypeConstraint::kString:
      return value.is_string();
  }
  return false;
}

std::string type_name(vc::TypeConstraint::JsonType type) {
  switch (type) {
    case vc::TypeConstraint::kAny:
      return "any";
    case vc::TypeConstraint::kArray:
      return "array";
    case vc::TypeConstraint::kBoolean:
      return "boolean";
    case vc::TypeConstraint::kInteger:
      return "integer";
    case vc::TypeConstraint::kNull:
      return "null";
    case vc::TypeConstraint::kNumber:
      return "number";
    case vc::TypeConstraint::kObject:
      return "object";
    case vc::TypeConstraint::kString:
      return "string";
  }
  return "unknown";
}

std::string join_words(const std::vector<std::string>& words, const char* last) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += (i + 1 == words.size()) ? last : ", ";
    out += words[i];
  }
  return out;
}

std::string join_or(const std::vector<std::string>& words) { return join_words(words, " or "); }

std::string join_quoted(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < kListLimit; ++i) {
    if (i > 0) out += ", ";
    out += "'" + names[i] + "'";
  }
  if (names.size() > kListLimit) out += ", ...";
  return out;
}

// The message without its "<pointer>: " head when it is about `pointer` itself; a message
// about a deeper place keeps its pointer so the reader knows where.
std::string tail_of(const Violation& v, const std::string& pointer) {
  const std::string head = display_pointer(v.pointer) + ": ";
  if (v.pointer == pointer && v.message.starts_with(head)) return v.message.substr(head.size());
  return v.message;
}

class Explainer final : public vc::ConstraintVisitor {
 public:
  // In verdict mode the walk stops at the first failure and phrases nothing: it is the fast
  // path for the common, valid call.
  Explainer(const ExplainContext& context, const Json& target, std::vector<std::string>& path,
            std::vector<Finding>& out, bool verdict, int depth = 0)
      : context_(context),
        target_(target),
        path_(path),
        out_(out),
        verdict_(verdict),
        depth_(depth) {}

  bool check(const valijson::Subschema& schema) {
    if (depth_ > kMaxDepth) {
      if (!verdict_) {
        report("depth", "the value nests deeper than " + std::to_string(kMaxDepth) +
                            " levels, which is not accepted; flatten it");
      }
      return false;
    }
    if (schema.getAlwaysInvalid()) {
      if (!verdict_) {
        report("false",
               "no value is allowed here (the schema is false), got " + describe_value(target_));
      }
      return false;
    }
    const valijson::Subschema* saved = current_;
    current_ = &schema;
    valijson::Subschema::ApplyFunction visit_one = [this](const vc::Constraint& constraint) {
      return constraint.accept(*this);
    };
    const bool ok = verdict_ ? schema.applyStrict(visit_one) : schema.apply(visit_one);
    current_ = saved;
    return ok;
  }

  bool visit(const vc::AllOfConstraint& constraint) override {
    bool ok = true;
    constraint.applyToSubschemas([&](unsigned, const valijson::Subschema* sub) {
      ok = check(*sub) && ok;
      return true;
    });
    return ok;
  }

  bool visit(const vc::AnyOfConstraint& constraint) override {
    std::vector<std::vector<Finding>> failures;
    bool matched = false;
    constraint.applyToSubschemas([&](unsigned, const valijson::Subschema* sub) {
      std::vector<Finding> branch;
      if (check_into(*sub, target_, branch)) {
        matched = true;
        return false;
      }
      if (!verdict_) failures.push_back(std::move(branch));
      return true;
    });
    if (matched) return true;
    if (!verdict_) report_alternatives("anyOf", "must match at least one of", failures);
    return false;
  }

  bool visit(const vc::OneOfConstraint& constraint) override {
    std::vector<std::vector<Finding>> failures;
    std::vector<unsigned> matches;
    constraint.applyToSubschemas([&](unsigned index, const valijson::Subschema* sub) {
      std::vector<Finding> branch;
      if (check_into(*sub, target_, branch)) {
        matches.push_back(index);
      } else if (!verdict_) {
        failures.push_back(std::move(branch));
      }
      return true;
    });
    if (matches.size() == 1) return true;
    if (matches.empty()) {
      if (!verdict_) report_alternatives("oneOf", "must match exactly one of", failures);
      return false;
    }
    std::vector<std::string> which;
    for (unsigned index : matches) which.push_back(std::to_string(index));
    if (!verdict_) {
      report("oneOf", "must match exactly one alternative (oneOf), but matches alternatives " +
                          join_words(which, " and ") +
                          "; change the value so that only one applies");
    }
    return false;
  }

  bool visit(const vc::ConditionalConstraint& constraint) override {
    std::vector<Finding> ignored;
    const bool condition = check_into(*constraint.getIfSubschema(), target_, ignored);
    const valijson::Subschema* branch =
        condition ? constraint.getThenSubschema() : constraint.getElseSubschema();
    if (branch == nullptr) return true;
    const std::size_t before = out_.size();
    const bool ok = check(*branch);
    // Say why the rule applies: it holds only because of the 'if'.
    annotate(before, condition ? " (if/then: the value matches the 'if' schema)"
                               : " (if/else: the value does not match the 'if' schema)");
    return ok;
  }

  bool visit(const vc::ConstConstraint& constraint) override {
    const Json* schema = schema_node();
    if (schema != nullptr && schema->contains("const")) {
      if (equal(target_, (*schema)["const"])) return true;
      if (!verdict_) {
        report(
            "const",
            "must be " + short_dump((*schema)["const"], 200) + ", got " + describe_value(target_),
            types_unlike_target({(*schema)["const"]}));
      }
      return false;
    }
    if (constraint.getValue()->equalTo(adapter(target_), true)) return true;
    if (!verdict_) {
      report("const", "must equal the constant the schema fixes, got " + describe_value(target_));
    }
    return false;
  }

  bool visit(const vc::ContainsConstraint& constraint) override {
    if (!target_.is_array()) return true;
    for (const Json& item : target_) {
      std::vector<Finding> ignored;
      if (check_into(*constraint.getSubschema(), item, ignored)) return true;
    }
    if (!verdict_) {
      std::string what = "the 'contains' schema";
      if (const Json* schema = schema_node(); schema != nullptr && schema->contains("contains")) {
        what = short_dump((*schema)["contains"], 120);
      }
      report("contains", "must contain at least one item matching " + what + ", but none of its " +
                             std::to_string(target_.size()) + " items does");
    }
    return false;
  }

  bool visit(const vc::DependenciesConstraint& constraint) override {
    if (!target_.is_object()) return true;
    bool ok = true;
    constraint.applyToPropertyDependencies([&](const auto& name, const auto& needed) {
      const std::string_view present(name.c_str());
      if (!target_.contains(present)) return true;
      for (const auto& other : needed) {
        const std::string_view missing(other.c_str());
        if (target_.contains(missing)) continue;
        if (!verdict_) {
          report("dependencies", "property '" + std::string(present) + "' requires property '" +
                                     std::string(missing) +
                                     "' as well (dependencies); add it or remove '" +
                                     std::string(present) + "'");
        }
        ok = false;
      }
      return true;
    });
    constraint.applyToSchemaDependencies([&](const auto& name, const valijson::Subschema* sub) {
      if (!target_.contains(std::string_view(name.c_str()))) return true;
      const std::size_t before = out_.size();
      ok = check(*sub) && ok;
      if (!verdict_) {
        annotate(before, " (dependencies: required because '" + std::string(name.c_str()) +
                             "' is present)");
      }
      return ok || !verdict_;
    });
    return ok;
  }

  bool visit(const vc::EnumConstraint& constraint) override {
    const Json* schema = schema_node();
    if (schema != nullptr && schema->contains("enum") && (*schema)["enum"].is_array()) {
      const Json& values = (*schema)["enum"];
      for (const Json& value : values) {
        if (equal(target_, value)) return true;
      }
      if (!verdict_) {
        report("enum",
               "must be one of " + short_dump(values, 300) + ", got " + describe_value(target_),
               types_unlike_target(values));
      }
      return false;
    }
    bool found = false;
    constraint.applyToValues([&](const valijson::adapters::FrozenValue& value) {
      found = value.equalTo(adapter(target_), true);
      return !found;
    });
    if (found) return true;
    if (!verdict_) {
      report("enum", "must be one of the values the schema lists, got " + describe_value(target_));
    }
    return false;
  }

  bool visit(const vc::FormatConstraint& constraint) override {
    return check_format(constraint.getFormat());
  }

  bool visit(const vc::LinearItemsConstraint& constraint) override {
    if (!target_.is_array()) return true;
    bool ok = true;
    std::size_t covered = 0;
    constraint.applyToItemSubschemas([&](unsigned index, const valijson::Subschema* sub) {
      if (index >= target_.size()) return false;
      ok = check_child(*sub, target_[index], std::to_string(index)) && ok;
      covered = index + 1;
      return true;
    });
    const valijson::Subschema* rest = constraint.getAdditionalItemsSubschema();
    if (rest == nullptr) {
      if (target_.size() > constraint.getItemSubschemaCount()) {
        if (!verdict_) {
          report("additionalItems",
                 "must have at most " + std::to_string(constraint.getItemSubschemaCount()) +
                     " items (additionalItems is false), got " + std::to_string(target_.size()));
        }
        ok = false;
      }
      return ok;
    }
    for (std::size_t i = covered; i < target_.size(); ++i) {
      ok = check_child(*rest, target_[i], std::to_string(i)) && ok;
    }
    return ok;
  }

  bool visit(const vc::MaximumConstraint& constraint) override {
    if (!target_.is_number()) return true;
    const double limit = constraint.getMaximum();
    const double value = target_.get<double>();
    if (constraint.getExclusiveMaximum()) {
      if (value < limit) return true;
      if (!verdict_) {
        report("exclusiveMaximum", "must be < " + format_number(limit) + ", got " + number_text());
      }
      return false;
    }
    if (value <= limit) return true;
    if (!verdict_) {
      report("maximum", "must be <= " + format_number(limit) + ", got " + number_text());
    }
    return false;
  }

  bool visit(const vc::MinimumConstraint& constraint) override {
    if (!target_.is_number()) return true;
    const double limit = constraint.getMinimum();
    const double value = target_.get<double>();
    if (constraint.getExclusiveMinimum()) {
      if (value > limit) return true;
      if (!verdict_) {
        report("exclusiveMinimum", "must be > " + format_number(limit) + ", got " + number_text());
      }
      return false;
    }
    if (value >= limit) return true;
    if (!verdict_) {
      report("minimum", "must be >= " + format_number(limit) + ", got " + number_text());
    }
    return false;
  }

  bool visit(const vc::MaxItemsConstraint& constraint) override {
    if (!target_.is_array() || target_.size() <= constraint.getMaxItems()) return true;
    if (!verdict_) {
      report("maxItems", "must have at most " + std::to_string(constraint.getMaxItems()) +
                             " items, got " + std::to_string(target_.size()));
    }
    return false;
  }

  bool visit(const vc::MinItemsConstraint& constraint) override {
    if (!target_.is_array() || target_.size() >= constraint.getMinItems()) return true;
    if (!verdict_) {
      report("minItems", "must have at least " + std::to_string(constraint.getMinItems()) +
                             " items, got " + std::to_string(target_.size()));
    }
    return false;
  }

  bool visit(const vc::MaxLengthConstraint& constraint) override {
    if (!target_.is_string()) return true;
    const std::size_t length = utf8_length(target_.get_ref<const std::string&>());
    if (length <= constraint.getMaxLength()) return true;
    if (!verdict_) {
      report("maxLength", "must be at most " + std::to_string(constraint.getMaxLength()) +
                              " characters long, got " + std::to_string(length));
    }
    return false;
  }

  bool visit(const vc::MinLengthConstraint& constraint) override {
    if (!target_.is_string()) return true;
    const std::size_t length = utf8_length(target_.get_ref<const std::string&>());
    if (length >= constraint.getMinLength()) return true;
    if (length == 0) {
      if (!verdict_) {
        report("minLength", "must not be empty (at least " +
                                std::to_string(constraint.getMinLength()) + " characters)");
      }
    } else {
      if (!verdict_) {
        report("minLength", "must be at least " + std::to_string(constraint.getMinLength()) +
                                " characters long, got " + std::to_string(length));
      }
    }
    return false;
  }

  bool visit(const vc::MaxPropertiesConstraint& constraint) override {
    if (!target_.is_object() || target_.size() <= constraint.getMaxProperties()) return true;
    if (!verdict_) {
      report("maxProperties", "must have at most " + std::to_string(constraint.getMaxProperties()) +
                                  " properties, got " + std::to_string(target_.size()));
    }
    return false;
  }

  bool visit(const vc::MinPropertiesConstraint& constraint) override {
    if (!target_.is_object() || target_.size() >= constraint.getMinProperties()) return true;
    if (!verdict_) {
      report("minProperties", "must have at least " +
                                  std::to_string(constraint.getMinProperties()) +
                                  " properties, got " + std::to_string(target_.size()));
    }
    return false;
  }

  bool visit(const vc::MultipleOfDoubleConstraint& constraint) override {
    return check_multiple(Json(constraint.getDivisor()));
  }

  bool visit(const vc::MultipleOfIntConstraint& constraint) override {
    return check_multiple(Json(constraint.getDivisor()));
  }

  bool visit(const vc::NotConstraint& constraint) override {
    const valijson::Subschema* sub = constraint.getSubschema();
    std::vector<Finding> ignored;
    if (sub != nullptr && !check_into(*sub, target_, ignored)) return true;
    std::string what = "the schema under 'not'";
    if (const Json* schema = schema_node(); schema != nullptr && schema->contains("not")) {
      what = short_dump((*schema)["not"], 120) + " (not)";
    }
    if (!verdict_) report("not", "must not match " + what + ", got " + describe_value(target_));
    return false;
  }

  bool visit(const vc::PatternConstraint& constraint) override {
    return check_pattern(constraint.getPattern<std::allocator<char>>(), nullptr);
  }

  bool visit(const vc::PolyConstraint& constraint) override {
    if (const auto* format = dynamic_cast<const FormatRule*>(&constraint)) {
      return check_format(format->format());
    }
    if (const auto* multiple = dynamic_cast<const MultipleOfRule*>(&constraint)) {
      return check_multiple(multiple->divisor());
    }
    if (const auto* pattern = dynamic_cast<const PatternRule*>(&constraint)) {
      return check_pattern(pattern->pattern(), &pattern->regex());
    }
    if (const auto* unique = dynamic_cast<const UniqueItemsRule*>(&constraint)) {
      return !unique->enabled() || check_unique();
    }
    std::vector<std::string> context;
    if (constraint.validate(adapter(target_), context, nullptr)) return true;
    if (!verdict_) report("custom", "fails a custom constraint of the schema");
    return false;
  }

  bool visit(const vc::PropertiesConstraint& constraint) override {
    if (!target_.is_object()) return true;
    bool ok = true;
    std::size_t declared = 0;
    constraint.applyToProperties([&](const auto& name, const valijson::Subschema* sub) {
      auto it = target_.find(std::string_view(name.c_str()));
      if (it == target_.end()) return true;
      ++declared;
      ok = check_child(*sub, *it, it.key()) && ok;
      return ok || !verdict_;
    });
    if (!ok && verdict_) return false;
    bool has_patterns = false;
    constraint.applyToPatternProperties([&](const auto&, const valijson::Subschema*) {
      has_patterns = true;
      return false;
    });
    // The usual call names only declared properties: nothing more to look at.
    if (!has_patterns && declared == target_.size()) return ok;

    const valijson::Subschema* additional = constraint.getAdditionalPropertiesSubschema();
    for (auto member = target_.begin(); member != target_.end(); ++member) {
      const std::string& key = member.key();
      bool matched = false;
      constraint.applyToProperties([&](const auto& name, const valijson::Subschema*) {
        matched = key == name.c_str();
        return !matched;
      });
      constraint.applyToPatternProperties([&](const auto& pattern, const valijson::Subschema* sub) {
        if (!search(std::string(pattern.c_str()), key)) return true;
        matched = true;
        ok = check_child(*sub, member.value(), key) && ok;
        return ok || !verdict_;
      });
      if (!ok && verdict_) return false;
      if (matched) continue;
      if (additional != nullptr) {
        ok = check_child(*additional, member.value(), key) && ok;
        if (!ok && verdict_) return false;
        continue;
      }
      if (verdict_) return false;
      std::vector<std::string> known;
      constraint.applyToProperties([&](const auto& name, const valijson::Subschema*) {
        known.emplace_back(name.c_str());
        return true;
      });
      std::string message = "property is not allowed (additionalProperties is false)";
      if (!known.empty()) message += "; allowed here: " + join_quoted(known);
      path_.push_back(key);
      report("additionalProperties", message);
      path_.pop_back();
      ok = false;
    }
    return ok;
  }

  bool visit(const vc::PropertyNamesConstraint& constraint) override {
    if (!target_.is_object()) return true;
    bool ok = true;
    for (const auto& [key, value] : target_.items()) {
      std::vector<Finding> inner;
      const Json name(key);
      if (check_into(*constraint.getSubschema(), name, inner)) continue;
      ok = false;
      const std::string pointer = pointer_from_tokens(path_);
      std::string why = inner.empty() ? std::string("fails the 'propertyNames' schema")
                                      : tail_of(inner.front().violation, pointer);
      path_.push_back(key);
      if (!verdict_) report("propertyNames", "property name '" + key + "' is not allowed: " + why);
      path_.pop_back();
    }
    return ok;
  }

  bool visit(const vc::RequiredConstraint& constraint) override {
    if (!target_.is_object()) return true;
    bool ok = true;
    constraint.applyToRequiredProperties([&](const auto& name) {
      const std::string_view key(name.c_str());
      if (target_.contains(key)) return true;
      if (!verdict_) report("required", "missing required property '" + std::string(key) + "'");
      ok = false;
      return !verdict_;
    });
    return ok;
  }

  bool visit(const vc::SingularItemsConstraint& constraint) override {
    if (!target_.is_array() || constraint.getItemsSubschema() == nullptr) return true;
    bool ok = true;
    for (std::size_t i = 0; i < target_.size(); ++i) {
      ok = check_child(*constraint.getItemsSubschema(), target_[i], std::to_string(i)) && ok;
    }
    return ok;
  }

  bool visit(const vc::TypeConstraint& constraint) override {
    bool ok = false;
    constraint.applyToNamedTypes([&](vc::TypeConstraint::JsonType type) {
      ok = has_type(target_, type);
      return !ok;
    });
    if (ok) return true;
    std::vector<std::string> expected;
    constraint.applyToNamedTypes([&](vc::TypeConstraint::JsonType type) {
      expected.push_back(type_name(type));
      return true;
    });
    // Schema-valued "type" exists only in draft 3; kept so that no failure goes unreported.
    constraint.applyToSchemaTypes([&](unsigned, const valijson::Subschema* sub) {
      std::vector<Finding> ignored;
      if (check_into(*sub, target_, ignored)) ok = true;
      return !ok;
    });
    if (ok) return true;
    if (verdict_) return false;
    if (const Json* schema = schema_node(); schema != nullptr && schema->contains("type")) {
      // valijson keeps the types sorted; the schema's own order reads as its author meant.
      const Json& written = (*schema)["type"];
      if (written.is_string()) expected = {written.get<std::string>()};
      if (written.is_array()) {
        expected.clear();
        for (const Json& t : written) {
          if (t.is_string()) expected.push_back(t.get<std::string>());
        }
      }
    }
    if (expected.empty()) expected.push_back("one of the types the schema allows");
    if (!verdict_) {
      report("type", "must be " + join_or(expected) + ", got " + describe_value(target_), expected);
    }
    return false;
  }

  bool visit(const vc::UniqueItemsConstraint&) override { return check_unique(); }

 private:
  bool check_unique() {
    if (!target_.is_array()) return true;
    bool ok = true;
    for (std::size_t j = 1; j < target_.size(); ++j) {
      for (std::size_t i = 0; i < j; ++i) {
        if (!equal(target_[i], target_[j])) continue;
        if (!verdict_) {
          report("uniqueItems", "items must be unique, but items " + std::to_string(i) + " and " +
                                    std::to_string(j) + " are both " + short_dump(target_[j]));
        }
        ok = false;
        break;
      }
    }
    return ok;
  }

  bool check_pattern(const std::string& pattern, const Regex* compiled) {
    if (!target_.is_string()) return true;
    const auto& text = target_.get_ref<const std::string&>();
    if (compiled != nullptr ? compiled->search(text) : search(pattern, text)) {
      return true;
    }
    if (!verdict_) {
      report("pattern",
             "must match the pattern " + Json(pattern).dump() + ", got " + describe_value(target_));
    }
    return false;
  }

  static valijson::adapters::NlohmannJsonAdapter adapter(const Json& value) {
    return valijson::adapters::NlohmannJsonAdapter(value);
  }

  // JSON equality as JSON Schema defines it: 1 equals 1.0, key order does not matter.
  static bool equal(const Json& a, const Json& b) {
    if (a.is_number() && b.is_number()) {
      if (a.is_number_float() || b.is_number_float()) return a.get<double>() == b.get<double>();
      return a == b;
    }
    if (a.type() != b.type()) return false;
    if (a.is_array()) {
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!equal(a[i], b[i])) return false;
      }
      return true;
    }
    if (a.is_object()) {
      if (a.size() != b.size()) return false;
      for (const auto& [key, value] : a.items()) {
        auto it = b.find(key);
        if (it == b.end() || !equal(value, *it)) return false;
      }
      return true;
    }
    return a == b;
  }

  // The types of `values` when none shares the target's type, else nothing: a const or enum
  // of another type fails for the type, which matters when choosing among alternatives.
  std::vector<std::string> types_unlike_target(const Json& values) const {
    std::vector<std::string> types;
    const std::string mine = json_type_name(target_);
    for (const Json& value : values) {
      std::string type = json_type_name(value);
      if (type == mine || (type == "integer" && mine == "number") ||
          (type == "number" && mine == "integer")) {
        return {};
      }
      if (std::find(types.begin(), types.end(), type) == types.end()) types.push_back(type);
    }
    return types;
  }

  const Json* schema_node() const {
    if (current_ == nullptr || !current_->hasTitle()) return nullptr;
    return context_.index.find(current_->getTitle());
  }

  std::string number_text() const { return short_dump(target_); }

  bool search(const std::string& pattern, const std::string& text) const {
    if (auto it = context_.regexes.find(pattern); it != context_.regexes.end()) {
      return it->second.search(text);
    }
    // Only patterns of documents fetched after compile() end up here.
    try {
      return Regex(pattern).search(text);
    } catch (const std::invalid_argument&) {
      return false;
    }
  }

  bool check_format(const std::string& format) {
    if (!target_.is_string()) return true;
    if (matches_format(format, target_.get_ref<const std::string&>())) return true;
    if (!verdict_) {
      // For a regular expression, the engine's reason says what to change.
      const std::string why =
          format == "regex" ? " (" + ecma_regex_problem(target_.get_ref<const std::string&>()) + ")"
                            : std::string();
      report("format", "must be " + format_hint(format) + why + ", got " + describe_value(target_));
    }
    return false;
  }

  bool check_multiple(const Json& divisor) {
    if (is_multiple_of(target_, divisor)) return true;
    if (!verdict_) {
      report("multipleOf",
             "must be a multiple of " + short_dump(divisor) + ", got " + number_text());
    }
    return false;
  }

  bool check_child(const valijson::Subschema& schema, const Json& value, const std::string& token) {
    if (verdict_) {
      Explainer child(context_, value, path_, out_, true, depth_ + 1);
      return child.check(schema);
    }
    path_.push_back(token);
    Explainer child(context_, value, path_, out_, false, depth_ + 1);
    const bool ok = child.check(schema);
    path_.pop_back();
    return ok;
  }

  bool check_into(const valijson::Subschema& schema, const Json& value, std::vector<Finding>& out) {
    Explainer probe(context_, value, path_, out, verdict_, depth_);
    return probe.check(schema);
  }

  // Appends `why` to the findings added since `from`.
  void annotate(std::size_t from, std::string_view why) {
    if (verdict_) return;
    for (std::size_t i = from; i < out_.size(); ++i) out_[i].violation.message += why;
  }

  void report(const std::string& keyword, const std::string& text,
              std::vector<std::string> expected_types = {}) {
    Finding finding;
    finding.violation.pointer = pointer_from_tokens(path_);
    finding.violation.keyword = keyword;
    finding.violation.message = display_pointer(finding.violation.pointer) + ": " + text;
    finding.expected_types = std::move(expected_types);
    out_.push_back(std::move(finding));
  }

  // All alternatives failed. When exactly one alternative accepts the value's type, its
  // failures are the useful ones; otherwise the alternatives are summarised in one sentence.
  void report_alternatives(const std::string& keyword, const std::string& lead,
                           std::vector<std::vector<Finding>>& failures) {
    const std::string pointer = pointer_from_tokens(path_);
    auto type_mismatch = [&](const std::vector<Finding>& branch) {
      return std::any_of(branch.begin(), branch.end(), [&](const Finding& f) {
        return !f.expected_types.empty() && f.violation.pointer == pointer;
      });
    };
    std::vector<std::vector<Finding>*> plausible;
    for (auto& branch : failures) {
      if (!branch.empty() && !type_mismatch(branch)) plausible.push_back(&branch);
    }
    if (plausible.size() == 1) {
      for (auto& finding : *plausible.front()) out_.push_back(std::move(finding));
      return;
    }
    if (plausible.empty()) {
      // Every alternative wants another type: say which types would do.
      std::vector<std::string> types;
      for (const auto& branch : failures) {
        for (const auto& f : branch) {
          if (f.expected_types.empty() || f.violation.pointer != pointer) continue;
          for (const auto& t : f.expected_types) {
            if (std::find(types.begin(), types.end(), t) == types.end()) types.push_back(t);
          }
        }
      }
      if (!types.empty()) {
        if (!verdict_) {
          report("type", "must be " + join_or(types) + ", got " + describe_value(target_), types);
        }
        return;
      }
    }
    std::vector<std::vector<Finding>*> listed = plausible;
    if (listed.empty()) {
      for (auto& branch : failures) listed.push_back(&branch);
    }
    std::string text =
        lead + " " + std::to_string(failures.size()) + " alternatives (" + keyword + "), but ";
    for (std::size_t i = 0; i < listed.size() && i < kListLimit; ++i) {
      if (i > 0) text += "; or ";
      const auto& branch = *listed[i];
      text += branch.empty() ? std::string("it fails an alternative")
                             : tail_of(branch.front().violation, pointer);
    }
    if (!verdict_) report(keyword, text);
  }

  const ExplainContext& context_;
  const Json& target_;
  std::vector<std::string>& path_;
  std::vector<Finding>& out_;
  const bool verdict_;
  const int depth_;
  const valijson::Subschema* current_ = nullptr;
};

}  // namespace

std::vector<Violation> explain(const ExplainContext& context, const valijson::Subschema& root,
                               const nlohmann::json& instance) {
  std::vector<std::string> path;
  std::vector<Finding> findings;
  Explainer explainer(context, instance, path, findings, false);
  explainer.check(root);
  std::vector<Violation> out;
  out.reserve(findings.size());
  for (auto& finding : findings) {
    // allOf branches and shared definitions can state the same rule twice.
    if (std::find(out.begin(), out.end(), finding.violation) != out.end()) continue;
    out.push_back(std::move(finding.violation));
  }
  return out;
}

bool conforms(const ExplainContext& context, const valijson::Subschema& root,
              const nlohmann::json& instance) {
  std::vector<std::string> path;
  std::vector<Finding> findings;
  Explainer checker(context, instance, path, findings, true);
  return checker.check(root);
}

}  // namespace skillrt::schema::detail
