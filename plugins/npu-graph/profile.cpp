#include "profile.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <skillrt/sdk.hpp>

#include "detail/csv.hpp"
#include "detail/text.hpp"
#include "embedded_data.hpp"

namespace skillrt::npu_graph {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

double round3(double v) { return std::round(v * 1000.0) / 1000.0; }

// torch_npu writes "ts" as a string to keep sub-microsecond precision; torch.profiler a number.
double number_field(const json& e, const char* key, double fallback) {
  const auto it = e.find(key);
  if (it == e.end()) return fallback;
  if (it->is_number()) return it->get<double>();
  if (it->is_string()) return detail::to_number(it->get<std::string>(), fallback);
  return fallback;
}

struct Interval {
  double start;
  double dur;
  std::string name;
};

struct OpTotal {
  double time = 0;
  size_t count = 0;
};

json top_ops_json(const std::map<std::string, OpTotal>& totals, double all, size_t k,
                  const std::string& source) {
  std::vector<std::pair<std::string, OpTotal>> v(totals.begin(), totals.end());
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    if (a.second.time != b.second.time) return a.second.time > b.second.time;
    return a.first < b.first;
  });
  json out = json::array();
  for (size_t i = 0; i < v.size() && i < k; ++i) {
    out.push_back({{"name", v[i].first},
                   {"device_time_us", round3(v[i].second.time)},
                   {"share", all > 0 ? round3(v[i].second.time / all) : 0.0},
                   {"count", v[i].second.count},
                   {"avg_us", round3(v[i].second.time / std::max<size_t>(1, v[i].second.count))},
                   {"source", source}});
  }
  return out;
}

// Gaps between merged device intervals; `kernels` sorted by start.
json device_gaps(const std::vector<Interval>& kernels, const ProfileOptions& o,
                 const std::string& source, json* idle, json* findings) {
  json gaps = json::array();
  if (kernels.empty()) return gaps;
  double busy = 0, idle_total = 0;
  double cur_start = kernels.front().start;
  double cur_end = kernels.front().start + kernels.front().dur;
  std::string last_name = kernels.front().name;
  struct Gap {
    double start, len;
    std::string before, after;
  };
  std::vector<Gap> all;
  for (size_t i = 1; i < kernels.size(); ++i) {
    const Interval& k = kernels[i];
    if (k.start > cur_end) {
      busy += cur_end - cur_start;
      const double len = k.start - cur_end;
      if (len > o.gap_threshold_us) {
        all.push_back({cur_end, len, last_name, k.name});
        idle_total += len;
      }
      cur_start = k.start;
      cur_end = k.start + k.dur;
    } else {
      cur_end = std::max(cur_end, k.start + k.dur);
    }
    if (k.start + k.dur >= cur_end) last_name = k.name;
  }
  busy += cur_end - cur_start;
  const double span = cur_end - kernels.front().start;
  std::sort(all.begin(), all.end(), [](const Gap& a, const Gap& b) {
    return a.len != b.len ? a.len > b.len : a.start < b.start;
  });
  for (size_t i = 0; i < all.size() && i < o.top_k; ++i) {
    gaps.push_back({{"start_us", round3(all[i].start)},
                    {"length_us", round3(all[i].len)},
                    {"before", all[i].before},
                    {"after", all[i].after},
                    {"source", source}});
  }
  const double ratio = span > 0 ? idle_total / span : 0;
  *idle = {{"span_us", round3(span)},
           {"device_busy_us", round3(busy)},
           {"idle_in_gaps_us", round3(idle_total)},
           {"idle_ratio", round3(ratio)},
           {"gap_count", all.size()},
           {"gap_threshold_us", o.gap_threshold_us},
           {"source", source}};
  if (!all.empty() && ratio >= 0.1) {
    findings->push_back(
        {{"kind", "host-bound"},
         {"message", "device idle " + std::to_string(static_cast<int>(ratio * 100)) +
                         "% of the span in " + std::to_string(all.size()) + " gaps longer than " +
                         std::to_string(static_cast<int>(o.gap_threshold_us)) +
                         " us; the longest is " +
                         std::to_string(static_cast<long>(all.front().len)) + " us between " +
                         all.front().before + " and " + all.front().after},
         {"evidence",
          {{"idle_ratio", round3(ratio)},
           {"longest_gap_us", round3(all.front().len)},
           {"source", source}}},
         {"suggestion",
          "the host does not launch fast enough: use graph mode (torch.compile with the NPU "
          "backend, or NPU graph capture) to cut per-op launch cost, enable TASK_QUEUE_ENABLE=2, "
          "and move data loading / .item() / logging out of the step"}});
  }
  return gaps;
}

