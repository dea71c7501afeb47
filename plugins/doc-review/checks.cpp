#include "checks.hpp"

namespace skillrt::doc_review {

std::string_view to_string(Axis axis) {
  switch (axis) {
    case Axis::kFindable:
      return "findable";
    case Axis::kTrustworthy:
      return "trustworthy";
    case Axis::kLearnable:
      return "learnable";
    case Axis::kOperable:
      return "operable";
    case Axis::kReadable:
      break;
  }
  return "readable";
}

std::string_view chinese_name(Axis axis) {
  switch (axis) {
    case Axis::kFindable:
      return "找得到";
    case Axis::kTrustworthy:
      return "信得过";
    case Axis::kLearnable:
      return "学得会";
    case Axis::kOperable:
      return "可操作";
    case Axis::kReadable:
      break;
  }
  return "读得懂";
}

std::optional<Axis> parse_axis(std::string_view name) {
  for (Axis a : kAllAxes)
    if (to_string(a) == name || chinese_name(a) == name) return a;
  return std::nullopt;
}

std::string_view to_string(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      break;
  }
  return "info";
}

void Skips::add(const std::string& key, const std::string& what, const std::string& reason,
                const std::string& example) {
  Entry& e = entries[key];
  if (e.count++ == 0) {
    e.what = what;
    e.reason = reason;
    e.example = example;
  }
}

const Page* ReviewScope::page_at(const std::filesystem::path& canonical) const {
  const auto it = page_by_path.find(canonical.string());
  return it == page_by_path.end() ? nullptr : &pages[it->second];
}

}  // namespace skillrt::doc_review
