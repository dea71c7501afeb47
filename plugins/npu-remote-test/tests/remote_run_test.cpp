// End-to-end runs against a real OpenSSH server on 127.0.0.1 (runtime none: the job runs on
// this machine, so what it leaves behind is checked in the local process table).
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <random>

#include "detail/shell.hpp"
#include "remote_test.hpp"
#include "test_support.hpp"

using namespace npu_remote_test;
using namespace skillrt::npu_remote;

namespace {

#define REQUIRE_SSHD()                                                  \
  do {                                                                  \
    if (!TestSshd::available()) {                                       \
      WARN("SKIPPED: " << kSshd                                         \
                       << " is not installed (Debian openssh-server); " \
                          "scripts/install-deps.sh installs it");       \
      return;                                                           \
    }                                                                   \
  } while (false)

// A sleep whose argument no other process on the machine has, to find it in ps.
std::string unique_sleep() {
  std::random_device rd;
  return "sleep 3" + std::to_string(10000 + rd() % 89999);
}

struct Recorder {
  std::vector<std::string> lines;
  std::function<void(const std::string&)> on_line;
  std::function<bool()> cancel;
  RemoteTestHooks hooks() {
    RemoteTestHooks h;
    h.progress = [this](double, double, const std::string& m) {
      lines.push_back(m);
      if (on_line) on_line(m);
    };
    h.cancelled = [this] { return cancel && cancel(); };
    return h;
  }
  bool saw(const std::string& text) const {
    for (const std::string& l : lines) {
      if (l == text) return true;
    }
    return false;
  }
};

}  // namespace

TEST_CASE("a command job connects, streams its output and passes", "[npu-remote-test][ssh]") {
  REQUIRE_SSHD();
  TestSshd sshd;
  Recorder rec;
  const json out = run_remote_test(
      sshd.input({{"kind", "command"},
                  {"command", "echo first line; sleep 1; echo second line; echo $(pwd)"}}),
      json::object(), rec.hooks());
  INFO(out.dump(2));
  CHECK(out["outcome"] == "passed");
  CHECK(out["exit_code"] == 0);
  CHECK(rec.saw("first line"));
  CHECK(rec.saw("second line"));
  CHECK(out["output_tail"].back() ==
        (sshd.remote_base() / out["run_id"].get<std::string>() / "work").string());
  CHECK(out["host_facts"]["home"].is_string());
  CHECK(out["left_running"].empty());
  // The run record, in both forms, and output.log copied back.
  CHECK(fs::exists(sshd.output_dir() / "run-record.json"));
  CHECK_THAT(read_file(sshd.output_dir() / "run-record.md"), Catch::Contains("**passed**"));
  CHECK_THAT(read_file(sshd.output_dir() / "output.log"), Catch::Contains("second line"));
  // The run dir is gone from the host.
  CHECK_FALSE(fs::exists(sshd.remote_base() / out["run_id"].get<std::string>()));
  // Without NPUs the host check says what it skipped and why.
  bool npu_skipped = false;
  for (const json& c : out["checks"]) {
    if (c["name"] == "npu-smi") npu_skipped = c["status"] == "skipped";
  }
  CHECK(npu_skipped);
}

TEST_CASE("an unknown host key is refused with the command that accepts it",
          "[npu-remote-test][ssh]") {
  REQUIRE_SSHD();
  TestSshd sshd;
  const fs::path empty = sshd.dir() / "empty_known_hosts";
  write_file(empty, "");
  json in = sshd.input({{"kind", "command"}, {"command", "touch should-not-exist"}});
  in["known_hosts"] = empty.string();
  try {
    run_remote_test(in, json::object());
    FAIL("connected to a host whose key is unknown");
  } catch (const ConnectError& e) {
    const std::string msg = e.what();
    CHECK_THAT(msg, Catch::Contains("is not in " + empty.string()));
    CHECK_THAT(msg, Catch::Contains("ssh-keyscan -p " + std::to_string(sshd.port()) +
                                    " 127.0.0.1 >> " + empty.string()));
  }
  CHECK(read_file(empty).empty());  // nothing was accepted silently
  CHECK(fs::is_empty(sshd.remote_base()));
}

TEST_CASE("a key the host does not accept is refused", "[npu-remote-test][ssh]") {
  REQUIRE_SSHD();
  TestSshd sshd;
  json in = sshd.input({{"kind", "command"}, {"command", "true"}});
  in["identity_file"] = sshd.other_key().string();
  try {
    run_remote_test(in, json::object());
    FAIL("connected with a key that is not authorized");
  } catch (const ConnectError& e) {
    CHECK_THAT(e.what(), Catch::Contains("refused key authentication"));
    CHECK_THAT(e.what(), Catch::Contains(sshd.other_key().string() + ".pub"));
  }
}

