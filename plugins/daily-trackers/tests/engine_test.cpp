// The engine's parts on their own: the rule file, the benchmark row reader, the history store.
#include <catch2/catch.hpp>

#include "bench_source.hpp"
#include "history_store.hpp"
#include "test_support.hpp"
#include "tracker_rules.hpp"
#include "vllm_tracker.hpp"

#include <fstream>

namespace dt = skillrt::daily_trackers;

TEST_CASE("rules: the shipped file rates an item and cites rule, origin and matched text") {
  const dt::TrackerRules rules = dt::load_tracker_rules(dt::Json::object());
  dt::TrackedItem t;
  t.title = "[Feat] Support MTP for DeepSeek V3";
  t.body = "works with aclgraph capture";
  const dt::Assessment a = dt::assess(rules, t);
  CHECK(a.rating == dt::Rating::kHigh);
  CHECK(a.models == std::vector<std::string>{"deepseek"});
  REQUIRE(a.topics.size() == 2);
  CHECK(a.topics[0] == "mtp");
  CHECK(a.topics[1] == "graph-mode");
  const dt::Citation& mtp = a.citations[1];
  CHECK(mtp.rule == "topic:mtp");
  CHECK(mtp.field == "title");
  CHECK(mtp.matched.find("MTP") != std::string::npos);
  CHECK(mtp.origin.rfind("tracker_rules.yaml (shipped):", 0) == 0);
  CHECK(a.citations[2].field == "body");
}

TEST_CASE("rules: filters drop bots, a user file adds a model, bad patterns name file and line") {
  dt::TrackerRules rules = dt::load_tracker_rules(dt::Json::object());
  dt::TrackedItem bot;
  bot.title = "Bump qwen-tools from 1 to 2";
  bot.author = "dependabot[bot]";
  CHECK(dt::assess(rules, bot).excluded_by.find("exclude_authors") != std::string::npos);

  dt::merge_tracker_rules(
      rules, dt::parse_tracker_rules(
                 "models:\n  - id: llama\n    rating: low\n    patterns: [llama]\n", "team.yaml"));
  dt::TrackedItem t;
  t.title = "Llama 4 scout fix";
  const dt::Assessment a = dt::assess(rules, t);
  REQUIRE(a.citations.size() == 1);
  CHECK(a.citations[0].origin == "team.yaml:2");
  CHECK(a.rating == dt::Rating::kLow);

  try {
    dt::parse_tracker_rules("topics:\n  - id: x\n    patterns: ['(unclosed']\n", "bad.yaml");
    FAIL("a bad regex was accepted");
  } catch (const dt::InputError& e) {
    CHECK(std::string(e.what()).find("bad.yaml:2") != std::string::npos);
    CHECK(std::string(e.what()).find("(unclosed") != std::string::npos);
  }
}

TEST_CASE("bench rows: InferenceX JSON and the same rows as CSV read alike") {
  const std::string json_text =
      dtt::read_file(dtt::kPluginData + "/inferencex/sample_2026-11-02.json");
  const std::string csv_text = dtt::read_file(dtt::kTestData + "/bench_2026-11-02.csv");
  const auto a = dt::parse_bench_rows(json_text, "auto", "json", "2026-01-01");
  const auto b = dt::parse_bench_rows(csv_text, "auto", "csv", "2026-01-01");
  REQUIRE(a.size() == 24);
  REQUIRE(b.size() == a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].key() == b[i].key());
    CHECK(a[i].metric("tput_per_gpu") == b[i].metric("tput_per_gpu"));
  }
  CHECK(a[0].model == "dsr1");
  CHECK(a[0].date == "2026-11-02");
  CHECK(a[0].gpus == 8);
  // Metrics nested under `metrics`, as the dashboard's API returns them, read the same.
  const auto nested = dt::parse_bench_rows(
      R"({"results":[{"hw":"h100","model":"m","isl":"8192","osl":1024,"conc":4,"metrics":{"tput_per_gpu":10.5}}]})",
      "json", "api", "2026-11-05");
  REQUIRE(nested.size() == 1);
  CHECK(nested[0].isl == 8192);
  CHECK(nested[0].date == "2026-11-05");
}

TEST_CASE("bench rows: a malformed row names the source, the row and the field") {
  auto message = [](const std::string& text) {
    try {
      dt::parse_bench_rows(text, "auto", "src", "2026-01-01");
    } catch (const dt::BenchFormatError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(
      message(
          R"([{"hw":"a","model":"m","isl":1,"osl":1,"conc":1,"tput_per_gpu":1},{"hw":"b","model":"m","osl":1,"conc":1,"tput_per_gpu":1}])") ==
      "src: row 2: field `isl` is missing");
  CHECK(message(R"([{"hw":"a","model":"m","isl":1,"osl":1,"conc":"x","tput_per_gpu":1}])") ==
        "src: row 1: field `conc` is \"x\", not an integer");
  CHECK(message("{not json").rfind("src: not valid JSON", 0) == 0);
  CHECK(message("hw,model,isl\nh100,m\n") == "src: line 2: 2 fields, the header has 3");
}

TEST_CASE("history: migrations set user_version, rewrites never duplicate, runs resume") {
  dtt::TempDir dir("store");
  const std::string db = dir.str("h.sqlite");
  dt::TrackedItem t;
  t.repo = "o/r";
  t.key = "#1";
  t.title = "one";
  {
    dt::HistoryStore s(db);
    CHECK(s.schema_version() == 2);
    const dt::RunInfo r = s.begin_run("k", "key");
    CHECK_FALSE(r.resumed);
    s.save_items(r.id, "src", {t}, {"next", false});
    t.title = "one, edited";
    s.save_items(r.id, "src", {t}, {"", true});
    CHECK(s.run_items(r.id).size() == 1);
    CHECK(s.run_items(r.id)[0].title == "one, edited");
  }
  dt::HistoryStore s(db);  // reopening migrates nothing and keeps the open run
  CHECK(s.schema_version() == 2);
  const dt::RunInfo again = s.begin_run("k", "key");
  CHECK(again.resumed);
  CHECK(s.checkpoint(again.id, "src").done);
  s.finish_run(again.id);
  const dt::RunInfo next = s.begin_run("k", "key");
  CHECK_FALSE(next.resumed);
  REQUIRE(next.previous);
  CHECK(*next.previous == again.id);
  CHECK(s.previous_item(next.id, "k", "o/r", "#1")->title == "one, edited");
}

TEST_CASE("history: a file that is not a history is refused with its name") {
  dtt::TempDir dir("notdb");
  { std::ofstream(dir.str("x.sqlite")) << "this is not sqlite, just text that is long enough"; }
  try {
    dt::HistoryStore s(dir.str("x.sqlite"));
    FAIL("opened");
  } catch (const dt::InputError& e) {
    CHECK(std::string(e.what()).find("x.sqlite") != std::string::npos);
  }
}
