// Validations per second of skillrt's schema seam on realistic skill inputs.
//
// Cases: bench/schema/cases/<name>.input.json with <name>.instances.json ({"valid": [...],
// "invalid": [...]}), and every schemas/skills/*.input.json with its own "examples" as valid
// instances. ajv_bench.mjs measures ajv on the same files the same way; run.sh runs both.
#include <algorithm>
#include <chrono>
#include <cstdlib>
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

// Runs `validate` over the instances round-robin for at least `min_seconds`, `runs` times;
// returns validations per second of each run.
std::vector<double> measure(const CompiledSchema& schema, const std::vector<json>& instances,
                            double min_seconds, int runs) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> rates;
  std::size_t sink = 0;
  for (std::size_t i = 0; i < instances.size() * 100; ++i) {
    sink += schema.validate(instances[i % instances.size()]).size();
  }
  for (int r = 0; r < runs; ++r) {
    std::size_t count = 0;
    const auto start = Clock::now();
    double elapsed = 0;
    do {
      for (int k = 0; k < 64; ++k) {
        sink += schema.validate(instances[count % instances.size()]).size();
        ++count;
      }
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < min_seconds);
    rates.push_back(static_cast<double>(count) / elapsed);
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
      const auto rates = measure(schema, *instances, min_seconds, runs);
      results.push_back({{"case", c.name},
                         {"set", set},
                         {"instances", instances->size()},
                         {"median_per_s", median(rates)},
                         {"runs_per_s", rates}});
    }
  }
  std::cout << results.dump(1) << "\n";
  return 0;
}
