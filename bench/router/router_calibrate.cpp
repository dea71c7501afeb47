// Fits the router's logistic calibration on the training ("dev") split of the labelled
// requests and reports routing quality on both splits with the fitted model.
//
//   router_calibrate [--data FILE] [--skills DIR]... [--threshold T] [--show-heldout]
//
// Output: the coefficients to paste into core/src/router/calibration.cpp, a reliability
// table (predicted confidence against observed accuracy) and the evaluation reports.
// The held-out ("test") split never enters the fit.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "router/detail/analyzer.hpp"
#include "router/evaluation.hpp"
#include "router/router.hpp"
#include "router/skill_docs.hpp"

namespace {

using skillrt::router::Calibration;
using skillrt::router::Features;

// The model's inputs: a constant for the bias, then the features as Calibration::apply
// takes them.
constexpr size_t kInputs = 6;

struct Sample {
  std::array<double, kInputs> x;  // 1, log1p(raw), coverage, margin, log1p(matched), known
  double y;
};

std::array<double, kInputs> to_x(const Features& f) {
  return {1.0, std::log1p(f.raw), f.coverage, f.margin, std::log1p(f.matched), f.known};
}

// Newton-Raphson for L2-regularised logistic regression; with six parameters a dense solve
// per step is all it takes.
std::array<double, kInputs> fit(const std::vector<Sample>& samples, double l2) {
  constexpr size_t n = kInputs;
  std::array<double, n> w{};
  for (int iter = 0; iter < 100; ++iter) {
    std::array<double, n> grad{};
    std::array<std::array<double, n + 1>, n> h{};  // augmented [H | -grad]
    for (const auto& s : samples) {
      double z = 0.0;
      for (size_t i = 0; i < n; ++i) z += w[i] * s.x[i];
      double p = 1.0 / (1.0 + std::exp(-z));
      for (size_t i = 0; i < n; ++i) {
        grad[i] += (p - s.y) * s.x[i];
        for (size_t j = 0; j < n; ++j) h[i][j] += p * (1.0 - p) * s.x[i] * s.x[j];
      }
    }
    for (size_t i = 1; i < n; ++i) {
      grad[i] += l2 * w[i];
      h[i][i] += l2;
    }
    h[0][0] += 1e-9;
    for (size_t i = 0; i < n; ++i) h[i][n] = -grad[i];
    for (size_t col = 0; col < n; ++col) {
      size_t pivot = col;
      for (size_t r = col + 1; r < n; ++r) {
        if (std::fabs(h[r][col]) > std::fabs(h[pivot][col])) pivot = r;
      }
      std::swap(h[col], h[pivot]);
      for (size_t r = 0; r < n; ++r) {
        if (r == col || h[col][col] == 0.0) continue;
        double f = h[r][col] / h[col][col];
        for (size_t c = col; c <= n; ++c) h[r][c] -= f * h[col][c];
      }
    }
    double step = 0.0;
    for (size_t i = 0; i < n; ++i) {
      double d = h[i][i] == 0.0 ? 0.0 : h[i][n] / h[i][i];
      w[i] += d;
      step += std::fabs(d);
    }
    if (step < 1e-9) break;
  }
  return w;
}

// One sample per dev request: is the top candidate (by raw score, which the calibration
// does not change) the label? The model estimates P(top-1 is right), which decides none.
// Requests nothing matched are none whatever the calibration says and give no sample.
std::vector<Sample> dev_samples(const skillrt::router::Router& probe,
                                const std::vector<skillrt::router::LabelledRequest>& requests) {
  std::vector<Sample> samples;
  for (const auto& r : requests) {
    if (r.split != "dev") continue;
    auto scored = probe.score(r.text);
    if (scored.empty()) continue;
    bool correct = probe.cards()[scored.front().card].name == r.skill;
    samples.push_back(Sample{to_x(scored.front().features), correct ? 1.0 : 0.0});
  }
  return samples;
}

Calibration fit_calibration(const std::vector<Sample>& samples) {
  auto w = fit(samples, 0.05);
  return Calibration{w[0], w[1], w[2], w[3], w[4], w[5]};
}

// --grid: tries term weightings on the dev split only, each with its own refitted
// calibration, and prints the best few by dev top-1 and none together.
int grid_search(const std::vector<skillrt::router::SkillCard>& cards,
                const std::vector<skillrt::router::LabelledRequest>& requests) {
  struct Row {
    size_t right;
    skillrt::router::EvalReport report;
    skillrt::router::Weights w;
  };
  auto run = [&](const skillrt::router::Weights& w) {
    skillrt::router::Router probe(cards, 0.5, Calibration::fitted(), w);
    skillrt::router::Router fitted(cards, 0.5, fit_calibration(dev_samples(probe, requests)), w);
    auto report = skillrt::router::evaluate(fitted, requests, {"dev"});
    return Row{report.in_scope_correct + report.out_of_scope_correct, report, w};
  };
  auto print = [](const Row& row) {
    const auto& w = row.w;
    std::printf(
        "top-1 %5.1f%% none %5.1f%% ordered %zu/%zu | keywords %.1f examples %.1f action %.2f "
        "object %.2f negated %.1f context %.1f\n",
        100.0 * row.report.top1_accuracy(), 100.0 * row.report.none_accuracy(),
        row.report.multi_intent_exact, row.report.multi_intent, w.keywords, w.examples, w.action,
        w.object, w.negated, w.context);
  };
  std::printf("defaults: ");
  print(run(skillrt::router::Weights{}));
  // The same words as a bag, without reading the request's structure: what the roles buy.
  skillrt::router::Weights bag;
  bag.action = bag.object = bag.negated = bag.context = 1.0;
  std::printf("without roles: ");
  print(run(bag));
  std::vector<Row> rows;
  for (double action : {1.0, 1.5, 2.0})
    for (double object : {1.0, 1.5, 2.0, 3.0})
      for (double negated : {0.2, 0.5})
        for (double context : {0.3, 0.6})
          for (double ex : {1.0, 1.5}) {
            skillrt::router::Weights w;
            w.action = action;
            w.object = object;
            w.negated = negated;
            w.context = context;
            w.examples = ex;
            rows.push_back(run(w));
          }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.right > b.right; });
  for (size_t i = 0; i < rows.size() && i < 15; ++i) print(rows[i]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string data = SKILLRT_SOURCE_DIR "/tests/data/routing_dev.jsonl";
  std::vector<std::filesystem::path> dirs;
  double threshold = skillrt::router::Router::kDefaultThreshold;
  bool show_heldout = false;
  bool grid = false;
  std::vector<std::string> queries;
  std::string dump;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--data") == 0 && i + 1 < argc) {
      data = argv[++i];
    } else if (std::strcmp(argv[i], "--skills") == 0 && i + 1 < argc) {
      dirs.emplace_back(argv[++i]);
    } else if (std::strcmp(argv[i], "--query") == 0 && i + 1 < argc) {
      queries.emplace_back(argv[++i]);
    } else if (std::strcmp(argv[i], "--dump") == 0 && i + 1 < argc) {
      dump = argv[++i];
    } else if (std::strcmp(argv[i], "--grid") == 0) {
      grid = true;
    } else if (std::strcmp(argv[i], "--show-heldout") == 0) {
      show_heldout = true;
    } else if (std::strcmp(argv[i], "--threshold") == 0 && i + 1 < argc) {
      threshold = std::stod(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: %s [--data FILE] [--skills DIR]... [--threshold T] [--show-heldout] "
                   "[--query TEXT]... [--grid]\n",
                   argv[0]);
      return 2;
    }
  }
  if (dirs.empty()) {
    dirs = {SKILLRT_SOURCE_DIR "/skills"};
  }
  auto docs = skillrt::router::read_skills_dirs(dirs);
  for (const auto& p : docs.problems) std::fprintf(stderr, "warning: %s\n", p.message.c_str());
  auto requests = skillrt::router::load_labelled(data);
  if (!requests) {
    std::fprintf(stderr, "error: %s\n", requests.error().message.c_str());
    return 1;
  }
  auto cards = skillrt::router::to_cards(docs.docs);
  if (grid) return grid_search(cards, *requests);
  // The features do not depend on the calibration, so any instance gives the same samples.
  skillrt::router::Router probe(cards, threshold);

  // --query: features, production score and matched terms of the best candidates, for
  // diagnosing one request.
  for (const auto& q : queries) {
    std::printf("query: %s\n", q.c_str());
    // How the request was read: the words that took a role, and the parts it was split in.
    namespace detail = skillrt::router::detail;
    auto analysis = detail::analyze_units(q, detail::Lexicon::builtin());
    auto structure = detail::structure_of(analysis);
    static constexpr const char* kRoleNames[] = {"plain", "ACTION", "OBJECT", "negated", "context"};
    std::printf("  read as %zu part(s):", structure.segments.size());
    for (const auto& t : analysis.terms) {
      if (t.kind == detail::TermKind::kConcept || t.kind == detail::TermKind::kCjkBigram) continue;
      auto role = detail::role_of(t, structure);
      if (role == detail::Role::kPlain) continue;
      std::printf(" %s:%s", t.surface.c_str(), kRoleNames[static_cast<int>(role)]);
    }
    std::printf("\n");
    if (structure.segments.size() > 1) {
      for (auto [begin, end] : structure.segments) {
        std::printf("  part [%u, %u):", begin, end);
        for (const auto& t : analysis.terms) {
          if (t.unit_begin >= begin && t.unit_end <= end && t.kind != detail::TermKind::kConcept &&
              t.kind != detail::TermKind::kCjkBigram) {
            std::printf(" %s", t.surface.c_str());
          }
        }
        std::printf("\n");
      }
    }
    std::printf("  answer:");
    for (const auto& c : probe.rank(q, 5)) {
      std::string task = c.task > 0 ? ", task " + std::to_string(c.task) : "";
      std::printf(" %s(%.2f%s)", c.skill.c_str(), c.score, task.c_str());
    }
    std::printf("\n");
    auto scored = probe.score(q);
    auto ranked = probe.rank_all(q, 3);
    for (size_t k = 0; k < ranked.size() && k < scored.size(); ++k) {
      const auto& f = scored[k].features;
      std::printf("  %-22s score %.3f raw %.2f coverage %.2f margin %.2f matched %.1f:",
                  ranked[k].skill.c_str(), ranked[k].score, f.raw, f.coverage, f.margin, f.matched);
      for (const auto& m : ranked[k].matched) std::printf(" %s", m.c_str());
      std::printf("\n");
    }
  }
  if (!queries.empty()) return 0;

  // --dump FILE: the features of the best three candidates of every request, for trying
  // calibration models outside this tool.
  if (!dump.empty()) {
    std::FILE* f = std::fopen(dump.c_str(), "w");
    if (f == nullptr) {
      std::fprintf(stderr, "error: cannot write %s\n", dump.c_str());
      return 1;
    }
    std::fprintf(f, "id\tsplit\tkind\tlabel\trank\tskill\traw\tcoverage\tmargin\tmatched\tknown\n");
    for (const auto& r : *requests) {
      auto scored = probe.score(r.text);
      for (size_t k = 0; k < scored.size() && k < 3; ++k) {
        const auto& ft = scored[k].features;
        std::fprintf(f, "%d\t%s\t%s\t%s\t%zu\t%s\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\n", r.id,
                     r.split.c_str(), r.kind.c_str(), r.skill.c_str(), k,
                     probe.cards()[scored[k].card].name.c_str(), ft.raw, ft.coverage, ft.margin,
                     ft.matched, ft.known);
      }
    }
    std::fclose(f);
    return 0;
  }

  auto samples = dev_samples(probe, *requests);
  Calibration c = fit_calibration(samples);
  std::printf(
      "fitted on %zu matched dev requests:\n  c.bias = %.4f;\n  c.w_raw = %.4f;\n"
      "  c.w_coverage = %.4f;\n  c.w_margin = %.4f;\n  c.w_matched = %.4f;\n"
      "  c.w_known = %.4f;\n",
      samples.size(), c.bias, c.w_raw, c.w_coverage, c.w_margin, c.w_matched, c.w_known);

  skillrt::router::Router fitted(cards, threshold, c);
  // Reliability: within each confidence bin, how often the top-1 was right.
  std::array<size_t, 5> total{}, right{};
  for (const auto& r : *requests) {
    auto scored = fitted.score(r.text);
    if (scored.empty()) continue;
    auto bin = std::min<size_t>(4, static_cast<size_t>(scored.front().score * 5.0));
    ++total[bin];
    right[bin] += fitted.cards()[scored.front().card].name == r.skill ? 1 : 0;
  }
  std::printf("reliability (all splits, top-1): confidence bin -> observed accuracy\n");
  for (size_t b = 0; b < 5; ++b) {
    std::printf("  [%.1f, %.1f): %3zu requests, %5.1f%% correct\n", 0.2 * static_cast<double>(b),
                0.2 * static_cast<double>(b + 1), total[b],
                total[b] == 0
                    ? 0.0
                    : 100.0 * static_cast<double>(right[b]) / static_cast<double>(total[b]));
  }
  std::printf("%s", skillrt::router::format_report(
                        skillrt::router::evaluate(fitted, *requests, {"dev"}), "dev split")
                        .c_str());
  // Held-out misses stay hidden by default so that tuning looks at the dev split only.
  auto heldout = skillrt::router::evaluate(fitted, *requests, {"test"});
  if (!show_heldout) heldout.misses.clear();
  std::printf("%s", skillrt::router::format_report(heldout, "held-out split").c_str());
  return 0;
}
