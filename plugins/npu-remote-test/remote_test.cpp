#include "remote_test.hpp"

#include <signal.h>

#include <chrono>
#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench_parser.hpp"
#include "detail/shell.hpp"
#include "detail/subprocess.hpp"
#include "host_facts.hpp"
#include "plugin_io/atomic_file.hpp"
#include "pytest_parser.hpp"
#include "run_plan.hpp"
#include "run_record.hpp"
#include "ssh_client.hpp"

namespace skillrt::npu_remote {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

// How long after the remote deadline this side stops waiting and kills the job itself: the
// remote `timeout` plus its kill delay plus the container's removal should be done by then.
constexpr int kLocalSlackS = 30;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

double rounded(double s) { return static_cast<double>(static_cast<long long>(s * 100)) / 100; }

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

const char* kind_name(JobKind k) {
  switch (k) {
    case JobKind::kVllmBench:
      return "vllm_bench";
    case JobKind::kPython:
      return "python";
    case JobKind::kPytest:
      return "pytest";
    case JobKind::kCommand:
      return "command";
  }
  return "command";
}

// Masks the env values (tokens, keys) wherever they would otherwise be shown or recorded.
class Redactor {
 public:
  explicit Redactor(const std::map<std::string, std::string>& env) {
    for (const auto& [k, v] : env) {
      if (v.size() >= 4) secrets_.push_back(v);
    }
  }
  std::string operator()(std::string text) const {
    for (const std::string& s : secrets_) {
      for (size_t at; (at = text.find(s)) != std::string::npos;) text.replace(at, s.size(), "***");
    }
    return text;
  }

 private:
  std::vector<std::string> secrets_;
};

// The exact command a person can paste: ssh with the script as a here-document.
std::string with_script(const std::vector<std::string>& argv, const std::string& script) {
  return detail::shell_join(argv) + " <<'SKILLRT_SCRIPT'\n" + script + "SKILLRT_SCRIPT";
}

class Run {
 public:
  Run(const Request& request, const RemoteTestHooks& hooks)
      : request_(request),
        redacted_request_(redacted(request)),
        plan_(request_),
        shown_plan_(redacted_request_),
        ssh_(request.target),
        hooks_(hooks),
        redact_(request.env),
        started_(Clock::now()) {}

  json execute();

 private:
  static Request redacted(const Request& r) {
    Request copy = r;
    for (auto& [k, v] : copy.env) v = "***";
    return copy;
  }
  bool cancelled() const { return hooks_.cancelled && hooks_.cancelled(); }
  void progress(double done, double total, const std::string& message) const {
    if (hooks_.progress) hooks_.progress(done, total, message);
  }
  json base_result() const;
  json dry_run_result() const;
  void record_command(const std::string& step, const std::string& command) {
    result_["commands"].push_back({{"step", step}, {"command", redact_(command)}});
  }
  detail::CommandResult ssh_script(const std::string& step, const std::string& script,
                                   const std::string& shown_script, bool may_stop);
  [[noreturn]] void connect_failed(const detail::CommandResult& r, const std::string& step);
  void clean_stale(const HostFacts& facts);
  void stream_job();
  void stop_remote(const std::string& why);
  void copy_back();
  detail::CommandResult scp(std::vector<std::string> argv, const std::string& step);
  void parse_outputs();
  json finish();
  std::string run_dir_abs() const;
  std::vector<std::string> cleanup_commands() const;

