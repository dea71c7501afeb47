// vllm-tracker against the local fake GitHub (tests/data/fake_servers.py): paging, rate-limit
// waits, a 500 then success, a malformed source beside a good one, change detection between two
// runs, and a process killed mid-run then resumed.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "test_support.hpp"
#include "vllm_tracker.hpp"

namespace dt = skillrt::daily_trackers;
using dtt::json;

namespace {

struct Server {
  dtt::Child child{{dtt::kPython, dtt::kTestData + "/fake_servers.py"}, true};
  std::string api(const std::string& scenario) const {
    return "http://127.0.0.1:" + std::to_string(child.port()) + "/" + scenario;
  }
};

json request(const Server& s, const std::string& scenario, const dtt::TempDir& dir) {
  return json{{"since", "2026-11-02"},
              {"until", "2026-11-03"},
              {"output_dir", dir.str("out")},
              {"github",
               {{"api_url", s.api(scenario)},
                {"per_page", 2},
                {"retry_base_ms", 0},
                {"timeout_ms", 60000}}}};
}

std::vector<double> waits;
dt::Hooks recording_hooks() {
  waits.clear();
  dt::Hooks h;
  h.sleep = [](double s) { waits.push_back(s); };
  return h;
}

std::vector<std::string> keys(const json& out) {
  std::vector<std::string> k;
  for (const json& i : out["items"])
    k.push_back(i["repo"].get<std::string>() + i["key"].get<std::string>());
  std::sort(k.begin(), k.end());
  return k;
}

const json& item(const json& out, const std::string& key) {
  for (const json& i : out["items"]) {
    if (i["key"] == key) return i;
  }
  throw std::runtime_error("no item " + key);
}

}  // namespace

TEST_CASE("vllm-tracker: pages both repositories, filters, rates with citations") {
  Server s;
  dtt::TempDir dir("ok");
  const json out = dt::run_vllm_tracker(request(s, "ok", dir), recording_hooks());
  CHECK(keys(out) == std::vector<std::string>{"vllm-project/vllm#201", "vllm-project/vllm#202",
                                              "vllm-project/vllm-ascend#101",
                                              "vllm-project/vllm-ascend#102",
                                              "vllm-project/vllm-ascend#105"});
  CHECK(out["counts"]["fetched"] == 7);  // 103 (bot) and 104 (no match) fetched, not reported
  CHECK(out["counts"]["excluded_by_filters"] == 1);
  CHECK(out["counts"]["no_model_or_topic"] == 1);
  CHECK(out["sources"][1]["stats"]["pages"] == 3);  // 5 items in the window, 2 per page, + #107
  const json& mtp = item(out, "#101");
  CHECK(mtp["rating"] == "high");
  CHECK(mtp["state"] == "merged");
  CHECK(mtp["change"] == "new");
  CHECK(mtp["linked"] == json::array({99}));
  bool cited = false;
  for (const json& c : mtp["citations"]) {
    if (c["rule"] == "topic:mtp" && c["field"] == "title" &&
        c["matched"].get<std::string>().find("MTP") != std::string::npos)
      cited = true;
  }
  CHECK(cited);
  CHECK(item(out, "#202")["models"] == json::array({"glm"}));
  const std::string md = dtt::read_file(out["reports"]["md"].get<std::string>());
  CHECK(md.find("LLM analysis was not available") != std::string::npos);
  CHECK(md.find("`topic:mtp` (tracker_rules.yaml (shipped):") != std::string::npos);
  const std::string html = dtt::read_file(out["reports"]["html"].get<std::string>());
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(waits.empty());
}

TEST_CASE("vllm-tracker: a rate limit waits as told, a 500 is retried, results are the same") {
  Server s;
  dtt::TempDir a("rl");
  const json limited = dt::run_vllm_tracker(request(s, "ratelimit", a), recording_hooks());
  CHECK(waits == std::vector<double>{1, 1});  // once per repository's first page
  dtt::TempDir b("flaky");
  const json flaky = dt::run_vllm_tracker(request(s, "flaky", b), recording_hooks());
  CHECK(flaky["sources"][1]["stats"]["retries"] == 3);
  CHECK(keys(limited) == keys(flaky));
  CHECK(keys(flaky).size() == 5);
}

