// End to end through the built skillrt binary: three git repositories standing in for pytorch,
// torch_npu and op-plugin (tests/data/make_fixture.sh), a real failing Python test, a local HTTP
// server for the PR request, kills in the middle of each step, a batch and bad inputs.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kBin = std::string(SKILLRT_BINARY_DIR) + "/bin/skillrt";
const std::string kFixture =
    std::string(SKILLRT_SOURCE_DIR) + "/plugins/issue-pipeline/tests/data/make_fixture.sh";
const std::string kTest = "test/test_ops.py::TestAdd::test_add";

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string sh(const std::string& cmd) {
  std::string out;
  FILE* f = ::popen(cmd.c_str(), "r");
  if (f == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
  ::pclose(f);
  return out;
}

// One fixture per test case, in a directory unique to this process (ctest runs cases in parallel).
struct Fixture {
  fs::path root;
  Fixture() {
    static int n = 0;
    root = fs::temp_directory_path() /
           ("ipl_e2e_" + std::to_string(::getpid()) + "_" + std::to_string(++n));
    fs::remove_all(root);
    const int rc =
        std::system(("sh '" + kFixture + "' '" + root.string() + "' >/dev/null").c_str());
    REQUIRE(rc == 0);
  }
  ~Fixture() { fs::remove_all(root); }
  std::string repo(const std::string& name) const { return (root / name).string(); }
  std::string ws() const { return (root / "ws").string(); }
  json base(const std::string& test = kTest) const {
    return json{{"case", test},
                {"workspace", ws()},
                {"repos",
                 {{"pytorch", repo("pytorch")},
                  {"torch_npu", repo("torch_npu")},
                  {"op_plugin", repo("op_plugin")}}},
                {"python", (root / "bin" / "python").string()},
                {"log", (root / "ci.log").string()}};
  }
  // What must not change when a run fails: the checkouts' status and branches.
  std::string repos_snapshot() const {
    std::string s;
    for (const char* r : {"pytorch", "torch_npu", "op_plugin"}) {
      s += sh("git -C '" + repo(r) + "' status --porcelain; git -C '" + repo(r) +
              "' branch --list; git -C '" + repo(r) +
              "' worktree list --porcelain | grep -c worktree");
    }
    return s;
  }
  json state(const std::string& case_id) const {
    return json::parse(slurp(fs::path(ws()) / case_id / "state.json"));
  }
};

struct Run {
  int exit_code = -1;
  json output;
  std::string stderr_text;
};

Run run_skill(const Fixture& fx, const json& input, const std::string& env = "") {
  static int calls = 0;
  const fs::path dir = fx.root / ("call" + std::to_string(++calls));
  fs::create_directories(dir);
  std::ofstream(dir / "in.json") << input.dump();
  const std::string cmd =
      env + " '" + kBin + "' run issue-pipeline -q --input '" + (dir / "in.json").string() +
      "' --output '" + (dir / "out.json").string() + "' > '" + (dir / "stdout").string() + "' 2>&1";
  const int status = std::system(cmd.c_str());
  Run r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.stderr_text = slurp(dir / "stdout");
  const std::string out = slurp(dir / "out.json");
  if (!out.empty()) r.output = json::parse(out);
  return r;
}

json with_step(json in, const std::string& step) {
  in["step"] = step;
  return in;
}

const std::string kCase = "test_test_ops.py__TestAdd__test_add";

// A minimal HTTP/1.1 server on 127.0.0.1 (port from the kernel) that records one request and
// answers 201 with a PR object.
class PrServer {
 public:
  PrServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
    REQUIRE(::listen(fd_, 4) == 0);
    socklen_t len = sizeof(addr);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~PrServer() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  int port() const { return port_; }
  std::string request() {
    std::lock_guard<std::mutex> lock(mu_);
    return request_;
  }
  int count() const { return count_; }

 private:
  void serve() {
    while (!stop_) {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::string req;
      char buf[4096];
      size_t want = std::string::npos;
      while (true) {
        const ssize_t n = ::recv(c, buf, sizeof(buf), 0);
        if (n <= 0) break;
        req.append(buf, static_cast<size_t>(n));
        const auto end = req.find("\r\n\r\n");
        if (end != std::string::npos && want == std::string::npos) {
          const auto cl = req.find("Content-Length: ");
          const size_t body = cl == std::string::npos ? 0 : std::stoul(req.substr(cl + 16));
          want = end + 4 + body;
        }
        if (want != std::string::npos && req.size() >= want) break;
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        request_ = req;
      }
      ++count_;
      const std::string body = "{\"number\":7,\"html_url\":\"http://127.0.0.1/pr/7\"}";
      const std::string resp =
          "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n"
          "Content-Length: " +
          std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
      (void)!::send(c, resp.data(), resp.size(), 0);
      ::close(c);
    }
  }
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> count_{0};
  std::mutex mu_;
  std::string request_;
  std::thread thread_;
};

// Starts the CLI, waits until the fixture's python wrapper or git hook pauses (the hold file),
// kills the CLI with SIGKILL, then lets the paused child go.
void run_and_kill(const Fixture& fx, const json& input, const std::string& hold_name) {
  const fs::path hold = fx.root / hold_name;
  const fs::path entered = fx.root / "entered";
  std::ofstream(hold) << "1";
  fs::remove(entered);
  const fs::path in = fx.root / "kill_in.json";
  std::ofstream(in) << input.dump();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setsid();
    const int null_fd = ::open("/dev/null", O_WRONLY);
    ::dup2(null_fd, 1);
    ::dup2(null_fd, 2);
    ::execl(kBin.c_str(), kBin.c_str(), "run", "issue-pipeline", "-q", "--input", in.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  REQUIRE(pid > 0);
  // Bounded wait for the pause; not a timing assertion.
  bool paused = false;
  for (int i = 0; i < 2400 && !paused; ++i) {
    paused = fs::exists(entered);
    int status;
    if (!paused && ::waitpid(pid, &status, WNOHANG) == pid) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  fs::remove(hold);
  REQUIRE(paused);
  // The paused child notices the hold is gone within a poll period and exits (or was killed).
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  fs::remove(entered);
}

void kill_and_resume(const std::string& step) {
  Fixture fx;
  const json base = fx.base();
  const std::vector<std::string> steps = {"env", "reproduce", "diagnose",
                                          "fix", "verify",    "deliver"};
  const auto pos = std::find(steps.begin(), steps.end(), step) - steps.begin();
  for (long i = 0; i < pos; ++i) {
    json in = with_step(base, "next");
    if (steps[static_cast<size_t>(i)] == "fix")
      in["patch"] = {{"op_plugin", (fx.root / "fix.patch").string()}};
    const Run r = run_skill(fx, in);
    REQUIRE(r.exit_code == 0);
  }
  const json before = pos > 0 ? fx.state(kCase) : json();
  json in = with_step(base, "next");
  if (step == "fix") in["patch"] = {{"op_plugin", (fx.root / "fix.patch").string()}};
  // env is killed inside 'git worktree add' (post-checkout hook), deliver inside 'git commit'
  // (pre-commit hook), the others while their Python test command runs.
  run_and_kill(fx, in, step == "env" || step == "deliver" ? "hold_git" : "hold");
  const json killed = fx.state(kCase);
  CHECK(killed["steps"][step]["status"] == "running");
  // The command it was running is on record with its output file.
  CHECK_FALSE(killed["steps"][step]["commands"].empty());
  const Run again = run_skill(fx, in);
  INFO(again.stderr_text);
  REQUIRE(again.exit_code == 0);
  const json after = fx.state(kCase);
  CHECK(after["steps"][step]["status"] == "done");
  CHECK(after["steps"][step]["attempts"] == 2);
  CHECK(after["steps"][step]["interrupted"].size() == 1);
  if (step == "env") {
    // The worktree the killed run made is reused, not made twice.
    CHECK(after["steps"]["env"]["result"]["worktrees"]["pytorch"]["reused"] == true);
  }
  CHECK(again.output["ran"] == json::array({step}));
  for (long i = 0; i < pos; ++i) {
    const std::string& s = steps[static_cast<size_t>(i)];
    // Finished steps are not redone: same attempt count, same finish time, same result.
    CHECK(after["steps"][s]["attempts"] == 1);
    CHECK(after["steps"][s]["finished_at"] == before["steps"][s]["finished_at"]);
    CHECK(after["steps"][s]["result"] == before["steps"][s]["result"]);
  }
  // The run can be driven to the end from there.
  json rest = with_step(base, "all");
  rest["patch"] = {{"op_plugin", (fx.root / "fix.patch").string()}};
  const Run end = run_skill(fx, rest);
  INFO(end.stderr_text);
  CHECK(end.exit_code == 0);
  CHECK(end.output["complete"] == true);
  CHECK(sh("git -C '" + fx.ws() + "/" + kCase + "/worktrees/op_plugin' log --format=%s | wc -l") ==
        "2\n");
}

}  // namespace

TEST_CASE("e2e: a case goes through every step to a commit and a PR request") {
  Fixture fx;
  PrServer server;
  json in = with_step(fx.base(), "next");
  const Run env = run_skill(fx, in);
  INFO(env.stderr_text);
  REQUIRE(env.exit_code == 0);
  CHECK(env.output["ran"] == json::array({"env"}));
  CHECK(env.output["route"]["route"] == "core");
  const json st = fx.state(kCase);
  CHECK(st["steps"]["env"]["result"]["versions"]["consistent"] == true);
  CHECK(st["steps"]["env"]["result"]["test"]["method_line"] == 7);
  CHECK(fs::exists(fx.ws() + "/" + kCase + "/worktrees/op_plugin/op_plugin/ops.py"));

  const Run rep = run_skill(fx, in);
  REQUIRE(rep.exit_code == 0);
  CHECK(rep.output["reproduce"] == "reproduced");

  const Run diag = run_skill(fx, in);
  REQUIRE(diag.exit_code == 0);
  CHECK(diag.output["diagnosis"]["class"] == "missing-dispatch");
  CHECK_THAT(diag.output["diagnosis"]["decided_by"].get<std::string>(),
             Catch::Contains("IPL-D001"));
  bool names_ops = false;
  for (const auto& c : diag.output["diagnosis"]["candidates"]) {
    if (c["repo"] == "op_plugin" && c["file"] == "op_plugin/ops.py") names_ops = true;
  }
  CHECK(names_ops);
  const json d = fx.state(kCase)["steps"]["diagnose"]["result"];
  // Each callee is recorded, registered or not; one that answered is compared with the rules.
  REQUIRE(d["consulted"].size() >= 2);
  for (const auto& c : d["consulted"]) {
    const std::string status = c["status"];
    CHECK((status == "ok" || status == "not registered" || status == "failed" ||
           status == "not needed"));
    if (status == "ok" && c["skill"] == "npu-graph-diagnose") CHECK(c["agreement"] == "agrees");
    if (status == "not registered") {
      CHECK_THAT(d["notes"].dump(), Catch::Contains("could not consult"));
    }
  }
  CHECK(d["related_tests"].size() == 1);

  in["patch"] = {{"op_plugin", (fx.root / "fix.patch").string()}};
  const Run fix = run_skill(fx, in);
  REQUIRE(fix.exit_code == 0);
  const Run ver = run_skill(fx, in);
  INFO(ver.stderr_text);
  REQUIRE(ver.exit_code == 0);
  CHECK(ver.output["verified"] == true);

  in["pr"] = {{"op_plugin",
               {{"provider", "github"},
                {"api_url", "http://127.0.0.1:" + std::to_string(server.port())},
                {"owner", "Ascend"},
                {"repo", "op-plugin"},
                {"base", "master"}}}};
  const Run del = run_skill(fx, in, "GITHUB_TOKEN=t0ken-for-test");
  INFO(del.stderr_text);
  REQUIRE(del.exit_code == 0);
  CHECK(del.output["complete"] == true);
  const std::string branch = "issue-pipeline/" + kCase;
  CHECK(del.output["delivered"]["op_plugin"]["branch"] == branch);
  CHECK(del.output["delivered"]["op_plugin"]["pr"]["number"] == 7);
  CHECK_THAT(sh("git -C '" + fx.repo("op_plugin") + "' log -1 --format=%B " + branch),
             Catch::Contains("Issue-Pipeline-Case: " + kCase));
  const std::string req = server.request();
  CHECK_THAT(req, Catch::StartsWith("POST /repos/Ascend/op-plugin/pulls HTTP/1.1"));
  CHECK_THAT(req, Catch::Contains("Authorization: Bearer t0ken-for-test"));
  const json body = json::parse(req.substr(req.find("\r\n\r\n") + 4));
  CHECK(body["head"] == branch);
  CHECK(body["base"] == "master");
  CHECK_THAT(body["body"].get<std::string>(), Catch::Contains("【合入来源】"));
  CHECK_THAT(body["body"].get<std::string>(), Catch::Contains("missing dispatch/registration"));
  // The checkouts themselves stay clean; the fix lives on the case branch.
  CHECK(sh("git -C '" + fx.repo("op_plugin") + "' status --porcelain").empty());
  CHECK(fs::exists(fx.ws() + "/" + kCase + "/report.md"));
  // Delivered: running again redoes nothing and opens no second PR.
  const Run again = run_skill(fx, with_step(fx.base(), "all"));
  CHECK(again.exit_code == 0);
  CHECK(again.output["ran"].empty());
  CHECK(server.count() == 1);
}

TEST_CASE("e2e: kill during env, then resume") { kill_and_resume("env"); }
TEST_CASE("e2e: kill during reproduce, then resume") { kill_and_resume("reproduce"); }
TEST_CASE("e2e: kill during diagnose, then resume") { kill_and_resume("diagnose"); }
TEST_CASE("e2e: kill during fix, then resume") { kill_and_resume("fix"); }
TEST_CASE("e2e: kill during verify, then resume") { kill_and_resume("verify"); }
TEST_CASE("e2e: kill during deliver, then resume") { kill_and_resume("deliver"); }

TEST_CASE("e2e: a batch of 10 with one broken case, shared env prepared once, summary right") {
  Fixture fx;
  json in = fx.base();
  in.erase("case");
  in.erase("log");
  in["step"] = "all";
  in["parallel"] = 3;
  json cases = json::array();
  for (int i = 0; i < 9; ++i) {
    cases.push_back({{"case", "test/test_batch_" + std::to_string(i) + ".py::TestBatch" +
                                  std::to_string(i) + "::test_add_" + std::to_string(i)},
                     {"patch", {{"op_plugin", (fx.root / "fix.patch").string()}}}});
  }
  cases.insert(cases.begin() + 4, json{{"case", "test/test_batch_0.py::TestBatch0::test_missing"}});
  in["cases"] = cases;
  const Run r = run_skill(fx, in);
  INFO(r.stderr_text);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output["counts"]["total"] == 10);
  CHECK(r.output["counts"]["ok"] == 9);
  CHECK(r.output["counts"]["failed"] == 1);
  CHECK(r.output["counts"]["complete"] == 9);
  CHECK(r.output["cases"][4]["ok"] == false);
  CHECK_THAT(r.output["cases"][4]["error"].get<std::string>(), Catch::Contains("unknown test id"));
  CHECK(r.output["shared_env"]["prepared"] == true);
  const json shared = json::parse(slurp(fx.ws() + "/shared_env.json"));
  CHECK(shared["used_by"].size() == 10);
  // One python --version for the whole batch: the shared part ran once.
  int version_runs = 0;
  for (const auto& c : shared["commands"]) {
    if (c["argv"].back() == "--version") ++version_runs;
  }
  CHECK(version_runs == 1);
  const std::string table = slurp(fx.ws() + "/batch_summary.md");
  CHECK_THAT(table, Catch::Contains("test_missing"));
  CHECK_THAT(table, Catch::Contains(
                        "error: case test_test_batch_0.py__TestBatch0__test_missing, step env"));
  int complete_rows = 0;
  std::istringstream lines(table);
  std::string l;
  while (std::getline(lines, l)) {
    if (l.find("| complete |") != std::string::npos) ++complete_rows;
  }
  CHECK(complete_rows == 9);
  CHECK(sh("git -C '" + fx.repo("op_plugin") + "' branch --list 'issue-pipeline/*' | wc -l") ==
        "9\n");
}

TEST_CASE("e2e: bad inputs give clear errors and leave the repositories as they were") {
  Fixture fx;
  const std::string before = fx.repos_snapshot();
  SECTION("missing checkout") {
    json in = with_step(fx.base(), "next");
    in["repos"]["torch_npu"] = (fx.root / "nowhere").string();
    const Run r = run_skill(fx, in);
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.stderr_text, Catch::Contains("repos.torch_npu: checkout"));
    CHECK_THAT(r.stderr_text, Catch::Contains("does not exist"));
  }
  SECTION("dirty worktree") {
    std::ofstream(fx.root / "op_plugin" / "op_plugin" / "ops.py", std::ios::app)
        << "# local edit\n";
    const std::string dirty = fx.repos_snapshot();
    const Run r = run_skill(fx, with_step(fx.base(), "next"));
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.stderr_text, Catch::Contains("uncommitted changes"));
    CHECK(fx.repos_snapshot() == dirty);
    return;
  }
  SECTION("unknown test id") {
    const Run r = run_skill(fx, with_step(fx.base("test/test_ops.py::TestAdd::test_nope"), "next"));
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.stderr_text, Catch::Contains("unknown test id"));
    CHECK_THAT(r.stderr_text, Catch::Contains("def test_nope"));
  }
  SECTION("malformed test id") {
    const Run r = run_skill(fx, with_step(fx.base("not a test id"), "next"));
    CHECK(r.exit_code != 0);
    CHECK_FALSE(fs::exists(fx.ws() + "/not_a_test_id"));
  }
  SECTION("a test command that hangs") {
    json in = with_step(fx.base("test/test_hang.py::TestHang::test_forever"), "all");
    in["test_timeout_s"] = 2;
    in.erase("python");  // the plain interpreter: no pause hooks involved
    in["python"] = "/usr/bin/python3";
    const Run r = run_skill(fx, in);
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.stderr_text, Catch::Contains("did not finish within 2 s"));
    const json st = fx.state("test_test_hang.py__TestHang__test_forever");
    CHECK(st["steps"]["reproduce"]["status"] == "failed");
    CHECK(st["steps"]["reproduce"]["commands"][0]["timed_out"] == true);
    // The case worktrees were made by env; the checkouts' own status is untouched.
    for (const char* repo : {"pytorch", "torch_npu", "op_plugin"}) {
      CHECK(sh(std::string("git -C '") + fx.repo(repo) + "' status --porcelain").empty());
    }
    return;
  }
  CHECK(fx.repos_snapshot() == before);
}

