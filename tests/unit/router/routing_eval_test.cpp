// Routing quality with the real skill cards. On tests/data/routing_dev.jsonl: top-1 accuracy,
// accuracy on out-of-scope requests and the confusion matrix, failing below the targets of
// issue 6; its "test" split was never used while tuning the lexicon, the grammar, the weights
// or the calibration. On tests/data/routing_heldout.jsonl (issue 28): a set written before
// the router learnt to read requests, scored once before and once after; the test fails
// below the level reached then, so routing cannot silently regress.
#include <catch2/catch.hpp>

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "router/evaluation.hpp"
#include "router/router.hpp"
#include "router/skill_docs.hpp"

namespace fs = std::filesystem;
using namespace skillrt::router;

namespace {

SkillDocs eval_docs() { return read_skills_dir(fs::path(SKILLRT_SOURCE_DIR) / "skills"); }

std::vector<LabelledRequest> dataset() {
  auto requests = load_labelled(fs::path(SKILLRT_SOURCE_DIR) / "tests/data/routing_dev.jsonl");
  REQUIRE(requests.has_value());
  return *requests;
}

}  // namespace

TEST_CASE("the routing dataset has the shape issue 6 asks for", "[router][eval]") {
  auto docs = eval_docs();
  auto requests = dataset();
  std::set<std::string> skills;
  for (const auto& d : docs.docs) skills.insert(d.name);
  std::map<std::string, size_t> per_skill, per_lang;
  std::set<int> ids;
  for (const auto& r : requests) {
    INFO("request " << r.id << ": " << r.text);
    CHECK((r.skill == kNoneLabel || skills.contains(r.skill)));
    CHECK((r.split == "dev" || r.split == "test"));
    CHECK(ids.insert(r.id).second);
    ++per_skill[r.skill];
    ++per_lang[r.lang];
  }
  auto total = static_cast<double>(requests.size());
  CHECK(requests.size() >= 150);
  CHECK(per_skill[std::string(kNoneLabel)] >= 15);
  // About 45% Chinese, 40% English, 15% mixed.
  CHECK(per_lang["zh"] / total > 0.38);
  CHECK(per_lang["en"] / total > 0.33);
  CHECK(per_lang["mixed"] / total > 0.10);
  CHECK(per_lang["zh"] + per_lang["en"] + per_lang["mixed"] == requests.size());
  // About equal per skill: every routable skill has its share.
  for (const auto& name : skills) {
    INFO(name);
    CHECK(per_skill[name] >= 9);
    CHECK(per_skill[name] <= 20);
  }
}

TEST_CASE("labelled-request files with bad lines are refused with the line", "[router][eval]") {
  fs::path dir = fs::path(SKILLRT_BINARY_DIR) / "tmp";
  fs::create_directories(dir);
  fs::path file = dir / "router-labelled-bad.jsonl";
  auto check = [&](const std::string& content, const std::string& expected) {
    std::ofstream(file) << content;
    auto r = load_labelled(file);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().message.find(expected) != std::string::npos);
  };
  check("{\"text\":\"a\",\"skill\":\"none\"}\nnot json\n", ":2: not a JSON object");
  check("{\"text\":\"a\"}\n", ":1: needs string fields");
  check("{\"text\":\"a\",\"skill\":\"none\",\"id\":\"seven\"}\n", ":1: wrong field type");
  check("{\"text\":\"a\",\"skill\":\"x\",\"skills\":\"x\"}\n", ":1: wrong field type");
  check("{\"text\":\"a\",\"skill\":\"x\",\"skills\":[\"y\",\"x\"]}\n", ":1: 'skills' must list");
  check("{\"text\":\"a\",\"skill\":\"none\",\"skills\":[\"x\"]}\n", ":1: 'skills' must list");
  fs::remove(file);
  CHECK_FALSE(load_labelled(file).has_value());
}

