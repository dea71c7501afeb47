#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "model.hpp"
#include "optoolkit/text.hpp"
#include "text.hpp"

namespace skillrt::ci_fix {

std::string tool_family(const std::string& tool) {
  if (tool == "flake8" || tool == "pycodestyle" || tool == "ruff" || tool == "pep8" ||
      tool == "autopep8") {
    return "pep8";
  }
  return tool;
}

namespace {

std::vector<std::string> strings(const nlohmann::json& j, const char* field) {
  std::vector<std::string> out;
  if (!j.contains(field)) return out;
  for (const auto& v : j.at(field)) out.push_back(v.get<std::string>());
  return out;
}

}  // namespace

Whitelist Whitelist::parse(std::string_view json_text) {
  Whitelist w;
  auto j = nlohmann::json::parse(json_text.begin(), json_text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    throw std::runtime_error("whitelist: not a JSON object");
  }
  try {
    for (const auto& [name, c] : j.at("classes").items()) {
      FixClass fc;
      fc.name = name;
      std::string proof = c.at("proof").get<std::string>();
      if (proof == "whitespace") {
        fc.proof = ProofLevel::kWhitespace;
      } else if (proof == "comments") {
        fc.proof = ProofLevel::kComment;
      } else if (proof == "string-value") {
        fc.proof = ProofLevel::kStringValue;
      } else {
        throw std::runtime_error("whitelist: classes/" + name +
                                 "/proof must be whitespace, comments or string-value");
      }
      fc.why = c.at("why").get<std::string>();
      fc.exclude = strings(c, "exclude");
      w.classes_[name] = fc;
      w.enabled_.insert(name);
    }
    for (const auto& r : j.at("rules")) {
      Rule rule;
      for (const auto& t : strings(r, "tools")) rule.tools.insert(t);
      for (const auto& c : strings(r, "codes")) rule.codes.insert(c);
      rule.message_prefix = r.value("message", "");
      rule.klass = r.at("class").get<std::string>();
      rule.fixer = r.at("fixer").get<std::string>();
      if (w.classes_.count(rule.klass) == 0) {
        throw std::runtime_error("whitelist: rule for " + r.at("codes").dump() +
                                 " names unknown class " + rule.klass);
      }
      w.rules_.push_back(std::move(rule));
    }
    for (const auto& n : j.at("never")) {
      Never nv;
      nv.codes = strings(n, "codes");
      nv.why = n.at("why").get<std::string>();
      nv.suggestion = n.value("suggestion", "");
      w.never_.push_back(std::move(nv));
    }
    w.protected_ = strings(j, "protected_paths");
    w.protected_why_ = j.value("protected_paths_why", "");
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("whitelist: ") + e.what());
  }
  return w;
}

void Whitelist::narrow(const std::vector<std::string>& classes,
                       const std::vector<std::string>& disabled_codes,
                       const std::vector<std::string>& extra_excludes) {
  if (!classes.empty()) {
    std::set<std::string> keep;
    for (const auto& c : classes) {
      if (classes_.count(c) == 0) {
        std::string known;
        for (const auto& [name, fc] : classes_) known += (known.empty() ? "" : ", ") + name;
        throw std::invalid_argument("whitelist class '" + c +
                                    "' is not one of the built-in safe classes (" + known +
                                    "); the whitelist can be narrowed, never widened");
      }
      keep.insert(c);
    }
    std::set<std::string> next;
    std::set_intersection(enabled_.begin(), enabled_.end(), keep.begin(), keep.end(),
                          std::inserter(next, next.begin()));
    enabled_ = std::move(next);
  }
  for (const auto& c : disabled_codes) disabled_codes_.insert(c);
  for (const auto& e : extra_excludes) extra_excludes_.push_back(e);
}

bool Whitelist::is_protected(const std::string& rel_path) const {
  return std::any_of(protected_.begin(), protected_.end(),
                     [&](const std::string& g) { return glob_match(g, rel_path); });
}

namespace {

bool message_matches(const std::string& want, const std::string& message) {
  if (want.empty()) return true;
  if (want[0] == '^') return starts_with(message, want.substr(1));
  return message.find(want) != std::string::npos;
}

}  // namespace

