// Parsing of recorded real outputs (vLLM benchmark, pytest, npu-smi) and the text of the
// commands a run sends: container lines against vLLM Ascend's documented mounts, the probe's
// output, stale-run verdicts, request errors.
#include <catch2/catch.hpp>

#include "bench_parser.hpp"
#include "container_command.hpp"
#include "detail/shell.hpp"
#include "host_facts.hpp"
#include "npu_smi.hpp"
#include "pytest_parser.hpp"
#include "remote_test.hpp"
#include "request.hpp"
#include "run_plan.hpp"
#include "ssh_client.hpp"
#include "test_support.hpp"

using namespace npu_remote_test;
using namespace skillrt::npu_remote;

namespace {

json minimal_input() {
  return {{"host", "10.0.0.12"},
          {"user", "ci"},
          {"dry_run", true},
          {"job", {{"kind", "command"}, {"command", "true"}}}};
}

Request request_of(json input, const json& settings = json::object()) {
  return parse_request(input, settings);
}

}  // namespace

TEST_CASE("vllm bench serve output from an Ascend run parses into metrics",
          "[npu-remote-test][parse]") {
  const auto m = parse_vllm_benchmark(read_file(data_dir() / "vllm_bench_ascend_qwen3_vl_8b.txt"));
  REQUIRE(m);
  CHECK((*m)["successful_requests"] == 200);
  CHECK((*m)["failed_requests"] == 0);
  CHECK((*m)["duration_s"].get<double>() == Approx(203.76));
  CHECK((*m)["total_input_tokens"] == 40000);
  CHECK((*m)["total_generated_tokens"] == 25600);
  CHECK((*m)["request_throughput"].get<double>() == Approx(0.98));
  CHECK((*m)["output_throughput"].get<double>() == Approx(125.64));
  CHECK((*m)["peak_output_throughput"].get<double>() == Approx(315.0));
  CHECK((*m)["total_token_throughput"].get<double>() == Approx(321.95));
  CHECK((*m)["request_rate"].get<double>() == Approx(1.0));
  CHECK((*m)["ttft"]["mean_ms"].get<double>() == Approx(98.12));
  CHECK((*m)["ttft"]["median_ms"].get<double>() == Approx(96.10));
  CHECK((*m)["ttft"]["p99_ms"].get<double>() == Approx(153.96));
  CHECK((*m)["tpot"]["p99_ms"].get<double>() == Approx(30.53));
  CHECK((*m)["itl"]["median_ms"].get<double>() == Approx(28.78));
  CHECK((*m)["line"] == 2);
  CHECK_FALSE(m->contains("e2el"));
}

TEST_CASE("vllm bench serve output with E2EL and older spellings parses",
          "[npu-remote-test][parse]") {
  const auto m = parse_vllm_benchmark(read_file(data_dir() / "vllm_bench_e2el.txt"));
  REQUIRE(m);
  CHECK((*m)["complete"] == true);
  // "Total Token throughput" (capital T) is the same metric.
  CHECK((*m)["total_token_throughput"].get<double>() == Approx(22203.82));
  CHECK((*m)["e2el"]["mean_ms"].get<double>() == Approx(23779.04));
  CHECK((*m)["e2el"]["median_ms"].get<double>() == Approx(23773.99));
  CHECK((*m)["e2el"]["p99_ms"].get<double>() == Approx(23848.06));
  CHECK((*m)["itl"]["p99_ms"].get<double>() == Approx(7780.75));
  CHECK((*m)["other"].empty());

  const auto g = parse_vllm_benchmark(read_file(data_dir() / "vllm_bench_serve_gemma.txt"));
  REQUIRE(g);
  CHECK((*g)["successful_requests"] == 16);
  CHECK((*g)["peak_concurrent_requests"] == 16);
  CHECK((*g)["ttft"]["p99_ms"].get<double>() == Approx(4610.48));
  CHECK((*g)["line"] == 2);
}

TEST_CASE("a log without a benchmark result gives no metrics", "[npu-remote-test][parse]") {
  CHECK_FALSE(parse_vllm_benchmark("INFO starting\nERROR out of memory\n"));
  CHECK_FALSE(parse_vllm_benchmark(read_file(data_dir() / "pytest_verbose.txt")));
  // Unknown lines are kept, not dropped.
  const auto m = parse_vllm_benchmark(
      "============ Serving Benchmark Result ============\nSuccessful requests: 3\n"
      "Max request concurrency: not set\nNew metric (x/s): 7.5\n=================\n");
  REQUIRE(m);
  CHECK((*m)["other"]["max request concurrency"] == "not set");
  CHECK((*m)["other"]["new metric (x/s)"].get<double>() == Approx(7.5));
}