TEST_CASE("routing accuracy meets the targets", "[router][eval]") {
  auto docs = eval_docs();
  for (const auto& p : docs.problems) WARN(p.message);
  Router router(to_cards(docs.docs));
  auto requests = dataset();

  auto dev = evaluate(router, requests, {"dev"});
  auto held_out = evaluate(router, requests, {"test"});
  auto all = evaluate(router, requests);
  // Held-out misses are not printed: whoever tunes the router looks at the dev split only.
  held_out.misses.clear();
  all.misses.clear();
  std::cout << format_report(dev, "routing dev split") << '\n'
            << format_report(held_out, "routing held-out split") << '\n'
            << format_report(all, "routing all requests") << std::flush;

  // Issue 6: top-1 >= 95% on the development set, >= 90% of out-of-scope requests to none.
  CHECK(dev.top1_accuracy() >= 0.95);
  CHECK(dev.none_accuracy() >= 0.90);
  // Held out: a regression guard a little below the tuned numbers, since nothing was fitted
  // to these requests.
  CHECK(held_out.top1_accuracy() >= 0.85);
  CHECK(held_out.none_accuracy() >= 0.80);
}

namespace {

std::vector<SkillCard> tiny_cards() {
  return {
      {"weather", "Tells the weather forecast.", {"weather", "forecast", "rain"}, {"will it rain"}},
      {"docs",
       "Writes documentation pages.",
       {"documentation", "doc page"},
       {"write the doc page"}},
  };
}

LabelledRequest labelled(std::string text, std::vector<std::string> skills) {
  LabelledRequest r;
  r.text = std::move(text);
  r.skill = skills.empty() ? std::string(kNoneLabel) : skills.front();
  r.skills = std::move(skills);
  r.split = "dev";
  return r;
}

}  // namespace

TEST_CASE("the evaluation scores ordered answers and calibration", "[router][eval]") {
  Router router(tiny_cards(), 0.0);
  std::vector<LabelledRequest> requests = {
      labelled("will it rain tomorrow, what is the forecast", {"weather"}),
      labelled("write the doc page, then tell me the weather forecast", {"docs", "weather"}),
      labelled("tell me the weather forecast, then write the doc page", {"docs", "weather"}),
      labelled("qwzx blorp fnord", {}),
  };
  auto report = evaluate(router, requests);
  CHECK(report.in_scope == 3);
  CHECK(report.in_scope_correct == 2);  // the third answers weather first
  CHECK(report.out_of_scope_correct == 1);
  CHECK(report.multi_intent == 2);
  CHECK(report.multi_intent_exact == 1);
  REQUIRE(report.misses.size() == 1);
  CHECK(report.misses[0].predicted == "weather > docs");
  size_t binned = 0;
  for (const auto& bin : report.reliability) binned += bin.count;
  CHECK(binned == requests.size());
  CHECK(report.calibration_error() >= 0.0);
  CHECK(report.calibration_error() <= 1.0);
  auto text = format_report(report, "tiny");
  CHECK(text.find("multi-intent, ordered list exact: 1/2") != std::string::npos);
  CHECK(text.find("expected calibration error") != std::string::npos);
}

namespace {

// Issue 28: the held-out set, pinned by its digest, and the level the router reached on it
// when it was scored after the change (tests/data/ROUTING_HELDOUT.md). Counts, not rates: one
// request lost fails the test. Raise them when routing improves; never lower them to pass.
constexpr std::string_view kHeldoutSha256 =
    "ffa0794e68ee5f0d2a7e42b801661c01740a920daac75e0ae7e940a25a77b913";
constexpr size_t kHeldoutTop1 = 137;    // of 148 in-scope requests
constexpr size_t kHeldoutNone = 25;     // of 25 out-of-scope requests
constexpr size_t kHeldoutOrdered = 12;  // of 12 multi-intent requests

fs::path heldout_path() {
  return fs::path(SKILLRT_SOURCE_DIR) / "tests/data/routing_heldout.jsonl";
}

std::string sha256_hex(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &size, EVP_sha256(), nullptr) != 1) {
    return {};
  }
  std::string hex;
  char buf[3];
  for (unsigned int i = 0; i < size; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", digest[i]);
    hex += buf;
  }
  return hex;
}