void small_kernel_finding(const std::vector<Interval>& kernels, const ProfileOptions& o,
                          const std::string& source, json* small, json* findings) {
  size_t n = 0;
  double t = 0, total = 0;
  for (const Interval& k : kernels) {
    total += k.dur;
    if (k.dur < o.small_kernel_us) {
      ++n;
      t += k.dur;
    }
  }
  const double share = kernels.empty() ? 0 : static_cast<double>(n) / kernels.size();
  *small = {{"threshold_us", o.small_kernel_us},
            {"count", n},
            {"total_kernels", kernels.size()},
            {"time_us", round3(t)},
            {"share_of_count", round3(share)},
            {"share_of_time", total > 0 ? round3(t / total) : 0.0},
            {"source", source}};
  if (kernels.size() >= 10 && share >= 0.5) {
    findings->push_back(
        {{"kind", "small-kernels"},
         {"message", std::to_string(n) + " of " + std::to_string(kernels.size()) +
                         " kernels run shorter than " +
                         std::to_string(static_cast<int>(o.small_kernel_us)) +
                         " us; launch overhead dominates them"},
         {"evidence", {{"count", n}, {"total", kernels.size()}, {"source", source}}},
         {"suggestion",
          "fuse small ops: compile the region (torch.compile / torchair) so that GE fuses them, "
          "use fused NPU ops (e.g. torch_npu.npu_rms_norm, npu_fusion_attention) and avoid "
          "many tiny tensors (batch them)"}});
  }
}

std::string lower(const std::string& s) { return detail::to_lower(s); }

}  // namespace