TEST_CASE("pytest -v output parses into cases and counts", "[npu-remote-test][parse]") {
  const auto t = parse_pytest(read_file(data_dir() / "pytest_verbose.txt"));
  REQUIRE(t);
  CHECK((*t)["counts"] == json({{"failed", 3}, {"passed", 1}}));
  CHECK((*t)["duration_s"].get<double>() == Approx(0.12));
  const json& cases = (*t)["cases"];
  REQUIRE(cases.size() == 4);
  CHECK(cases[0]["name"] == "test_verbosity_example.py::test_ok");
  CHECK(cases[0]["outcome"] == "passed");
  CHECK(cases[1]["name"] == "test_verbosity_example.py::test_words_fail");
  CHECK(cases[1]["outcome"] == "failed");
  CHECK(cases[1]["message"] == "AssertionError: asser...");
}

TEST_CASE("pytest -ra output parses errors, skips, xfails and xpasses",
          "[npu-remote-test][parse]") {
  const auto t = parse_pytest(read_file(data_dir() / "pytest_ra.txt"));
  REQUIRE(t);
  CHECK((*t)["counts"] == json({{"failed", 1},
                                {"passed", 1},
                                {"skipped", 1},
                                {"xfailed", 1},
                                {"xpassed", 1},
                                {"error", 1}}));
  std::map<std::string, std::string> outcome;
  for (const json& c : (*t)["cases"]) outcome[c["name"]] = c["outcome"];
  CHECK(outcome["test_example.py:22"] == "skipped");
  CHECK(outcome["test_example.py::test_xfail"] == "xfailed");
  CHECK(outcome["test_example.py::test_xpass"] == "xpassed");
  CHECK(outcome["test_example.py::test_error"] == "error");
  CHECK(outcome["test_example.py::test_fail"] == "failed");
  CHECK(outcome.size() == 5);
  CHECK_FALSE(parse_pytest("hello\nworld\n"));
}

TEST_CASE("npu-smi info of a 910B3 server parses devices and HBM", "[npu-remote-test][parse]") {
  const NpuSmiInfo info = parse_npu_smi(read_file(data_dir() / "npu_smi_910b3.txt"));
  REQUIRE(info.chips.size() == 3);
  CHECK(info.chips[0].npu == 0);
  CHECK(info.chips[0].name == "910B3");
  CHECK(info.chips[0].health == "OK");
  CHECK(info.chips[0].device == 0);
  CHECK_FALSE(info.chips[0].device_from_phy_id);
  CHECK(*info.chips[0].power_w == Approx(97.5));
  CHECK(*info.chips[0].temp_c == Approx(41));
  CHECK(*info.chips[1].hbm_used_mb == Approx(3385));
  CHECK(*info.chips[1].hbm_total_mb == Approx(65536));
  CHECK(info.chips[2].bus_id == "0000:81:00.0");
  CHECK(info.processes.empty());
}

TEST_CASE("npu-smi info of an A3 server parses Phy-IDs and processes", "[npu-remote-test][parse]") {
  const NpuSmiInfo head = parse_npu_smi(read_file(data_dir() / "npu_smi_a3_head.txt"));
  CHECK(head.version == "26.0.rc2");
  REQUIRE(head.chips.size() == 2);
  CHECK(head.chips[1].npu == 0);
  CHECK(head.chips[1].chip == 1);
  CHECK(head.chips[1].device == 1);
  CHECK(head.chips[1].device_from_phy_id);
  CHECK_FALSE(head.chips[1].power_w);  // "-": the second chip reports no power of its own

  const NpuSmiInfo tail = parse_npu_smi(read_file(data_dir() / "npu_smi_a3_processes.txt"));
  REQUIRE(tail.chips.size() == 1);
  CHECK(tail.chips[0].npu == 7);
  CHECK(tail.chips[0].device == 15);
  CHECK(*tail.chips[0].hbm_used_mb == Approx(31877));  // "31877/ 65536": no space before '/'
  REQUIRE(tail.processes.size() == 1);
  CHECK(tail.processes[0].pid == 632268);
  CHECK(tail.processes[0].name == "python3.1");
  CHECK(*tail.processes[0].memory_mb == Approx(197));
}

