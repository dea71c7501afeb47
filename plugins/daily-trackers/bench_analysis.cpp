#include "bench_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace skillrt::daily_trackers {
namespace {

bool in_setting(const BenchPoint& p, const BenchOptions& o) {
  return p.isl == o.isl && p.osl == o.osl;
}

void detect_changes(const std::vector<BenchPoint>& current, const std::vector<BenchPoint>& before,
                    const BenchOptions& o, BenchAnalysis* a) {
  std::map<std::string, const BenchPoint*> old;
  for (const BenchPoint& p : before) old[p.key()] = &p;
  std::set<std::string> now;
  for (const BenchPoint& p : current) {
    now.insert(p.key());
    auto it = old.find(p.key());
    if (it == old.end()) {
      a->changes.push_back({"new", p, "", 0, 0, 0, false});
      continue;
    }
    for (const auto& [metric, higher_better] : compared_metrics()) {
      const auto x = it->second->metric(metric);
      const auto y = p.metric(metric);
      if (!x || !y || *x == 0) continue;
      const double pct = (*y - *x) / std::fabs(*x) * 100.0;
      if (std::fabs(pct) < o.threshold_pct) continue;
      a->changes.push_back({"moved", p, metric, *x, *y, pct, (pct > 0) == higher_better});
    }
  }
  for (const BenchPoint& p : before) {
    if (now.count(p.key()) == 0) a->changes.push_back({"removed", p, "", 0, 0, 0, false});
  }
}

void first_seen(const std::vector<BenchPoint>& current,
                const std::vector<std::pair<int64_t, BenchPoint>>& history, int64_t run,
                BenchAnalysis* a) {
  std::set<std::string> hw_before;
  std::set<std::string> models_before;
  bool any_before = false;
  for (const auto& [r, p] : history) {
    if (r == run) continue;
    any_before = true;
    hw_before.insert(p.hardware);
    models_before.insert(p.model);
  }
  if (!any_before) return;  // on the first run everything is new; saying so adds nothing
  std::set<std::string> hw;
  std::set<std::string> models;
  for (const BenchPoint& p : current) {
    if (hw_before.count(p.hardware) == 0) hw.insert(p.hardware);
    if (models_before.count(p.model) == 0) models.insert(p.model);
  }
  a->new_hardware.assign(hw.begin(), hw.end());
  a->new_models.assign(models.begin(), models.end());
}

void compare_setting(const std::vector<BenchPoint>& current, const BenchOptions& o,
                     BenchAnalysis* a) {
  std::map<std::pair<std::string, std::string>, const BenchPoint*> best;
  for (const BenchPoint& p : current) {
    if (!in_setting(p, o) || !p.metric("tput_per_gpu")) continue;
    ++a->setting_points;
    const BenchPoint*& b = best[{p.model, p.hardware}];
    if (b == nullptr || *p.metric("tput_per_gpu") > *b->metric("tput_per_gpu")) b = &p;
  }
  std::map<std::string, double> leader;
  for (const auto& [k, p] : best) {
    leader[k.first] = std::max(leader[k.first], *p->metric("tput_per_gpu"));
  }
  for (const auto& [k, p] : best) {
    const double l = leader[k.first];
    a->setting.push_back({k.first, k.second, *p, l > 0 ? *p->metric("tput_per_gpu") / l : 0});
  }
  std::stable_sort(a->setting.begin(), a->setting.end(),
                   [](const SettingRow& x, const SettingRow& y) {
                     if (x.model != y.model) return x.model < y.model;
                     return x.ratio_to_leader > y.ratio_to_leader;
                   });
}

void build_trends(const std::vector<std::pair<int64_t, BenchPoint>>& history, const BenchOptions& o,
                  BenchAnalysis* a) {
  struct Cell {
    int64_t run = -1;
    std::optional<double> tput;
    std::optional<double> e2el;
  };
  // model -> hardware -> date -> the newest run's best values for that day
  std::map<std::string, std::map<std::string, std::map<std::string, Cell>>> cells;
  std::map<std::string, std::set<std::string>> dates;
  for (const auto& [run, p] : history) {
    if (!in_setting(p, o)) continue;
    Cell& c = cells[p.model][p.hardware][p.date];
    if (run > c.run) c = Cell{run, std::nullopt, std::nullopt};
    if (const auto t = p.metric("tput_per_gpu")) c.tput = c.tput ? std::max(*c.tput, *t) : *t;
    if (const auto e = p.metric("median_e2el")) c.e2el = c.e2el ? std::min(*c.e2el, *e) : *e;
    dates[p.model].insert(p.date);
  }
  for (const auto& [model, by_hw] : cells) {
    Trend t;
    t.model = model;
    t.dates.assign(dates[model].begin(), dates[model].end());
    for (const auto& [hw, by_date] : by_hw) {
      for (const std::string& d : t.dates) {
        auto it = by_date.find(d);
        t.throughput[hw].push_back(it == by_date.end() ? std::nullopt : it->second.tput);
        t.latency[hw].push_back(it == by_date.end() ? std::nullopt : it->second.e2el);
      }
    }
    a->trends.push_back(std::move(t));
  }
}

}  // namespace

const std::vector<std::pair<std::string, bool>>& compared_metrics() {
  static const std::vector<std::pair<std::string, bool>> kMetrics = {{"tput_per_gpu", true},
                                                                     {"output_tput_per_gpu", true},
                                                                     {"median_ttft", false},
                                                                     {"median_tpot", false},
                                                                     {"median_e2el", false}};
  return kMetrics;
}

Json PointChange::to_json() const {
  Json j{{"kind", kind}, {"point", point.to_json()}};
  if (kind == "moved") {
    j["metric"] = metric;
    j["before"] = before;
    j["after"] = after;
    j["pct"] = std::round(pct * 10) / 10;
    j["better"] = better;
  }
  return j;
}

Json SettingRow::to_json() const {
  return Json{{"model", model},
              {"hardware", hardware},
              {"best", best.to_json()},
              {"ratio_to_leader", std::round(ratio_to_leader * 1000) / 1000}};
}

BenchAnalysis analyze_bench(const std::vector<BenchPoint>& current,
                            const std::vector<std::pair<int64_t, BenchPoint>>& history, int64_t run,
                            std::optional<int64_t> previous, const BenchOptions& o) {
  BenchAnalysis a;
  std::vector<BenchPoint> before;
  if (previous) {
    a.has_previous = true;
    for (const auto& [r, p] : history) {
      if (r == *previous) before.push_back(p);
    }
    detect_changes(current, before, o, &a);
  }
  first_seen(current, history, run, &a);
  compare_setting(current, o, &a);
  build_trends(history, o, &a);
  return a;
}

}  // namespace skillrt::daily_trackers
