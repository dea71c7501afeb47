#include "analysis.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "compare.hpp"
#include "detail/files.hpp"
#include "reports.hpp"
#include "repro.hpp"

namespace skillrt::apic {

std::string_view embedded_rules();
std::string_view embedded_ops_yaml();

namespace {

namespace fs = std::filesystem;

// Case fields that a manifest or the request gives as defaults for every case.
const char* kInherited[] = {"standard",    "rtol",  "atol", "equal_nan",
                            "check_dtype", "top_k", "chip", "dtype"};

std::string resolve_path(const std::string& p, const std::string& base) {
  if (p.empty() || fs::path(p).is_absolute() || base.empty()) return p;
  return (fs::path(base) / p).string();
}

Json load_json_file(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + what + " '" + path + "'; check the path");
  try {
    return Json::parse(in);
  } catch (const Json::exception& e) {
    throw std::runtime_error(what + " '" + path + "' is not valid JSON: " + e.what());
  }
}

std::vector<int64_t> shape_of(const Json& j, const std::string& field) {
  std::vector<int64_t> out;
  for (const auto& d : j) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0) {
      throw std::invalid_argument(field + ".shape must list non-negative integers");
    }
    out.push_back(d.get<int64_t>());
  }
  return out;
}

std::optional<DType> dtype_field(const Json& j, const std::string& key, const std::string& field) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  const std::string s = j[key].get<std::string>();
  const auto t = parse_dtype(s);
  if (!t) {
    throw std::invalid_argument(field + "." + key + " '" + s +
                                "' is unknown; use a numpy or torch dtype name such as float16");
  }
  return t;
}

TensorSpec spec_from(const Json& v, const std::string& base, const Json& c,
                     const std::string& field) {
  TensorSpec s;
  if (v.is_string()) {
    s.path = resolve_path(v.get<std::string>(), base);
  } else if (v.is_object()) {
    s.path = resolve_path(v.value("path", ""), base);
    s.format = v.value("format", "auto");
    s.member = v.value("member", "");
    s.dtype = dtype_field(v, "dtype", field);
    s.storage = dtype_field(v, "storage_dtype", field);
    if (v.contains("shape")) s.shape = shape_of(v["shape"], field);
    s.offset = v.value("offset", uint64_t{0});
    s.big_endian = v.value("byte_order", "little") == "big";
  } else {
    throw std::invalid_argument(field + " must be a path or an object with 'path'");
  }
  if (s.path.empty()) throw std::invalid_argument(field + " has no path");
  if (!s.dtype) s.dtype = dtype_field(c, "dtype", "case");
  if (!s.shape && c.contains("shape") && resolve_format(s) == "raw") {
    s.shape = shape_of(c["shape"], "case");
  }
  return s;
}

CompareOptions options_from(const Json& c) {
  CompareOptions o;
  o.standard = c.value("standard", "torch");
  if (c.contains("rtol")) o.rtol = c["rtol"].get<double>();
  if (c.contains("atol")) o.atol = c["atol"].get<double>();
  o.equal_nan = c.value("equal_nan", false);
  o.check_dtype = c.value("check_dtype", true);
  o.top_k = c.value("top_k", 10);
  try {
    validate_options(o);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("case options: ") + e.what());
  }
  return o;
}

std::vector<LogLine> read_logs(const Json& c, const std::string& base, Json* log_paths) {
  std::vector<LogLine> out;
  Json logs = c.value("log", Json());
  if (logs.is_string()) logs = Json::array({logs});
  if (logs.is_array()) {
    for (const auto& l : logs) {
      const std::string path = resolve_path(l.get<std::string>(), base);
      std::ifstream in(path);
      if (!in) {
        throw std::runtime_error("cannot open log '" + path +
                                 "'; check the 'log' path of the case");
      }
      log_paths->push_back(path);
      std::string line;
      int no = 0;
      while (std::getline(in, line)) out.push_back(LogLine{path, ++no, line});
    }
  }
  if (c.contains("log_text")) {
    std::istringstream in(c["log_text"].get<std::string>());
    std::string line;
    int no = 0;
    while (std::getline(in, line)) out.push_back(LogLine{"log_text", ++no, line});
  }
  return out;
}

bool is_npz(const TensorSpec& s) { return resolve_format(s) == "npz"; }

