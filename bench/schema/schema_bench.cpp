// Validations per second of skillrt's schema seam on realistic skill inputs.
//
// Cases: bench/schema/cases/<name>.input.json with <name>.instances.json ({"valid": [...],
// "invalid": [...]}), and every schemas/skills/*.input.json with its own "examples" as valid
// instances. ajv_bench.mjs measures ajv on the same files the same way; run.sh runs both.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "schema/compiled_schema.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using skillrt::bench::measure;
using skillrt::bench::median;
using skillrt::bench::read_json;
using skillrt::schema::CompiledSchema;

namespace {

struct Case {
  std::string name;
  json schema;
  std::vector<json> valid;
  std::vector<json> invalid;
};

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
    c.schema = read_json(file, "schema_bench");
    const fs::path instances = file.parent_path() / (c.name + ".instances.json");
    if (fs::exists(instances)) {
      const json sets = read_json(instances, "schema_bench");
      for (const auto& i : sets.value("valid", json::array())) c.valid.push_back(i);
      for (const auto& i : sets.value("invalid", json::array())) c.invalid.push_back(i);
    } else {
      for (const auto& i : c.schema.value("examples", json::array())) c.valid.push_back(i);
    }
    if (!c.valid.empty() || !c.invalid.empty()) cases.push_back(std::move(c));
  }
  return cases;
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
      const auto rates = measure(validate, *instances, min_seconds, runs, 64);
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
            median(measure(reference, *instances, min_seconds, runs, 64));
      }
      results.push_back(std::move(row));
    }
  }
  std::cout << results.dump(1) << "\n";
  return 0;
}