  const Request& request_;
  const Request redacted_request_;
  RunPlan plan_;
  RunPlan shown_plan_;
  SshClient ssh_;
  const RemoteTestHooks& hooks_;
  Redactor redact_;
  Clock::time_point started_;
  json result_;
  HostFacts facts_;
  std::deque<std::string> tail_;
  std::string streamed_;
  std::optional<int> exit_code_;
  std::string wrapper_pid_;
  std::string job_pgid_;
  bool connection_lost_ = false;
  bool local_deadline_hit_ = false;
  bool cancel_seen_ = false;
  std::string lost_message_;
  std::string output_log_text_;
};

json Run::base_result() const {
  const SshTarget& t = request_.target;
  json devices = request_.devices;
  return {
      {"outcome", "failed"},
      {"dry_run", request_.dry_run},
      {"run_id", request_.run_id},
      {"host",
       {{"server", t.server.empty() ? json(nullptr) : json(t.server)},
        {"address", t.host},
        {"user", t.user.empty() ? json(nullptr) : json(t.user)},
        {"port", t.port}}},
      {"runtime", request_.runtime},
      {"image", request_.runtime == "none" ? json(nullptr) : json(request_.image)},
      {"devices", devices},
      {"container", plan_.container().empty() ? json(nullptr) : json(plan_.container())},
      {"run_dir", plan_.run_dir()},
      {"job",
       {{"kind", kind_name(request_.job.kind)},
        {"start_command", redact_(shown_plan_.job_start_command())},
        {"script", redact_(shown_plan_.job_script())},
        {"deadline_s", request_.deadline_s}}},
      {"checks", json::array()},
      {"host_facts", nullptr},
      {"commands", json::array()},
      {"stale_runs", json::array()},
      {"exit_code", nullptr},
      {"timings", {{"started_at", utc_now()}}},
      {"output_tail", json::array()},
      {"metrics", nullptr},
      {"tests", nullptr},
      {"artifacts", json::array()},
      {"left_running", json::array()},
      {"leftovers", nullptr},
      {"cleanup_commands", json::array()},
      {"record", nullptr},
      {"notes", json::array()},
  };
}

json Run::dry_run_result() const {
  json r = base_result();
  r["outcome"] = "dry_run";
  const SshTarget& t = request_.target;
  json checks = json::array();
  auto check = [&checks](const std::string& name, const std::string& how) {
    checks.push_back({{"name", name}, {"status", "skipped"}, {"detail", "dry run: " + how}});
  };
  check("connection", "ssh with key authentication only (BatchMode), host key checked against " +
                          t.known_hosts + ", agent and X11 forwarding off");
  check("npu-smi",
        "`npu-smi info`: devices, health, HBM use and processes; refuses a requested "
        "device that is absent, unhealthy or has processes");
  check("driver", "/usr/local/Ascend/driver/version.info");
  check("cann", "ascend_toolkit_install.info under /usr/local/Ascend");
  if (request_.runtime != "none") {
    check("runtime", request_.runtime + " version and whether " + request_.image +
                         " is already on the host; the Ascend paths it mounts exist");
  }
  check("tools", "setsid, timeout and tail on the host");
  check("disk", "free space where the run dir goes, at least " +
                    std::to_string(request_.min_free_disk_mb) + " MB");
  if (request_.clean_stale) check("stale runs", "run dirs and labelled containers of earlier runs");
  r["checks"] = checks;

  json cmds = json::array();
  auto add = [&cmds, this](const std::string& step, const std::string& cmd) {
    cmds.push_back({{"step", step}, {"command", redact_(cmd)}});
  };
  add("host check", with_script(ssh_.ssh_argv("sh -s"), shown_plan_.probe_script()));
  add("prepare run dir", with_script(ssh_.ssh_argv("sh -s"), shown_plan_.prepare_script()));
  for (const std::string& u : request_.upload) {
    add("upload " + u,
        detail::shell_join(ssh_.scp_to_argv(
            expand_home(u), "<home>/" + request_.remote_base + "/" + request_.run_id + "/work/")));
  }
  add("start and stream", with_script(ssh_.ssh_argv("sh -s"), shown_plan_.launch_script()));
  add("stop on cancel, deadline or after the job",
      with_script(ssh_.ssh_argv("sh -s"), shown_plan_.kill_script()));
  for (const std::string& a : request_.artifacts) {
    add("copy back " + a,
        detail::shell_join(ssh_.scp_from_argv(a, request_.output_dir.empty()
                                                     ? "<output_dir>/artifacts/"
                                                     : request_.output_dir + "/artifacts/")));
  }
  if (!request_.keep_run_dir) {
    add("remove run dir", with_script(ssh_.ssh_argv("sh -s"), shown_plan_.remove_run_dir_script()));
  }
  r["commands"] = cmds;
  json notes = json::array();
  notes.push_back("dry run: nothing was connected to or started");
  if (!t.accept_new_host_key && !fs::is_regular_file(t.known_hosts)) {
    notes.push_back("known_hosts " + t.known_hosts +
                    " does not exist: a real run would refuse; "
                    "record the host key with ssh-keyscan -p " +
                    std::to_string(t.port) + " " + t.host + " >> " + t.known_hosts +
                    " after checking its fingerprint");
  }
  if (!t.identity_file.empty() && !fs::is_regular_file(t.identity_file)) {
    notes.push_back("identity_file " + t.identity_file + " does not exist");
  }
  if (request_.output_dir.empty()) notes.push_back("no output_dir: a real run needs one");
  notes.push_back("the run dir's <home> and relative paths are resolved on the host");
  r["notes"] = notes;
  return r;
}

detail::CommandResult Run::ssh_script(const std::string& step, const std::string& script,
                                      const std::string& shown_script, bool may_stop) {
  const auto argv = ssh_.ssh_argv("sh -s");
  record_command(step, with_script(argv, shown_script));
  return detail::run_command(argv, script, [this, may_stop] { return may_stop && cancelled(); });
}

void Run::connect_failed(const detail::CommandResult& r, const std::string& step) {
  const auto failure = ssh_.classify(r.status, r.err, false);
  if (failure) throw ConnectError(step + ": " + failure->message);
  throw ConnectError(step + ": ssh exited with status " + std::to_string(r.status) + ": " + r.err);
}

std::string Run::run_dir_abs() const {
  std::string base = request_.remote_base;
  if (base.front() != '/') base = (facts_.home.empty() ? "~" : facts_.home) + "/" + base;
  return base + "/" + request_.run_id;
}

void Run::clean_stale(const HostFacts& facts) {
  for (StaleVerdict& v : stale_runs(facts, request_.run_id, RunPlan::kStaleGraceS)) {
    if (v.run.runtime.empty() || v.run.runtime == "-") v.run.runtime = request_.runtime;
    const std::string script =
        RunPlan::stale_cleanup_script(v.run.dir, v.run.runtime, v.run.container);
    std::string action;
    if (v.run.dir.empty()) {
      // Only the container is left; the cleanup script removes it and an empty dir name is
      // harmless (rm -rf "").
    }
    const auto r = ssh_script("clean stale run " + v.run.run_id, script, script, false);
    action = r.status == 0 ? "stopped and removed" : "cleanup failed: " + r.err;
    json entry = {
        {"run_id", v.run.run_id},
        {"reason", v.reason},
        {"action", action},
        {"dir", v.run.dir.empty() ? json(nullptr) : json(v.run.dir)},
        {"container", v.run.container.empty() || v.run.container == "-" ? json(nullptr)
                                                                        : json(v.run.container)}};
    result_["stale_runs"].push_back(entry);
  }
  for (const RemoteRun& r : facts.runs) {
    if (r.run_id == request_.run_id || !r.alive) continue;
    bool listed = false;
    for (const json& s : result_["stale_runs"]) listed = listed || s["run_id"] == r.run_id;
    if (!listed) {
      result_["notes"].push_back("run " + r.run_id +
                                 " of this skill is still running on the host "
                                 "within its deadline (pid " +
                                 (r.pid ? std::to_string(*r.pid) : std::string("?")) +
                                 "); left alone");
    }
  }
}

void Run::stream_job() {
  const auto argv = ssh_.ssh_argv("sh -s");
  record_command("start and stream", with_script(argv, shown_plan_.launch_script()));
  const std::string marker = plan_.marker() + " ";
  const auto job_start = Clock::now();
  const auto local_deadline = job_start + std::chrono::seconds(request_.deadline_s + kLocalSlackS);
  bool started = false;
  detail::Subprocess ssh(argv, plan_.launch_script());
  auto on_line = [&](std::string_view raw) {
    const std::string line = redact_(std::string(raw));
    if (line.rfind(marker, 0) == 0) {
      std::istringstream in(line.substr(marker.size()));
      std::string word;
      in >> word;
      if (word == "started") {
        started = true;
        for (std::string kv; in >> kv;) {
          if (kv.rfind("pid=", 0) == 0) wrapper_pid_ = kv.substr(4);
          if (kv.rfind("job_pgid=", 0) == 0) job_pgid_ = kv.substr(9);
        }
        progress(0, request_.deadline_s,
                 "job started on " + ssh_.display_target() + " (wrapper pid " + wrapper_pid_ +
                     ", job process group " + job_pgid_ + ")");
      } else if (word == "exit") {
        std::string code;
        in >> code;
        if (code != "none") {
          try {
            exit_code_ = std::stoi(code);
          } catch (const std::exception&) {
          }
        }
      }
      return;
    }
    (streamed_ += line) += '\n';
    tail_.push_back(line);
    while (tail_.size() > static_cast<size_t>(request_.tail_lines)) tail_.pop_front();
    progress(std::min(seconds_since(job_start), static_cast<double>(request_.deadline_s)),
             request_.deadline_s, line);
  };
  auto stop = [&] {
    if (cancelled()) {
      cancel_seen_ = true;
      return true;
    }
    if (Clock::now() > local_deadline) {
      local_deadline_hit_ = true;
      return true;
    }
    return false;
  };
  const auto pumped = ssh.pump(on_line, stop);
  if (pumped == detail::Subprocess::Pump::kStopped) {
    ssh.kill_group(SIGTERM);
    ssh.wait();
    result_["timings"]["job_s"] = rounded(seconds_since(job_start));
    return;
  }
  const int status = ssh.wait();
  result_["timings"]["job_s"] = rounded(seconds_since(job_start));
  if (!exit_code_ && status == 255) {
    const auto failure = ssh_.classify(status, ssh.err(), started);
    if (!started && failure && failure->kind != SshFailure::Kind::kConnectionLost &&
        failure->kind != SshFailure::Kind::kOther) {
      throw ConnectError("start: " + failure->message);
    }
    connection_lost_ = true;
    lost_message_ = failure ? failure->message : "ssh exited with status 255";
  } else if (!exit_code_) {
    result_["notes"].push_back("the job ended without an exit code (ssh status " +
                               std::to_string(status) + "): " + redact_(ssh.err()));
  }
}

void Run::stop_remote(const std::string& why) {
  const auto r =
      ssh_script("stop job (" + why + ")", plan_.kill_script(), shown_plan_.kill_script(), false);
  const std::string marker = plan_.marker() + " alive ";
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(marker, 0) == 0) {
      result_["left_running"].push_back("process group " + line.substr(marker.size()) +
                                        " still alive after TERM and KILL");
    }
  }
  if (r.status != 0) {
    result_["notes"].push_back("stopping the job over a second connection failed (status " +
                               std::to_string(r.status) + "): " + redact_(r.err));
  }
}

