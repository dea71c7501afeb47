// Accuracy on the held-out set (data/heldout/, written before its author read the rule files;
// see its README). The dev-set tests keep their own thresholds; these use the bars, and
// print the numbers so that dev and held-out results can be read side by side.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "diagnose.hpp"
#include "diagnose_score.hpp"
#include "embedded_data.hpp"
#include "qa.hpp"
#include "router.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
namespace ng = skillrt::npu_graph;

namespace {

const std::string kHeldOut = std::string(SKILLRT_NPU_GRAPH_TEST_DATA) + "/heldout";

std::vector<json> read_jsonl(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::vector<json> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    out.push_back(json::parse(line));
  }
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// True when every key (alternatives split by '|') occurs in `text`, ignoring ASCII case.
bool has_all_keys(const std::string& text, const json& keys, std::string* missing) {
  const std::string hay = lower(text);
  for (const json& key : keys) {
    const std::string alts = key.get<std::string>();
    bool found = false;
    size_t start = 0;
    while (!found && start <= alts.size()) {
      size_t bar = alts.find('|', start);
      if (bar == std::string::npos) bar = alts.size();
      found = hay.find(lower(alts.substr(start, bar - start))) != std::string::npos;
      start = bar + 1;
    }
    if (!found) {
      *missing = alts;
      return false;
    }
  }
  return true;
}

}  // namespace

TEST_CASE("held-out: diagnose reaches 85% with at least 6 logs per class") {
  const auto score = ng::testing::score_diagnose_tree(kHeldOut + "/diagnose", "held-out diagnose");
  std::cout << score.report;
  INFO(score.report);
  CHECK(score.total >= 40);
  for (const auto& cls : ng::testing::diagnose_classes()) CHECK(score.per_class.at(cls) >= 6);
  CHECK(static_cast<double>(score.right) / score.total >= 0.85);
}

TEST_CASE("held-out: the router sends at least 25 requests to the right sub-skill") {
  const std::vector<json> cases = read_jsonl(kHeldOut + "/router.jsonl");
  REQUIRE(cases.size() >= 25);
  int right = 0;
  std::ostringstream report;
  for (const json& c : cases) {
    const ng::RouteDecision d = ng::route_request(c["input"], ng::RouteTable::builtin());
    const std::string expected = c["expected"].get<std::string>();
    if (d.skill == expected) {
      ++right;
    } else {
      report << "  " << c["input"]["text"].get<std::string>() << " -> " << d.skill << " (expected "
             << expected << ")\n";
    }
  }
  std::cout << "held-out router: " << right << "/" << cases.size() << " right\n" << report.str();
  INFO(report.str());
  CHECK(right >= 25);
}

// Hidden from ctest and run by hand (npu_graph_tests "[.heldout-qa]"): the first QA set is no
// longer untouched (its misses were studied for issue 12), and the second is a one-time
// measurement; HELDOUT_RESULTS.md records both.
TEST_CASE("held-out: QA cites a section holding the answer, and says it does not know",
          "[.heldout-qa]") {
  const ng::Bm25Index index(ng::load_knowledge({}, true));
  const std::vector<json> cases = read_jsonl(kHeldOut + "/qa.jsonl");
  int answerable = 0, answered = 0, unanswerable = 0, declined = 0;
  std::ostringstream report;
  for (const json& c : cases) {
    const std::string q = c["question"].get<std::string>();
    const json r = ng::answer_question(q, index, {});
    const bool known = r["known"].get<bool>();
    if (c.contains("known") && !c["known"].get<bool>()) {
      ++unanswerable;
      if (!known && r["citations"].empty()) {
        ++declined;
      } else {
        report << "  answered an unanswerable question: " << q << " -> "
               << r["citations"][0]["heading"].get<std::string>() << "\n";
      }
      continue;
    }
    ++answerable;
    if (!known) {
      report << "  did not know: " << q << "\n";
      continue;
    }
    const json& cite = r["citations"][0];
    std::string text;
    for (size_t i = 0; i < index.size(); ++i) {
      const ng::Section& s = index.section(i);
      if (s.source == cite["source"] && s.heading == cite["heading"] && s.line == cite["line"])
        text = s.heading + "\n" + s.text;
    }
    std::string missing;
    if (has_all_keys(text, c["keys"], &missing)) {
      ++answered;
    } else {
      report << "  wrong section: " << q << " -> " << cite["heading"].get<std::string>()
             << " (lacks '" << missing << "')\n";
    }
  }
  std::cout << "held-out qa: " << answered << "/" << answerable << " answered from the right "
            << "section, " << declined << "/" << unanswerable << " declined\n"
            << report.str();
  INFO(report.str());
  CHECK(answerable >= 15);
  CHECK(unanswerable >= 5);
  CHECK(answered >= 15);
  CHECK(declined == unanswerable);
}

// Later held-out QA sets (data/heldout/qa_heldout2.jsonl, qa_heldout3.jsonl), each written
// after a round of fixes and measured once without tuning (see HELDOUT_RESULTS.md). Each
// answerable question names the sections that hold its answer, labelled before the first run;
// the first citation must be one of them (its heading path ends with the label).
namespace {

void score_labelled_qa_set(const std::string& file, const std::string& name) {
  const ng::Bm25Index index(ng::load_knowledge({}, true));
  const std::vector<json> cases = read_jsonl(kHeldOut + "/" + file);
  int answerable = 0, answered = 0, unanswerable = 0, declined = 0;
  std::ostringstream report;
  for (const json& c : cases) {
    const std::string q = c["question"].get<std::string>();
    const json r = ng::answer_question(q, index, {});
    const bool known = r["known"].get<bool>();
    const std::string best = r["passages"].empty()
                                 ? std::string("(no passage)")
                                 : r["passages"][0]["heading"].get<std::string>() + ", coverage " +
                                       r["passages"][0]["coverage"].dump();
    if (c.contains("known") && !c["known"].get<bool>()) {
      ++unanswerable;
      if (!known && r["citations"].empty()) {
        ++declined;
      } else {
        report << "  answered an unanswerable question: " << q << " -> " << best << "\n";
      }
      continue;
    }
    ++answerable;
    if (!known) {
      report << "  did not know: " << q << " (best " << best << ")\n";
      continue;
    }
    const std::string got = r["citations"][0]["heading"].get<std::string>();
    bool right = false;
    for (const json& label : c["sections"]) {
      const std::string h = label.get<std::string>();
      right =
          right || (got.size() >= h.size() && got.compare(got.size() - h.size(), h.size(), h) == 0);
    }
    if (right) {
      ++answered;
    } else {
      report << "  wrong section: " << q << " -> " << got << " (labelled " << c["sections"].dump()
             << ")\n";
    }
  }
  std::cout << name << " qa: " << answered << "/" << answerable << " answered from a labelled "
            << "section, " << declined << "/" << unanswerable << " declined\n"
            << report.str();
  INFO(report.str());
  CHECK(answerable >= 20);
  CHECK(unanswerable >= 5);
  CHECK(answered >= 15);
  CHECK(declined == unanswerable);
}

}  // namespace

TEST_CASE("held-out 2: QA cites a labelled section, and says it does not know", "[.heldout-qa]") {
  score_labelled_qa_set("qa_heldout2.jsonl", "held-out 2");
}

TEST_CASE("held-out 3: QA cites a labelled section, and says it does not know", "[.heldout-qa]") {
  score_labelled_qa_set("qa_heldout3.jsonl", "held-out 3");
}