TEST_CASE("the docker command mounts what vLLM Ascend's quick start mounts, chosen devices only",
          "[npu-remote-test][container]") {
  // https://docs.vllm.ai/projects/ascend/en/v0.13.0/quick_start.html ("Setup environment using
  // container"): --device /dev/davinci_manager, /dev/devmm_svm, /dev/hisi_hdc; -v
  // /usr/local/dcmi, /usr/local/bin/npu-smi, /usr/local/Ascend/driver/lib64/,
  // /usr/local/Ascend/driver/version.info, /etc/ascend_install.info; --shm-size=1g.
  json in = minimal_input();
  in["devices"] = {2, 5};
  in["run_id"] = "r1";
  in["remote_base"] = "/data/runs";
  const Request r = request_of(in);
  const RunPlan plan(r);
  CHECK(plan.job_start_command() ==
        "docker run --rm --name skillrt-nrt-r1 --label skillrt.npu-remote-test.run=r1 "
        "--shm-size=1g --device /dev/davinci2 --device /dev/davinci5 "
        "--device /dev/davinci_manager --device /dev/devmm_svm --device /dev/hisi_hdc "
        "-v /usr/local/dcmi:/usr/local/dcmi -v /usr/local/bin/npu-smi:/usr/local/bin/npu-smi "
        "-v /usr/local/Ascend/driver/lib64/:/usr/local/Ascend/driver/lib64/ "
        "-v /usr/local/Ascend/driver/version.info:/usr/local/Ascend/driver/version.info "
        "-v /etc/ascend_install.info:/etc/ascend_install.info "
        "-v /data/runs/r1:/data/runs/r1 -w /data/runs/r1/work "
        "quay.io/ascend/vllm-ascend:v0.13.0 bash /data/runs/r1/job.sh");
  CHECK(plan.job_start_command().find("davinci0") == std::string::npos);

  in["runtime"] = "podman";
  in["remote_base"] = ".skillrt/runs";
  in["image"] = "quay.io/ascend/vllm-ascend:v0.13.0-a3";
  in["devices"] = {0};
  in["env"] = {{"HF_TOKEN", "hf_secret_value"}};
  in["mounts"] = {"/models:/models:ro"};
  in["workdir"] = "/home/ci/proj";
  const Request p = request_of(in);
  CHECK(RunPlan(p).job_start_command() ==
        "podman run --rm --name skillrt-nrt-r1 --label skillrt.npu-remote-test.run=r1 "
        "--shm-size=1g --device /dev/davinci0 "
        "--device /dev/davinci_manager --device /dev/devmm_svm --device /dev/hisi_hdc "
        "-v /usr/local/dcmi:/usr/local/dcmi -v /usr/local/bin/npu-smi:/usr/local/bin/npu-smi "
        "-v /usr/local/Ascend/driver/lib64/:/usr/local/Ascend/driver/lib64/ "
        "-v /usr/local/Ascend/driver/version.info:/usr/local/Ascend/driver/version.info "
        "-v /etc/ascend_install.info:/etc/ascend_install.info "
        "-v \"$HOME/.skillrt/runs\"/r1:\"$HOME/.skillrt/runs\"/r1 "
        "-v /home/ci/proj:/home/ci/proj -v /models:/models:ro -w /home/ci/proj "
        "--env-file \"$HOME/.skillrt/runs\"/r1/env "
        "quay.io/ascend/vllm-ascend:v0.13.0-a3 bash \"$HOME/.skillrt/runs\"/r1/job.sh");
}

TEST_CASE("container cleanup commands remove and list only this skill's containers",
          "[npu-remote-test][container]") {
  CHECK(container_remove_command("docker", "skillrt-nrt-r1") ==
        "docker rm -f skillrt-nrt-r1 >/dev/null 2>&1 || true");
  CHECK(container_list_command("podman") ==
        "podman ps -a --filter label=skillrt.npu-remote-test.run --format '{{.Names}} "
        "{{.Label \"skillrt.npu-remote-test.run\"}}'");
  const std::string stale =
      RunPlan::stale_cleanup_script("/data/runs/old", "docker", "skillrt-nrt-old");
  CHECK(stale.find("docker rm -f skillrt-nrt-old") != std::string::npos);
  CHECK(stale.find("kill -TERM \"-$j\"") != std::string::npos);
  CHECK(stale.find("rm -rf \"$d\"") != std::string::npos);
  CHECK(RunPlan::stale_cleanup_script("/data/runs/old", "none", "-").find(" rm -f ") ==
        std::string::npos);

  json in = minimal_input();
  in["run_id"] = "r2";
  const Request r = request_of(in);
  const RunPlan plan(r);
  // The wrapper removes the container once the job ends, whatever ended it.
  const std::string wrapper = plan.wrapper_script();
  CHECK(wrapper.find("timeout -k 10 1800 docker run") != std::string::npos);
  CHECK(wrapper.find("wait $t\nrc=$?\ndocker rm -f skillrt-nrt-r2") != std::string::npos);
  CHECK(plan.kill_script().find("docker rm -f skillrt-nrt-r2") != std::string::npos);
}

