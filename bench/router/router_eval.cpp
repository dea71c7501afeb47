// Scores the router on labelled requests, e.g. the held-out set:
//
//   router_eval [--data FILE]... [--skills DIR]... [--split NAME]... [--no-misses]
//
// Prints, per data file, the evaluation report (top-1, none, multi-intent ordered exact,
// calibration, confusion matrix, misses) and the headline numbers per kind of request
// (single, cross, multi, offtopic). The default data is tests/data/routing_heldout.jsonl and
// the default cards are skills/. Whoever tunes the router does not run this on the held-out
// file more than once per change; misses there are for the final report, not for tuning.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "router/evaluation.hpp"
#include "router/router.hpp"
#include "router/skill_docs.hpp"

namespace {

using skillrt::router::EvalReport;
using skillrt::router::LabelledRequest;

void print_kinds(const skillrt::router::Router& router,
                 const std::vector<LabelledRequest>& requests,
                 const std::vector<std::string>& splits) {
  std::map<std::string, std::vector<LabelledRequest>> by_kind;
  for (const auto& r : requests) by_kind[r.kind.empty() ? "(no kind)" : r.kind].push_back(r);
  std::printf("by kind of request:\n");
  for (const auto& [kind, subset] : by_kind) {
    EvalReport report = skillrt::router::evaluate(router, subset, splits);
    if (report.in_scope + report.out_of_scope == 0) continue;
    std::printf("  %-10s %3zu requests: top-1 %zu/%zu, none %zu/%zu", kind.c_str(),
                report.in_scope + report.out_of_scope, report.in_scope_correct, report.in_scope,
                report.out_of_scope_correct, report.out_of_scope);
    if (report.multi_intent > 0) {
      std::printf(", ordered exact %zu/%zu", report.multi_intent_exact, report.multi_intent);
    }
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  std::vector<std::filesystem::path> dirs;
  std::vector<std::string> splits;
  bool misses = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--data") == 0 && i + 1 < argc) {
      files.emplace_back(argv[++i]);
    } else if (std::strcmp(argv[i], "--skills") == 0 && i + 1 < argc) {
      dirs.emplace_back(argv[++i]);
    } else if (std::strcmp(argv[i], "--split") == 0 && i + 1 < argc) {
      splits.emplace_back(argv[++i]);
    } else if (std::strcmp(argv[i], "--no-misses") == 0) {
      misses = false;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--data FILE]... [--skills DIR]... [--split NAME]... "
                   "[--no-misses]\n",
                   argv[0]);
      return 2;
    }
  }
  if (files.empty()) files = {SKILLRT_SOURCE_DIR "/tests/data/routing_heldout.jsonl"};
  if (dirs.empty()) dirs = {SKILLRT_SOURCE_DIR "/skills"};
  auto docs = skillrt::router::read_skills_dirs(dirs);
  for (const auto& p : docs.problems) std::fprintf(stderr, "warning: %s\n", p.message.c_str());
  if (docs.docs.empty()) {
    std::fprintf(stderr, "error: no SKILL.md found under the --skills directories\n");
    return 1;
  }
  skillrt::router::Router router(skillrt::router::to_cards(docs.docs));
  std::printf("%zu skill cards, threshold %.2f\n", router.cards().size(), router.threshold());
  for (const auto& file : files) {
    auto requests = skillrt::router::load_labelled(file);
    if (!requests) {
      std::fprintf(stderr, "error: %s\n", requests.error().message.c_str());
      return 1;
    }
    EvalReport report = skillrt::router::evaluate(router, *requests, splits);
    if (!misses) report.misses.clear();
    std::printf("\n%s", skillrt::router::format_report(report, file).c_str());
    print_kinds(router, *requests, splits);
  }
  return 0;
}