Json compare_runs(const TensorSpec& first, const Json& runs, const std::string& base,
                  const Json& c) {
  CompareOptions exact;
  exact.standard = "custom";
  exact.rtol = 0.0;
  exact.atol = 0.0;
  exact.equal_nan = true;
  exact.check_dtype = true;
  exact.top_k = 3;
  Json out{{"compared", 0},
           {"differ", false},
           {"max_abs_diff", 0.0},
           {"max_rel_diff", 0.0},
           {"pairs", Json::array()}};
  for (size_t i = 0; i < runs.size(); ++i) {
    const TensorSpec other = spec_from(runs[i], base, c, "actual_runs[" + std::to_string(i) + "]");
    Json r = compare_tensors(first, other, exact);
    out["compared"] = out["compared"].get<int>() + 1;
    const bool differ = r["verdict"] != "pass";
    double mabs = 0, mrel = 0;
    if (r.contains("metrics")) {
      const Json& m = r["metrics"];
      mabs = m["max_abs_error"].is_number() ? m["max_abs_error"].get<double>() : HUGE_VAL;
      mrel = m["max_rel_error"].is_number() ? m["max_rel_error"].get<double>() : HUGE_VAL;
    }
    out["differ"] = out["differ"].get<bool>() || differ;
    out["max_abs_diff"] = std::max(out["max_abs_diff"].get<double>(), mabs);
    out["max_rel_diff"] = std::max(out["max_rel_diff"].get<double>(), mrel);
    out["pairs"].push_back(
        Json{{"run", other.path},
             {"differ", differ},
             {"mismatched", r.contains("metrics") ? r["metrics"]["mismatched"] : Json()},
             {"max_abs_diff", mabs}});
  }
  return out;
}

Json run_case(Json c, std::string base, const Knowledge& k, const std::string& output_dir,
              const std::string& id_hint, const RunHooks& hooks) {
  Json result{{"id", id_hint}, {"status", "ok"}, {"input", c}};
  try {
    if (c.contains("case")) {
      // A case file (the reproduction script writes one) fills in what the entry leaves out.
      const std::string path = resolve_path(c["case"].get<std::string>(), base);
      Json file = load_json_file(path, "case file");
      for (const auto& [key, v] : c.items()) {
        if (key != "case") file[key] = v;
      }
      c = file;
      base = fs::path(path).parent_path().string();
    }
    const std::string api = c.value("api", "");
    result["api"] = api;
    if (c.contains("id")) result["id"] = c["id"];
    if (c.contains("env")) {
      result["environment"] =
          load_json_file(resolve_path(c["env"].get<std::string>(), base), "env file");
    }
    const CompareOptions options = options_from(c);
    Json log_paths = Json::array();
    TriageInput tin;
    tin.log = read_logs(c, base, &log_paths);
    result["logs"] = log_paths;
    tin.api = api;
    tin.description = c.value("description", "");
    tin.chip = c.value("chip", "");
    tin.per_op = c.value("per_op", false);
    Json mem = c.value("memory", Json());
    if (!mem.is_object() && result.contains("environment")) {
      const Json& env = result["environment"];
      if (env.value("device_peak_bytes", Json()).is_number() &&
          env.value("cpu_bytes_inputs_outputs", Json()).is_number()) {
        mem = Json{{"cpu_bytes", env["cpu_bytes_inputs_outputs"]},
                   {"device_bytes", env["device_peak_bytes"]}};
      }
    }
    if (mem.is_object() && mem.value("cpu_bytes", 0.0) > 0) {
      tin.memory_ratio = mem.value("device_bytes", 0.0) / mem["cpu_bytes"].get<double>();
      result["memory"] = Json{{"cpu_bytes", mem["cpu_bytes"]},
                              {"device_bytes", mem.value("device_bytes", 0.0)},
                              {"ratio", tin.memory_ratio}};
    }
    Json tensors = Json::array();
    if (c.contains("expected") != c.contains("actual")) {
      throw std::invalid_argument("give both 'expected' and 'actual', or neither (log-only case)");
    }
    if (c.contains("expected")) {
      TensorSpec e = spec_from(c["expected"], base, c, "expected");
      TensorSpec a = spec_from(c["actual"], base, c, "actual");
      auto progress = [&](uint64_t done, uint64_t total) {
        return !hooks.progress || hooks.progress(static_cast<double>(done),
                                                 static_cast<double>(total), "comparing " + e.path);
      };
      CompareOptions opt = options;
      opt.progress = progress;
      if (is_npz(e) && is_npz(a) && e.member.empty() && a.member.empty()) {
        const auto me = npz_members(e.path);
        const auto ma = npz_members(a.path);
        const std::set<std::string> in_actual(ma.begin(), ma.end());
        for (const std::string& m : me) {
          if (in_actual.count(m) == 0) {
            tensors.push_back(Json{{"name", m},
                                   {"verdict", "fail"},
                                   {"decided_by", "member check"},
                                   {"message", "member '" + m + "' is missing from " + a.path},
                                   {"shape_mismatch", false},
                                   {"dtype_mismatch", false}});
            continue;
          }
          e.member = m;
          a.member = m;
          Json r = compare_tensors(e, a, opt);
          r["name"] = m;
          tensors.push_back(std::move(r));
        }
      } else {
        Json r = compare_tensors(e, a, opt);
        r["name"] = c.value("name", e.member.empty() ? "output" : e.member);
        tensors.push_back(std::move(r));
      }
      if (c.contains("actual_runs") && !c["actual_runs"].empty()) {
        result["runs"] = compare_runs(a, c["actual_runs"], base, c);
        tin.runs = result["runs"];
      }
    }
    if (tensors.empty() && tin.log.empty() && tin.description.empty()) {
      throw std::invalid_argument(
          "the case has no tensors (expected/actual), log or description; "
          "give at least one");
    }
    result["tensors"] = tensors;
    Json primary;
    for (const auto& t : tensors) {
      if (t.value("verdict", "") != "pass") {
        primary = t;
        break;
      }
    }
    if (primary.is_null() && !tensors.empty()) primary = tensors.front();
    result["primary"] = primary;
    tin.primary = primary;
    tin.tensors = tensors;
    result["triage"] = triage(tin, k.rules, k.aclnn);
    if (!primary.is_null()) {
      result["verdict"] = primary["verdict"];
      result["decided_by"] = primary["decided_by"];
    }
  } catch (const std::exception& e) {
    result["status"] = "error";
    result["error"] = e.what();
  }
  if (!output_dir.empty()) {
    const std::string dir = detail::safe_name(result["id"].get<std::string>());
    Json files = Json::array();
    try {
      files.push_back(
          detail::write_atomic(output_dir, dir + "/分析结论.md", render_conclusion_md(result)));
      if (result["status"] == "ok") {
        files.push_back(
            detail::write_atomic(output_dir, dir + "/复现记录.md", render_reproduction_md(result)));
        files.push_back(
            detail::write_atomic(output_dir, dir + "/report.html", render_case_html(result)));
      }
      files.push_back(detail::write_atomic(output_dir, dir + "/result.json", result.dump(2)));
    } catch (const std::exception& e) {
      result["report_error"] = e.what();
    }
    result["files"] = files;
  }
  return result;
}