detail::CommandResult Run::scp(std::vector<std::string> argv, const std::string& step) {
  record_command(step, detail::shell_join(argv));
  auto r = detail::run_command(argv, "", nullptr);
  // scp speaks SFTP by default; a host without the sftp subsystem still has the old protocol.
  if (r.status != 0 && r.err.find("subsystem request failed") != std::string::npos) {
    argv.insert(argv.begin() + 1, "-O");
    record_command(step + " (legacy scp protocol)", detail::shell_join(argv));
    r = detail::run_command(argv, "", nullptr);
  }
  return r;
}

void Run::copy_back() {
  const auto t0 = Clock::now();
  fs::create_directories(request_.output_dir);
  const std::string run_dir = run_dir_abs();
  auto copy = [this](const std::string& remote, const fs::path& local, bool declared) {
    fs::create_directories(local.parent_path());
    const auto r = scp(ssh_.scp_from_argv(remote, local.string()), "copy back " + remote);
    json a = {{"remote", remote},
              {"local", local.string()},
              {"copied", r.status == 0},
              {"declared", declared}};
    if (r.status == 0) {
      std::error_code ec;
      uintmax_t bytes = 0;
      if (fs::is_directory(local, ec)) {
        for (const auto& e : fs::recursive_directory_iterator(local, ec)) {
          if (e.is_regular_file(ec)) bytes += e.file_size(ec);
        }
      } else {
        bytes = fs::file_size(local, ec);
      }
      a["bytes"] = bytes;
    } else {
      a["error"] =
          redact_(r.err.empty() ? "scp exited with status " + std::to_string(r.status) : r.err);
    }
    result_["artifacts"].push_back(a);
    return r.status == 0;
  };
  const fs::path out(request_.output_dir);
  if (copy(run_dir + "/output.log", out / "output.log", false)) {
    std::ifstream f(out / "output.log", std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    output_log_text_ = redact_(ss.str());
    if (output_log_text_ != ss.str())
      plugin_io::write_file_atomic(out / "output.log", output_log_text_);
  }
  if (request_.job.kind == JobKind::kVllmBench)
    copy(run_dir + "/serve.log", out / "serve.log", false);
  const std::string workdir = request_.workdir.empty() ? run_dir + "/work" : request_.workdir;
  for (const std::string& a : request_.artifacts) {
    const std::string remote = a.front() == '/' ? a : workdir + "/" + a;
    std::string name = fs::path(a).filename().string();
    if (name.empty()) name = fs::path(a).parent_path().filename().string();
    const auto local = plugin_io::path_under(out / "artifacts", name);
    if (!local) {
      result_["artifacts"].push_back({{"remote", remote},
                                      {"local", nullptr},
                                      {"copied", false},
                                      {"declared", true},
                                      {"error", "its name leaves the artifacts folder"}});
      continue;
    }
    copy(remote, *local, true);
  }
  result_["timings"]["copy_back_s"] = rounded(seconds_since(t0));
}

void Run::parse_outputs() {
  const std::string& text = output_log_text_.empty() ? streamed_ : output_log_text_;
  if (auto m = parse_vllm_benchmark(text)) {
    result_["metrics"] = *m;
  } else if (request_.job.kind == JobKind::kVllmBench) {
    result_["notes"].push_back(
        "no \"Serving Benchmark Result\" block in the output: the "
        "benchmark did not finish, see output_tail and serve.log");
  }
  if (auto t = parse_pytest(text)) {
    result_["tests"] = *t;
  } else if (request_.job.kind == JobKind::kPytest) {
    result_["notes"].push_back(
        "no pytest session in the output: pytest did not start (is it "
        "installed where the job runs?), see output_tail");
  }
}

std::vector<std::string> Run::cleanup_commands() const {
  std::vector<std::string> out;
  std::string script = plan_.kill_script() + plan_.remove_run_dir_script();
  out.push_back(with_script(ssh_.ssh_argv("sh -s"), script));
  return out;
}

json Run::finish() {
  for (const std::string& l : tail_) result_["output_tail"].push_back(l);
  result_["timings"]["total_s"] = rounded(seconds_since(started_));
  if (!request_.output_dir.empty()) {
    const fs::path out(request_.output_dir);
    fs::create_directories(out);
    const fs::path json_path = out / "run-record.json";
    const fs::path md_path = out / "run-record.md";
    result_["record"] = {{"json", json_path.string()}, {"markdown", md_path.string()}};
    plugin_io::write_file_atomic(json_path, result_.dump(2) + "\n");
    plugin_io::write_file_atomic(md_path, run_record_markdown(result_));
  }
  return result_;
}

json Run::execute() {
  if (request_.dry_run) return dry_run_result();
  result_ = base_result();
  if (!request_.recorded_log.empty()) {
    std::ifstream f(request_.recorded_log, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    output_log_text_ = redact_(ss.str());
    std::istringstream lines(output_log_text_);
    for (std::string line; std::getline(lines, line);) {
      tail_.push_back(line);
      while (tail_.size() > static_cast<size_t>(request_.tail_lines)) tail_.pop_front();
    }
    result_["outcome"] = "parsed";
    result_["notes"].push_back("parsed the recorded log " + request_.recorded_log +
                               "; nothing was connected to or run");
    parse_outputs();
    return finish();
  }

  progress(0, 0, "host check on " + ssh_.display_target());
  const auto check_start = Clock::now();
  const auto probe =
      ssh_script("host check", plan_.probe_script(), shown_plan_.probe_script(), true);
  if (probe.stopped) throw Cancelled("cancelled during the host check; nothing was started");
  if (probe.status == 255) connect_failed(probe, "host check");
  facts_ = parse_host_facts(probe.out);
  result_["host_facts"] = host_facts_json(facts_);
  result_["run_dir"] = run_dir_abs();
  const std::vector<Check> checks = evaluate_host(request_, facts_);
  bool refused = false;
  for (const Check& c : checks) {
    result_["checks"].push_back({{"name", c.name}, {"status", c.status}, {"detail", c.detail}});
    refused = refused || c.status == "refused";
  }
  result_["timings"]["host_check_s"] = rounded(seconds_since(check_start));
  if (refused) {
    result_["outcome"] = "refused";
    return finish();
  }
  if (request_.clean_stale) clean_stale(facts_);
  if (cancelled()) throw Cancelled("cancelled after the host check; nothing was started");

  const auto prep =
      ssh_script("prepare run dir", plan_.prepare_script(), shown_plan_.prepare_script(), false);
  if (prep.status == 255) connect_failed(prep, "prepare");
  if (prep.status != 0) {
    result_["notes"].push_back("preparing the run dir failed (status " +
                               std::to_string(prep.status) + "): " + redact_(prep.err));
    return finish();
  }
  for (const std::string& u : request_.upload) {
    const auto r = scp(ssh_.scp_to_argv(expand_home(u), run_dir_abs() + "/work/"), "upload " + u);
    if (r.status != 0) {
      result_["notes"].push_back("upload of " + u + " failed: " + r.err);
      ssh_script("remove run dir", plan_.remove_run_dir_script(), plan_.remove_run_dir_script(),
                 false);
      return finish();
    }
  }

  stream_job();

  if (connection_lost_) {
    result_["outcome"] = "connection_lost";
    result_["leftovers"] = {
        {"host", ssh_.display_target()},
        {"run_dir", run_dir_abs()},
        {"wrapper_pid", wrapper_pid_.empty() ? json(nullptr) : json(wrapper_pid_)},
        {"job_process_group", job_pgid_.empty() ? json(nullptr) : json(job_pgid_)},
        {"container", plan_.container().empty() ? json(nullptr) : json(plan_.container())},
        {"state", "the job keeps running on the host until it ends or its deadline (" +
                      std::to_string(request_.deadline_s) +
                      " s) kills it; output.log in the "
                      "run dir has everything it printed; the next run of this skill on this "
                      "host removes what is left once it is finished or past its deadline"}};
    for (const std::string& c : cleanup_commands()) result_["cleanup_commands"].push_back(c);
    result_["notes"].push_back(lost_message_);
    parse_outputs();
    return finish();
  }

  if (cancel_seen_) {
    stop_remote("cancelled");
  } else if (local_deadline_hit_) {
    stop_remote("deadline passed and the host did not stop the job");
  } else {
    // Catches what the job left behind (a server started in the background) and the container.
    stop_remote("job ended");
  }
  result_["exit_code"] = exit_code_ ? json(*exit_code_) : json(nullptr);
  copy_back();
  if (!request_.keep_run_dir) {
    ssh_script("remove run dir", plan_.remove_run_dir_script(), plan_.remove_run_dir_script(),
               false);
  }
  parse_outputs();
  const double job_s = result_["timings"].value("job_s", 0.0);
  if (cancel_seen_) {
    result_["outcome"] = "cancelled";
  } else if (local_deadline_hit_ || (exit_code_ && *exit_code_ == 124) ||
             (exit_code_ && *exit_code_ == 137 && job_s >= request_.deadline_s)) {
    result_["outcome"] = "timed_out";
    result_["notes"].push_back("the job passed its deadline of " +
                               std::to_string(request_.deadline_s) +
                               " s; its process group was killed on the host");
  } else if (exit_code_ && *exit_code_ == 0) {
    result_["outcome"] = "passed";
  } else {
    result_["outcome"] = "failed";
  }
  json done = finish();
  if (cancel_seen_) {
    std::string msg =
        "cancelled: the job on " + ssh_.display_target() + " was stopped (process groups killed" +
        (plan_.container().empty() ? "" : ", container " + plan_.container() + " removed") + ")";
    if (!done["left_running"].empty()) msg += "; still alive: " + done["left_running"].dump();
    if (done["record"].is_object())
      msg += "; run record: " + done["record"]["json"].get<std::string>();
    throw Cancelled(msg);
  }
  return done;
}

}  // namespace

json run_remote_test(const json& input, const json& settings, const RemoteTestHooks& hooks) {
  const Request request = parse_request(input, settings);
  Run run(request, hooks);
  return run.execute();
}

}  // namespace skillrt::npu_remote
