#include "optoolkit/default_value.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "optoolkit/text.hpp"

namespace skillrt::ops {
namespace {

struct Value {
  enum class Kind { kNone, kBool, kNumber, kString, kList, kName };
  Kind kind = Kind::kName;
  bool b = false;
  long double n = 0;
  std::string s;
  std::vector<Value> items;
};

std::optional<long double> number_of(std::string t) {
  t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
  if (t.empty()) return std::nullopt;
  // 2^63-1 and (1<<63)-1, as pages write the int64 limit.
  for (const char* pow : {"2^", "2**"}) {
    if (t.rfind(pow, 0) == 0 || t.rfind(std::string("-") + pow, 0) == 0) {
      const bool neg = t[0] == '-';
      const size_t p = t.find(pow) + std::string(pow).size();
      size_t k = p;
      while (k < t.size() && std::isdigit(static_cast<unsigned char>(t[k])) != 0) ++k;
      if (k == p) return std::nullopt;
      long double v = std::pow(2.0L, std::stold(t.substr(p, k - p)));
      if (k < t.size()) {
        const auto rest = number_of(t.substr(k));
        if (!rest) return std::nullopt;
        v += *rest;
      }
      return neg ? -v : v;
    }
  }
  if (t == "inf" || t == "math.inf" || t == "float('inf')") return HUGE_VALL;
  if (t == "-inf" || t == "-math.inf" || t == "float('-inf')") return -HUGE_VALL;
  char* end = nullptr;
  const long double v = std::strtold(t.c_str(), &end);
  if (end == t.c_str() || *end != '\0') return std::nullopt;
  return v;
}

Value parse_value(std::string t) {
  t = trim(t);
  Value v;
  if (t == "None" || t == "none" || t == "null" || t == "nullptr") {
    v.kind = Value::Kind::kNone;
    return v;
  }
  if (t == "True" || t == "true" || t == "False" || t == "false") {
    v.kind = Value::Kind::kBool;
    v.b = t == "True" || t == "true";
    return v;
  }
  if (t.size() >= 2 && (t.front() == '\'' || t.front() == '"') && t.back() == t.front()) {
    v.kind = Value::Kind::kString;
    v.s = t.substr(1, t.size() - 2);
    return v;
  }
  if (t.size() >= 2 &&
      ((t.front() == '[' && t.back() == ']') ||
       (t.front() == '(' && t.back() == ')' && t.find(',') != std::string::npos) || t == "()")) {
    v.kind = Value::Kind::kList;
    for (const std::string& item : split_top_level(t.substr(1, t.size() - 2))) {
      v.items.push_back(parse_value(item));
    }
    return v;
  }
  if (auto n = number_of(t)) {
    v.kind = Value::Kind::kNumber;
    v.n = *n;
    return v;
  }
  v.kind = Value::Kind::kName;
  v.s = t;
  // torch.float16 and float16, torch.contiguous_format and contiguous_format, at::Reduction::Mean
  // and Mean name the same thing.
  for (const char* prefix : {"torch.", "at::Reduction::", "at::"}) {
    if (v.s.rfind(prefix, 0) == 0) v.s = v.s.substr(std::string(prefix).size());
  }
  return v;
}

bool equal(const Value& a, const Value& b) {
  // A page may leave a string default unquoted: reduce_op default `sum` for 'sum'.
  if ((a.kind == Value::Kind::kString && b.kind == Value::Kind::kName) ||
      (a.kind == Value::Kind::kName && b.kind == Value::Kind::kString)) {
    return a.s == b.s;
  }
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Value::Kind::kNone:
      return true;
    case Value::Kind::kBool:
      return a.b == b.b;
    case Value::Kind::kNumber: {
      if (std::isinf(a.n) || std::isinf(b.n)) return a.n == b.n;
      const long double scale = std::max({std::fabs(a.n), std::fabs(b.n), 1.0L});
      return std::fabs(a.n - b.n) <= scale * 1e-12L;
    }
    case Value::Kind::kString:
    case Value::Kind::kName:
      return a.s == b.s;
    case Value::Kind::kList:
      if (a.items.size() != b.items.size()) return false;
      for (size_t i = 0; i < a.items.size(); ++i) {
        if (!equal(a.items[i], b.items[i])) return false;
      }
      return true;
  }
  return false;
}

}  // namespace

bool same_default_value(std::string_view a, std::string_view b, int sized_list) {
  const Value va = parse_value(std::string(a));
  const Value vb = parse_value(std::string(b));
  if (equal(va, vb)) return true;
  // `int[2] stride=1` in a schema is [1, 1] in Python.
  if (sized_list > 0) {
    auto expand = [&](const Value& v) {
      if (v.kind == Value::Kind::kList) return v;
      Value l;
      l.kind = Value::Kind::kList;
      l.items.assign(static_cast<size_t>(sized_list), v);
      return l;
    };
    return equal(expand(va), expand(vb));
  }
  return false;
}

}  // namespace skillrt::ops
