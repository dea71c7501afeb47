#include "schema/detail/rules.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <new>
#include <tuple>
#include <valijson/internal/frozen_value.hpp>
#include <valijson/validation_results.hpp>

namespace skillrt::schema::detail {
namespace {

// Reads exactly `width` decimal digits at `pos`.
bool read_digits(std::string_view s, std::size_t& pos, std::size_t width, int& out) {
  if (pos + width > s.size()) return false;
  int value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    const char c = s[pos + i];
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  pos += width;
  out = value;
  return true;
}

bool expect(std::string_view s, std::size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) return false;
  ++pos;
  return true;
}

int days_in_month(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month == 2) {
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return leap ? 29 : 28;
  }
  return kDays[month - 1];
}

bool parse_full_date(std::string_view s, std::size_t& pos) {
  int year = 0;
  int month = 0;
  int day = 0;
  if (!read_digits(s, pos, 4, year) || !expect(s, pos, '-')) return false;
  if (!read_digits(s, pos, 2, month) || !expect(s, pos, '-')) return false;
  if (!read_digits(s, pos, 2, day)) return false;
  if (month < 1 || month > 12) return false;
  return day >= 1 && day <= days_in_month(year, month);
}

bool parse_full_time(std::string_view s, std::size_t& pos) {
  int hour = 0;
  int minute = 0;
  int second = 0;
  if (!read_digits(s, pos, 2, hour) || !expect(s, pos, ':')) return false;
  if (!read_digits(s, pos, 2, minute) || !expect(s, pos, ':')) return false;
  if (!read_digits(s, pos, 2, second)) return false;
  // 60 is a leap second, which RFC 3339 allows.
  if (hour > 23 || minute > 59 || second > 60) return false;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    const std::size_t start = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos;
    if (pos == start) return false;
  }
  if (pos >= s.size()) return false;
  if (s[pos] == 'Z' || s[pos] == 'z') {
    ++pos;
    return true;
  }
  if (s[pos] != '+' && s[pos] != '-') return false;
  ++pos;
  int offset_hour = 0;
  int offset_minute = 0;
  if (!read_digits(s, pos, 2, offset_hour) || !expect(s, pos, ':')) return false;
  if (!read_digits(s, pos, 2, offset_minute)) return false;
  return offset_hour <= 23 && offset_minute <= 59;
}

}  // namespace

bool is_checked_format(std::string_view format) {
  return format == "date-time" || format == "date" || format == "time";
}

bool matches_format(std::string_view format, std::string_view text) {
  std::size_t pos = 0;
  if (format == "date") return parse_full_date(text, pos) && pos == text.size();
  if (format == "time") return parse_full_time(text, pos) && pos == text.size();
  if (format == "date-time") {
    if (!parse_full_date(text, pos)) return false;
    if (pos >= text.size() || (text[pos] != 'T' && text[pos] != 't')) return false;
    ++pos;
    return parse_full_time(text, pos) && pos == text.size();
  }
  if (format == "regex") return ecma_regex_problem(text).empty();
  return true;
}

std::string format_hint(std::string_view format) {
  if (format == "date") return "an RFC 3339 date such as \"2025-03-31\"";
  if (format == "time") return "an RFC 3339 time with offset such as \"14:05:00Z\"";
  if (format == "date-time") {
    return "an RFC 3339 date-time with offset such as \"2025-03-31T14:05:00Z\"";
  }
  if (format == "regex") return "an ECMA-262 regular expression";
  return "a valid " + std::string(format);
}

bool FormatRule::validate(const valijson::adapters::Adapter& target,
                          const std::vector<std::string>& context,
                          valijson::ValidationResults* results) const {
  if (!target.isString()) return true;
  std::string text;
  if (!target.getString(text)) return true;
  if (matches_format(format_, text)) return true;
  if (results != nullptr) results->pushError(context, "must be " + format_hint(format_));
  return false;
}

valijson::constraints::Constraint* FormatRule::cloneInto(void* memory) const {
  return new (memory) FormatRule(*this);
}

valijson::constraints::Constraint* FormatRuleBuilder::make(
    const valijson::adapters::Adapter& value) const {
  std::string format;
  // A non-string format is caught by the meta-schema check before valijson sees the schema.
  if (value.isString()) value.getString(format);
  return new FormatRule(std::move(format));
}

bool is_multiple_of(const nlohmann::json& value, const nlohmann::json& divisor) {
  if (!value.is_number() || !divisor.is_number()) return true;
  if (value.is_number_integer() && divisor.is_number_integer()) {
    // Divisibility ignores sign, and magnitudes fit uint64 where int64 and uint64 mix.
    const auto magnitude = [](const nlohmann::json& n) -> uint64_t {
      if (n.is_number_unsigned()) return n.get<uint64_t>();
      const int64_t v = n.get<int64_t>();
      return v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    };
    const uint64_t d = magnitude(divisor);
    return d == 0 || magnitude(value) % d == 0;
  }
  const double d = divisor.get<double>();
  if (d == 0) return true;
  const double quotient = value.get<double>() / d;
  // An overflowing quotient is no multiple of anything the schema could mean.
  if (!std::isfinite(quotient)) return false;
  const double error = std::fabs(quotient - std::round(quotient));
  return error <= 1e-9 * std::max(1.0, std::fabs(quotient));
}

