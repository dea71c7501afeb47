#include "pipeline.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "analysis.hpp"
#include "detail/files.hpp"
#include "detail/http.hpp"
#include "detail/process.hpp"
#include "plugin_io/atomic_file.hpp"

namespace skillrt::issue_pipeline {

namespace fs = std::filesystem;
using detail::now_utc;

namespace {

const std::vector<std::string> kSteps = {"env", "reproduce", "diagnose",
                                         "fix", "verify",    "deliver"};
const std::vector<std::string> kRepos = {"pytorch", "torch_npu", "op_plugin"};
constexpr size_t kTail = 4000;
constexpr const char* kTrailer = "Issue-Pipeline-Case: ";

SkillError fail(int32_t code, const std::string& message) { return SkillError(code, message); }

// A single line naming an existing file is read; anything else is the text itself.
std::string text_or_file(const std::string& v, std::string* source) {
  if (v.find('\n') == std::string::npos && !v.empty() && v.size() < 4096) {
    std::error_code ec;
    if (fs::is_regular_file(v, ec)) {
      if (source != nullptr) *source = fs::absolute(v).string();
      return detail::read_file(v);
    }
  }
  if (source != nullptr) *source = "<input>";
  return v;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string first_line(const std::string& s) {
  const auto nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

// Everything one call shares between its cases.
struct Settings {
  fs::path workspace;
  std::map<std::string, std::string> repos;
  std::string python = "python3";
  double test_timeout_s = 900;
  std::string branch_prefix = "issue-pipeline/";
  std::map<std::string, std::string> env;
  Json test_command;  // null or array of strings with {python} {file} {test} {id}
  Json pr = Json::object();
  std::string disabled_repo = "torch_npu";
  std::string disabled_path = "test/npu_disabled_upstream_tests.yaml";
  std::string step = "next";
  std::string reset_step;
};

// Repository checks, versions and the interpreter: prepared once per call and reused by every
// case of a batch (recorded in <workspace>/shared_env.json).
class SharedEnv {
 public:
  SharedEnv(const Settings& s, Context& ctx) : s_(s), ctx_(ctx) {}

  const Json& get() {
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

  bool prepared() const { return done_ && !error_; }

  void note_user(const std::string& case_id) {
    std::lock_guard<std::mutex> lock(mu_);
    users_.insert(case_id);
  }

  void finish() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!done_ || error_) return;
    env_["used_by"] = Json(std::vector<std::string>(users_.begin(), users_.end()));
    plugin_io::write_file_atomic((s_.workspace / "shared_env.json").string(), env_.dump(2) + "\n");
  }

  std::mutex& repo_mutex(const std::string& repo) { return repo_mu_[repo]; }

 private:
  struct Cmd {
    int exit_code;
    std::string out;
  };

  Cmd run(const std::vector<std::string>& argv, const std::string& cwd) {
    const fs::path dir = s_.workspace / ".shared_env_logs";
    fs::create_directories(dir);
    detail::ProcessSpec spec;
    spec.argv = argv;
    spec.cwd = cwd;
    spec.env = {{"LC_ALL", "C"}, {"GIT_TERMINAL_PROMPT", "0"}};
    spec.output_file = (dir / ("cmd-" + std::to_string(++counter_) + ".log")).string();
    spec.timeout_s = 300;
    const auto r = detail::run_process(spec, [this] { return ctx_.cancelled(); });
    Cmd c{r.start_error.empty() ? r.exit_code : -1, detail::read_file(spec.output_file)};
    if (!r.start_error.empty()) c.out = r.start_error;
    commands_.push_back(Json{{"argv", argv},
                             {"cwd", cwd},
                             {"exit_code", c.exit_code},
                             {"at", now_utc()},
                             {"output_tail", detail::file_tail(spec.output_file, 1000)}});
    return c;
  }

  static std::string trim(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    return s;
  }

  // major.minor.patch from a version string ("2.7.1", "2.7.0a0", "v2.7.1-7.1.0"), or empty.
  static std::string xyz(const std::string& s) {
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

  Json declared_line(const fs::path& file, const std::string& key_regex_hint) {
    std::ifstream in(file);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (key_regex_hint.empty() || line.find(key_regex_hint) != std::string::npos) {
        const std::string v = xyz(line);
        if (!v.empty())
          return Json{
              {"version", v}, {"file", file.string()}, {"line", n}, {"text", line.substr(0, 200)}};
      }
    }
    return nullptr;
  }

  void prepare() {
    env_ = Json{{"prepared_at", now_utc()}, {"repos", Json::object()}};
    for (const auto& name : kRepos) {
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
                                          " does not exist; clone " + name +
                                          " there or fix the path");
      }
      const Cmd top = run({"git", "-C", p.string(), "rev-parse", "--show-toplevel"}, p.string());
      if (top.exit_code != 0) {
        throw fail(SKILLRT_FAILED_PRECONDITION,
                   "repos." + name + ": " + p.string() + " is not a git checkout (" +
                       first_line(top.out) + "); point it at a clone of " + name);
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

  void check_versions() {
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
    // torch_npu declares the PyTorch it builds against in requirements (torch==X) where present;
    // otherwise its own version.txt, which follows the PyTorch version it targets, or its
    // branch name (v2.7.1-7.1.0).
    Json npu = declared_line(tn / "requirements.txt", "torch");
    if (npu.is_null()) npu = declared_line(tn / "version.txt", "");
    const std::string tn_branch = env_["repos"]["torch_npu"]["branch"];
    if (npu.is_null() && !xyz(tn_branch).empty() && tn_branch[0] == 'v') {
      npu = Json{{"version", xyz(tn_branch)}, {"branch", tn_branch}};
    }
    versions["torch_npu"] =
        npu.is_null()
            ? Json{{"version", nullptr},
                   {"looked_in",
                    {"requirements.txt (torch==)", "version.txt", "branch name vX.Y.Z-*"}}}
            : npu;
    const std::string op_branch = env_["repos"]["op_plugin"]["branch"];
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
    versions["op_plugin"] = op;
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

  const Settings& s_;
  Context& ctx_;
  std::mutex mu_;
  bool done_ = false;
  std::exception_ptr error_;
  Json env_;
  Json commands_ = Json::array();
  int counter_ = 0;
  std::set<std::string> users_;
  std::map<std::string, std::mutex> repo_mu_;
};

struct CmdResult {
  detail::ProcessResult proc;
  std::string output;
  std::string output_file;
  bool ok() const { return proc.start_error.empty() && proc.exit_code == 0; }
};

class CaseRunner {
 public:
  CaseRunner(const Settings& s, const Json& case_in, SharedEnv& shared, Context& ctx, bool batch)
      : s_(s), in_(case_in), shared_(shared), ctx_(ctx), batch_(batch) {}

  Json run();

  const std::string& case_id() const { return case_id_; }
  const Json& state() const { return state_; }

 private:
  // ---- state ----
  Json& st(const std::string& step) { return state_["steps"][step]; }
  void save() {
    state_["updated_at"] = now_utc();
    plugin_io::write_file_atomic((dir_ / "state.json").string(), state_.dump(2) + "\n");
  }
  void event(const std::string& what) {
    state_["history"].push_back(Json{{"at", now_utc()}, {"event", what}});
  }
  bool done(const std::string& step) { return st(step)["status"] == "done"; }

  void begin(const std::string& step) {
    Json& s = st(step);
    if (s["status"] == "running") {
      // The last run stopped inside this step (killed, crashed): keep what it recorded.
      s["interrupted"].push_back(Json{{"started_at", s["started_at"]},
                                      {"detected_at", now_utc()},
                                      {"commands", s["commands"]}});
      event(step + ": previous attempt was interrupted; running it again");
    } else if (s["status"] == "done" || s["status"] == "failed") {
      s["previous"].push_back(Json{{"status", s["status"]},
                                   {"started_at", s["started_at"]},
                                   {"finished_at", s["finished_at"]},
                                   {"result", s["result"]},
                                   {"error", s["error"]},
                                   {"commands", s["commands"]}});
    }
    s["status"] = "running";
    s["attempts"] = s.value("attempts", 0) + 1;
    s["started_at"] = now_utc();
    s["finished_at"] = nullptr;
    s["commands"] = Json::array();
    s["result"] = nullptr;
    s["error"] = nullptr;
    event(step + ": started (attempt " + std::to_string(s["attempts"].get<int>()) + ")");
    save();
  }

  void finish(const std::string& step, Json result) {
    Json& s = st(step);
    s["status"] = "done";
    s["finished_at"] = now_utc();
    s["result"] = std::move(result);
    event(step + ": done");
    save();
  }

  [[noreturn]] void failed(const std::string& step, int32_t code, const std::string& message,
                           Json result = nullptr) {
    Json& s = st(step);
    s["status"] = "failed";
    s["finished_at"] = now_utc();
    s["error"] = Json{{"code", code}, {"message", message}};
    if (!result.is_null()) s["result"] = std::move(result);
    event(step + ": failed: " + message);
    save();
    throw fail(code, "case " + case_id_ + ", step " + step + ": " + message +
                         " (state: " + (dir_ / "state.json").string() + ")");
  }

  CmdResult command(const std::string& step, const std::string& purpose,
                    const std::vector<std::string>& argv, const std::string& cwd,
                    std::map<std::string, std::string> env, double timeout_s) {
    Json& s = st(step);
    const int attempt = s.value("attempts", 1);
    const size_t index = s["commands"].size() + 1;
    fs::create_directories(dir_ / "logs");
    const std::string out =
        (dir_ / "logs" /
         (step + "-a" + std::to_string(attempt) + "-" + std::to_string(index) + ".log"))
            .string();
    env.emplace("LC_ALL", "C");
    env.emplace("GIT_TERMINAL_PROMPT", "0");
    Json entry{{"purpose", purpose},      {"argv", argv},       {"cwd", cwd},
               {"started_at", now_utc()}, {"output_file", out}, {"status", "running"}};
    if (timeout_s > 0) entry["timeout_s"] = timeout_s;
    Json env_shown = Json::object();
    for (const auto& [k, v] : env) {
      if (k != "LC_ALL" && k != "GIT_TERMINAL_PROMPT") env_shown[k] = v;
    }
    if (!env_shown.empty()) entry["env"] = env_shown;
    s["commands"].push_back(entry);
    save();  // a kill while it runs leaves the command and its output file on record
    detail::ProcessSpec spec{argv, cwd, env, out, timeout_s};
    CmdResult r;
    r.proc = detail::run_process(spec, [this] { return ctx_.cancelled(); });
    r.output = r.proc.start_error.empty() ? detail::read_file(out) : r.proc.start_error;
    r.output_file = out;
    Json& e = s["commands"][index - 1];
    e["finished_at"] = now_utc();
    e["exit_code"] = r.proc.exit_code;
    e["seconds"] = r.proc.seconds;
    if (r.proc.signal != 0) e["signal"] = r.proc.signal;
    if (r.proc.timed_out) e["timed_out"] = true;
    if (r.proc.cancelled) e["cancelled"] = true;
    if (!r.proc.start_error.empty()) e["start_error"] = r.proc.start_error;
    e["status"] = r.proc.timed_out ? "timed out" : (r.ok() ? "ok" : "failed");
    e["output_tail"] = r.proc.start_error.empty() ? detail::file_tail(out, kTail) : r.output;
    save();
    if (r.proc.cancelled) {
      failed(step, SKILLRT_CANCELLED, "cancelled while running: " + join(argv, " "));
    }
    return r;
  }

  CmdResult git(const std::string& step, const std::string& purpose, const std::string& repo_dir,
                std::vector<std::string> args) {
    std::vector<std::string> argv{"git", "-C", repo_dir};
    argv.insert(argv.end(), args.begin(), args.end());
    return command(step, purpose, argv, repo_dir, {}, 300);
  }

  // ---- case helpers ----
  std::string worktree(const std::string& repo) { return (dir_ / "worktrees" / repo).string(); }
  std::map<std::string, std::string> worktrees() {
    std::map<std::string, std::string> m;
    for (const auto& r : kRepos) m[r] = worktree(r);
    return m;
  }
  std::map<std::string, std::string> test_env(bool blocking = false) {
    std::map<std::string, std::string> env = s_.env;
    env["PYTHONPATH"] =
        worktree("torch_npu") + ":" + worktree("op_plugin") + ":" + worktree("pytorch");
    // Bytecode caches would show up as untracked files in the worktrees and end up in commits.
    env["PYTHONDONTWRITEBYTECODE"] = "1";
    if (blocking) env["ASCEND_LAUNCH_BLOCKING"] = "1";
    return env;
  }
  std::vector<std::string> test_argv(bool whole_class) {
    const TestId id = parse_test_id(state_["test"]["id"]);
    const std::string file = state_["test"]["file"];
    std::string target;
    if (id.cls.empty()) {
      target = whole_class ? file : file + "::" + id.method;
    } else {
      target = whole_class ? id.cls : id.cls + "." + id.method;
    }
    const Json& tmpl = state_["settings"]["test_command"];
    if (tmpl.is_array() && !tmpl.empty()) {
      std::vector<std::string> argv;
      for (const auto& part : tmpl) {
        std::string p = part.get<std::string>();
        auto subst = [&](const std::string& key, const std::string& value) {
          size_t pos;
          while ((pos = p.find(key)) != std::string::npos) p.replace(pos, key.size(), value);
        };
        subst("{python}", state_["settings"]["python"]);
        subst("{file}", file);
        subst("{test}", target);
        subst("{id}", id.raw);
        argv.push_back(p);
      }
      return argv;
    }
    const std::string py = state_["settings"]["python"];
    if (id.cls.empty()) return {py, "-m", "pytest", "-v", target};
    return {py, file, "-v", target};
  }
  double test_timeout() { return state_["settings"]["test_timeout_s"].get<double>(); }
  std::string unittest_key() {
    const TestId id = parse_test_id(state_["test"]["id"]);
    return id.cls + "." + id.method;
  }
  bool target_passed(const CmdResult& r) {
    if (!r.ok()) return false;
    const auto results = unittest_results(r.output);
    auto it = results.find(unittest_key());
    return it == results.end() || it->second == "ok" || it->second == "expected failure";
  }
  Json run_record(const CmdResult& r) {
    Json j{{"exit_code", r.proc.exit_code},
           {"output_file", r.output_file},
           {"results", unittest_results(r.output)}};
    if (r.proc.timed_out) j["timed_out"] = true;
    return j;
  }
  void check_test_run(const std::string& step, const CmdResult& r, const std::string& what) {
    if (!r.proc.start_error.empty()) {
      failed(
          step, SKILLRT_FAILED_PRECONDITION,
          what + " could not start: " + r.proc.start_error + "; check 'python' and 'test_command'");
    }
    if (r.proc.timed_out) {
      failed(
          step, SKILLRT_DEADLINE_EXCEEDED,
          what + " did not finish within " + std::to_string(static_cast<int>(test_timeout())) +
              " s (test_timeout_s); its process group was killed. Output so far: " + r.output_file +
              ". A hanging test needs a fix of its own or a larger "
              "test_timeout_s; the repositories were not changed");
    }
  }

  void load_or_create();
  Json control();
  void run_step(const std::string& step);
  void step_env();
  void step_reproduce();
  void step_diagnose();
  void step_fix();
  void step_verify();
  void step_deliver();
  Json consult(const std::string& skill, const Json& input);
  Json open_pr(const std::string& repo, const Json& cfg, const std::string& title,
               const std::string& body, const std::string& branch);
  Json summary();
  void write_reports();

  const Settings& s_;
  const Json& in_;
  SharedEnv& shared_;
  Context& ctx_;
  bool batch_;
  std::string case_id_;
  fs::path dir_;
  Json state_;
  std::vector<std::string> ran_;
};

void CaseRunner::load_or_create() {
  const std::string test = in_.value("case", "");
  if (in_.contains("case_id")) {
    case_id_ = in_["case_id"];
  } else {
    if (test.empty()) throw fail(SKILLRT_INVALID_ARGUMENT, "case: give the failing test id");
    case_id_ = case_id_from_test(test);
  }
  dir_ = s_.workspace / case_id_;
  const fs::path state_file = dir_ / "state.json";
  std::error_code ec;
  if (fs::exists(state_file, ec)) {
    state_ = Json::parse(detail::read_file(state_file.string()));
    if (!test.empty() && state_["test"]["id"] != test) {
      throw fail(SKILLRT_INVALID_ARGUMENT, "case_id " + case_id_ + " already holds test " +
                                               state_["test"]["id"].get<std::string>() + " (" +
                                               state_file.string() + "), not " + test +
                                               "; choose another case_id");
    }
    return;
  }
  if (s_.step == "status" || s_.step == "reset") {
    throw fail(SKILLRT_NOT_FOUND, "no case " + case_id_ + " in " + s_.workspace.string() + " (no " +
                                      state_file.string() + "); run a step first");
  }
  // Validated before anything is written, so a bad id leaves no trace.
  try {
    parse_test_id(test);
  } catch (const std::invalid_argument& e) {
    throw fail(SKILLRT_INVALID_ARGUMENT, e.what());
  }
  fs::create_directories(dir_);
  state_ = Json{{"schema_version", 1},    {"case_id", case_id_},      {"created_at", now_utc()},
                {"test", {{"id", test}}}, {"history", Json::array()}, {"steps", Json::object()}};
  for (const auto& step : kSteps) {
    state_["steps"][step] = Json{{"status", "pending"}, {"attempts", 0}};
  }
  Json settings{{"python", s_.python},
                {"test_timeout_s", s_.test_timeout_s},
                {"branch_prefix", s_.branch_prefix},
                {"test_command", s_.test_command},
                {"env", s_.env},
                {"repos", s_.repos}};
  state_["settings"] = settings;
  if (in_.contains("log")) {
    std::string source;
    const std::string log = text_or_file(in_["log"], &source);
    plugin_io::write_file_atomic((dir_ / "ci.log").string(), log);
    state_["log"] = Json{{"source", source},
                         {"copy", (dir_ / "ci.log").string()},
                         {"signature", to_json(failure_signature(log))}};
  } else {
    state_["log"] = nullptr;
  }
  event("case created");
  save();
}

Json CaseRunner::run() {
  load_or_create();
  detail::FileLock lock((dir_ / ".lock").string());
  // A re-read under the lock: another process may have finished a step since.
  state_ = Json::parse(detail::read_file((dir_ / "state.json").string()));
  if (in_.contains("patch")) state_["pending_patch"] = in_["patch"];
  if (s_.step == "status") return summary();
  if (s_.step == "reset") {
    const auto it = std::find(kSteps.begin(), kSteps.end(), s_.reset_step);
    for (auto s = it; s != kSteps.end(); ++s) {
      Json& rec = st(*s);
      if (rec["status"] == "pending") continue;
      rec["previous"].push_back(Json{{"status", rec["status"]},
                                     {"started_at", rec["started_at"]},
                                     {"finished_at", rec["finished_at"]},
                                     {"result", rec["result"]},
                                     {"error", rec["error"]},
                                     {"commands", rec["commands"]}});
      rec["status"] = "pending";
      rec["result"] = nullptr;
      rec["error"] = nullptr;
      rec["commands"] = Json::array();
    }
    event("reset from " + s_.reset_step);
    save();
    write_reports();
    return summary();
  }
  try {
    if (s_.step == "next" || s_.step == "all") {
      for (const auto& step : kSteps) {
        if (done(step)) continue;
        run_step(step);
        if (s_.step == "next") break;
      }
    } else {
      run_step(s_.step);
    }
  } catch (...) {
    write_reports();
    throw;
  }
  write_reports();
  return summary();
}

void CaseRunner::run_step(const std::string& step) {
  const auto it = std::find(kSteps.begin(), kSteps.end(), step);
  for (auto p = kSteps.begin(); p != it; ++p) {
    if (!done(*p)) {
      throw fail(SKILLRT_FAILED_PRECONDITION,
                 "case " + case_id_ + ": step " + step + " needs " + *p + " done first (it is " +
                     st(*p)["status"].get<std::string>() + "); run step '" + *p + "' or 'next'");
    }
  }
  const double index = static_cast<double>(it - kSteps.begin());
  ctx_.progress(index, static_cast<double>(kSteps.size()), case_id_ + ": " + step);
  ran_.push_back(step);
  begin(step);
  try {
    if (step == "env") step_env();
    if (step == "reproduce") step_reproduce();
    if (step == "diagnose") step_diagnose();
    if (step == "fix") step_fix();
    if (step == "verify") step_verify();
    if (step == "deliver") step_deliver();
  } catch (const SkillError& e) {
    if (st(step)["status"] == "running") failed(step, e.code(), e.what());
    throw;
  } catch (const std::exception& e) {
    if (st(step)["status"] == "running") failed(step, SKILLRT_INTERNAL, e.what());
    throw;
  }
  ctx_.progress(index + 1, static_cast<double>(kSteps.size()), case_id_ + ": " + step + " done");
}

void CaseRunner::step_env() {
  const Json& shared = shared_.get();
  shared_.note_user(case_id_);
  const TestId id = parse_test_id(state_["test"]["id"]);
  const std::string pytorch = shared["repos"]["pytorch"]["path"];
  const TestLocation loc = locate_test(pytorch, id);
  if (!loc.found) {
    failed("env", SKILLRT_INVALID_ARGUMENT,
           "unknown test id " + id.raw + ": " + loc.why_not + " (at pytorch " +
               shared["repos"]["pytorch"]["head"].get<std::string>() +
               "); check the id against the pytorch checkout");
  }
  state_["test"]["file"] = loc.file;
  state_["test"]["definition"] = Json{{"file", loc.file},
                                      {"class", loc.class_name},
                                      {"class_line", loc.class_line},
                                      {"method", loc.method_name},
                                      {"method_line", loc.method_line}};
  const std::string source = detail::read_file((fs::path(pytorch) / loc.file).string());
  std::string log;
  if (state_["log"].is_object()) log = detail::read_file(state_["log"]["copy"]);
  const Route route = route_case(loc.file, source, log);
  state_["route"] = Json{{"route", route.route},
                         {"core_score", route.core_score},
                         {"distributed_score", route.distributed_score},
                         {"evidence", route.evidence}};
  const std::string branch = s_.branch_prefix + case_id_;
  Json trees = Json::object();
  for (const auto& repo : kRepos) {
    const std::string main = shared["repos"][repo]["path"];
    const std::string base = shared["repos"][repo]["head"];
    const std::string wt = worktree(repo);
    // git keeps worktree bookkeeping in the main repository; two cases adding at once race on it.
    std::lock_guard<std::mutex> lock(shared_.repo_mutex(repo));
    std::error_code ec;
    bool reuse = false;
    if (fs::exists(fs::path(wt) / ".git", ec)) {
      const CmdResult cur =
          git("env", "worktree branch", wt, {"rev-parse", "--abbrev-ref", "HEAD"});
      reuse = cur.ok() && cur.output.substr(0, cur.output.find('\n')) == branch;
    }
    if (!reuse) {
      // A run killed inside 'worktree add' can leave a half-made directory behind.
      git("env", "drop stale worktree records", main, {"worktree", "prune"});
      if (fs::exists(wt, ec)) fs::remove_all(wt, ec);
      const CmdResult has_branch = git("env", "branch exists?", main,
                                       {"show-ref", "--verify", "--quiet", "refs/heads/" + branch});
      fs::create_directories(fs::path(wt).parent_path());
      const CmdResult add = has_branch.ok() ? git("env", "worktree for the case", main,
                                                  {"worktree", "add", wt, branch})
                                            : git("env", "worktree and branch for the case", main,
                                                  {"worktree", "add", "-b", branch, wt, base});
      if (!add.ok()) {
        failed("env", SKILLRT_FAILED_PRECONDITION,
               "git worktree add failed in " + main + ": " + first_line(add.output) +
                   "; remove the branch " + branch + " or its worktree and rerun env");
      }
    }
    const CmdResult head = git("env", "worktree commit", wt, {"rev-parse", "HEAD"});
    trees[repo] = Json{{"checkout", main},
                       {"worktree", wt},
                       {"branch", branch},
                       {"base_commit", base},
                       {"head", first_line(head.output)},
                       {"reused", reuse}};
  }
  finish("env", Json{{"shared_env", (s_.workspace / "shared_env.json").string()},
                     {"versions", shared["versions"]},
                     {"python", shared["python"]},
                     {"worktrees", trees},
                     {"test", state_["test"]["definition"]},
                     {"route", state_["route"]}});
}

void CaseRunner::step_reproduce() {
  const auto argv = test_argv(false);
  const CmdResult r = command("reproduce", "run the failing test", argv, worktree("pytorch"),
                              test_env(), test_timeout());
  check_test_run("reproduce", r, "the test command");
  Json result{{"command", argv}, {"run", run_record(r)}};
  const bool passed = target_passed(r);
  const Signature sig = failure_signature(r.output);
  result["signature"] = to_json(sig);
  std::string verdict;
  std::string reason;
  if (passed) {
    verdict = "not_reproduced";
    reason = "the test passes here (exit 0)";
  } else if (state_["log"].is_object()) {
    const Signature expected = failure_signature(detail::read_file(state_["log"]["copy"]));
    const Comparison c = compare_signatures(expected, sig);
    verdict = c.same ? "reproduced" : "different_failure";
    reason = c.reason;
    result["log_signature"] = to_json(expected);
  } else {
    verdict = "reproduced";
    reason = "no CI log given; the test fails here (exit " + std::to_string(r.proc.exit_code) + ")";
  }
  result["verdict"] = verdict;
  result["reason"] = reason;
  // The class run is the baseline that verify compares neighbours against.
  const auto class_argv = test_argv(true);
  const CmdResult base = command("reproduce", "baseline of the neighbour tests (same class/file)",
                                 class_argv, worktree("pytorch"), test_env(), test_timeout());
  check_test_run("reproduce", base, "the neighbour baseline");
  result["baseline"] = Json{{"command", class_argv}, {"run", run_record(base)}};
  finish("reproduce", result);
}

Json CaseRunner::consult(const std::string& skill, const Json& input) {
  Json rec{{"skill", skill}, {"input_keys", Json::array()}};
  for (auto it = input.begin(); it != input.end(); ++it) rec["input_keys"].push_back(it.key());
  try {
    const Json out = ctx_.call(skill, input);
    rec["status"] = "ok";
    rec["output"] = out;
  } catch (const SkillError& e) {
    rec["status"] = e.code() == SKILLRT_NOT_FOUND ? "not registered" : "failed";
    rec["code"] = e.code();
    rec["message"] = std::string(e.what()).substr(0, 600);
  } catch (const std::exception& e) {
    rec["status"] = "failed";
    rec["message"] = std::string(e.what()).substr(0, 600);
  }
  return rec;
}

void CaseRunner::step_diagnose() {
  const Json& repro = st("reproduce")["result"];
  if (repro["verdict"] == "not_reproduced") {
    failed("diagnose", SKILLRT_FAILED_PRECONDITION,
           "reproduce found no failure (" + repro["reason"].get<std::string>() +
               "): nothing to diagnose. Compare the environment with the CI job, or reset "
               "reproduce and run it again");
  }
  // Asynchronous NPU errors surface at a later call; a blocking rerun pins them to the
  // operator that failed (shared/domain/errors-and-diagnosis.md 6).
  const auto argv = test_argv(false);
  const CmdResult r = command("diagnose", "rerun with ASCEND_LAUNCH_BLOCKING=1", argv,
                              worktree("pytorch"), test_env(true), test_timeout());
  check_test_run("diagnose", r, "the blocking rerun");
  std::string text = r.output;
  std::string text_source = r.output_file;
  Json notes = Json::array();
  if (target_passed(r)) {
    text = detail::read_file(repro["run"]["output_file"]);
    text_source = repro["run"]["output_file"];
    notes.push_back(
        "the blocking rerun passed: the failure is intermittent; diagnosing the "
        "reproduce output instead");
  }
  const auto hits = match_rules(text, worktrees(), state_["test"]["file"]);
  Json matched = Json::array();
  for (const auto& h : hits) {
    Json ev = Json::array();
    for (const auto& l : h.evidence) ev.push_back(to_json(l));
    matched.push_back(Json{{"rule", h.rule},
                           {"class", h.cls},
                           {"title", h.title},
                           {"evidence", ev},
                           {"source", text_source}});
  }
  std::string op;
  for (const auto& h : hits) {
    if (!h.op.empty()) {
      op = h.op;
      break;
    }
  }
  std::string op_base = op;
  if (op_base.rfind("aten::", 0) == 0) op_base = op_base.substr(6);
  op_base = op_base.substr(0, op_base.find('.'));

  // Skill-to-skill: which skill is worth asking depends on the failure.
  static const std::regex kNpuMarkers(
      R"(ERR\d{5}|\bE[ZEHIL]\d{4}\b|aclnn|\bacl\w*|\bNPU\b|\bnpu\b|HCCL|torch\._dynamo|torch\._inductor|PrivateUse1)");
  std::string scan = text.substr(0, std::min<size_t>(text.size(), 200000));
  bool npu_markers = false;
  {
    std::istringstream lines(scan);
    std::string l;
    while (std::getline(lines, l)) {
      if (l.size() < 2000 && std::regex_search(l, kNpuMarkers)) {
        npu_markers = true;
        break;
      }
    }
  }
  const std::string first_class = hits.empty() ? "undetermined" : hits.front().cls;
  Json consulted = Json::array();
  consulted.push_back(consult("op-test", Json{{"mode", "triage"}, {"log", text}}));
  if (npu_markers || state_["route"]["route"] == "distributed" || first_class == "undetermined") {
    consulted.push_back(consult("npu-graph-diagnose", Json{{"log", text}}));
  } else {
    consulted.push_back(Json{{"skill", "npu-graph-diagnose"},
                             {"status", "not needed"},
                             {"message",
                              "no NPU/ACL/graph-mode marker in the output and the "
                              "local rules decided"}});
  }
  if (first_class == "behaviour-mismatch") {
    Json in{{"id", case_id_}, {"log_text", text}};
    if (!op_base.empty()) in["api"] = "torch." + op_base;
    const Signature sig = failure_signature(text);
    if (sig.found) in["description"] = sig.exception + ": " + sig.message;
    consulted.push_back(consult("api-consistency", in));
  }
  // Compact what the callees said, and read a class out of it for when the local rules cannot.
  auto from_callee = [&](const Json& c, std::string* cls, std::string* why) {
    if (c["status"] != "ok") return;
    const Json& out = c["output"];
    if (c["skill"] == "npu-graph-diagnose") {
      const std::string conc = out.value("conclusion", "undetermined");
      static const std::map<std::string, std::string> kMap = {
          {"env-config", "environment-build"},
          {"operator", "behaviour-mismatch"},
          {"framework-bug", "missing-dispatch"}};
      auto it = kMap.find(conc);
      if (it != kMap.end()) {
        *cls = it->second;
        *why = "npu-graph-diagnose concluded " + conc +
               (out["rule"].is_object() ? " (rule " + out["rule"].value("id", "") + ")" : "");
      }
    } else if (c["skill"] == "op-test" && out.contains("failures") && !out["failures"].empty()) {
      const std::string conc = out["failures"][0].value("class", "");
      if (conc == "environment") *cls = "environment-build";
      if (conc == "adaptation-bug") *cls = "behaviour-mismatch";
      if (!cls->empty()) {
        *why = "op-test triage classed the failure " + conc + " (rule " +
               out["failures"][0].value("rule", "") + ")";
      }
    }
  };
  std::string conclusion = first_class;
  std::string decided_by =
      hits.empty() ? "" : "rule " + hits.front().rule + " (" + hits.front().title + ")";
  Json unavailable = Json::array();
  for (auto& c : consulted) {
    if (c["status"] == "not registered" || c["status"] == "failed") {
      unavailable.push_back(c["skill"].get<std::string>() + ": " + c.value("message", ""));
    }
    std::string cls;
    std::string why;
    from_callee(c, &cls, &why);
    if (!cls.empty()) {
      c["suggests"] = cls;
      c["agreement"] =
          conclusion == "undetermined" ? "decides" : (cls == conclusion ? "agrees" : "differs");
      if (conclusion == "undetermined") {
        conclusion = cls;
        decided_by = why;
      }
    } else if (c["status"] == "ok") {
      c["agreement"] = "no class";
    }
    // Full callee outputs can be large; state.json keeps a bounded copy.
    if (c.contains("output") && c["output"].dump().size() > 20000) {
      c["output"] = Json{{"truncated", true}, {"text", c["output"].dump().substr(0, 20000)}};
    }
  }
  if (!unavailable.empty()) {
    notes.push_back(
        "could not consult: " + join(unavailable.get<std::vector<std::string>>(), "; ") +
        " (the conclusion rests on the local rules and the skills that answered)");
  }
  // Candidate files: the NPU-side frames of the traceback (innermost first), then where the
  // operator is registered or named.
  Json candidates = Json::array();
  std::set<std::string> seen;
  const auto frames = traceback_frames(text);
  for (auto f = frames.rbegin(); f != frames.rend(); ++f) {
    for (const auto& repo : kRepos) {
      const std::string root = worktree(repo) + "/";
      if (f->file.rfind(root, 0) != 0) continue;
      const std::string rel = f->file.substr(root.size());
      if (repo == "pytorch" && rel.rfind("test/", 0) == 0) continue;
      const std::string key = repo + ":" + rel + ":" + std::to_string(f->line);
      if (!seen.insert(key).second) continue;
      candidates.push_back(Json{{"repo", repo},
                                {"file", rel},
                                {"line", f->line},
                                {"why", "traceback frame in " + f->function + " (log line " +
                                            std::to_string(f->log_line) + ")"}});
    }
  }
  Json related_files = Json::array();
  if (!op_base.empty()) {
    for (const std::string repo : {"op_plugin", "torch_npu"}) {
      const CmdResult g =
          git("diagnose", "where " + op_base + " is named", worktree(repo),
              {"grep", "-n", "-w", "-I", "-e", op_base, "--", "*.yaml", "*.py", "*.cpp", "*.h"});
      std::istringstream lines(g.output);
      std::string l;
      int n = 0;
      while (std::getline(lines, l) && n < 10) {
        const auto c1 = l.find(':');
        const auto c2 = c1 == std::string::npos ? c1 : l.find(':', c1 + 1);
        if (c2 == std::string::npos) continue;
        const std::string file = l.substr(0, c1);
        if (file.find("test") != std::string::npos) continue;
        candidates.push_back(Json{{"repo", repo},
                                  {"file", file},
                                  {"line", std::atoi(l.substr(c1 + 1, c2 - c1 - 1).c_str())},
                                  {"why", "names " + op_base + ": " + l.substr(c2 + 1, 160)}});
        ++n;
      }
      // Related operator tests: test_<op>.py files of the NPU repositories.
      std::error_code ec;
      for (auto it = fs::recursive_directory_iterator(worktree(repo), ec);
           it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) break;
        if (it->path().filename() == ".git") {
          it.disable_recursion_pending();
          continue;
        }
        if (it->path().filename() == "test_" + op_base + ".py" && related_files.size() < 5) {
          related_files.push_back(
              Json{{"repo", repo}, {"file", fs::relative(it->path(), worktree(repo)).string()}});
        }
      }
    }
  }
  // Their baseline, so verify can tell a regression from a test that already failed.
  Json related = Json::array();
  for (const auto& f : related_files) {
    const std::string wt = worktree(f["repo"]);
    const std::vector<std::string> argv{state_["settings"]["python"], f["file"], "-v"};
    const CmdResult rr =
        command("diagnose", "baseline of related operator test " + f["file"].get<std::string>(),
                argv, wt, test_env(), test_timeout());
    check_test_run("diagnose", rr, "the related test " + f["file"].get<std::string>());
    related.push_back(Json{
        {"repo", f["repo"]}, {"file", f["file"]}, {"command", argv}, {"baseline", run_record(rr)}});
  }
  if (conclusion == "undetermined") {
    notes.push_back("no rule matched and no consulted skill gave a class: read " + text_source +
                    " and set the fix by hand");
  }
  finish("diagnose", Json{{"class", conclusion},
                          {"label", class_label(conclusion)},
                          {"decided_by", decided_by},
                          {"rules", matched},
                          {"operator", op.empty() ? Json(nullptr) : Json(op)},
                          {"candidates", candidates},
                          {"consulted", consulted},
                          {"related_tests", related},
                          {"diagnosed_output", text_source},
                          {"notes", notes}});
}

void CaseRunner::step_fix() {
  Json repos = Json::object();
  const Json patch = state_.value("pending_patch", Json(nullptr));
  std::string source = "worktree changes";
  if (patch.is_object() && !patch.empty()) {
    source = "patch given in the input";
    fs::create_directories(dir_ / "fix");
    std::map<std::string, std::string> files;
    for (auto it = patch.begin(); it != patch.end(); ++it) {
      const std::string text = text_or_file(it.value().get<std::string>(), nullptr);
      const std::string file = (dir_ / "fix" / (it.key() + ".input.patch")).string();
      plugin_io::write_file_atomic(file, text);
      files[it.key()] = file;
    }
    // Check every repository first: a patch set applies entirely or not at all.
    std::map<std::string, bool> already;
    for (const auto& [repo, file] : files) {
      const CmdResult check =
          git("fix", "does the patch apply?", worktree(repo), {"apply", "--check", file});
      if (check.ok()) {
        already[repo] = false;
        continue;
      }
      const CmdResult rev = git("fix", "is the patch already applied?", worktree(repo),
                                {"apply", "--reverse", "--check", file});
      if (!rev.ok()) {
        failed("fix", SKILLRT_FAILED_PRECONDITION,
               "patch for " + repo + " does not apply to " + worktree(repo) + " (" +
                   first_line(check.output) + "); regenerate it against commit " +
                   st("env")["result"]["worktrees"][repo]["base_commit"].get<std::string>());
      }
      already[repo] = true;
    }
    for (const auto& [repo, file] : files) {
      if (already[repo]) continue;
      const CmdResult a = git("fix", "apply the patch", worktree(repo), {"apply", file});
      if (!a.ok()) {
        failed("fix", SKILLRT_FAILED_PRECONDITION,
               "git apply failed in " + worktree(repo) + ": " + first_line(a.output));
      }
    }
    for (const auto& [repo, was] : already) repos[repo]["patch_already_applied"] = was;
  }
  Json all_files = Json::array();
  for (const auto& repo : kRepos) {
    const std::string wt = worktree(repo);
    git("fix", "stage the worktree changes", wt, {"add", "-A"});
    const CmdResult names = git("fix", "changed files", wt, {"diff", "--cached", "--name-only"});
    std::vector<std::string> files;
    std::istringstream lines(names.output);
    std::string l;
    while (std::getline(lines, l)) {
      if (!l.empty()) files.push_back(l);
    }
    if (files.empty()) continue;
    const CmdResult stat = git("fix", "diff stat", wt, {"diff", "--cached", "--stat"});
    const CmdResult diff = git("fix", "diff", wt, {"diff", "--cached"});
    fs::create_directories(dir_ / "fix");
    const std::string diff_file = (dir_ / "fix" / (repo + ".diff")).string();
    plugin_io::write_file_atomic(diff_file, diff.output);
    std::vector<std::string> py;
    for (const auto& f : files) {
      std::error_code ec;
      if (f.size() > 3 && f.substr(f.size() - 3) == ".py" &&
          fs::is_regular_file(fs::path(wt) / f, ec)) {
        py.push_back(f);
      }
    }
    if (!py.empty()) {
      // A syntax error is cheaper to find here than in verify; ast.parse writes no bytecode.
      std::vector<std::string> argv{state_["settings"]["python"], "-c",
                                    "import ast,sys\nfor f in sys.argv[1:]:\n    "
                                    "ast.parse(open(f,'rb').read(), f)"};
      argv.insert(argv.end(), py.begin(), py.end());
      const CmdResult c = command("fix", "syntax check of changed Python files", argv, wt,
                                  test_env(), test_timeout());
      check_test_run("fix", c, "the syntax check");
      if (!c.ok()) {
        failed("fix", SKILLRT_FAILED_PRECONDITION,
               "changed Python files in " + repo + " do not parse: " +
                   first_line(detail::file_tail(c.output_file, 400)) + " (" + c.output_file + ")");
      }
    }
    repos[repo]["files"] = files;
    repos[repo]["diff_file"] = diff_file;
    repos[repo]["diffstat"] = detail::file_tail(stat.output_file, 2000);
    for (const auto& f : files) all_files.push_back(repo + "/" + f);
  }
  for (auto it = repos.begin(); it != repos.end();) {
    if (!it.value().contains("files")) {
      it = repos.erase(it);
    } else {
      ++it;
    }
  }
  const std::string cls = st("diagnose")["result"]["class"];
  if (all_files.empty()) {
    if (cls == "not-applicable") {
      finish("fix", Json{{"kind", "disable"},
                         {"source", "diagnosis"},
                         {"reason", "diagnosis class not-applicable (" +
                                        st("diagnose")["result"]["decided_by"].get<std::string>() +
                                        "); deliver marks the test in the disabled-test list"},
                         {"repos", Json::object()}});
      return;
    }
    std::vector<std::string> wts;
    for (const auto& r : kRepos) wts.push_back(worktree(r));
    failed("fix", SKILLRT_FAILED_PRECONDITION,
           "no patch given and no changes in the worktrees (" + join(wts, ", ") +
               "); pass patch: {<repo>: <diff or file>} or edit files there, then run step fix");
  }
  finish("fix",
         Json{{"kind", "patch"}, {"source", source}, {"repos", repos}, {"files", all_files}});
}

void CaseRunner::step_verify() {
  const Json& fix = st("fix")["result"];
  if (fix["kind"] == "disable") {
    finish("verify", Json{{"passed", true},
                          {"skipped", true},
                          {"reason", "no code change: the case is to be disabled"}});
    return;
  }
  const auto argv = test_argv(false);
  const CmdResult r = command("verify", "rerun the failing test", argv, worktree("pytorch"),
                              test_env(), test_timeout());
  check_test_run("verify", r, "the test command");
  const bool target_ok = target_passed(r);
  const auto class_argv = test_argv(true);
  const CmdResult n = command("verify", "neighbour tests (same class/file)", class_argv,
                              worktree("pytorch"), test_env(), test_timeout());
  check_test_run("verify", n, "the neighbour tests");
  const auto before = st("reproduce")["result"]["baseline"]["run"]["results"]
                          .get<std::map<std::string, std::string>>();
  const auto after = unittest_results(n.output);
  Json broken = Json::array();
  Json still_failing = Json::array();
  int neighbours = 0;
  for (const auto& [test, outcome] : after) {
    if (test == unittest_key()) continue;
    ++neighbours;
    auto b = before.find(test);
    const bool was_ok = b != before.end() && b->second == "ok";
    if (outcome == "ok" || outcome == "skipped" || outcome == "expected failure") continue;
    (was_ok ? broken : still_failing)
        .push_back(Json{{"test", test},
                        {"before", b == before.end() ? "absent" : b->second},
                        {"after", outcome}});
  }
  for (const auto& [test, outcome] : before) {
    if (test != unittest_key() && after.count(test) == 0) {
      broken.push_back(Json{{"test", test}, {"before", outcome}, {"after", "missing"}});
    }
  }
  Json related = Json::array();
  Json related_broken = Json::array();
  for (const auto& rel : st("diagnose")["result"]["related_tests"]) {
    const std::string wt = worktree(rel["repo"]);
    const std::vector<std::string> rargv = rel["command"];
    const CmdResult rr =
        command("verify", "related operator test " + rel["file"].get<std::string>(), rargv, wt,
                test_env(), test_timeout());
    check_test_run("verify", rr, "the related test " + rel["file"].get<std::string>());
    const auto rb = rel["baseline"]["results"].get<std::map<std::string, std::string>>();
    const auto ra = unittest_results(rr.output);
    for (const auto& [test, outcome] : ra) {
      auto b = rb.find(test);
      if (outcome != "ok" && outcome != "skipped" && b != rb.end() && b->second == "ok") {
        related_broken.push_back(
            Json{{"file", rel["file"]}, {"test", test}, {"before", "ok"}, {"after", outcome}});
      }
    }
    related.push_back(Json{{"repo", rel["repo"]}, {"file", rel["file"]}, {"run", run_record(rr)}});
  }
  const bool passed = target_ok && broken.empty() && related_broken.empty();
  Json result{
      {"passed", passed},
      {"target", {{"test", state_["test"]["id"]}, {"passed", target_ok}, {"run", run_record(r)}}},
      {"neighbours",
       {{"count", neighbours},
        {"broken_by_fix", broken},
        {"failing_before_and_after", still_failing},
        {"run", run_record(n)}}},
      {"related", {{"runs", related}, {"broken_by_fix", related_broken}}}};
  if (!passed) {
    std::vector<std::string> why;
    if (!target_ok) why.push_back("the test still fails (" + r.output_file + ")");
    for (const auto& b : broken)
      why.push_back("the fix breaks neighbour " + b["test"].get<std::string>());
    for (const auto& b : related_broken) {
      why.push_back("the fix breaks related " + b["file"].get<std::string>() + " " +
                    b["test"].get<std::string>());
    }
    failed("verify", SKILLRT_FAILED_PRECONDITION,
           join(why, "; ") +
               ". Change the fix (edit the worktrees or pass a new patch), then reset "
               "fix and run it again",
           result);
  }
  finish("verify", result);
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
  const detail::HttpResponse resp = detail::http_post_json(url, headers, payload.dump(), 60);
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

void CaseRunner::step_deliver() {
  const Json& fix = st("fix")["result"];
  const Json& diag = st("diagnose")["result"];
  const Json& verify = st("verify")["result"];
  const std::string test = state_["test"]["id"];
  const std::string route = state_["route"]["route"];
  const bool disable = fix["kind"] == "disable";
  std::vector<std::string> repos;
  if (disable) {
    repos.push_back(s_.disabled_repo);
    const fs::path list = fs::path(worktree(s_.disabled_repo)) / s_.disabled_path;
    std::string existing = detail::read_file(list.string());
    const std::string marker = "- test: " + test + "\n";
    if (existing.find(marker) == std::string::npos) {
      std::string evidence;
      for (const auto& r : diag["rules"]) {
        if (r["class"] == "not-applicable" && !r["evidence"].empty()) {
          evidence = r["rule"].get<std::string>() + " log line " +
                     std::to_string(r["evidence"][0]["line"].get<int>()) + ": " +
                     r["evidence"][0]["text"].get<std::string>();
          break;
        }
      }
      if (existing.empty()) {
        existing = "# Upstream PyTorch tests not applicable to NPU, with the reason.\n";
      }
      Json quoted_reason = "not applicable to NPU: " + diag["decided_by"].get<std::string>();
      Json quoted_evidence = evidence;
      existing += marker + "  reason: " + quoted_reason.dump() +
                  "\n  evidence: " + quoted_evidence.dump() + "\n";
      fs::create_directories(list.parent_path());
      plugin_io::write_file_atomic(list.string(), existing);
    }
  } else {
    for (auto it = fix["repos"].begin(); it != fix["repos"].end(); ++it) repos.push_back(it.key());
  }
  // House format: a bracketed area, the test and what was done; body with cause, change and
  // verification; trailers that let the pipeline recognise its own commit on resume.
  std::string title = disable ? "[" + route + "] Disable " + test + " on NPU: not applicable"
                              : "[" + route + "] Fix " + test + " on NPU";
  std::ostringstream msg;
  msg << title << "\n\n";
  msg << "Root cause: " << diag["label"].get<std::string>() << " ("
      << diag["decided_by"].get<std::string>() << ")\n";
  if (!diag["rules"].empty() && !diag["rules"][0]["evidence"].empty()) {
    msg << "Evidence: " << diag["rules"][0]["evidence"][0]["text"].get<std::string>() << "\n";
  }
  if (!disable) {
    msg << "Changed: " << join(fix["files"].get<std::vector<std::string>>(), ", ") << "\n";
    msg << "Verified: the test passes; " << verify["neighbours"]["count"].get<int>()
        << " neighbour tests rerun, none broken; " << verify["related"]["runs"].size()
        << " related operator test files rerun\n";
  }
  msg << "\nUpstream-Test: " << test << "\n" << kTrailer << case_id_ << "\n";
  fs::create_directories(dir_ / "deliver");
  const std::string msg_file = (dir_ / "deliver" / "commit_message.txt").string();
  plugin_io::write_file_atomic(msg_file, msg.str());

  Json commits = Json::object();
  Json prs = st("deliver").value("prs_done", Json::object());
  for (const auto& repo : repos) {
    const std::string wt = worktree(repo);
    git("deliver", "stage", wt, {"add", "-A"});
    const CmdResult staged =
        git("deliver", "anything staged?", wt, {"diff", "--cached", "--quiet"});
    std::string sha;
    if (staged.proc.exit_code == 0) {
      const CmdResult last = git("deliver", "last commit", wt, {"log", "-1", "--format=%H%n%B"});
      if (last.output.find(kTrailer + case_id_) == std::string::npos) {
        failed("deliver", SKILLRT_FAILED_PRECONDITION,
               "nothing to commit in " + wt +
                   " and no commit of this case on its branch; "
                   "reset fix and run it again");
      }
      sha = first_line(last.output);
    } else {
      const CmdResult c = git("deliver", "commit", wt, {"commit", "-F", msg_file});
      if (!c.ok()) {
        failed("deliver", SKILLRT_FAILED_PRECONDITION,
               "git commit failed in " + wt + ": " + detail::file_tail(c.output_file, 400) +
                   "; fix the cause (hook, user.name/user.email) and rerun deliver");
      }
      sha = first_line(git("deliver", "new commit", wt, {"rev-parse", "HEAD"}).output);
    }
    const std::string branch = st("env")["result"]["worktrees"][repo]["branch"];
    // PR description from the repository's own template.
    std::string templ;
    std::string templ_source;
    for (const char* cand : {".gitcode/PULL_REQUEST_TEMPLATE.md",
                             ".github/PULL_REQUEST_TEMPLATE.md", ".gitee/PULL_REQUEST_TEMPLATE.md",
                             "PULL_REQUEST_TEMPLATE.md", "docs/PULL_REQUEST_TEMPLATE.md"}) {
      std::error_code ec;
      if (fs::is_regular_file(fs::path(wt) / cand, ec)) {
        templ = detail::read_file((fs::path(wt) / cand).string());
        templ_source = std::string(repo) + ":" + cand;
        break;
      }
    }
    if (templ.empty()) {
      for (const auto& h : default_template_headings()) templ += "### " + h + "\n\n";
      templ_source =
          "built-in (headings of Ascend/op-plugin@517f2e7:.gitcode/PULL_REQUEST_TEMPLATE.md)";
    }
    const Json& repro = st("reproduce")["result"];
    std::ostringstream source, change, docs, iface, check;
    source << "Upstream PyTorch test `" << test << "` fails on NPU (route: " << route << ").\n";
    if (repro.contains("log_signature") && repro["log_signature"].value("found", false)) {
      source << "CI log: " << repro["log_signature"]["exception"].get<std::string>() << ": "
             << repro["log_signature"]["message"].get<std::string>() << "\n";
    }
    source << "Reproduced: " << repro["verdict"].get<std::string>() << " ("
           << repro["reason"].get<std::string>() << ")\n";
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
    docs << (doc_files.empty() ? "None: no file under docs/ or *.md changed."
                               : "Changed: " + join(doc_files, ", "));
    iface << (iface_files.empty()
                  ? "None detected: no *functions.yaml, derivatives.yaml or .pyi file changed."
                  : "Schema/registration files changed, review for interface change: " +
                        join(iface_files, ", "));
    if (disable) {
      check << "Not run: the test is disabled, not fixed.\n";
    } else {
      check << "- `" << test
            << "`: passes after the fix (was: " << repro["verdict"].get<std::string>() << ")\n";
      check << "- neighbours (same class/file): " << verify["neighbours"]["count"].get<int>()
            << " rerun, " << verify["neighbours"]["broken_by_fix"].size() << " broken by the fix\n";
      check << "- related operator test files: " << verify["related"]["runs"].size() << " rerun, "
            << verify["related"]["broken_by_fix"].size() << " tests broken by the fix\n";
    }
    std::vector<std::string> used;
    const std::string body = fill_template(templ,
                                           {{"合入来源", source.str()},
                                            {"修改方案", change.str()},
                                            {"资料变更", docs.str()},
                                            {"接口变更", iface.str()},
                                            {"功能验证", check.str()}},
                                           &used);
    const std::string pr_file = (dir_ / "deliver" / ("pr_" + repo + ".md")).string();
    plugin_io::write_file_atomic(pr_file, body);
    Json entry{{"repo", repo},
               {"worktree", wt},
               {"branch", branch},
               {"commit", sha},
               {"message_file", msg_file},
               {"pr_description", pr_file},
               {"template", templ_source},
               {"template_headings_filled", used}};
    if (s_.pr.contains(repo)) {
      const Json& cfg = s_.pr[repo];
      if (cfg.contains("remote")) {
        const CmdResult push =
            git("deliver", "push the branch", wt,
                {"push", cfg["remote"].get<std::string>(), branch + ":" + branch});
        if (!push.ok()) {
          failed("deliver", SKILLRT_UNAVAILABLE,
                 "git push to " + cfg["remote"].get<std::string>() +
                     " failed: " + first_line(push.output) + "; the commit is made, rerun deliver");
        }
        entry["pushed_to"] = cfg["remote"];
      }
      if (prs.contains(repo)) {
        entry["pr"] = prs[repo];  // opened by an earlier attempt: never open twice
      } else {
        entry["pr"] = open_pr(repo, cfg, title, body, branch);
        prs[repo] = entry["pr"];
        st("deliver")["prs_done"] = prs;
        save();
      }
    }
    commits[repo] = entry;
  }
  finish("deliver", Json{{"kind", disable ? "disable" : "commit"},
                         {"commits", commits},
                         {"disabled_list", disable ? Json(s_.disabled_repo + "/" + s_.disabled_path)
                                                   : Json(nullptr)}});
  st("deliver")["prs_done"] = prs;
  save();
}

Json CaseRunner::summary() {
  Json steps = Json::object();
  std::string next = "";
  for (const auto& step : kSteps) {
    Json& s = st(step);
    steps[step] = Json{{"status", s["status"]}, {"attempts", s.value("attempts", 0)}};
    if (s.contains("finished_at") && !s["finished_at"].is_null())
      steps[step]["finished_at"] = s["finished_at"];
    if (s.contains("error") && !s["error"].is_null()) steps[step]["error"] = s["error"]["message"];
    if (next.empty() && s["status"] != "done") next = step;
  }
  Json out{{"case_id", case_id_},
           {"test", state_["test"]["id"]},
           {"state_file", (dir_ / "state.json").string()},
           {"report_md", (dir_ / "report.md").string()},
           {"report_json", (dir_ / "report.json").string()},
           {"ran", ran_},
           {"steps", steps},
           {"next_step", next.empty() ? Json(nullptr) : Json(next)},
           {"complete", next.empty()}};
  out["route"] = state_.contains("route") ? state_["route"] : Json(nullptr);
  if (done("reproduce")) out["reproduce"] = st("reproduce")["result"]["verdict"];
  if (done("diagnose")) {
    const Json& d = st("diagnose")["result"];
    out["diagnosis"] = Json{{"class", d["class"]},
                            {"label", d["label"]},
                            {"decided_by", d["decided_by"]},
                            {"candidates", d["candidates"]}};
  }
  if (st("verify")["result"].is_object()) out["verified"] = st("verify")["result"]["passed"];
  if (done("deliver")) {
    Json d = Json::object();
    for (const auto& [repo, c] : st("deliver")["result"]["commits"].items()) {
      d[repo] = Json{{"branch", c["branch"]},
                     {"commit", c["commit"]},
                     {"pr_description", c["pr_description"]}};
      if (c.contains("pr")) d[repo]["pr"] = c["pr"];
    }
    out["delivered"] = d;
  }
  return out;
}

void CaseRunner::write_reports() {
  Json report = summary();
  Json timeline = state_["history"];
  report["timeline"] = timeline;
  report["log"] = state_["log"];
  for (const auto& step : kSteps) report["step_results"][step] = st(step)["result"];
  plugin_io::write_file_atomic((dir_ / "report.json").string(), report.dump(2) + "\n");
  std::ostringstream md;
  md << "# Case " << case_id_ << "\n\n";
  md << "Test: `" << state_["test"]["id"].get<std::string>() << "`  \n";
  if (state_.contains("route")) {
    md << "Route: **" << state_["route"]["route"].get<std::string>() << "** (core "
       << state_["route"]["core_score"] << ", distributed " << state_["route"]["distributed_score"]
       << ")\n\n";
    for (const auto& e : state_["route"]["evidence"]) {
      md << "- " << e["source"].get<std::string>()
         << (e.contains("line") ? ":" + e["line"].dump() : "") << " -> "
         << e["route"].get<std::string>() << ": " << e["area"].get<std::string>() << " (`"
         << e["text"].get<std::string>() << "`)\n";
    }
  }
  md << "\n## Steps\n\n| step | status | attempts | finished | note |\n|---|---|---|---|---|\n";
  for (const auto& step : kSteps) {
    Json& s = st(step);
    std::string note;
    const Json& r = s["result"];
    if (!s["error"].is_null() && s["error"].is_object())
      note = s["error"]["message"];
    else if (step == "reproduce" && r.is_object())
      note = r["verdict"].get<std::string>() + ": " + r["reason"].get<std::string>();
    else if (step == "diagnose" && r.is_object())
      note = r["label"].get<std::string>() + " (" + r["decided_by"].get<std::string>() + ")";
    else if (step == "fix" && r.is_object())
      note = r["kind"].get<std::string>() + " from " + r["source"].get<std::string>();
    else if (step == "verify" && r.is_object())
      note = r["passed"].get<bool>() ? "passed" : "failed";
    else if (step == "deliver" && r.is_object())
      note = r["kind"].get<std::string>();
    for (auto& c : note) {
      if (c == '|' || c == '\n') c = ' ';
    }
    md << "| " << step << " | " << s["status"].get<std::string>() << " | " << s.value("attempts", 0)
       << " | " << (s["finished_at"].is_string() ? s["finished_at"].get<std::string>() : "")
       << " | " << note.substr(0, 300) << " |\n";
  }
  if (done("diagnose")) {
    const Json& d = st("diagnose")["result"];
    md << "\n## Diagnosis\n\n"
       << d["label"].get<std::string>() << ", decided by " << d["decided_by"].get<std::string>()
       << ".\n\n";
    for (const auto& r : d["rules"]) {
      for (const auto& e : r["evidence"]) {
        md << "- " << r["rule"].get<std::string>() << " line " << e["line"] << ": `"
           << e["text"].get<std::string>() << "`\n";
      }
    }
    md << "\nCandidate files:\n\n";
    for (const auto& c : d["candidates"]) {
      md << "- " << c["repo"].get<std::string>() << "/" << c["file"].get<std::string>() << ":"
         << c["line"] << " (" << c["why"].get<std::string>() << ")\n";
    }
    md << "\nConsulted skills:\n\n";
    for (const auto& c : d["consulted"]) {
      md << "- " << c["skill"].get<std::string>() << ": " << c["status"].get<std::string>()
         << (c.contains("agreement") ? ", " + c["agreement"].get<std::string>() : "")
         << (c.contains("message") ? " (" + c["message"].get<std::string>().substr(0, 200) + ")"
                                   : "")
         << "\n";
    }
    for (const auto& n : d["notes"]) md << "\nNote: " << n.get<std::string>() << "\n";
  }
  if (done("fix")) {
    const Json& f = st("fix")["result"];
    md << "\n## Patch\n\n";
    for (const auto& [repo, r] : f["repos"].items()) {
      md << repo << " (" << r["diff_file"].get<std::string>() << "):\n\n```\n"
         << r["diffstat"].get<std::string>() << "```\n";
    }
    if (f["kind"] == "disable") md << f["reason"].get<std::string>() << "\n";
  }
  if (st("verify")["result"].is_object()) {
    const Json& v = st("verify")["result"];
    md << "\n## Verification\n\n" << (v["passed"].get<bool>() ? "Passed" : "Failed") << ".\n";
    if (v.contains("neighbours")) {
      md << "Neighbours: " << v["neighbours"]["count"]
         << " rerun, broken by the fix: " << v["neighbours"]["broken_by_fix"].dump() << "\n";
      md << "Related operator tests broken by the fix: " << v["related"]["broken_by_fix"].dump()
         << "\n";
    }
  }
  if (done("deliver")) {
    md << "\n## Delivery\n\n";
    for (const auto& [repo, c] : st("deliver")["result"]["commits"].items()) {
      md << "- " << repo << ": branch `" << c["branch"].get<std::string>() << "`, commit "
         << c["commit"].get<std::string>() << ", PR description "
         << c["pr_description"].get<std::string>();
      if (c.contains("pr") && c["pr"].contains("html_url") && c["pr"]["html_url"].is_string()) {
        md << ", PR " << c["pr"]["html_url"].get<std::string>();
      }
      md << "\n";
    }
  }
  md << "\n## Timeline\n\n";
  for (const auto& h : state_["history"]) {
    md << "- " << h["at"].get<std::string>() << " " << h["event"].get<std::string>() << "\n";
  }
  plugin_io::write_file_atomic((dir_ / "report.md").string(), md.str());
}

Settings read_settings(const Json& in) {
  Settings s;
  s.workspace = fs::absolute(in.at("workspace").get<std::string>()).lexically_normal();
  if (in.contains("repos")) {
    for (const auto& [k, v] : in["repos"].items()) {
      s.repos[k] = fs::absolute(v.get<std::string>()).lexically_normal().string();
    }
  }
  s.python = in.value("python", s.python);
  s.test_timeout_s = in.value("test_timeout_s", s.test_timeout_s);
  s.branch_prefix = in.value("branch_prefix", s.branch_prefix);
  if (in.contains("env")) s.env = in["env"].get<std::map<std::string, std::string>>();
  s.test_command = in.value("test_command", Json(nullptr));
  s.pr = in.value("pr", Json::object());
  if (in.contains("disabled_list")) {
    s.disabled_repo = in["disabled_list"].value("repo", s.disabled_repo);
    s.disabled_path = in["disabled_list"].value("path", s.disabled_path);
    if (s.disabled_path.empty() || s.disabled_path[0] == '/' ||
        s.disabled_path.find("..") != std::string::npos) {
      throw fail(SKILLRT_INVALID_ARGUMENT,
                 "disabled_list.path must be relative inside the repository, without '..'");
    }
  }
  s.step = in.value("step", s.step);
  s.reset_step = in.value("reset_step", "");
  if (s.step == "reset" && s.reset_step.empty()) {
    throw fail(SKILLRT_INVALID_ARGUMENT, "step reset needs reset_step: the step to reset (" +
                                             join(kSteps, ", ") + "); later steps reset with it");
  }
  return s;
}

std::string summary_table(const Json& cases) {
  std::ostringstream md;
  md << "| case | test | route | env | reproduce | diagnose | fix | verify | deliver | result |\n";
  md << "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& c : cases) {
    md << "| " << c["case_id"].get<std::string>() << " | `" << c.value("test", "") << "` | "
       << (c.contains("route") && c["route"].is_object() ? c["route"]["route"].get<std::string>()
                                                         : "")
       << " |";
    for (const auto& step : kSteps) {
      std::string s = c.contains("steps") ? c["steps"][step]["status"].get<std::string>() : "-";
      if (step == "reproduce" && c.contains("reproduce"))
        s += " (" + c["reproduce"].get<std::string>() + ")";
      if (step == "diagnose" && c.contains("diagnosis"))
        s += " (" + c["diagnosis"]["class"].get<std::string>() + ")";
      md << " " << s << " |";
    }
    std::string result = c.value("ok", false) ? (c.value("complete", false) ? "complete" : "ok")
                                              : "error: " + c.value("error", std::string());
    for (auto& ch : result) {
      if (ch == '|' || ch == '\n') ch = ' ';
    }
    md << " " << result.substr(0, 240) << " |\n";
  }
  return md.str();
}

}  // namespace

const std::vector<std::string>& step_names() { return kSteps; }

Json run_pipeline(const Json& input, Context& ctx) {
  const Settings s = read_settings(input);
  std::error_code ec;
  fs::create_directories(s.workspace, ec);
  if (ec) {
    throw fail(SKILLRT_INVALID_ARGUMENT,
               "workspace " + s.workspace.string() + " cannot be created: " + ec.message());
  }
  SharedEnv shared(s, ctx);
  if (!input.contains("cases")) {
    if (!input.contains("case") && !input.contains("case_id")) {
      throw fail(SKILLRT_INVALID_ARGUMENT, "give case (a test id) or cases (a batch)");
    }
    CaseRunner runner(s, input, shared, ctx, false);
    Json out = runner.run();
    shared.finish();
    out["mode"] = "case";
    return out;
  }
  const Json& cases = input["cases"];
  std::set<std::string> ids;
  for (const auto& c : cases) {
    const std::string id = c.contains("case_id") ? c["case_id"].get<std::string>()
                                                 : case_id_from_test(c.value("case", ""));
    if (!ids.insert(id).second) {
      throw fail(SKILLRT_INVALID_ARGUMENT,
                 "cases: two cases share the case id " + id + "; give them distinct case_id");
    }
  }
  const size_t parallel =
      std::max<size_t>(1, std::min<size_t>(input.value("parallel", 2), cases.size()));
  std::vector<Json> results(cases.size());
  std::atomic<size_t> next{0};
  std::atomic<size_t> finished{0};
  auto worker = [&] {
    for (size_t i = next++; i < cases.size(); i = next++) {
      if (ctx.cancelled()) {
        results[i] = Json{
            {"case_id", cases[i].value("case_id", case_id_from_test(cases[i].value("case", "")))},
            {"test", cases[i].value("case", "")},
            {"ok", false},
            {"error", "cancelled before it started"}};
        continue;
      }
      Json per_case = cases[i];
      CaseRunner runner(s, per_case, shared, ctx, true);
      try {
        results[i] = runner.run();
        results[i]["ok"] = true;
      } catch (const std::exception& e) {
        // One broken case is reported and the others go on.
        Json r = runner.state().is_object() && runner.state().contains("steps") ? Json::object()
                                                                                : Json::object();
        r["case_id"] = runner.case_id().empty() ? case_id_from_test(per_case.value("case", ""))
                                                : runner.case_id();
        r["test"] = per_case.value("case", "");
        r["ok"] = false;
        r["error"] = e.what();
        if (runner.state().is_object() && runner.state().contains("steps")) {
          Json steps = Json::object();
          for (const auto& step : kSteps) {
            steps[step] = Json{{"status", runner.state()["steps"][step]["status"]}};
          }
          r["steps"] = steps;
          if (runner.state().contains("route")) r["route"] = runner.state()["route"];
        }
        results[i] = r;
      }
      ctx.progress(static_cast<double>(++finished), static_cast<double>(cases.size()),
                   "batch: " + results[i]["case_id"].get<std::string>());
    }
  };
  std::vector<std::thread> threads;
  for (size_t t = 0; t < parallel; ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  shared.finish();
  Json all = Json(results);
  int ok = 0;
  int complete = 0;
  for (const auto& r : results) {
    if (r.value("ok", false)) ++ok;
    if (r.value("complete", false)) ++complete;
  }
  const std::string table = summary_table(all);
  const std::string md_file = (s.workspace / "batch_summary.md").string();
  const std::string json_file = (s.workspace / "batch_summary.json").string();
  Json out{
      {"mode", "batch"},
      {"step", s.step},
      {"parallel", parallel},
      {"shared_env",
       {{"file", (s.workspace / "shared_env.json").string()}, {"prepared", shared.prepared()}}},
      {"cases", all},
      {"counts",
       {{"total", results.size()},
        {"ok", ok},
        {"failed", results.size() - ok},
        {"complete", complete}}},
      {"summary_table", table},
      {"summary_md", md_file},
      {"summary_json", json_file}};
  plugin_io::write_file_atomic(md_file, "# Batch summary\n\n" + table);
  plugin_io::write_file_atomic(json_file, out.dump(2) + "\n");
  return out;
}

}  // namespace skillrt::issue_pipeline
