#include "cli/detail/output.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <random>

namespace skillrt::cli::detail {

void print_error(bool json, int exit_code, Code code, const std::string& message,
                 const std::vector<schema::Violation>& violations) {
  if (json) {
    nlohmann::json v = nlohmann::json::array();
    for (const auto& x : violations) {
      v.push_back({{"pointer", x.pointer}, {"keyword", x.keyword}, {"message", x.message}});
    }
    nlohmann::json err = {{"code", code_name(code)}, {"exit_code", exit_code}, {"message", message}};
    if (!violations.empty()) err["violations"] = v;
    std::cout << nlohmann::json{{"error", err}}.dump(2) << "\n";
    return;
  }
  std::cerr << "skillrt: error: " << message << "\n";
}

nlohmann::json annotations(const Skill& skill) {
  return {{"readOnlyHint", (skill.flags & SKILLRT_SKILL_READ_ONLY) != 0},
          {"destructiveHint", (skill.flags & SKILLRT_SKILL_DESTRUCTIVE) != 0},
          {"idempotentHint", (skill.flags & SKILLRT_SKILL_IDEMPOTENT) != 0},
          {"openWorldHint", (skill.flags & SKILLRT_SKILL_OPEN_WORLD) != 0}};
}

nlohmann::json skill_summary(const Skill& skill) {
  return {{"name", skill.name},
          {"title", skill.title},
          {"description", skill.description},
          {"plugin", skill.plugin}};
}

nlohmann::json skill_details(const Skill& skill) {
  nlohmann::json out = skill_summary(skill);
  out["plugin_file"] = skill.plugin_file;
  out["annotations"] = annotations(skill);
  out["serial"] = (skill.flags & SKILLRT_SKILL_SERIAL) != 0;
  out["default_timeout_ms"] = skill.default_timeout_ms;
  out["input_schema"] = skill.input_schema->source();
  out["output_schema"] = skill.output_schema->source();
  return out;
}

nlohmann::json plugin_json(const plugin::PluginRecord& r) {
  nlohmann::json abi = nullptr;
  if (r.abi_major >= 0) abi = std::to_string(r.abi_major) + "." + std::to_string(r.abi_minor);
  return {{"file", r.file.string()}, {"name", r.name},     {"version", r.version},
          {"abi", abi},              {"loaded", r.loaded}, {"builtin", r.builtin}, {"isolated", r.isolated},
          {"skills", r.skills},      {"errors", r.errors}};
}

void print_skill_table(std::ostream& out, const std::vector<std::shared_ptr<const Skill>>& skills) {
  size_t width = 5;
  for (const auto& s : skills) width = std::max(width, s->name.size());
  for (const auto& s : skills) {
    std::string summary = s->title.empty() ? s->description : s->title;
    if (auto nl = summary.find('\n'); nl != std::string::npos) summary.resize(nl);
    if (summary.size() > 90) summary = summary.substr(0, 87) + "...";
    out << std::left << std::setw(static_cast<int>(width) + 2) << s->name << summary << "\n";
  }
  if (skills.empty()) out << "no skills: see `skillrt plugins` for load errors\n";
}

void print_skill_details(std::ostream& out, const Skill& s) {
  out << s.name;
  if (!s.title.empty()) out << ": " << s.title;
  out << "\n  plugin: " << s.plugin << " (" << s.plugin_file << ")\n";
  std::vector<std::string> hints;
  if (s.flags & SKILLRT_SKILL_READ_ONLY) hints.push_back("read-only");
  if (s.flags & SKILLRT_SKILL_DESTRUCTIVE) hints.push_back("destructive");
  if (s.flags & SKILLRT_SKILL_IDEMPOTENT) hints.push_back("idempotent");
  if (s.flags & SKILLRT_SKILL_OPEN_WORLD) hints.push_back("open-world");
  if (s.flags & SKILLRT_SKILL_SERIAL) hints.push_back("serial");
  if (!hints.empty()) {
    out << "  hints:";
    for (const auto& h : hints) out << " " << h;
    out << "\n";
  }
  out << "\n" << s.description << "\n\ninput schema:\n"
      << s.input_schema->source().dump(2) << "\n\noutput schema:\n"
      << s.output_schema->source().dump(2) << "\n";
}

void print_plugin_table(std::ostream& out, const std::deque<plugin::PluginRecord>& records) {
  for (const auto& r : records) {
    out << (r.loaded ? "ok    " : "FAIL  ") << (r.name.empty() ? "?" : r.name);
    if (!r.version.empty()) out << " " << r.version;
    if (r.abi_major >= 0) out << " (ABI " << r.abi_major << "." << r.abi_minor << ")";
    out << "  " << r.file.string() << "\n";
    if (!r.skills.empty()) {
      out << "      skills:";
      for (const auto& s : r.skills) out << " " << s;
      out << "\n";
    }
    for (const auto& e : r.errors) out << "      error: " << e << "\n";
  }
  if (records.empty()) out << "no plugins found: set SKILLRT_PLUGIN_PATH or --plugin-path\n";
}

Result<void> write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  std::random_device rd;
  auto tmp = path;
  tmp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(rd());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      return fail(Code::kPermissionDenied, "--output: cannot create '" + tmp.string() +
                                               "': check that the directory exists and is writable");
    }
    out << text;
    out.flush();
    if (!out) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      return fail(Code::kDataLoss, "--output: writing '" + tmp.string() + "' failed (disk full?)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return fail(Code::kPermissionDenied,
                "--output: cannot rename onto '" + path.string() + "': " + ec.message());
  }
  return {};
}

void ProgressPrinter::report(const exec::Progress& p) {
  if (quiet_) return;
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  const bool last = p.total > 0 && p.done >= p.total;
  // Redrawing more often than 20 times a second only costs the skill time.
  if (!last && now - last_ < std::chrono::milliseconds(50)) return;
  last_ = now;
  if (terminal_) {
    std::string line = "\r\033[K";
    if (p.total > 0) {
      const double frac = std::clamp(p.done / p.total, 0.0, 1.0);
      const int filled = static_cast<int>(frac * 30);
      line += "[" + std::string(filled, '#') + std::string(30 - filled, ' ') + "] ";
      line += std::to_string(static_cast<int>(frac * 100)) + "% ";
    } else {
      line += "[" + std::to_string(static_cast<long long>(p.done)) + "] ";
    }
    line += p.message;
    std::fputs(line.c_str(), stderr);
    drawn_ = true;
  } else {
    std::fprintf(stderr, "progress: %g/%g %s\n", p.done, p.total, p.message.c_str());
  }
  std::fflush(stderr);
}

void ProgressPrinter::finish() {
  std::lock_guard lock(mutex_);
  if (drawn_) std::fputs("\r\033[K", stderr);
  drawn_ = false;
}

}  // namespace skillrt::cli::detail