TEST_CASE("a job past its deadline is killed on the host with its whole process group",
          "[npu-remote-test][deadline]") {
  REQUIRE_SSHD();
  TestSshd sshd;
  const std::string sleeper = unique_sleep();
  // A child in the background and one in the foreground: both must go.
  json in =
      sshd.input({{"kind", "command"},
                  {"command", "echo started; " + sleeper + " & " + sleeper + "; echo never"}});
  in["deadline_s"] = 2;
  in["keep_run_dir"] = true;
  const json out = run_remote_test(in, json::object());
  INFO(out.dump(2));
  CHECK(out["outcome"] == "timed_out");
  CHECK(out["exit_code"] == 124);
  CHECK(out["timings"]["job_s"].get<double>() < 20);
  CHECK(processes_with(sleeper).empty());
  const fs::path run_dir = sshd.remote_base() / out["run_id"].get<std::string>();
  const pid_t wrapper = std::stoi(read_file(run_dir / "pid"));
  const pid_t group = std::stoi(read_file(run_dir / "job_pgid"));
  CHECK(group_gone(wrapper));
  CHECK(group_gone(group));
  CHECK(out["left_running"].empty());
}

TEST_CASE("cancelling stops the remote job over a second connection", "[npu-remote-test][cancel]") {
  REQUIRE_SSHD();
  TestSshd sshd;
  const std::string sleeper = unique_sleep();
  Recorder rec;
  std::atomic<bool> cancel{false};
  rec.on_line = [&cancel](const std::string& l) {
    if (l == "tick") cancel = true;
  };
  rec.cancel = [&cancel] { return cancel.load(); };
  json in = sshd.input({{"kind", "command"}, {"command", "echo tick; " + sleeper}});
  in["keep_run_dir"] = true;
  in["run_id"] = "cancel-" + std::to_string(::getpid());
  try {
    run_remote_test(in, json::object(), rec.hooks());
    FAIL("a cancelled run returned a result");
  } catch (const Cancelled& e) {
    CHECK_THAT(e.what(), Catch::Contains("was stopped"));
    CHECK_THAT(e.what(), Catch::Contains("run-record.json"));
  }
  CHECK(processes_with(sleeper).empty());
  const fs::path run_dir = sshd.remote_base() / in["run_id"].get<std::string>();
  CHECK(group_gone(std::stoi(read_file(run_dir / "job_pgid"))));
  const json record = json::parse(read_file(sshd.output_dir() / "run-record.json"));
  CHECK(record["outcome"] == "cancelled");
  bool stopped = false;
  for (const json& c : record["commands"]) {
    stopped = stopped || c["step"].get<std::string>().rfind("stop job (cancelled)", 0) == 0;
  }
  CHECK(stopped);
}

TEST_CASE("declared artifacts are copied back and a script is uploaded",
          "[npu-remote-test][artifacts]") {
  REQUIRE_SSHD();
  TestSshd sshd;
  const fs::path script = sshd.dir() / "make_report.sh";
  write_file(script, "mkdir -p logs; echo '{\"ok\": true}' > result.json; echo a > logs/a.txt\n");
  json in = sshd.input({{"kind", "command"}, {"command", "sh make_report.sh"}});
  in["upload"] = {script.string()};
  in["artifacts"] = {"result.json", "logs", "missing.bin"};
  const json out = run_remote_test(in, json::object());
  INFO(out.dump(2));
  CHECK(out["outcome"] == "passed");
  CHECK(json::parse(read_file(sshd.output_dir() / "artifacts" / "result.json"))["ok"] == true);
  CHECK(read_file(sshd.output_dir() / "artifacts" / "logs" / "a.txt") == "a\n");
  std::map<std::string, json> by_remote;
  for (const json& a : out["artifacts"])
    by_remote[fs::path(a["remote"].get<std::string>()).filename()] = a;
  CHECK(by_remote["result.json"]["copied"] == true);
  CHECK(by_remote["result.json"]["bytes"] == 13);
  CHECK(by_remote["missing.bin"]["copied"] == false);
  CHECK(by_remote["missing.bin"]["error"].get<std::string>().size() > 0);
}

TEST_CASE("pytest output of a remote job is parsed into cases", "[npu-remote-test][artifacts]") {
  REQUIRE_SSHD();
  TestSshd sshd;
  // The recorded pytest session, printed by the job as pytest would print it.
  const fs::path log = data_dir() / "pytest_ra.txt";
  json in = sshd.input({{"kind", "command"}, {"command", "cat " + log.string() + "; exit 1"}});
  const json out = run_remote_test(in, json::object());
  CHECK(out["outcome"] == "failed");
  CHECK(out["exit_code"] == 1);
  REQUIRE(out["tests"].is_object());
  CHECK(out["tests"]["counts"]["error"] == 1);
  CHECK(out["tests"]["cases"].size() == 5);
}

