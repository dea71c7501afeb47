#include "codes.hpp"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <stdexcept>

#include "detail/text.hpp"
#include "embedded_data.hpp"
#include "optoolkit/text.hpp"

namespace skillrt::npu_graph {
namespace {

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

bool all_digits(std::string_view s) {
  for (char c : s) {
    if (!is_digit(c)) return false;
  }
  return !s.empty();
}

constexpr std::string_view kCannModuleChars = "123478BCDEFGHIJKLMNOPZ";

}  // namespace

const char* code_kind_name(CodeKind kind) {
  switch (kind) {
    case CodeKind::kTorchNpu:
      return "torch_npu";
    case CodeKind::kAcl:
      return "acl";
    case CodeKind::kAclnn:
      return "aclnn";
    case CodeKind::kCann:
      return "cann";
  }
  return "acl";
}

nlohmann::json DecodedCode::to_json() const {
  nlohmann::json j{{"code", code},     {"kind", code_kind_name(kind)},
                   {"name", name},     {"meaning", meaning},
                   {"family", family}, {"layer", layer}};
  if (!suggestion.empty()) j["suggestion"] = suggestion;
  return j;
}

CodeTable::CodeTable(std::string_view error_codes_yaml, std::string_view acl_tsv) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(error_codes_yaml));
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(std::string("error_codes.yaml: ") + e.what() +
                             ": fix the YAML syntax");
  }
  for (const auto& kv : root["torch_npu"]["submodules"]) {
    err_submodules_[kv.first.as<std::string>()] =
        ErrPart{kv.second["name"].as<std::string>(), kv.second["component"].as<std::string>(),
                kv.second["layer"].as<std::string>()};
  }
  for (const auto& kv : root["torch_npu"]["codes"]) {
    err_codes_[kv.first.as<std::string>()] =
        ErrPart{kv.second["name"].as<std::string>(), kv.second["meaning"].as<std::string>(), ""};
  }
  for (const auto& kv : root["aclnn"]) {
    const long n = std::stol(kv.first.as<std::string>());
    aclnn_[n] =
        AclEntry{kv.second["meaning"].as<std::string>(), kv.second["family"].as<std::string>()};
    aclnn_names_[n] = kv.second["name"].as<std::string>();
  }
  for (const auto& kv : root["acl_extra"]) {
    acl_[std::stol(kv.first.as<std::string>())] = AclEntry{kv.second.as<std::string>(), ""};
  }
  for (const auto& r : root["acl_families"]) {
    acl_ranges_.push_back(
        Range{r["from"].as<long>(), r["to"].as<long>(), r["family"].as<std::string>()});
  }
  for (const auto& kv : root["cann_modules"]) {
    const std::string key = kv.first.as<std::string>();
    if (key.size() != 1) {
      throw std::runtime_error("error_codes.yaml: cann_modules key '" + key +
                               "' must be one character");
    }
    cann_modules_[key[0]] =
        ErrPart{kv.second["component"].as<std::string>(), "", kv.second["layer"].as<std::string>()};
  }
  size_t line_no = 0;
  for (std::string_view line : detail::split_lines(acl_tsv)) {
    ++line_no;
    if (line_no == 1 || ops::trim_view(line).empty()) continue;  // header
    const size_t tab = line.find('\t');
    if (tab == std::string_view::npos || !all_digits(line.substr(0, tab))) {
      throw std::runtime_error("acl_error_codes.tsv line " + std::to_string(line_no) +
                               ": expected '<code>\\t<message>'");
    }
    const std::string_view message = line.substr(tab + 1);
    const size_t bar = message.find(" | ");
    AclEntry entry;
    entry.meaning = std::string(ops::trim_view(message.substr(0, bar)));
    if (bar != std::string_view::npos) entry.suggestion = std::string(message.substr(bar + 3));
    acl_[std::stol(std::string(line.substr(0, tab)))] = std::move(entry);
  }
}

const CodeTable& CodeTable::builtin() {
  static const CodeTable kTable(embedded_file("error_codes.yaml"),
                                embedded_file("acl_error_codes.tsv"));
  return kTable;
}

bool CodeTable::is_known_number(long n) const { return acl_.count(n) || aclnn_.count(n); }