namespace {

// valijson gives a custom constraint only the generic adapter, so the value is rebuilt as JSON.
bool number_of(const valijson::adapters::Adapter& target, nlohmann::json& out) {
  if (target.isInteger()) {
    out = target.getInteger();
    return true;
  }
  if (target.isDouble()) {
    out = target.getDouble();
    return true;
  }
  return false;
}

}  // namespace

bool MultipleOfRule::validate(const valijson::adapters::Adapter& target,
                              const std::vector<std::string>& context,
                              valijson::ValidationResults* results) const {
  nlohmann::json value;
  if (!number_of(target, value) || is_multiple_of(value, divisor_)) return true;
  if (results != nullptr) results->pushError(context, "must be a multiple of " + divisor_.dump());
  return false;
}

valijson::constraints::Constraint* MultipleOfRule::cloneInto(void* memory) const {
  return new (memory) MultipleOfRule(*this);
}

valijson::constraints::Constraint* MultipleOfRuleBuilder::make(
    const valijson::adapters::Adapter& value) const {
  nlohmann::json divisor;
  // A non-number divisor is caught by the meta-schema check before valijson sees the schema.
  if (!number_of(value, divisor)) divisor = 1;
  return new MultipleOfRule(std::move(divisor));
}

bool PatternRule::validate(const valijson::adapters::Adapter& target,
                           const std::vector<std::string>& context,
                           valijson::ValidationResults* results) const {
  if (!target.isString()) return true;
  std::string text;
  if (!target.getString(text) || regex_.search(text)) return true;
  if (results != nullptr) results->pushError(context, "must match the pattern " + pattern_);
  return false;
}

valijson::constraints::Constraint* PatternRule::cloneInto(void* memory) const {
  return new (memory) PatternRule(*this);
}

valijson::constraints::Constraint* PatternRuleBuilder::make(
    const valijson::adapters::Adapter& value) const {
  std::string pattern;
  // compile() has already rejected a non-string or uncompilable pattern.
  if (value.isString()) value.getString(pattern);
  return new PatternRule(std::move(pattern));
}

namespace {

// A scalar item reduced to what JSON equality looks at: 1 and 1.0 are the same number.
struct ScalarKey {
  int kind = 0;  // 0 null, 1 boolean, 2 number, 3 string
  double number = 0;
  std::string text;

  auto tie() const { return std::tie(kind, number, text); }
  bool operator<(const ScalarKey& other) const { return tie() < other.tie(); }
  bool operator==(const ScalarKey& other) const { return tie() == other.tie(); }
};

}  // namespace

bool UniqueItemsRule::validate(const valijson::adapters::Adapter& target,
                               const std::vector<std::string>& context,
                               valijson::ValidationResults* results) const {
  if (!enabled_ || !target.isArray()) return true;
  std::vector<ScalarKey> scalars;
  std::vector<std::unique_ptr<valijson::adapters::FrozenValue>> composites;
  bool unique = true;
  target.applyToArray([&](const valijson::adapters::Adapter& item) {
    ScalarKey key;
    if (item.isNull()) {
      key.kind = 0;
    } else if (item.isBool()) {
      key.kind = 1;
      key.number = item.getBool() ? 1 : 0;
    } else if (item.isNumber()) {
      key.kind = 2;
      key.number = item.getNumber();
    } else if (item.isString()) {
      key.kind = 3;
      item.getString(key.text);
    } else {
      // Arrays and objects are rare in unique lists; they are compared pairwise.
      for (const auto& seen : composites) {
        if (seen->equalTo(item, true)) {
          unique = false;
          return false;
        }
      }
      composites.emplace_back(item.freeze());
      return true;
    }
    scalars.push_back(std::move(key));
    return true;
  });
  if (unique) {
    std::sort(scalars.begin(), scalars.end());
    unique = std::adjacent_find(scalars.begin(), scalars.end()) == scalars.end();
  }
  if (!unique && results != nullptr) results->pushError(context, "items must be unique");
  return unique;
}

valijson::constraints::Constraint* UniqueItemsRule::cloneInto(void* memory) const {
  return new (memory) UniqueItemsRule(*this);
}

valijson::constraints::Constraint* UniqueItemsRuleBuilder::make(
    const valijson::adapters::Adapter& value) const {
  return new UniqueItemsRule(value.isBool() && value.getBool());
}

}  // namespace skillrt::schema::detail
