#include "registry/registry.hpp"

#include <algorithm>

namespace skillrt {

bool is_valid_skill_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  if (name.front() == '-' || name.back() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

Result<void> Registry::add(std::shared_ptr<const Skill> skill) {
  if (frozen_) {
    return fail(Code::kFailedPrecondition,
                "skill '" + skill->name + "' from " + skill->plugin_file +
                    " arrived after the registry was frozen; skills are added only while the "
                    "host loads its plugins");
  }
  if (auto c = conflicted_.find(skill->name); c != conflicted_.end()) {
    return fail(Code::kAlreadyExists,
                "skill '" + skill->name + "' from " + skill->plugin_file +
                    " is also registered by " + c->second +
                    "; neither is loaded: rename one of them or remove one plugin from the path");
  }
  auto it = skills_.find(skill->name);
  if (it == skills_.end()) {
    skills_.emplace(skill->name, std::move(skill));
    return {};
  }
  // Which plugin wins must not depend on directory order, so neither does.
  const std::string first = it->second->plugin_file;
  conflicted_.emplace(skill->name, first);
  skills_.erase(it);
  return fail(Code::kAlreadyExists,
              "skill '" + skill->name + "' from " + skill->plugin_file + " is also registered by " +
                  first +
                  "; neither is loaded: rename one of them or remove one plugin from the path");
}

std::shared_ptr<const Skill> Registry::find(std::string_view name) const {
  auto it = skills_.find(name);
  return it == skills_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<const Skill>> Registry::all() const {
  std::vector<std::shared_ptr<const Skill>> out;
  out.reserve(skills_.size());
  for (const auto& [name, skill] : skills_) out.push_back(skill);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a->name < b->name; });
  return out;
}

namespace {
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}
}  // namespace

std::vector<std::string> Registry::suggest(std::string_view name, size_t max) const {
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& [candidate, skill] : skills_) {
    const size_t d = edit_distance(name, candidate);
    const bool contains = candidate.find(name) != std::string::npos ||
                          std::string_view(name).find(candidate) != std::string_view::npos;
    // Within a third of the length, or one contains the other: close enough to be a typo.
    if (contains || d * 3 <= std::max(name.size(), candidate.size())) {
      scored.emplace_back(contains ? 0 : d, candidate);
    }
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < max; ++i) out.push_back(scored[i].second);
  return out;
}

std::string Registry::not_found_message(std::string_view name) const {
  std::string message = "unknown skill '" + std::string(name) + "'";
  const auto near = suggest(name);
  if (!near.empty()) {
    message += "; did you mean";
    for (size_t i = 0; i < near.size(); ++i) message += (i ? ", '" : " '") + near[i] + "'";
    message += "?";
  }
  return message + " Run `skillrt list` to see every skill.";
}

}  // namespace skillrt