// What falls short of the reached level, one line each; empty when nothing does.
std::vector<std::string> heldout_shortfalls(const EvalReport& r) {
  std::vector<std::string> out;
  auto below = [&](const char* what, size_t got, size_t level) {
    if (got >= level) return;
    std::ostringstream line;
    line << what << ' ' << got << " is below the level reached in issue 28 (" << level
         << "); see tests/data/ROUTING_HELDOUT.md and fix the router, not the set";
    out.push_back(line.str());
  };
  below("held-out top-1", r.in_scope_correct, kHeldoutTop1);
  below("held-out none", r.out_of_scope_correct, kHeldoutNone);
  below("held-out multi-intent ordered exact", r.multi_intent_exact, kHeldoutOrdered);
  return out;
}

}  // namespace

TEST_CASE("the held-out set is the one written before the change", "[router][eval]") {
  INFO(
      "tests/data/routing_heldout.jsonl was edited: its numbers no longer measure anything; "
      "restore it from git (see tests/data/ROUTING_HELDOUT.md)");
  CHECK(sha256_hex(heldout_path()) == kHeldoutSha256);
  auto requests = load_labelled(heldout_path());
  REQUIRE(requests.has_value());
  auto docs = eval_docs();
  std::set<std::string> skills;
  for (const auto& d : docs.docs) skills.insert(d.name);
  std::map<std::string, size_t> per_skill, per_kind;
  for (const auto& r : *requests) {
    INFO("request " << r.id << ": " << r.text);
    CHECK(r.split == "heldout");
    for (const auto& s : r.skills) CHECK(skills.contains(s));
    ++per_skill[r.skill];
    ++per_kind[r.kind];
  }
  CHECK(requests->size() >= 150);
  CHECK(per_skill[std::string(kNoneLabel)] >= 20);
  CHECK(per_kind["multi"] >= 10);
  CHECK(per_kind["cross"] >= 20);
  for (const auto& name : skills) {
    INFO(name);
    CHECK(per_skill[name] >= 4);
  }
}

TEST_CASE("routing on the held-out set keeps the level reached in issue 28", "[router][eval]") {
  auto docs = eval_docs();
  Router router(to_cards(docs.docs));
  auto requests = load_labelled(heldout_path());
  REQUIRE(requests.has_value());
  auto report = evaluate(router, *requests);
  // Misses are not printed: whoever tunes the router looks at the dev split only.
  report.misses.clear();
  std::cout << format_report(report, "routing held-out set (issue 28)") << std::flush;
  for (const auto& s : heldout_shortfalls(report)) FAIL_CHECK(s);
}

TEST_CASE("the held-out level check fails a router that routes worse", "[router][eval]") {
  auto docs = eval_docs();
  auto requests = load_labelled(heldout_path());
  REQUIRE(requests.has_value());
  // Nothing passes: top-1 and ordered answers collapse.
  Router silent(to_cards(docs.docs), 1.01);
  auto shortfalls = heldout_shortfalls(evaluate(silent, *requests));
  CHECK(std::any_of(shortfalls.begin(), shortfalls.end(),
                    [](const std::string& s) { return s.starts_with("held-out top-1"); }));
  // Everything passes: out-of-scope requests are no longer answered none.
  Router eager(to_cards(docs.docs), 0.0);
  shortfalls = heldout_shortfalls(evaluate(eager, *requests));
  CHECK(std::any_of(shortfalls.begin(), shortfalls.end(),
                    [](const std::string& s) { return s.starts_with("held-out none"); }));
}