Verdict Whitelist::judge(const Finding& f, const std::string& rel_path) const {
  Verdict v;
  std::string family = tool_family(f.tool);
  for (const Never& n : never_) {
    for (const auto& g : n.codes) {
      if (glob_match(g, f.code)) {
        v.why_not = n.why;
        v.suggestion = n.suggestion;
        // "{quoted}" names what the message quotes ('x' in "undefined name 'x'").
        const size_t at = v.suggestion.find("{quoted}");
        if (at != std::string::npos) {
          const size_t q1 = f.message.find('\'');
          const size_t q2 = q1 == std::string::npos ? q1 : f.message.find('\'', q1 + 1);
          const std::string name = q2 == std::string::npos
                                       ? std::string("the name")
                                       : "`" + f.message.substr(q1 + 1, q2 - q1 - 1) + "`";
          v.suggestion.replace(at, 8, name);
        }
        return v;
      }
    }
  }
  const Rule* rule = nullptr;
  for (const Rule& r : rules_) {
    if (r.tools.count(family) && r.codes.count(f.code) &&
        message_matches(r.message_prefix, f.message)) {
      rule = &r;
      break;
    }
  }
  if (rule == nullptr) {
    v.why_not = "not on the whitelist: no proven-safe fixer exists for " + f.tool + " " + f.code;
    v.suggestion = "Fix by hand as the message says.";
    return v;
  }
  if (disabled_codes_.count(f.code)) {
    v.why_not = "rule " + f.code + " was disabled by the request's whitelist";
    v.suggestion = "Fix by hand, or drop it from `whitelist.disable`.";
    return v;
  }
  if (enabled_.count(rule->klass) == 0) {
    v.why_not = "fix class " + rule->klass + " was left out by the request's whitelist";
    v.suggestion = "Fix by hand, or include " + rule->klass + " in `whitelist.classes`.";
    return v;
  }
  const FixClass& fc = classes_.at(rule->klass);
  for (const auto& g : fc.exclude) {
    if (glob_match(g, rel_path)) {
      v.why_not =
          "fix class " + fc.name + " never touches files matching " + g +
          (fc.name == "trailing-whitespace" && (g == "*.md" || g == "*.markdown")
               ? " (two trailing spaces are a Markdown line break)"
           : g == "*.patch" || g == "*.diff" ? " (whitespace is part of the patch context)"
           : g == "Makefile" || g == "*.mk" || g == "GNUmakefile" ? " (tabs are Makefile syntax)"
                                                                  : "");
      v.suggestion = "Leave it, or fix by hand if the file's consumers allow it.";
      return v;
    }
  }
  for (const auto& g : extra_excludes_) {
    if (glob_match(g, rel_path)) {
      v.why_not = "the request's whitelist excludes " + g;
      v.suggestion = "Fix by hand.";
      return v;
    }
  }
  v.fixable = true;
  v.rule = rule;
  v.klass = &fc;
  return v;
}

TypoTable TypoTable::parse(std::string_view tsv) {
  TypoTable t;
  for (const std::string& line : split_lines(tsv)) {
    if (line.empty() || line[0] == '#') continue;
    size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    std::string from = ops::trim(line.substr(0, tab));
    std::string to = ops::trim(line.substr(tab + 1));
    if (from.empty() || to.empty() || to.find(',') != std::string::npos) continue;
    std::transform(from.begin(), from.end(), from.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    t.table_[from] = to;
  }
  return t;
}

std::string TypoTable::correct(std::string_view word) const {
  std::string low(word);
  std::transform(low.begin(), low.end(), low.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ignored_.count(low)) return "";
  auto it = table_.find(low);
  if (it == table_.end()) return "";
  std::string out = it->second;
  bool all_upper = word.size() > 1 && std::all_of(word.begin(), word.end(), [](unsigned char c) {
                     return !std::isalpha(c) || std::isupper(c);
                   });
  if (all_upper) {
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  } else if (!word.empty() && std::isupper(static_cast<unsigned char>(word[0]))) {
    out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  }
  // Mixed case (camelCase) words are identifiers, not prose.
  bool inner_upper =
      std::any_of(word.begin() + 1, word.end(), [](unsigned char c) { return std::isupper(c); });
  if (inner_upper && !all_upper) return "";
  return out;
}

}  // namespace skillrt::ci_fix