TEST_CASE("vllm-tracker: a malformed source fails alone, with a message naming it") {
  Server s;
  dtt::TempDir dir("bad");
  const json out = dt::run_vllm_tracker(request(s, "bad", dir), recording_hooks());
  REQUIRE(out["sources"].size() == 2);
  CHECK_FALSE(out["sources"][0]["ok"].get<bool>());
  const std::string error = out["sources"][0]["error"];
  CHECK(error.find("vllm-project/vllm (github)") == 0);
  CHECK(error.find("has no integer `number`") != std::string::npos);
  CHECK(out["sources"][1]["ok"].get<bool>());
  CHECK(keys(out).size() == 3);
  CHECK_FALSE(out["run"]["complete"].get<bool>());
  const std::string md = dtt::read_file(out["reports"]["md"].get<std::string>());
  CHECK(md.find("FAILED") != std::string::npos);
}

TEST_CASE("vllm-tracker: the second run reports new, updated, closed and merged") {
  Server s;
  dtt::TempDir dir("changes");
  json in = request(s, "ok", dir);
  dt::run_vllm_tracker(in, recording_hooks());
  in["github"]["api_url"] = s.api("v2");
  const json out = dt::run_vllm_tracker(in, recording_hooks());
  CHECK(out["run"]["id"] == 2);
  CHECK(item(out, "#101")["change"] == "unchanged");
  CHECK(item(out, "#102")["change"] == "closed");
  CHECK(item(out, "#105")["change"] == "merged");
  CHECK(item(out, "#106")["change"] == "new");
  CHECK(out["counts"]["by_change"] ==
        json{{"closed", 1}, {"merged", 1}, {"new", 1}, {"unchanged", 3}});
}

TEST_CASE("vllm-tracker: killed mid-run, the rerun resumes and writes the same report") {
  Server s;
  const std::string skillrt = std::string(SKILLRT_BINARY_DIR) + "/bin/skillrt";
  dtt::TempDir whole("whole");
  dtt::TempDir killed("killed");
  auto run_cli = [&](const dtt::TempDir& dir, const std::string& scenario) {
    const json in = request(s, scenario, dir);
    return std::vector<std::string>{
        skillrt,  "run",     "vllm-tracker", "-q",       "--timeout",
        "120000", "--input", in.dump(),      "--output", dir.str("result.json")};
  };
  {
    dtt::Child c(run_cli(whole, "ok"), false, whole.str("log"));
    REQUIRE(c.wait_exit() == 0);
  }
  {
    dtt::Child c(run_cli(killed, "slow"), false, killed.str("log1"));
    // Wait until the second page of vllm-ascend is being served (slowly), then kill -9.
    const std::string page2 = "/slow/repos/vllm-project/vllm-ascend/issues?page=2";
    bool asked = false;
    for (int i = 0; i < 200 && !asked; ++i) {
      asked = json::parse(dtt::http_get(s.child.port(), "/_stats")).contains(page2);
      if (!asked) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    REQUIRE(asked);
    c.kill_now(SIGKILL);
  }
  CHECK_FALSE(dtt::fs::exists(killed.str("out/vllm-tracker-2026-11-03.md")));
  {
    dtt::Child c(run_cli(killed, "slow"), false, killed.str("log2"));
    REQUIRE(c.wait_exit() == 0);
  }
  const json result = json::parse(dtt::read_file(killed.str("result.json")));
  CHECK(result["run"]["resumed"].get<bool>());
  CHECK(result["sources"][0]["resumed"].get<bool>());  // vllm was finished before the kill
  const json stats = json::parse(dtt::http_get(s.child.port(), "/_stats"));
  CHECK(stats["/slow/repos/vllm-project/vllm-ascend/issues?page=1"] == 1);  // not fetched again
  CHECK(stats["/slow/repos/vllm-project/vllm/issues?page=1"] == 1);
  CHECK(dtt::read_file(killed.str("out/vllm-tracker-2026-11-03.md")) ==
        dtt::read_file(whole.str("out/vllm-tracker-2026-11-03.md")));
}