json analyze_chrome_trace(const json& trace, const std::string& source, const ProfileOptions& o) {
  const json* events = &trace;
  if (trace.is_object()) {
    const auto it = trace.find("traceEvents");
    if (it == trace.end() || !it->is_array()) {
      throw skillrt::invalid_argument(source +
                                      ": not a Chrome trace: expected an object with a "
                                      "'traceEvents' array or a bare event array");
    }
    events = &*it;
  } else if (!trace.is_array()) {
    throw skillrt::invalid_argument(source + ": not a Chrome trace (neither object nor array)");
  }

  std::map<std::string, std::string> process_names;  // pid as text -> name
  for (const json& e : *events) {
    if (e.value("ph", "") == "M" && e.value("name", "") == "process_name" && e.contains("args")) {
      process_names[e.contains("pid") ? e["pid"].dump() : ""] =
          e["args"].value("name", std::string());
    }
  }
  static const std::regex kCompile(R"(compil)", std::regex::icase);
  static const std::regex kRegion(R"(Torch-Compiled Region|CompiledFunction)");
  std::vector<Interval> kernels, steps, regions, compiles, aten_ops;
  for (const json& e : *events) {
    if (!e.is_object() || e.value("ph", "") != "X") continue;
    const std::string name = e.value("name", std::string());
    const std::string cat = lower(e.value("cat", std::string()));
    const std::string pname =
        lower(process_names[e.contains("pid") ? e["pid"].dump() : std::string()]);
    Interval iv{number_field(e, "ts", 0), number_field(e, "dur", 0), name};
    const bool device = cat == "kernel" || pname.find("ascend hardware") != std::string::npos ||
                        (cat.empty() && pname.find("npu") != std::string::npos);
    if (device) {
      kernels.push_back(iv);
      continue;
    }
    if (detail::starts_with(name, "ProfilerStep#")) {
      steps.push_back(iv);
    } else if (std::regex_search(name, kRegion)) {
      regions.push_back(iv);
    } else if (std::regex_search(name, kCompile)) {
      compiles.push_back(iv);
    } else if (detail::starts_with(name, "aten::")) {
      aten_ops.push_back(iv);
    }
  }
  auto by_start = [](const Interval& a, const Interval& b) {
    return a.start != b.start ? a.start < b.start : a.name < b.name;
  };
  std::sort(kernels.begin(), kernels.end(), by_start);
  std::sort(steps.begin(), steps.end(), by_start);

  json findings = json::array();
  json undetermined = json::array();
  std::map<std::string, OpTotal> totals;
  double all = 0;
  for (const Interval& k : kernels) {
    totals[k.name].time += k.dur;
    ++totals[k.name].count;
    all += k.dur;
  }
  json idle = nullptr;
  json gaps = device_gaps(kernels, o, source, &idle, &findings);
  json small = nullptr;
  small_kernel_finding(kernels, o, source, &small, &findings);
  if (kernels.empty()) {
    undetermined.push_back(source +
                           ": no device events (cat 'kernel' or process 'Ascend Hardware'): top "
                           "operators and idle gaps need a trace with device activity");
  }

  json per_step = json::array();
  for (const Interval& s : steps) {
    size_t n = 0;
    double busy = 0;
    for (const Interval& k : kernels) {
      if (k.start >= s.start && k.start < s.start + s.dur) {
        ++n;
        busy += k.dur;
      }
    }
    per_step.push_back({{"step", s.name.substr(std::string("ProfilerStep#").size())},
                        {"kernels", n},
                        {"step_duration_us", round3(s.dur)},
                        {"device_busy_us", round3(busy)}});
  }
  if (steps.empty()) {
    undetermined.push_back(source + ": no ProfilerStep#N events: launches per step unknown");
  }

  // Graph mode: compile work after the first step means recompilation; aten ops outside any
  // compiled region while regions exist mean parts run eagerly.
  size_t late_compiles = 0;
  json compile_json = json::array();
  for (const Interval& c : compiles) {
    bool late = false;
    for (size_t i = 1; i < steps.size(); ++i) {
      if (c.start >= steps[i].start && c.start < steps[i].start + steps[i].dur) late = true;
    }
    if (late) ++late_compiles;
    if (compile_json.size() < o.top_k) {
      compile_json.push_back({{"name", c.name},
                              {"start_us", round3(c.start)},
                              {"dur_us", round3(c.dur)},
                              {"after_first_step", late}});
    }
  }
  std::map<std::string, OpTotal> eager;
  if (!regions.empty()) {
    for (const Interval& a : aten_ops) {
      bool inside = false;
      for (const Interval& r : regions) {
        if (a.start >= r.start && a.start < r.start + r.dur) inside = true;
      }
      if (!inside) {
        eager[a.name].time += a.dur;
        ++eager[a.name].count;
      }
    }
  }
  double eager_time = 0;
  for (const auto& kv : eager) eager_time += kv.second.time;
  json graph{{"compiled_regions", regions.size()},
             {"compile_events", compile_json},
             {"recompilations_after_first_step", late_compiles},
             {"eager_ops_outside_graph", top_ops_json(eager, eager_time, o.top_k, source)}};
  if (late_compiles > 0) {
    findings.push_back(
        {{"kind", "recompilation"},
         {"message", std::to_string(late_compiles) +
                         " compile events after the first profiler step: the graph is being "
                         "recompiled during training"},
         {"evidence", {{"events", compile_json}, {"source", source}}},
         {"suggestion",
          "find the guard that fails with TORCH_LOGS=\"recompiles\"; mark varying dims dynamic "
          "(torch._dynamo.mark_dynamic) or pad to fixed shapes"}});
  }
  if (!eager.empty()) {
    findings.push_back(
        {{"kind", "eager-fallback"},
         {"message", std::to_string(eager.size()) +
                         " distinct aten ops run outside the compiled regions (graph breaks or "
                         "eager fallback)"},
         {"evidence", {{"ops", graph["eager_ops_outside_graph"]}, {"source", source}}},
         {"suggestion",
          "list the graph breaks with TORCH_LOGS=\"graph_breaks\" and remove their causes so "
          "that these ops join the compiled graph"}});
  }
  if (!kernels.empty() && all > 0) {
    const json top = top_ops_json(totals, all, 1, source);
    if (!top.empty() && top[0]["share"].get<double>() >= 0.3) {
      findings.push_back(
          {{"kind", "hotspot"},
           {"message", top[0]["name"].get<std::string>() + " takes " +
                           std::to_string(static_cast<int>(top[0]["share"].get<double>() * 100)) +
                           "% of device time"},
           {"evidence", top[0]},
           {"suggestion",
            "check this operator's shapes and dtype (aligned shapes, bf16/fp16), whether a fused "
            "NPU op exists for the pattern, and compare its time with the op's expected "
            "throughput"}});
    }
  }
  return json{{"source", source},
              {"kind", "chrome-trace"},
              {"kernels", kernels.size()},
              {"device_time_us", round3(all)},
              {"top_ops", top_ops_json(totals, all, o.top_k, source)},
              {"gaps", gaps},
              {"idle", idle},
              {"small_kernels", small},
              {"launches_per_step", per_step},
              {"graph", graph},
              {"findings", findings},
              {"undetermined", undetermined}};
}

