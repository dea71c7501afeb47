#include "detail/shared_env.hpp"

#include <cctype>
#include <fstream>
#include <sstream>

#include "detail/files.hpp"
#include "detail/process.hpp"
#include "detail/text.hpp"
#include "plugin_io/atomic_file.hpp"

namespace skillrt::issue_pipeline::detail {

namespace fs = std::filesystem;

namespace {

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

// major.minor.patch from a version string ("2.7.1", "2.7.0a0", "v2.7.1-7.1.0"), or empty.
std::string xyz(const std::string& s) {
  size_t i = 0;
  while (i < s.size() && !std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  std::string out;
  int parts = 0;
  while (i < s.size() && parts < 3) {
    size_t j = i;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    if (j == i) break;
    out += (out.empty() ? "" : ".") + s.substr(i, j - i);
    ++parts;
    if (j < s.size() && s[j] == '.') {
      i = j + 1;
    } else {
      break;
    }
  }
  return parts >= 2 ? out : "";
}

// The first line of `file` containing `key_hint` (any line when empty) that holds a version.
Json declared_line(const fs::path& file, const std::string& key_hint) {
  std::ifstream in(file);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (key_hint.empty() || line.find(key_hint) != std::string::npos) {
      const std::string v = xyz(line);
      if (!v.empty())
        return Json{
            {"version", v}, {"file", file.string()}, {"line", n}, {"text", line.substr(0, 200)}};
    }
  }
  return nullptr;
}

// torch_npu declares the PyTorch it builds against in requirements (torch==X) where present;
// otherwise its own version.txt, which follows the PyTorch version it targets, or its branch name
// (v2.7.1-7.1.0).
Json torch_npu_version(const fs::path& tn, const std::string& tn_branch) {
  Json npu = declared_line(tn / "requirements.txt", "torch");
  if (npu.is_null()) npu = declared_line(tn / "version.txt", "");
  if (npu.is_null() && !xyz(tn_branch).empty() && tn_branch[0] == 'v') {
    npu = Json{{"version", xyz(tn_branch)}, {"branch", tn_branch}};
  }
  if (!npu.is_null()) return npu;
  return Json{{"version", nullptr},
              {"looked_in", {"requirements.txt (torch==)", "version.txt", "branch name vX.Y.Z-*"}}};
}

Json op_plugin_version(const std::string& op_branch) {
  Json op{{"branch", op_branch}};
  if (op_branch == "master" || op_branch == "main") {
    op["version"] = nullptr;
    op["note"] =
        "op-plugin master is built against every supported PyTorch version (PR pipeline "
        "builds master, v2.7.1 ... v2.12.0; shared/domain/ci-gates.md 1)";
  } else if (op_branch.size() > 1 && op_branch[0] == 'v' && !xyz(op_branch).empty()) {
    op["version"] = xyz(op_branch);
  } else {
    op["version"] = nullptr;
  }
  return op;
}

}  // namespace

const Json& SharedEnv::get() {
  std::lock_guard<std::mutex> lock(mu_);
  if (done_) {
    if (error_) std::rethrow_exception(error_);
    return env_;
  }
  done_ = true;
  try {
    prepare();
  } catch (...) {
    error_ = std::current_exception();
    throw;
  }
  return env_;
}

void SharedEnv::note_user(const std::string& case_id) {
  std::lock_guard<std::mutex> lock(mu_);
  users_.insert(case_id);
}

void SharedEnv::finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!done_ || error_) return;
  env_["used_by"] = Json(std::vector<std::string>(users_.begin(), users_.end()));
  plugin_io::write_file_atomic((s_.workspace / "shared_env.json").string(), env_.dump(2) + "\n");
}

SharedEnv::Cmd SharedEnv::run(const std::vector<std::string>& argv, const std::string& cwd) {
  const fs::path dir = s_.workspace / ".shared_env_logs";
  fs::create_directories(dir);
  ProcessSpec spec;
  spec.argv = argv;
  spec.cwd = cwd;
  spec.env = {{"LC_ALL", "C"}, {"GIT_TERMINAL_PROMPT", "0"}};
  spec.output_file = (dir / ("cmd-" + std::to_string(++counter_) + ".log")).string();
  spec.timeout_s = 300;
  const auto r = run_process(spec, [this] { return ctx_.cancelled(); });
  Cmd c{r.start_error.empty() ? r.exit_code : -1, read_file(spec.output_file)};
  if (!r.start_error.empty()) c.out = r.start_error;
  commands_.push_back(Json{{"argv", argv},
                           {"cwd", cwd},
                           {"exit_code", c.exit_code},
                           {"at", now_utc()},
                           {"output_tail", file_tail(spec.output_file, 1000)}});
  return c;
}

void SharedEnv::prepare() {
  env_ = Json{{"prepared_at", now_utc()}, {"repos", Json::object()}};
  for (const auto& name : kRepos) check_repo(name);
  check_versions();
  const Cmd py = run({s_.python, "--version"}, env_["repos"]["pytorch"]["path"]);
  if (py.exit_code != 0) {
    throw fail(SKILLRT_FAILED_PRECONDITION, "python '" + s_.python + "' does not run (" +
                                                first_line(py.out) +
                                                "); pass the interpreter in 'python'");
  }
  env_["python"] = Json{{"command", s_.python}, {"version", trim(py.out)}};
  env_["commands"] = commands_;
  plugin_io::write_file_atomic((s_.workspace / "shared_env.json").string(), env_.dump(2) + "\n");
}