TEST_CASE("the host check output parses and the verdicts name what is missing",
          "[npu-remote-test][host-check]") {
  const std::string smi = read_file(data_dir() / "npu_smi_a3_processes.txt");
  const std::string probe =
      "@@home\n/home/ci\n@@user\nci\n@@kernel\nLinux 5.10 aarch64\n@@npu-smi\npath "
      "/usr/local/bin/npu-smi\n" +
      smi +
      "rc 0\n@@driver\nVersion=24.1.rc2\n@@cann\nfile "
      "/usr/local/Ascend/ascend-toolkit/latest/aarch64-linux/ascend_toolkit_install.info\n"
      "package_name=Ascend-cann-toolkit\nversion=8.0.RC2\n@@device-files\n/dev/davinci15\n"
      "/dev/davinci_manager\n@@mounts\npresent /usr/local/dcmi\nabsent /etc/ascend_install.info\n"
      "@@tools\npresent setsid\npresent timeout\npresent tail\n@@runtime\npath /usr/bin/docker\n"
      "version 24.0.5\nimage absent\n@@containers\nskillrt-nrt-old old\n@@disk\n/dev/sda1 100 "
      "50 2048000 3% /home\n@@runs\nrun done1 pid=11 alive=0 deadline=100 exit=0 job_pgid=12 "
      "runtime=docker container=skillrt-nrt-done1 dir=/home/ci/r/done1\n"
      "run live1 pid=21 alive=1 deadline=5000 exit=- job_pgid=22 runtime=none container=- "
      "dir=/home/ci/r/live1\nrun late1 pid=31 alive=1 deadline=100 exit=- job_pgid=32 "
      "runtime=none container=- dir=/home/ci/r/late1\n@@now\n1000\n@@end\n";
  const HostFacts f = parse_host_facts(probe);
  CHECK(f.complete);
  CHECK(f.home == "/home/ci");
  CHECK(f.driver_version == "24.1.rc2");
  CHECK(f.cann_version == "8.0.RC2");
  CHECK(f.runtime_version == "24.0.5");
  CHECK(f.image_present == false);
  CHECK(f.disk_free_mb == 2000);
  REQUIRE(f.runs.size() == 3);

  json in = minimal_input();
  in["devices"] = {15, 3};
  const Request r = request_of(in);
  const auto checks = evaluate_host(r, f);
  std::map<std::string, Check> by_name;
  for (const Check& c : checks) by_name[c.name] = c;
  CHECK(checks.front().status == "refused");
  CHECK(by_name["device 3"].status == "refused");
  CHECK_THAT(by_name["device 3"].detail, Catch::Contains("not among the host's NPUs (15)"));
  // NPU 7 chip 1 holds 31877 of 65536 MB with no process listed: warned, not refused.
  CHECK(by_name["device 15"].status == "warning");
  CHECK(by_name["image"].status == "warning");
  CHECK(by_name["mount /etc/ascend_install.info"].status == "refused");
  CHECK(by_name["disk"].status == "refused");
  CHECK_THAT(by_name["disk"].detail, Catch::Contains("2000 MB free"));

  const auto stale = stale_runs(f, "mine", RunPlan::kStaleGraceS);
  std::map<std::string, std::string> why;
  for (const StaleVerdict& v : stale) why[v.run.run_id] = v.reason;
  CHECK(why.size() == 3);
  CHECK_THAT(why["done1"], Catch::Contains("finished (exit 0)"));
  CHECK_THAT(why["late1"], Catch::Contains("past its deadline"));
  CHECK_THAT(why["old"], Catch::Contains("no run dir left"));
  CHECK(why.count("live1") == 0);
}