json analyze_ascend_csv(std::string_view text, const std::string& source, const ProfileOptions& o) {
  detail::CsvTable t;
  try {
    t = detail::parse_csv(text, source);
  } catch (const std::runtime_error& e) {
    throw skillrt::invalid_argument(e.what());
  }
  const std::string base = detail::to_lower(fs::path(source).filename().string());
  auto col = [&](std::vector<std::string> names) { return t.column(names); };
  json findings = json::array();
  json undetermined = json::array();
  auto need = [&](int c, const std::string& name) {
    if (c < 0) {
      throw skillrt::invalid_argument(source + ": column '" + name +
                                      "' is missing: expected the Ascend profiler layout "
                                      "(ASCEND_PROFILER_OUTPUT)");
    }
    return static_cast<size_t>(c);
  };
  auto cell = [](const std::vector<std::string>& row, size_t c) {
    return c < row.size() ? row[c] : std::string();
  };

  const bool op_stat = base.find("op_statistic") != std::string::npos ||
                       (col({"OP Type"}) >= 0 && col({"Total Time(us)"}) >= 0);
  const bool kernel = base.find("kernel_details") != std::string::npos ||
                      (col({"Start Time(us)"}) >= 0 && col({"Duration(us)"}) >= 0);
  const bool op_details =
      base.find("operator_details") != std::string::npos || col({"Device Total Duration(us)"}) >= 0;
  if (op_stat) {
    const size_t type = need(col({"OP Type"}), "OP Type");
    const size_t total = need(col({"Total Time(us)"}), "Total Time(us)");
    const int count_col = col({"Count"});
    std::map<std::string, OpTotal> totals;
    double all = 0;
    for (const auto& row : t.rows) {
      OpTotal& ot = totals[cell(row, type)];
      const double v = detail::to_number(cell(row, total));
      ot.time += v;
      ot.count += count_col < 0 ? 1 : static_cast<size_t>(detail::to_number(cell(row, count_col)));
      all += v;
    }
    return json{{"source", source},
                {"kind", "op_statistic"},
                {"device_time_us", round3(all)},
                {"top_ops", top_ops_json(totals, all, o.top_k, source)},
                {"findings", findings},
                {"undetermined", undetermined}};
  }
  if (kernel) {
    const size_t name = need(col({"Type", "OP Type", "Name"}), "Type");
    const size_t start = need(col({"Start Time(us)"}), "Start Time(us)");
    const size_t dur = need(col({"Duration(us)"}), "Duration(us)");
    const int step_col = col({"Step Id"});
    std::vector<Interval> kernels;
    std::map<std::string, OpTotal> totals;
    std::map<std::string, size_t> per_step;
    double all = 0;
    for (const auto& row : t.rows) {
      Interval iv{detail::to_number(cell(row, start)), detail::to_number(cell(row, dur)),
                  cell(row, name)};
      totals[iv.name].time += iv.dur;
      ++totals[iv.name].count;
      all += iv.dur;
      kernels.push_back(iv);
      if (step_col >= 0) ++per_step[cell(row, step_col)];
    }
    std::sort(kernels.begin(), kernels.end(), [](const Interval& a, const Interval& b) {
      return a.start != b.start ? a.start < b.start : a.name < b.name;
    });
    json idle = nullptr, small = nullptr;
    json gaps = device_gaps(kernels, o, source, &idle, &findings);
    small_kernel_finding(kernels, o, source, &small, &findings);
    json steps = json::array();
    for (const auto& [step, n] : per_step) steps.push_back({{"step", step}, {"kernels", n}});
    if (step_col < 0)
      undetermined.push_back(source + ": no 'Step Id' column: launches per step unknown");
    return json{{"source", source},
                {"kind", "kernel_details"},
                {"kernels", kernels.size()},
                {"device_time_us", round3(all)},
                {"top_ops", top_ops_json(totals, all, o.top_k, source)},
                {"gaps", gaps},
                {"idle", idle},
                {"small_kernels", small},
                {"launches_per_step", steps},
                {"findings", findings},
                {"undetermined", undetermined}};
  }
  if (op_details) {
    const size_t name = need(col({"Name"}), "Name");
    const size_t host = need(col({"Host Total Duration(us)"}), "Host Total Duration(us)");
    const size_t dev = need(col({"Device Total Duration(us)"}), "Device Total Duration(us)");
    std::map<std::string, OpTotal> totals;
    json host_bound = json::array();
    double all = 0;
    for (const auto& row : t.rows) {
      const double d = detail::to_number(cell(row, dev));
      const double h = detail::to_number(cell(row, host));
      totals[cell(row, name)].time += d;
      ++totals[cell(row, name)].count;
      all += d;
      if (h > 2 * d && h - d > o.gap_threshold_us && host_bound.size() < o.top_k) {
        host_bound.push_back(
            {{"name", cell(row, name)}, {"host_us", round3(h)}, {"device_us", round3(d)}});
      }
    }
    if (!host_bound.empty()) {
      findings.push_back(
          {{"kind", "host-bound"},
           {"message", std::to_string(host_bound.size()) +
                           " operators spend more than twice as long on the host as on the device"},
           {"evidence", {{"ops", host_bound}, {"source", source}}},
           {"suggestion",
            "these ops are launch-bound: graph mode or fused replacements remove the host work; "
            "check for host-side shape computation or synchronisation in them"}});
    }
    return json{{"source", source},
                {"kind", "operator_details"},
                {"device_time_us", round3(all)},
                {"top_ops", top_ops_json(totals, all, o.top_k, source)},
                {"host_bound_ops", host_bound},
                {"findings", findings},
                {"undetermined", undetermined}};
  }
  throw skillrt::invalid_argument(source +
                                  ": unknown CSV: expected kernel_details, op_statistic or "
                                  "operator_details from the Ascend profiler");
}

