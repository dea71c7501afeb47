// Validations per second of skillrt's schema seam on realistic skill inputs.
//
// Cases: bench/schema/cases/<name>.input.json with <name>.instances.json ({"valid": [...],
// "invalid": [...]}), and every schemas/skills/*.input.json with its own "examples" as valid
// instances. ajv_bench.mjs measures ajv on the same files the same way; run.sh runs both.
#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "schema/compiled_schema.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using skillrt::schema::CompiledSchema;

namespace {

struct Case {
  std::string name;
  json schema;
  std::vector<json> valid;
  std::vector<json> invalid;
};

json read_json(const fs::path& path) {
  std::ifstream in(path);
  if (!in) {
    std::cerr << "schema_bench: cannot read " << path << "\n";
    std::exit(2);
  }
  return json::parse(in);
}

std::vector<Case> load_cases(const fs::path& cases_dir, const fs::path& skills_dir) {
  std::vector<Case> cases;
  std::vector<fs::path> files;
  for (const auto& dir : {cases_dir, skills_dir}) {
    if (!fs::is_directory(dir)) continue;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().string().ends_with(".input.json")) files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    Case c;
    c.name = file.filename().string();
    c.name.resize(c.name.size() - std::string(".input.json").size());
    c.schema = read_json(file);
    const fs::path instances = file.parent_path() / (c.name + ".instances.json");
    if (fs::exists(instances)) {
      const json sets = read_json(instances);
      for (const auto& i : sets.value("valid", json::array())) c.valid.push_back(i);
      for (const auto& i : sets.value("invalid", json::array())) c.invalid.push_back(i);
    } else {
      for (const auto& i : c.schema.value("examples", json::array())) c.valid.push_back(i);
    }
    if (!c.valid.empty() || !c.invalid.empty()) cases.push_back(std::move(c));
  }
  return cases;
}

// CPU time of this process: the machine is shared, and wall time would count the time other
// processes hold the cores. ajv_bench.mjs measures the same way (process.cpuUsage).
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Runs `validate` over the instances round-robin for at least `min_seconds` of CPU time, `runs`
// times; returns validations per CPU second of each run.
template <class Check>
std::vector<double> measure(const Check& check, const std::vector<json>& instances,
                            double min_seconds, int runs) {
  std::vector<double> rates;
  std::size_t sink = 0;
  // The first run warms caches (and, on the ajv side, the JIT) and is not counted.
  for (int r = 0; r <= runs; ++r) {
    std::size_t count = 0;
    const double start = cpu_seconds();
    double elapsed = 0;
    do {
      for (int k = 0; k < 64; ++k) {
        sink += check(instances[count % instances.size()]);
        ++count;
      }
      elapsed = cpu_seconds() - start;
    } while (elapsed < min_seconds);
    if (r > 0) rates.push_back(static_cast<double>(count) / elapsed);
  }
  if (sink == 42424242) std::cerr << "";  // keeps the loop from being optimised away
  return rates;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  fs::path cases_dir = "bench/schema/cases";
  fs::path skills_dir = "schemas/skills";
  double min_seconds = 0.25;
  int runs = 7;
  bool show = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "schema_bench: " << arg << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--cases") {
      cases_dir = next();
    } else if (arg == "--skills") {
      skills_dir = next();
    } else if (arg == "--min-time") {
      min_seconds = std::stod(next());
    } else if (arg == "--runs") {
      runs = std::stoi(next());
    } else if (arg == "--show-violations") {
      show = true;
    } else {
      std::cerr << "usage: schema_bench [--cases DIR] [--skills DIR] [--min-time S] [--runs N] "
                   "[--show-violations]\n";
      return 2;
    }
  }

  json results = json::array();
  for (const auto& c : load_cases(cases_dir, skills_dir)) {
    auto compiled = CompiledSchema::compile(c.schema);
    if (!compiled) {
      std::cerr << "schema_bench: " << c.name << " does not compile: " << compiled.error().message
                << "\n";
      return 1;
    }
    const auto& schema = **compiled;
    // A benchmark of wrong answers is worthless: check every verdict first.
    for (const auto& i : c.valid) {
      if (const auto v = schema.validate(i); !v.empty()) {
        std::cerr << "schema_bench: " << c.name
                  << ": a valid instance is rejected: " << skillrt::schema::join_messages(v)
                  << "\n";
        return 1;
      }
    }
    for (const auto& i : c.invalid) {
      const auto v = schema.validate(i);
      if (v.empty()) {
        std::cerr << "schema_bench: " << c.name << ": an invalid instance is accepted\n";
        return 1;
      }
      if (show) {
        std::cerr << c.name << ": " << i.dump() << "\n";
        for (const auto& one : v) std::cerr << "  [" << one.keyword << "] " << one.message << "\n";
      }
    }
    for (const auto& [set, instances] :
         {std::pair{"valid", &c.valid}, std::pair{"invalid", &c.invalid}}) {
      if (instances->empty()) continue;
      const auto validate = [&](const json& i) { return schema.validate(i).size(); };
      const auto rates = measure(validate, *instances, min_seconds, runs);
      json row = {{"case", c.name},
                  {"set", set},
                  {"instances", instances->size()},
                  {"median_per_s", median(rates)},
                  {"runs_per_s", rates}};
      // valijson's own visitor on the same compiled schema, for the verdict alone: what the
      // host's visitor replaced on the hot path.
      const auto reference = [&](const json& i) {
        return static_cast<std::size_t>(schema.valijson_verdict(i));
      };
      if (std::string(set) == "valid") {
        row["valijson_visitor_median_per_s"] =
            median(measure(reference, *instances, min_seconds, runs));
      }
      results.push_back(std::move(row));
    }
  }
  std::cout << results.dump(1) << "\n";
  return 0;
}
