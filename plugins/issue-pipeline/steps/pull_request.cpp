// The pull request of a delivered case: its description from the repository's own template, and
// the request to open it through the GitHub or GitCode API.
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "detail/case_runner.hpp"
#include "detail/files.hpp"
#include "detail/http.hpp"
#include "detail/text.hpp"

namespace skillrt::issue_pipeline::detail {

namespace fs = std::filesystem;

namespace {

// The repository's PR template, or the Ascend headings when it has none.
std::string find_template(const std::string& wt, const std::string& repo, std::string* source) {
  for (const char* cand : {".gitcode/PULL_REQUEST_TEMPLATE.md", ".github/PULL_REQUEST_TEMPLATE.md",
                           ".gitee/PULL_REQUEST_TEMPLATE.md", "PULL_REQUEST_TEMPLATE.md",
                           "docs/PULL_REQUEST_TEMPLATE.md"}) {
    std::error_code ec;
    if (fs::is_regular_file(fs::path(wt) / cand, ec)) {
      *source = std::string(repo) + ":" + cand;
      return read_file((fs::path(wt) / cand).string());
    }
  }
  std::string templ;
  for (const auto& h : default_template_headings()) templ += "### " + h + "\n\n";
  *source = "built-in (headings of Ascend/op-plugin@517f2e7:.gitcode/PULL_REQUEST_TEMPLATE.md)";
  return templ;
}

// 合入来源: where the case comes from and whether it reproduced.
std::string source_section(const std::string& test, const std::string& route, const Json& repro) {
  std::ostringstream source;
  source << "Upstream PyTorch test `" << test << "` fails on NPU (route: " << route << ").\n";
  if (repro.contains("log_signature") && repro["log_signature"].value("found", false)) {
    source << "CI log: " << repro["log_signature"]["exception"].get<std::string>() << ": "
           << repro["log_signature"]["message"].get<std::string>() << "\n";
  }
  source << "Reproduced: " << repro["verdict"].get<std::string>() << " ("
         << repro["reason"].get<std::string>() << ")\n";
  return source.str();
}

// 资料变更 and 接口变更: documentation and interface files among the changed ones.
void docs_and_interface(const std::vector<std::string>& files, std::string* docs,
                        std::string* iface) {
  std::vector<std::string> doc_files;
  std::vector<std::string> iface_files;
  for (const auto& f : files) {
    if (f.rfind("docs/", 0) == 0 || (f.size() > 3 && f.substr(f.size() - 3) == ".md")) {
      doc_files.push_back(f);
    }
    if (f.find("functions.yaml") != std::string::npos ||
        f.find("derivatives.yaml") != std::string::npos ||
        (f.size() > 4 && f.substr(f.size() - 4) == ".pyi")) {
      iface_files.push_back(f);
    }
  }
  *docs = doc_files.empty() ? "None: no file under docs/ or *.md changed."
                            : "Changed: " + join(doc_files, ", ");
  *iface = iface_files.empty()
               ? "None detected: no *functions.yaml, derivatives.yaml or .pyi file changed."
               : "Schema/registration files changed, review for interface change: " +
                     join(iface_files, ", ");
}

// 功能验证: what verify ran.
std::string check_section(const std::string& test, const Json& repro, const Json& verify,
                          bool disable) {
  std::ostringstream check;
  if (disable) {
    check << "Not run: the test is disabled, not fixed.\n";
    return check.str();
  }
  check << "- `" << test << "`: passes after the fix (was: " << repro["verdict"].get<std::string>()
        << ")\n";
  check << "- neighbours (same class/file): " << verify["neighbours"]["count"].get<int>()
        << " rerun, " << verify["neighbours"]["broken_by_fix"].size() << " broken by the fix\n";
  check << "- related operator test files: " << verify["related"]["runs"].size() << " rerun, "
        << verify["related"]["broken_by_fix"].size() << " tests broken by the fix\n";
  return check.str();
}

}  // namespace

std::string CaseRunner::pr_description(const std::string& repo, std::string* templ_source,
                                       std::vector<std::string>* used) {
  const Json& fix = st("fix")["result"];
  const Json& diag = st("diagnose")["result"];
  const Json& verify = st("verify")["result"];
  const Json& repro = st("reproduce")["result"];
  const std::string test = state_["test"]["id"];
  const std::string route = state_["route"]["route"];
  const bool disable = fix["kind"] == "disable";
  const std::string templ = find_template(worktree(repo), repo, templ_source);
  // 修改方案: the root cause, the candidate files and the change.
  std::ostringstream change;
  change << "Root cause: " << diag["label"].get<std::string>() << ", "
         << diag["decided_by"].get<std::string>() << "\n";
  for (const auto& c : diag["candidates"]) {
    change << "- " << c["repo"].get<std::string>() << "/" << c["file"].get<std::string>() << ":"
           << c["line"].get<int>() << " (" << c["why"].get<std::string>() << ")\n";
  }
  std::vector<std::string> files;
  if (disable) {
    files.push_back(s_.disabled_path);
    change << "Change: add the test to " << s_.disabled_path << " with the reason.\n";
  } else {
    files = fix["repos"][repo]["files"].get<std::vector<std::string>>();
    change << "Change (" << repo << "):\n```\n"
           << fix["repos"][repo]["diffstat"].get<std::string>() << "```\n";
  }
  std::string docs;
  std::string iface;
  docs_and_interface(files, &docs, &iface);
  return fill_template(templ,
                       {{"合入来源", source_section(test, route, repro)},
                        {"修改方案", change.str()},
                        {"资料变更", docs},
                        {"接口变更", iface},
                        {"功能验证", check_section(test, repro, verify, disable)}},
                       used);
}

Json CaseRunner::open_pr(const std::string& repo, const Json& cfg, const std::string& title,
                         const std::string& body, const std::string& branch) {
  const std::string provider = cfg.value("provider", "github");
  const std::string api =
      cfg.value("api_url", provider == "gitcode" ? "https://api.gitcode.com/api/v5"
                                                 : "https://api.github.com");
  const std::string token_env =
      cfg.value("token_env", provider == "gitcode" ? "GITCODE_TOKEN" : "GITHUB_TOKEN");
  const char* token = std::getenv(token_env.c_str());
  if (token == nullptr || *token == '\0') {
    failed("deliver", SKILLRT_FAILED_PRECONDITION,
           "pr." + repo + ": no token in $" + token_env + "; export it (or drop pr." + repo +
               " to deliver without opening a PR)");
  }
  if (!cfg.contains("owner") || !cfg.contains("repo")) {
    failed("deliver", SKILLRT_INVALID_ARGUMENT, "pr." + repo + ": owner and repo are required");
  }
  std::string url = api + "/repos/" + cfg["owner"].get<std::string>() + "/" +
                    cfg["repo"].get<std::string>() + "/pulls";
  std::string head = branch;
  if (cfg.contains("head_owner")) head = cfg["head_owner"].get<std::string>() + ":" + branch;
  const Json payload{
      {"title", title}, {"head", head}, {"base", cfg.value("base", "master")}, {"body", body}};
  std::vector<std::string> headers;
  std::string sent_url = url;
  if (provider == "gitcode") {
    // GitCode's v5 API (Gitee-compatible) takes the token as access_token.
    headers.push_back("PRIVATE-TOKEN: " + std::string(token));
    url += "?access_token=" + std::string(token);
  } else {
    headers.push_back("Accept: application/vnd.github+json");
    headers.push_back("X-GitHub-Api-Version: 2022-11-28");
    headers.push_back("Authorization: Bearer " + std::string(token));
  }
  Json rec{{"provider", provider},
           {"url", sent_url},
           {"head", head},
           {"base", payload["base"]},
           {"requested_at", now_utc()}};
  st("deliver")["pr_requests"][repo] = rec;
  save();
  const HttpResponse resp = http_post_json(url, headers, payload.dump(), 60);
  rec["status"] = resp.status;
  if (!resp.error.empty()) {
    failed("deliver", SKILLRT_UNAVAILABLE,
           "pr." + repo + ": POST " + sent_url + " failed: " + resp.error +
               "; the commit is made; rerun deliver to retry the PR");
  }
  Json reply = Json::parse(resp.body, nullptr, false);
  if (resp.status == 201 || resp.status == 200) {
    rec["opened"] = true;
    rec["number"] = reply.is_object() ? reply.value("number", Json(nullptr)) : Json(nullptr);
    rec["html_url"] = reply.is_object() ? reply.value("html_url", Json(nullptr)) : Json(nullptr);
    return rec;
  }
  if (resp.status == 422 && resp.body.find("already exists") != std::string::npos) {
    rec["opened"] = false;
    rec["already_exists"] = true;
    return rec;
  }
  failed("deliver", SKILLRT_UNAVAILABLE,
         "pr." + repo + ": POST " + sent_url + " answered HTTP " + std::to_string(resp.status) +
             ": " + resp.body.substr(0, 300) + "; check owner/repo/base and the token's rights");
}

}  // namespace skillrt::issue_pipeline::detail
