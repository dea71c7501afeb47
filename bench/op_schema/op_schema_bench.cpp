// Parse + print every schema of a native_functions.yaml, the work torchgen's
// FunctionSchema.parse does (it parses, prints and compares). Prints the median of N runs.
//
//   op_schema_bench <native_functions.yaml> [runs] [--parse-only]
// --parse-only skips the whole-file load in each run (for profiling the parser alone).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "optoolkit/schema.hpp"
#include "optoolkit/sources.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// CPU time of this process: on a shared machine it is steadier than wall time, and it is what
// the Python side measures with time.process_time().
double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <native_functions.yaml> [runs]\n", argv[0]);
    return 2;
  }
  const int runs = argc > 2 ? std::atoi(argv[2]) : 20;
  const bool parse_only = argc > 3 && std::string(argv[3]) == "--parse-only";
  std::ifstream in(argv[1], std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();

  // The strings are extracted once, outside the timing, as the Python side does.
  const skillrt::ops::OpSource source = skillrt::ops::load_source_text(text, argv[1]);
  std::vector<std::string> funcs;
  for (const auto& e : source.entries) funcs.push_back(e.schema_text);
  const skillrt::ops::Grammar grammar = skillrt::ops::Grammar::permissive();

  std::vector<double> parse_ms;
  std::vector<double> load_ms;
  std::vector<double> parse_cpu_ms;
  std::vector<double> load_cpu_ms;
  size_t bytes = 0;
  // Two phases, each repeated `runs` times: parse + print every schema, then load the whole
  // file. The Python side runs the same two phases.
  for (int r = 0; r < runs; ++r) {
    const double c0 = cpu_ms();
    const auto t0 = Clock::now();
    for (const std::string& f : funcs) {
      const skillrt::ops::SchemaParseResult p = skillrt::ops::parse_schema(f, grammar);
      if (!p.ok()) {
        std::fprintf(stderr, "does not parse: %s: %s\n", f.c_str(), p.error.to_string().c_str());
        return 1;
      }
      const std::string printed = skillrt::ops::print_schema(*p.schema);
      if (printed != f) {
        std::fprintf(stderr, "round trip differs: %s\n", f.c_str());
        return 1;
      }
      bytes += printed.size();
    }
    const auto t1 = Clock::now();
    const double c1 = cpu_ms();
    parse_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    parse_cpu_ms.push_back(c1 - c0);
  }
  for (int r = 0; r < runs && !parse_only; ++r) {
    const double c0 = cpu_ms();
    const auto t0 = Clock::now();
    const skillrt::ops::OpSource loaded = skillrt::ops::load_source_text(text, argv[1]);
    if (loaded.entries.size() != funcs.size()) return 1;
    const auto t1 = Clock::now();
    const double c1 = cpu_ms();
    load_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    load_cpu_ms.push_back(c1 - c0);
  }
  if (parse_only) {
    load_ms.push_back(0);
    load_cpu_ms.push_back(0);
  }
  std::printf(
      "{\"impl\": \"skillrt optoolkit (C++)\", \"schemas\": %zu, \"runs\": %d, "
      "\"parse_print_median_ms\": %.3f, \"parse_print_cpu_median_ms\": %.3f, "
      "\"load_file_median_ms\": %.3f, \"load_file_cpu_median_ms\": %.3f, "
      "\"bytes\": %zu}\n",
      funcs.size(), runs, median(parse_ms), median(parse_cpu_ms), median(load_ms),
      median(load_cpu_ms), bytes / runs);
  return 0;
}