void CodeTable::scan(std::string_view line, std::vector<CodeToken>* out) const {
  const size_t n = line.size();
  size_t i = 0;
  while (i < n) {
    const char c = line[i];
    const bool boundary_before = i == 0 || !is_alnum(line[i - 1]);
    if (c == 'E' && boundary_before && i + 8 <= n && line.compare(i, 3, "ERR") == 0 &&
        all_digits(line.substr(i + 3, 5)) && (i + 8 == n || !is_digit(line[i + 8]))) {
      out->push_back({line.substr(i, 8), CodeKind::kTorchNpu});
      i += 8;
      continue;
    }
    if ((c == 'E' || c == 'W') && boundary_before && i + 6 <= n &&
        kCannModuleChars.find(line[i + 1]) != std::string_view::npos &&
        all_digits(line.substr(i + 2, 4)) && (i + 6 == n || !is_alnum(line[i + 6]))) {
      out->push_back({line.substr(i, 6), CodeKind::kCann});
      i += 6;
      continue;
    }
    if (is_digit(c)) {
      size_t j = i;
      while (j < n && is_digit(line[j])) ++j;
      // A six-digit run that is a whole token; "(123456," and "PID:123456" are process ids.
      const bool pid = i >= 4 && line.compare(i - 4, 4, "PID:") == 0;
      const bool paren = i > 0 && line[i - 1] == '(';
      const bool whole = boundary_before && (j == n || !is_alnum(line[j])) &&
                         (i == 0 || (line[i - 1] != '.' && line[i - 1] != '-'));
      if (j - i == 6 && whole && !pid && !paren) {
        const long value = std::stol(std::string(line.substr(i, 6)));
        if (is_known_number(value)) {
          out->push_back(
              {line.substr(i, 6), aclnn_.count(value) ? CodeKind::kAclnn : CodeKind::kAcl});
        }
      }
      i = j;
      continue;
    }
    ++i;
  }
}

std::optional<DecodedCode> CodeTable::decode(std::string_view code) const {
  DecodedCode d;
  d.code = std::string(code);
  if (code.size() == 8 && code.compare(0, 3, "ERR") == 0 && all_digits(code.substr(3))) {
    const auto sub = err_submodules_.find(std::string(code.substr(3, 2)));
    const auto what = err_codes_.find(std::string(code.substr(5, 3)));
    if (sub == err_submodules_.end() || what == err_codes_.end()) return std::nullopt;
    d.kind = CodeKind::kTorchNpu;
    d.name = sub->second.name + " " + what->second.name;
    d.meaning = what->second.meaning + " (" + sub->second.meaning + ")";
    d.family = "torch_npu " + sub->second.name;
    d.layer = sub->second.layer;
    return d;
  }
  if (code.size() == 6 && all_digits(code)) {
    const long n = std::stol(d.code);
    if (const auto it = aclnn_.find(n); it != aclnn_.end()) {
      d.kind = CodeKind::kAclnn;
      d.name = aclnn_names_.at(n);
      d.meaning = it->second.meaning;
      d.family = "aclnn " + d.code.substr(0, 2) + "xxxx: " + it->second.suggestion;
      d.layer = "opplugin-operator";
      return d;
    }
    const auto it = acl_.find(n);
    if (it == acl_.end()) return std::nullopt;
    d.kind = CodeKind::kAcl;
    d.name = "ACL " + d.code;
    d.meaning = it->second.meaning;
    d.suggestion = it->second.suggestion;
    d.family = "ACL runtime";
    for (const Range& r : acl_ranges_) {
      if (n >= r.from && n <= r.to) d.family = "ACL " + r.family;
    }
    d.layer = "acl-runtime";
    return d;
  }
  if (code.size() == 6 && (code[0] == 'E' || code[0] == 'W' || code[0] == 'I') &&
      all_digits(code.substr(2))) {
    const auto mod = cann_modules_.find(code[1]);
    if (mod == cann_modules_.end()) return std::nullopt;
    const bool internal = code[2] == '9';
    d.kind = CodeKind::kCann;
    d.name = "CANN " + mod->second.name;
    d.meaning = std::string(code[0] == 'E'   ? "error"
                            : code[0] == 'W' ? "warning"
                                             : "info") +
                " from " + mod->second.name +
                (internal ? ", internal (9xxx: a defect inside the component)"
                          : ", external (0000-8999: user input or environment)");
    d.family = "CANN " + std::string(1, code[1]) + " (" + mod->second.name + ")";
    d.layer = mod->second.layer;
    return d;
  }
  return std::nullopt;
}

}  // namespace skillrt::npu_graph