TEST_CASE("e2e: a fix that breaks a neighbour fails verify and names it") {
  Fixture fx;
  json in = with_step(fx.base(), "all");
  in["patch"] = {{"op_plugin", (fx.root / "breaking.patch").string()}};
  const Run r = run_skill(fx, in);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.stderr_text, Catch::Contains("breaks neighbour TestAdd.test_sub"));
  const json st = fx.state(kCase);
  CHECK(st["steps"]["verify"]["status"] == "failed");
  CHECK(st["steps"]["deliver"]["status"] == "pending");
}

TEST_CASE("e2e: status reads a case, reset puts a step and the later ones back to pending") {
  Fixture fx;
  json in = fx.base();
  in["patch"] = {{"op_plugin", (fx.root / "fix.patch").string()}};
  REQUIRE(run_skill(fx, with_step(in, "all")).exit_code == 0);
  const Run status = run_skill(fx, with_step(fx.base(), "status"));
  REQUIRE(status.exit_code == 0);
  CHECK(status.output["complete"] == true);
  json reset = with_step(fx.base(), "reset");
  reset["reset_step"] = "verify";
  const Run rr = run_skill(fx, reset);
  REQUIRE(rr.exit_code == 0);
  CHECK(rr.output["next_step"] == "verify");
  CHECK(rr.output["steps"]["fix"]["status"] == "done");
  CHECK(rr.output["steps"]["deliver"]["status"] == "pending");
  const json st = fx.state(kCase);
  CHECK(st["steps"]["verify"]["previous"].size() == 1);
  const Run unknown =
      run_skill(fx, with_step(fx.base("test/test_ops.py::TestAdd::test_sub"), "status"));
  CHECK(unknown.exit_code != 0);
  CHECK_THAT(unknown.stderr_text, Catch::Contains("no case"));
}