std::string case_id(const Json& c, size_t index, size_t total) {
  std::string base;
  if (c.is_object()) {
    base = c.value("id", c.value("api", ""));
    if (base.empty() && c.contains("case"))
      base = fs::path(c["case"].get<std::string>()).parent_path().filename().string();
  } else if (c.is_string()) {
    base = fs::path(c.get<std::string>()).parent_path().filename().string();
  }
  if (total == 1 && !base.empty()) return base;
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%03zu", index + 1);
  return base.empty() ? std::string("case") + buf : std::string(buf) + "-" + base;
}

}  // namespace

const Knowledge& embedded_knowledge() {
  static const Knowledge kKnowledge{load_rules(embedded_rules(), "data/triage_rules.yaml"),
                                    AclnnMap(embedded_ops_yaml(), "op_plugin_functions.yaml")};
  return kKnowledge;
}

Json run_request(const Json& input, const Knowledge& embedded, const RunHooks& hooks) {
  std::optional<Knowledge> custom;
  const Knowledge* k = &embedded;
  if (input.contains("rules_file")) {
    const std::string path = input["rules_file"].get<std::string>();
    std::ifstream in(path);
    if (!in) throw std::invalid_argument("cannot open rules_file '" + path + "'");
    std::stringstream ss;
    ss << in.rdbuf();
    try {
      custom.emplace(Knowledge{load_rules(ss.str(), path), embedded.aclnn});
    } catch (const std::runtime_error& e) {
      throw std::invalid_argument(e.what());
    }
    k = &*custom;
  }
  const std::string output_dir = input.value("output_dir", "");
  Json out{{"cases", Json::array()}};
  Json files = Json::array();
  if (input.contains("reproduce")) {
    Json req = input["reproduce"];
    if (!req.contains("api") && input.contains("api")) req["api"] = input["api"];
    if (!req.contains("device") && input.contains("device")) req["device"] = input["device"];
    std::string script;
    try {
      script = generate_reproduction(req);
    } catch (const std::invalid_argument& e) {
      throw;
    }
    Json rep{{"api", req["api"]}, {"device", req.value("device", "npu")}, {"script", script}};
    if (!output_dir.empty()) {
      const std::string name = "repro_" + detail::safe_name(req["api"].get<std::string>()) + ".py";
      const std::string path = detail::write_atomic(output_dir, name, script);
      rep["path"] = path;
      rep["command"] = "python3 " + path + " --device " + req.value("device", "npu") + " --out " +
                       (fs::path(output_dir) / "repro_out").string();
      files.push_back(path);
    }
    out["reproduction"] = rep;
  }

  // Gather the cases: a manifest file, an inline list, or the request itself as one case.
  Json cases = Json::array();
  std::string base;
  Json defaults = Json::object();
  for (const char* key : kInherited) {
    if (input.contains(key)) defaults[key] = input[key];
  }
  if (input.contains("manifest")) {
    const std::string path = input["manifest"].get<std::string>();
    Json m = load_json_file(path, "manifest");
    base = fs::path(path).parent_path().string();
    if (m.is_object()) {
      for (const char* key : kInherited) {
        if (m.contains(key) && !defaults.contains(key)) defaults[key] = m[key];
      }
      m = m.value("cases", Json());
    }
    if (!m.is_array()) {
      throw std::invalid_argument("manifest '" + path +
                                  "' must be a list of cases or an object "
                                  "with 'cases'");
    }
    cases = m;
  } else if (input.contains("cases")) {
    cases = input["cases"];
  } else if (input.contains("expected") || input.contains("log") || input.contains("log_text") ||
             input.contains("case") || input.contains("description")) {
    Json one = Json::object();
    for (const char* key : {"id", "api", "expected", "actual", "actual_runs", "log", "log_text",
                            "description", "memory", "case", "env", "name", "shape", "per_op"}) {
      if (input.contains(key)) one[key] = input[key];
    }
    cases.push_back(one);
  }
  if (cases.empty() && !input.contains("reproduce")) {
    throw std::invalid_argument(
        "nothing to do: give expected and actual, a log, a case file, "
        "'cases', a 'manifest' or 'reproduce'");
  }

  std::map<std::string, int> by_status, by_exit, by_verdict;
  for (size_t i = 0; i < cases.size(); ++i) {
    if (hooks.progress && !hooks.progress(static_cast<double>(i), static_cast<double>(cases.size()),
                                          "case " + std::to_string(i + 1))) {
      throw Cancelled("cancelled after " + std::to_string(i) + " of " +
                      std::to_string(cases.size()) + " cases; rerun to finish the batch");
    }
    Json c = cases[i].is_string() ? Json{{"case", cases[i]}} : cases[i];
    for (const auto& [key, v] : defaults.items()) {
      if (!c.contains(key)) c[key] = v;
    }
    Json r = run_case(c, base, *k, output_dir, case_id(cases[i], i, cases.size()), hooks);
    ++by_status[r["status"].get<std::string>()];
    if (r.contains("triage")) ++by_exit[r["triage"]["exit"].get<std::string>()];
    if (r.contains("verdict")) ++by_verdict[r["verdict"].get<std::string>()];
    if (r.contains("files")) {
      for (const auto& f : r["files"]) files.push_back(f);
    }
    out["cases"].push_back(std::move(r));
  }
  Json summary{
      {"cases", cases.size()}, {"status", by_status}, {"exits", by_exit}, {"verdicts", by_verdict}};
  out["summary"] = summary;
  if (!output_dir.empty() && !cases.empty()) {
    files.push_back(write_summary_xlsx(output_dir, "summary.xlsx", out["cases"]));
    Json brief = Json::array();
    for (const auto& c : out["cases"]) {
      brief.push_back(
          Json{{"id", c["id"]},
               {"status", c["status"]},
               {"error", c.value("error", Json())},
               {"verdict", c.value("verdict", Json())},
               {"exit", c.contains("triage") ? c["triage"]["exit"] : Json()},
               {"decided_by", c.contains("triage") ? c["triage"]["decided_by"] : Json()}});
    }
    files.push_back(detail::write_atomic(output_dir, "summary.json",
                                         Json{{"summary", summary}, {"cases", brief}}.dump(2)));
  }
  out["files"] = files;
  return out;
}

}  // namespace skillrt::apic