TEST_CASE("a host without npu-smi is refused unless require_npu is false",
          "[npu-remote-test][host-check]") {
  const HostFacts f = parse_host_facts(
      "@@home\n/root\n@@npu-smi\nmissing\n@@driver\nmissing\n@@cann\nmissing\n@@tools\n"
      "present setsid\npresent timeout\npresent tail\n@@disk\n/dev/vda 1 1 99999999 1% /\n"
      "@@runs\n@@now\n1\n@@end\n");
  json in = minimal_input();
  in["runtime"] = "none";
  auto checks = evaluate_host(request_of(in), f);
  REQUIRE(checks.front().name == "npu-smi");
  CHECK(checks.front().status == "refused");
  CHECK_THAT(checks.front().detail, Catch::Contains("npu-driver"));
  CHECK_THAT(checks.front().detail, Catch::Contains("require_npu: false"));
  in["require_npu"] = false;
  for (const Check& c : evaluate_host(request_of(in), f)) CHECK(c.status != "refused");
}

TEST_CASE("bad inputs are refused with the field and what to do", "[npu-remote-test][input]") {
  auto error_of = [](const json& in, const json& settings = json::object()) {
    try {
      parse_request(in, settings);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  json in = minimal_input();
  in.erase("host");
  CHECK_THAT(error_of(in), Catch::StartsWith("host: no host given"));
  in["server"] = "910b-x";
  const json settings = {{"servers", {{"910b-a", {{"host", "10.1.1.1"}, {"user", "ci"}}}}}};
  CHECK_THAT(error_of(in, settings), Catch::Contains("not among the named servers (910b-a)"));
  in["server"] = "910b-a";
  CHECK(error_of(in, settings) == "no error");
  CHECK(parse_request(in, settings).target.host == "10.1.1.1");
  in["host"] = "10.0.0.1";
  CHECK_THAT(error_of(in, settings), Catch::Contains("either `server` or `host`"));

  in = minimal_input();
  in["job"] = {{"kind", "vllm_bench"}};
  CHECK_THAT(error_of(in), Catch::StartsWith("job.model: required"));
  in["job"] = {{"kind", "python"}};
  CHECK_THAT(error_of(in), Catch::StartsWith("job.script: required"));
  in["job"] = {{"kind", "command"}, {"command", "true"}};
  in["devices"] = {1, 1};
  CHECK_THAT(error_of(in), Catch::StartsWith("devices: each device"));
  in["devices"] = json::array();
  CHECK_THAT(error_of(in), Catch::StartsWith("devices: a container needs"));
  in["devices"] = {0};
  in["remote_base"] = "../x";
  CHECK_THAT(error_of(in), Catch::StartsWith("remote_base:"));
  in.erase("remote_base");
  in["dry_run"] = false;
  CHECK_THAT(error_of(in), Catch::StartsWith("output_dir: required"));
  in["output_dir"] = "/tmp/x";
  in["known_hosts"] = "/nonexistent/known_hosts";
  CHECK_THAT(error_of(in),
             Catch::Contains("ssh-keyscan -p 22 10.0.0.12 >> /nonexistent/known_hosts"));
  in["env"] = {{"BAD-NAME", "x"}};
  CHECK_THAT(error_of(in), Catch::StartsWith("env: 'BAD-NAME'"));
}

TEST_CASE("ssh runs with key auth only, strict host keys and no forwarding",
          "[npu-remote-test][ssh]") {
  SshTarget t;
  t.host = "10.0.0.12";
  t.user = "ci";
  t.port = 2222;
  t.identity_file = "/keys/id";
  t.known_hosts = "/keys/known_hosts";
  const SshClient c(t);
  const auto argv = c.ssh_argv("sh -s");
  const std::string line = skillrt::npu_remote::detail::shell_join(argv);
  for (const char* opt : {"BatchMode=yes", "StrictHostKeyChecking=yes", "ForwardAgent=no",
                          "PasswordAuthentication=no", "UserKnownHostsFile=/keys/known_hosts",
                          "IdentitiesOnly=yes", "ForwardX11=no"}) {
    CHECK_THAT(line, Catch::Contains(opt));
  }
  CHECK(argv.back() == "sh -s");
  CHECK(argv[argv.size() - 2] == "ci@10.0.0.12");
  const auto f = c.classify(255,
                            "No ED25519 host key is known for [10.0.0.12]:2222 and you have "
                            "requested strict checking.\nHost key verification failed.\n",
                            false);
  REQUIRE(f);
  CHECK(f->kind == SshFailure::Kind::kUnknownHostKey);
  CHECK_THAT(f->message, Catch::Contains("ssh-keyscan -p 2222 10.0.0.12 >> /keys/known_hosts"));
  CHECK_FALSE(c.classify(1, "", true));
}
