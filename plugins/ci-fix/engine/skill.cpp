// The skill's flow: scope -> findings (ingested and/or produced by running linters) -> per-file
// fixes with proofs -> verification by running the linters again -> patch or atomic writes ->
// Markdown and JSON reports.
#include "skill.hpp"

#include <unistd.h>

#include "session.hpp"

namespace skillrt::ci_fix {

using nlohmann::json;

namespace detail {

namespace {

const std::set<std::string> kLinters = {"flake8",     "pycodestyle", "clang-format",
                                        "whitespace", "tabs",        "typos"};

std::string cwd() {
  char buf[4096];
  return getcwd(buf, sizeof buf) ? buf : "/";
}

// The narrowing of the built-in whitelist the request asks for (whitelist_file, whitelist).
void read_whitelist(const json& in, Request& r) {
  auto narrow_from = [&](const json& w) {
    if (w.contains("classes")) {
      for (const auto& c : w.at("classes")) r.classes.push_back(c.get<std::string>());
    }
    if (w.contains("disable")) {
      for (const auto& c : w.at("disable")) r.disable.push_back(c.get<std::string>());
    }
    if (w.contains("exclude")) {
      for (const auto& c : w.at("exclude")) r.exclude.push_back(c.get<std::string>());
    }
  };
  if (in.contains("whitelist_file")) {
    std::string p = absolute(in.at("whitelist_file").get<std::string>(), r.repo);
    auto text = read_file(p);
    if (!text) throw RequestError("whitelist_file: cannot read " + p);
    auto w = json::parse(*text, nullptr, false);
    if (w.is_discarded() || !w.is_object()) {
      throw RequestError("whitelist_file: " + p +
                         " is not a JSON object with classes/disable/exclude");
    }
    narrow_from(w);
  }
  if (in.contains("whitelist")) narrow_from(in.at("whitelist"));
}

void read_scope(const json& in, Request& r) {
  if (!in.contains("scope")) return;
  const json& s = in.at("scope");
  if (s.contains("files")) {
    r.scope_kind = "files";
    for (const auto& f : s.at("files")) r.scope_files.push_back(f.get<std::string>());
  } else if (s.contains("diff")) {
    r.scope_kind = "diff";
    r.diff = s.at("diff").get<std::string>();
    if (r.diff.empty() || r.diff[0] == '-') {
      throw RequestError("scope.diff: '" + r.diff +
                         "' is not a revision range such as origin/master..HEAD");
    }
  }
}

}  // namespace

std::string absolute(const std::string& p, const std::string& base) {
  if (!p.empty() && p[0] == '/') return normalize_path(p);
  return normalize_path(base + "/" + p);
}

Request parse_request(const json& in) {
  Request r;
  if (!in.is_object() || !in.contains("repo") || !in.at("repo").is_string()) {
    throw RequestError("repo: a repository path is required");
  }
  r.repo_given = absolute(in.at("repo").get<std::string>(), cwd());
  r.repo = real_path(r.repo_given);
  if (r.repo.empty() || !is_directory(r.repo)) {
    throw RequestError("repo: " + r.repo_given + " is not a directory; pass the repository's root");
  }
  if (in.contains("report")) {
    std::string p = absolute(in.at("report").get<std::string>(), r.repo);
    auto text = read_file(p);
    if (!text)
      throw RequestError("report: cannot read " + p + "; pass a readable lint report file");
    r.report_text = *text;
    r.report_source = p;
  }
  if (in.contains("report_text")) {
    if (r.report_text) throw RequestError("report and report_text: give one of them, not both");
    r.report_text = in.at("report_text").get<std::string>();
    r.report_source = "inline";
  }
  r.report_format = in.value("report_format", "auto");
  if (in.contains("run")) {
    for (const auto& v : in.at("run")) {
      std::string l = v.get<std::string>();
      if (kLinters.count(l) == 0) {
        throw RequestError("run: unknown linter '" + l +
                           "'; known: flake8, pycodestyle, clang-format, whitespace, tabs, typos");
      }
      r.run.push_back(l);
    }
  }
  if (!r.report_text && r.run.empty()) r.run = {"flake8", "clang-format", "whitespace"};
  read_scope(in, r);
  r.apply = in.value("apply", false);
  r.verify = in.value("verify", true);
  read_whitelist(in, r);
  r.clang_format_style = in.value("clang_format_style", "file");
  if (in.contains("report_dir"))
    r.report_dir = absolute(in.at("report_dir").get<std::string>(), r.repo);
  r.context = in.value("context_lines", 3);
  r.patch_by_class = in.value("patch_by_class", false);
  return r;
}

json Session::run() {
  whitelist_ = Whitelist::parse(embedded_data("whitelist.json"));
  try {
    whitelist_.narrow(req_.classes, req_.disable, req_.exclude);
  } catch (const std::invalid_argument& e) {
    throw RequestError(std::string("whitelist: ") + e.what());
  }
  typos_ = TypoTable::parse(embedded_data("typos.tsv"));
  load_spelling_config();
  load_line_length();
  resolve_scope();
  collect_findings();
  fix_files();
  if (req_.verify) verify_before();
  if (req_.apply) apply();
  if (req_.verify) verify_after();
  return output();
}

}  // namespace detail

json run_ci_fix(const json& input, const Hooks& hooks) {
  detail::Request req = detail::parse_request(input);
  detail::Session s(std::move(req), hooks);
  return s.run();
}

}  // namespace skillrt::ci_fix