TEST_CASE("env values never appear in output, records or commands", "[npu-remote-test][ssh]") {
  REQUIRE_SSHD();
  TestSshd sshd;
  json in = sshd.input({{"kind", "command"}, {"command", "echo token is $HF_TOKEN"}});
  in["env"] = {{"HF_TOKEN", "hf_do_not_leak_42"}};
  const json out = run_remote_test(in, json::object());
  CHECK(out["outcome"] == "passed");
  CHECK(out["output_tail"].back() == "token is ***");
  CHECK(out.dump().find("hf_do_not_leak_42") == std::string::npos);
  CHECK(read_file(sshd.output_dir() / "run-record.md").find("hf_do_not_leak_42") ==
        std::string::npos);
  CHECK(read_file(sshd.output_dir() / "output.log").find("hf_do_not_leak_42") == std::string::npos);
}

TEST_CASE("a dropped connection is reported with what is left and how to clean it",
          "[npu-remote-test][dropped]") {
  REQUIRE_SSHD();
  TestSshd sshd;
  const std::string sleeper = unique_sleep();
  Recorder rec;
  rec.on_line = [&sshd](const std::string& l) {
    if (l == "about to sleep") sshd.kill_all();
  };
  json in = sshd.input({{"kind", "command"}, {"command", "echo about to sleep; " + sleeper}});
  in["run_id"] = "drop-" + std::to_string(::getpid());
  const json out = run_remote_test(in, json::object(), rec.hooks());
  INFO(out.dump(2));
  CHECK(out["outcome"] == "connection_lost");
  const json& left = out["leftovers"];
  const fs::path run_dir = sshd.remote_base() / in["run_id"].get<std::string>();
  CHECK(left["run_dir"] == run_dir.string());
  REQUIRE(left["job_process_group"].is_string());
  const pid_t group = std::stoi(left["job_process_group"].get<std::string>());
  // The job really is still there, as reported.
  CHECK(group_alive(group));
  CHECK_FALSE(processes_with(sleeper, 0).empty());
  REQUIRE(out["cleanup_commands"].size() == 1);
  CHECK(fs::exists(sshd.output_dir() / "run-record.md"));

  // Once the host is back, the reported command cleans everything.
  sshd.start();
  const Shell cleaned = sh("bash -c " + skillrt::npu_remote::detail::shell_quote(
                                            out["cleanup_commands"][0].get<std::string>()));
  CHECK(cleaned.status == 0);
  CHECK(processes_with(sleeper).empty());
  CHECK(group_gone(group));
  CHECK_FALSE(fs::exists(run_dir));
}

TEST_CASE("a second run cleans stale runs it owns and leaves live ones alone",
          "[npu-remote-test][stale]") {
  REQUIRE_SSHD();
  TestSshd sshd;
  const fs::path base = sshd.remote_base();
  // A run whose wrapper died without an exit code (host rebooted, wrapper killed).
  write_file(base / "dead1" / "owner", "npu-remote-test\n");
  write_file(base / "dead1" / "pid", "999999\n");
  // A run past its deadline whose `timeout` never fired: a live process group to stop.
  const std::string sleeper = unique_sleep();
  const Shell started = sh("setsid sh -c '" + sleeper + "' >/dev/null 2>&1 & echo $!");
  const pid_t overdue = std::stoi(started.out);
  write_file(base / "late1" / "owner", "npu-remote-test\n");
  write_file(base / "late1" / "pid", std::to_string(overdue) + "\n");
  write_file(base / "late1" / "deadline_epoch", "1000\n");
  // A run within its deadline: someone's job.
  const std::string live_sleeper = unique_sleep();
  const pid_t live =
      std::stoi(sh("setsid sh -c '" + live_sleeper + "' >/dev/null 2>&1 & echo $!").out);
  write_file(base / "live1" / "owner", "npu-remote-test\n");
  write_file(base / "live1" / "pid", std::to_string(live) + "\n");
  write_file(base / "live1" / "deadline_epoch", "99999999999\n");
  // Not this skill's folder: no owner file.
  write_file(base / "foreign" / "keep.txt", "x");

  const json out =
      run_remote_test(sshd.input({{"kind", "command"}, {"command", "true"}}), json::object());
  INFO(out.dump(2));
  CHECK(out["outcome"] == "passed");
  std::map<std::string, std::string> action;
  for (const json& s : out["stale_runs"]) action[s["run_id"]] = s["action"];
  CHECK(action.size() == 2);
  CHECK(action["dead1"] == "stopped and removed");
  CHECK(action["late1"] == "stopped and removed");
  CHECK_FALSE(fs::exists(base / "dead1"));
  CHECK_FALSE(fs::exists(base / "late1"));
  CHECK(processes_with(sleeper).empty());
  CHECK(fs::exists(base / "live1"));
  CHECK(group_alive(live));
  CHECK(fs::exists(base / "foreign" / "keep.txt"));
  CHECK_THAT(out["notes"].dump(), Catch::Contains("run live1 of this skill is still running"));
  ::kill(-live, SIGKILL);
}