TEST_CASE("e2e: a test not applicable to NPU is delivered as a disabled-list entry") {
  Fixture fx;
  json in = with_step(fx.base("test/test_cuda_only.py::TestCudaOnly::test_cudnn_flag"), "all");
  in.erase("log");
  const Run r = run_skill(fx, in);
  INFO(r.stderr_text);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output["diagnosis"]["class"] == "not-applicable");
  CHECK(r.output["complete"] == true);
  const std::string id = "test_test_cuda_only.py__TestCudaOnly__test_cudnn_flag";
  const json st = fx.state(id);
  CHECK(st["steps"]["fix"]["result"]["kind"] == "disable");
  CHECK(st["steps"]["verify"]["result"]["skipped"] == true);
  const std::string list =
      slurp(fx.ws() + "/" + id + "/worktrees/torch_npu/test/npu_disabled_upstream_tests.yaml");
  CHECK_THAT(list,
             Catch::Contains("- test: test/test_cuda_only.py::TestCudaOnly::test_cudnn_flag"));
  CHECK_THAT(list, Catch::Contains("IPL-N001"));
  CHECK_THAT(sh("git -C '" + fx.repo("torch_npu") + "' log -1 --format=%s issue-pipeline/" + id),
             Catch::Contains("Disable test/test_cuda_only.py::TestCudaOnly::test_cudnn_flag"));
}
