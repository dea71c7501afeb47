// Routing quality on tests/data/routing_dev.jsonl with the real skill cards. Prints top-1
// accuracy, accuracy on out-of-scope requests and the confusion matrix, and fails below the
// targets of issue 6. The "test" split is held out: it was never used while tuning the
// lexicon, the weights or the calibration, so its numbers estimate accuracy on new requests.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

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
    CHECK(per_skill[name] <= 14);
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