TEST_CASE("a busy or absent NPU on the host refuses the run with the reason",
          "[npu-remote-test][host-check]") {
  REQUIRE_SSHD();
  TestSshd sshd;
  sshd.fake_npu_smi(read_file(data_dir() / "npu_smi_a3_processes.txt") +
                    read_file(data_dir() / "npu_smi_910b3.txt"));
  json in = sshd.input({{"kind", "command"}, {"command", "touch ran"}});
  in["require_npu"] = true;
  in["devices"] = {0, 4};
  INFO("sshd log: " << read_file(sshd.dir() / "sshd.log"));
  const json out = run_remote_test(in, json::object());
  INFO(out.dump(2));
  CHECK(out["outcome"] == "refused");
  std::map<std::string, json> by_name;
  for (const json& c : out["checks"]) by_name[c["name"]] = c;
  CHECK(by_name["device 0"]["status"] == "refused");
  CHECK_THAT(by_name["device 0"]["detail"].get<std::string>(),
             Catch::Contains("python3.1 (pid 632268)"));
  CHECK(by_name["device 4"]["status"] == "refused");
  CHECK(out["host_facts"]["npu_smi"]["chips"].size() == 4);
  CHECK(fs::is_empty(sshd.remote_base()));  // nothing was started
  CHECK_THAT(read_file(sshd.output_dir() / "run-record.md"), Catch::Contains("**refused**"));
}

TEST_CASE("a dry run shows the checks and exact commands and connects to nothing",
          "[npu-remote-test][dry-run]") {
  json in = {
      {"host", "192.0.2.1"},
      {"user", "ci"},
      {"dry_run", true},
      {"devices", {1}},
      {"run_id", "dry1"},
      {"env", {{"HF_TOKEN", "hf_never_shown"}}},
      {"artifacts", {"bench.json"}},
      {"job",
       {{"kind", "vllm_bench"}, {"model", "/models/Qwen3-8B"}, {"served_model_name", "qwen3"}}}};
  const json out = run_remote_test(in, json::object());
  CHECK(out["outcome"] == "dry_run");
  CHECK(out["host_facts"].is_null());
  const std::string all = out.dump();
  CHECK(all.find("hf_never_shown") == std::string::npos);
  CHECK_THAT(all, Catch::Contains("--device /dev/davinci1"));
  CHECK_THAT(all, Catch::Contains("vllm bench serve --model /models/Qwen3-8B --host 127.0.0.1 "
                                  "--port 8000 --served-model-name qwen3"));
  std::vector<std::string> steps;
  for (const json& c : out["commands"]) steps.push_back(c["step"]);
  CHECK(steps.front() == "host check");
  CHECK(std::find(steps.begin(), steps.end(), "copy back bench.json") != steps.end());
  CHECK(out["commands"][0]["command"].get<std::string>().rfind("ssh -F /dev/null", 0) == 0);
}

TEST_CASE("a recorded run's log is parsed without connecting", "[npu-remote-test][parse]") {
  TempDir out("recorded");
  const json result = run_remote_test(
      {{"recorded_log", (data_dir() / "vllm_bench_ascend_qwen3_vl_8b.txt").string()},
       {"output_dir", out.path().string()},
       {"job", {{"kind", "vllm_bench"}, {"model", "Qwen3-VL-8B-Instruct"}}}},
      json::object());
  CHECK(result["outcome"] == "parsed");
  CHECK(result["metrics"]["successful_requests"] == 200);
  CHECK(result["metrics"]["ttft"]["median_ms"].get<double>() == Approx(96.10));
  CHECK(result["commands"].empty());
  CHECK_THAT(read_file(out.path() / "run-record.md"), Catch::Contains("| ttft p99_ms | 153.96 |"));
  try {
    run_remote_test(
        {{"recorded_log", "/nonexistent.log"}, {"job", {{"kind", "command"}, {"command", "x"}}}},
        json::object());
    FAIL("a missing recorded log was accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::StartsWith("recorded_log: /nonexistent.log is not a local file"));
  }
}
