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

#include "router/evaluation.hpp"
#include "router/router.hpp"
#include "router/skill_docs.hpp"

namespace {

using skillrt::router::Calibration;
using skillrt::router::Features;

struct Sample {
  std::array<double, 5> x;  // 1, log1p(raw), coverage, margin, log1p(matched)
  double y;
};

std::array<double, 5> to_x(const Features& f) {
  return {1.0, std::log1p(f.raw), f.coverage, f.margin, std::log1p(f.matched)};
}

// Newton-Raphson for L2-regularised logistic regression; four parameters, so a dense
// 5x5 solve per step is all it takes.
std::array<double, 5> fit(const std::vector<Sample>& samples, double l2) {
  std::array<double, 5> w{};
  for (int iter = 0; iter < 100; ++iter) {
    std::array<double, 5> grad{};
    std::array<std::array<double, 6>, 5> h{};  // augmented [H | -grad]
    for (const auto& s : samples) {
      double z = 0.0;
      for (size_t i = 0; i < 5; ++i) z += w[i] * s.x[i];
      double p = 1.0 / (1.0 + std::exp(-z));
      for (size_t i = 0; i < 5; ++i) {
        grad[i] += (p - s.y) * s.x[i];
        for (size_t j = 0; j < 5; ++j) h[i][j] += p * (1.0 - p) * s.x[i] * s.x[j];
      }
    }
    for (size_t i = 1; i < 5; ++i) {
      grad[i] += l2 * w[i];
      h[i][i] += l2;
    }
    h[0][0] += 1e-9;
    for (size_t i = 0; i < 5; ++i) h[i][5] = -grad[i];
    for (size_t col = 0; col < 5; ++col) {
      size_t pivot = col;
      for (size_t r = col + 1; r < 5; ++r) {
        if (std::fabs(h[r][col]) > std::fabs(h[pivot][col])) pivot = r;
      }
      std::swap(h[col], h[pivot]);
      for (size_t r = 0; r < 5; ++r) {
        if (r == col || h[col][col] == 0.0) continue;
        double f = h[r][col] / h[col][col];
        for (size_t c = col; c < 6; ++c) h[r][c] -= f * h[col][c];
      }
    }
    double step = 0.0;
    for (size_t i = 0; i < 5; ++i) {
      double d = h[i][i] == 0.0 ? 0.0 : h[i][5] / h[i][i];
      w[i] += d;
      step += std::fabs(d);
    }
    if (step < 1e-9) break;
  }
  return w;
}

// Share of in-scope dev requests whose best candidate by raw score is the label: ranking
// quality before any threshold, which the weights decide and the calibration cannot change.
double dev_ranking(const std::vector<skillrt::router::SkillCard>& cards,
                   const std::vector<skillrt::router::LabelledRequest>& requests,
                   const skillrt::router::Weights& w) {
  skillrt::router::Router router(cards, 0.5, Calibration::fitted(), w);
  size_t total = 0, right = 0;
  for (const auto& r : requests) {
    if (r.split != "dev" || r.skill == skillrt::router::kNoneLabel) continue;
    ++total;
    auto scored = router.score(r.text);
    right += !scored.empty() && router.cards()[scored.front().card].name == r.skill ? 1 : 0;
  }
  return total == 0 ? 0.0 : static_cast<double>(right) / static_cast<double>(total);
}

// --grid: tries weightings on the dev split only and prints the best few.
int grid_search(const std::vector<skillrt::router::SkillCard>& cards,
                const std::vector<skillrt::router::LabelledRequest>& requests) {
  skillrt::router::Weights base;
  std::printf("defaults: dev ranking %.1f%%\n", 100.0 * dev_ranking(cards, requests, base));
  struct Row {
    double score;
    skillrt::router::Weights w;
  };
  std::vector<Row> rows;
  for (double name : {2.0, 3.0})
    for (double kw : {1.5, 2.0, 3.0})
      for (double desc : {0.5, 1.0})
        for (double ex : {0.5, 1.0, 1.5})
          for (double b : {0.25, 0.4, 0.6})
            for (double con : {0.5, 0.7, 1.0})
              for (double bi : {0.2, 0.3, 0.5}) {
                skillrt::router::Weights w = base;
                w.name = name;
                w.keywords = kw;
                w.description = desc;
                w.examples = ex;
                w.b = b;
                w.concept_word = con;
                w.cjk_bigram = bi;
                rows.push_back({dev_ranking(cards, requests, w), w});
              }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.score > b.score; });
  for (size_t i = 0; i < rows.size() && i < 10; ++i) {
    const auto& w = rows[i].w;
    std::printf(
        "%.1f%%  name %.1f keywords %.1f description %.1f examples %.1f b %.2f "
        "concept %.1f bigram %.1f\n",
        100.0 * rows[i].score, w.name, w.keywords, w.description, w.examples, w.b, w.concept_word,
        w.cjk_bigram);
  }
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
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--data") == 0 && i + 1 < argc) {
      data = argv[++i];
    } else if (std::strcmp(argv[i], "--skills") == 0 && i + 1 < argc) {
      dirs.emplace_back(argv[++i]);
    } else if (std::strcmp(argv[i], "--query") == 0 && i + 1 < argc) {
      queries.emplace_back(argv[++i]);
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

  // One sample per request: is the top candidate (by raw score, which the calibration does
  // not change) the label? The model estimates P(top-1 is right), which decides none.
  std::vector<Sample> samples;
  size_t requests_used = 0;
  for (const auto& r : *requests) {
    if (r.split != "dev") continue;
    ++requests_used;
    auto scored = probe.score(r.text);
    if (scored.empty()) continue;  // nothing matched: none whatever the calibration says
    bool correct = probe.cards()[scored.front().card].name == r.skill;
    samples.push_back(Sample{to_x(scored.front().features), correct ? 1.0 : 0.0});
  }
  auto w = fit(samples, 0.05);
  Calibration c{w[0], w[1], w[2], w[3], w[4]};
  std::printf(
      "fitted on %zu matched of %zu dev requests:\n  c.bias = %.4f;\n  c.w_raw = %.4f;\n"
      "  c.w_coverage = %.4f;\n  c.w_margin = %.4f;\n  c.w_matched = %.4f;\n",
      samples.size(), requests_used, c.bias, c.w_raw, c.w_coverage, c.w_margin, c.w_matched);

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