// One checkout: it exists, is a clean git checkout with a commit, and does not hold the workspace.
void SharedEnv::check_repo(const std::string& name) {
  auto it = s_.repos.find(name);
  if (it == s_.repos.end() || it->second.empty()) {
    throw fail(SKILLRT_INVALID_ARGUMENT,
               "repos." + name + " is missing: pass the path of the " + name +
                   " checkout (repos: {pytorch, torch_npu, op_plugin}) for the env step");
  }
  std::error_code ec;
  const fs::path p = fs::absolute(it->second);
  if (!fs::is_directory(p, ec)) {
    throw fail(SKILLRT_NOT_FOUND, "repos." + name + ": checkout " + p.string() +
                                      " does not exist; clone " + name + " there or fix the path");
  }
  const Cmd top = run({"git", "-C", p.string(), "rev-parse", "--show-toplevel"}, p.string());
  if (top.exit_code != 0) {
    throw fail(SKILLRT_FAILED_PRECONDITION, "repos." + name + ": " + p.string() +
                                                " is not a git checkout (" + first_line(top.out) +
                                                "); point it at a clone of " + name);
  }
  const fs::path root = fs::canonical(trim(top.out));
  const fs::path ws = fs::weakly_canonical(s_.workspace);
  const std::string ws_s = ws.string() + "/";
  if (ws_s.rfind(root.string() + "/", 0) == 0) {
    throw fail(SKILLRT_INVALID_ARGUMENT, "workspace " + ws.string() + " is inside the " + name +
                                             " checkout " + root.string() +
                                             "; choose a workspace outside the checkouts");
  }
  const Cmd status = run({"git", "-C", root.string(), "status", "--porcelain"}, root.string());
  if (status.exit_code != 0) {
    throw fail(SKILLRT_FAILED_PRECONDITION, "repos." + name + ": git status failed in " +
                                                root.string() + ": " + first_line(status.out));
  }
  if (!trim(status.out).empty()) {
    std::istringstream lines(status.out);
    std::string l;
    std::vector<std::string> shown;
    while (std::getline(lines, l) && shown.size() < 10) shown.push_back(l);
    throw fail(SKILLRT_FAILED_PRECONDITION,
               "repos." + name + ": checkout " + root.string() + " has uncommitted changes (" +
                   join(shown, "; ") +
                   "); commit or stash them first: the case worktrees start from HEAD and "
                   "would silently miss them");
  }
  const Cmd head = run({"git", "-C", root.string(), "rev-parse", "HEAD"}, root.string());
  const Cmd branch =
      run({"git", "-C", root.string(), "rev-parse", "--abbrev-ref", "HEAD"}, root.string());
  if (head.exit_code != 0) {
    throw fail(SKILLRT_FAILED_PRECONDITION,
               "repos." + name + ": " + root.string() + " has no commit yet; commit first");
  }
  env_["repos"][name] =
      Json{{"path", root.string()}, {"head", trim(head.out)}, {"branch", trim(branch.out)}};
}

void SharedEnv::check_versions() {
  const fs::path pt = env_["repos"]["pytorch"]["path"].get<std::string>();
  const fs::path tn = env_["repos"]["torch_npu"]["path"].get<std::string>();
  Json versions = Json::object();
  Json pytorch = declared_line(pt / "version.txt", "");
  if (pytorch.is_null()) {
    throw fail(SKILLRT_FAILED_PRECONDITION, "repos.pytorch: no version in " +
                                                (pt / "version.txt").string() +
                                                "; is this a PyTorch checkout?");
  }
  versions["pytorch"] = pytorch;
  versions["torch_npu"] =
      torch_npu_version(tn, env_["repos"]["torch_npu"]["branch"].get<std::string>());
  versions["op_plugin"] =
      op_plugin_version(env_["repos"]["op_plugin"]["branch"].get<std::string>());
  const std::string want = pytorch["version"];
  std::vector<std::string> mismatch;
  std::vector<std::string> unknown;
  for (const std::string name : {"torch_npu", "op_plugin"}) {
    const Json& v = versions[name]["version"];
    if (v.is_null()) {
      if (!(name == "op_plugin" && versions[name].contains("note"))) unknown.push_back(name);
      continue;
    }
    if (v.get<std::string>() != want) {
      mismatch.push_back(name + " declares " + v.get<std::string>() +
                         (versions[name].contains("file")
                              ? " (" + versions[name]["file"].get<std::string>() + ":" +
                                    std::to_string(versions[name]["line"].get<int>()) + ")"
                              : " (branch " + versions[name].value("branch", "") + ")"));
    }
  }
  versions["consistent"] = mismatch.empty();
  versions["unverified"] = unknown;
  env_["versions"] = versions;
  if (!mismatch.empty()) {
    throw fail(SKILLRT_FAILED_PRECONDITION,
               "checkouts are not at matching versions: pytorch is " + want + " (" +
                   pytorch["file"].get<std::string>() + ":" +
                   std::to_string(pytorch["line"].get<int>()) + ") but " + join(mismatch, ", ") +
                   "; check out the matching torch_npu / op-plugin branch");
  }
}

}  // namespace skillrt::issue_pipeline::detail
