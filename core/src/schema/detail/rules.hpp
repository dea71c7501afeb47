// Constraints the host checks itself in place of valijson's own: "format", "multipleOf",
// "pattern" and "uniqueItems".
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <valijson/constraint_builder.hpp>
#include <valijson/constraints/concrete_constraints.hpp>

#include "schema/detail/regex.hpp"

namespace skillrt::schema::detail {

// The schema keyword the host rewrites "format" to before valijson parses a schema. valijson's
// own format check throws on non-string instances and rejects null, which the specification
// says format must ignore, so the host supplies its own.
inline constexpr std::string_view kFormatKeyword = "x-skillrt-format";

// valijson's multipleOf compares a floating remainder with machine epsilon, so 19.99 is no
// multiple of 0.01 there; the host allows rounding noise relative to the quotient instead.
inline constexpr std::string_view kMultipleOfKeyword = "x-skillrt-multipleOf";

// valijson looks "pattern" up in a per-validator cache by its text on every check, and compares
// array items pairwise through string copies for "uniqueItems"; the host compiles each pattern
// once and sorts scalar items instead.
inline constexpr std::string_view kPatternKeyword = "x-skillrt-pattern";
inline constexpr std::string_view kUniqueItemsKeyword = "x-skillrt-uniqueItems";

// Whether `value` is a multiple of `divisor` (integers exactly, others within rounding noise).
bool is_multiple_of(const nlohmann::json& value, const nlohmann::json& divisor);

// True for the formats whose strings the host checks: date-time, date, time (RFC 3339).
bool is_checked_format(std::string_view format);

// Whether `text` is a valid `format` string; formats that are not checked always pass.
bool matches_format(std::string_view format, std::string_view text);

// What a valid value looks like, for messages: "an RFC 3339 date-time such as ...".
std::string format_hint(std::string_view format);

class FormatRule final : public valijson::constraints::PolyConstraint {
 public:
  explicit FormatRule(std::string format) : format_(std::move(format)) {}

  const std::string& format() const { return format_; }

  bool validate(const valijson::adapters::Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override;

 private:
  valijson::constraints::Constraint* cloneInto(void* memory) const override;
  size_t sizeOf() const override { return sizeof(FormatRule); }

  std::string format_;
};

class FormatRuleBuilder final : public valijson::ConstraintBuilder {
 public:
  valijson::constraints::Constraint* make(const valijson::adapters::Adapter& value) const override;
};

class MultipleOfRule final : public valijson::constraints::PolyConstraint {
 public:
  explicit MultipleOfRule(nlohmann::json divisor) : divisor_(std::move(divisor)) {}

  const nlohmann::json& divisor() const { return divisor_; }

  bool validate(const valijson::adapters::Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override;

 private:
  valijson::constraints::Constraint* cloneInto(void* memory) const override;
  size_t sizeOf() const override { return sizeof(MultipleOfRule); }

  nlohmann::json divisor_;
};

class MultipleOfRuleBuilder final : public valijson::ConstraintBuilder {
 public:
  valijson::constraints::Constraint* make(const valijson::adapters::Adapter& value) const override;
};

class PatternRule final : public valijson::constraints::PolyConstraint {
 public:
  // Throws std::invalid_argument for a pattern that does not compile.
  explicit PatternRule(std::string pattern) : pattern_(std::move(pattern)), regex_(pattern_) {}

  const std::string& pattern() const { return pattern_; }
  const Regex& regex() const { return regex_; }

  bool validate(const valijson::adapters::Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override;

 private:
  valijson::constraints::Constraint* cloneInto(void* memory) const override;
  size_t sizeOf() const override { return sizeof(PatternRule); }

  std::string pattern_;
  Regex regex_;
};

class PatternRuleBuilder final : public valijson::ConstraintBuilder {
 public:
  valijson::constraints::Constraint* make(const valijson::adapters::Adapter& value) const override;
};

class UniqueItemsRule final : public valijson::constraints::PolyConstraint {
 public:
  explicit UniqueItemsRule(bool enabled) : enabled_(enabled) {}

  bool enabled() const { return enabled_; }

  bool validate(const valijson::adapters::Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override;

 private:
  valijson::constraints::Constraint* cloneInto(void* memory) const override;
  size_t sizeOf() const override { return sizeof(UniqueItemsRule); }

  bool enabled_;
};

class UniqueItemsRuleBuilder final : public valijson::ConstraintBuilder {
 public:
  valijson::constraints::Constraint* make(const valijson::adapters::Adapter& value) const override;
};

}  // namespace skillrt::schema::detail
