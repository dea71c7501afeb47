// What schema_bench and text_bench share: reading a case file, CPU time, the timing loop, the
// median.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace skillrt::bench {

// The JSON file, or exit 2 naming it (`tool` says which bench failed).
inline nlohmann::json read_json(const std::filesystem::path& path, const char* tool) {
  std::ifstream in(path);
  if (!in) {
    std::cerr << tool << ": cannot read " << path << "; run from the repository root\n";
    std::exit(2);
  }
  return nlohmann::json::parse(in);
}

// CPU time of this process: the machine is shared, and wall time would count the time other
// processes hold the cores. ajv_bench.mjs measures the same way (process.cpuUsage).
inline double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Runs `check` over `items` round-robin, `batch` at a time, for at least `min_seconds` of CPU
// time, `runs` times after one warm-up run; returns checks per CPU second of each run.
template <class Check, class Item>
std::vector<double> measure(const Check& check, const std::vector<Item>& items, double min_seconds,
                            int runs, int batch) {
  std::vector<double> rates;
  std::size_t sink = 0;
  for (int r = 0; r <= runs; ++r) {
    std::size_t count = 0;
    const double start = cpu_seconds();
    double elapsed = 0;
    do {
      for (int k = 0; k < batch; ++k) {
        sink += check(items[count % items.size()]);
        ++count;
      }
      elapsed = cpu_seconds() - start;
    } while (elapsed < min_seconds);
    if (r > 0) rates.push_back(static_cast<double>(count) / elapsed);
  }
  if (sink == 42424242) std::cerr << "";  // keeps the loop from being optimised away
  return rates;
}

inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace skillrt::bench