json run_profile(const json& input) {
  ProfileOptions o;
  if (input.contains("gap_threshold_us"))
    o.gap_threshold_us = input["gap_threshold_us"].get<double>();
  if (input.contains("small_kernel_us")) o.small_kernel_us = input["small_kernel_us"].get<double>();
  if (input.contains("top_k")) o.top_k = input["top_k"].get<size_t>();
  std::vector<std::string> traces, csvs;
  if (input.contains("trace")) traces.push_back(input["trace"].get<std::string>());
  if (input.contains("csv")) {
    for (const auto& c : input["csv"]) csvs.push_back(c.get<std::string>());
  }
  if (input.contains("profile_dir")) {
    const std::string dir = input["profile_dir"].get<std::string>();
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      throw skillrt::invalid_argument("npu-graph-profile: 'profile_dir' '" + dir +
                                      "' is not a directory");
    }
    std::vector<std::string> found_t, found_c;
    for (auto it = fs::recursive_directory_iterator(dir, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) break;
      const std::string name = it->path().filename().string();
      if (name == "trace_view.json" ||
          (name.size() > 5 && name.find(".pt.trace.json") != std::string::npos)) {
        found_t.push_back(it->path().string());
      } else if (name == "kernel_details.csv" || name == "op_statistic.csv" ||
                 name == "operator_details.csv") {
        found_c.push_back(it->path().string());
      }
    }
    std::sort(found_t.begin(), found_t.end());
    std::sort(found_c.begin(), found_c.end());
    traces.insert(traces.end(), found_t.begin(), found_t.end());
    csvs.insert(csvs.end(), found_c.begin(), found_c.end());
  }
  if (traces.empty() && csvs.empty()) {
    throw skillrt::invalid_argument(
        "npu-graph-profile: nothing to read: give 'trace' (Chrome trace JSON), 'csv' (Ascend "
        "profiler CSVs) or 'profile_dir' containing trace_view.json / kernel_details.csv / "
        "op_statistic.csv / operator_details.csv");
  }
  json sources = json::array();
  json findings = json::array();
  json undetermined = json::array();
  json summary = json::object();
  for (const std::string& path : traces) {
    json trace;
    try {
      trace = json::parse(read_text_file(path));
    } catch (const json::parse_error& e) {
      throw skillrt::invalid_argument("npu-graph-profile: '" + path + "' is not valid JSON (" +
                                      e.what() + ")");
    } catch (const std::runtime_error& e) {
      throw skillrt::invalid_argument(std::string("npu-graph-profile: ") + e.what());
    }
    sources.push_back(analyze_chrome_trace(trace, path, o));
  }
  for (const std::string& path : csvs) {
    std::string text;
    try {
      text = read_text_file(path);
    } catch (const std::runtime_error& e) {
      throw skillrt::invalid_argument(std::string("npu-graph-profile: ") + e.what());
    }
    sources.push_back(analyze_ascend_csv(text, path, o));
  }
  // The headline numbers come from the most detailed source that has them: a trace, then
  // op_statistic, then kernel_details, then operator_details.
  const std::vector<std::string> pref = {"chrome-trace", "op_statistic", "kernel_details",
                                         "operator_details"};
  for (const std::string& key :
       {std::string("top_ops"), std::string("gaps"), std::string("idle"),
        std::string("small_kernels"), std::string("launches_per_step"), std::string("graph")}) {
    for (const std::string& kind : pref) {
      if (summary.contains(key)) break;
      for (const json& s : sources) {
        if (s["kind"] == kind && s.contains(key) && !s[key].is_null() &&
            !(s[key].is_array() && s[key].empty())) {
          summary[key] = s[key];
          break;
        }
      }
    }
  }
  for (const json& s : sources) {
    for (const json& f : s["findings"]) findings.push_back(f);
    for (const json& u : s["undetermined"]) undetermined.push_back(u);
  }
  json result{{"sources", sources}, {"findings", findings}, {"undetermined", undetermined}};
  for (const std::string& key :
       {std::string("top_ops"), std::string("gaps"), std::string("idle"),
        std::string("small_kernels"), std::string("launches_per_step"), std::string("graph")}) {
    result[key] = summary.contains(key) ? summary[key] : json(nullptr);
  }
  return result;
}

}  // namespace skillrt::npu_graph
