// Times one answer through the FTS5 index (run_helper, warm cache) and a naive baseline that
// segments every bundled passage and counts matched question terms, for each question of a set.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "bundle.hpp"
#include "helper.hpp"
#include "passage.hpp"
#include "segmenter.hpp"

namespace th = skillrt::torchnpu_helper;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<size_t>(p * values.size()))];
}

// The baseline: best passage by count of question terms it contains, scanning everything.
size_t naive_best(const std::vector<std::string>& passages,
                  const std::vector<th::QueryTerm>& terms) {
  size_t best = 0;
  size_t best_count = 0;
  for (size_t i = 0; i < passages.size(); ++i) {
    const auto words = th::segment(passages[i]);
    const std::unordered_set<std::string> present(words.begin(), words.end());
    size_t count = 0;
    for (const auto& term : terms) count += present.count(term.text);
    if (count > best_count) best_count = count, best = i;
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <questions.jsonl>\n", argv[0]);
    return 2;
  }
  const auto cache = std::filesystem::temp_directory_path() / "torchnpu-helper-bench";
  std::vector<std::string> questions;
  std::ifstream in(argv[1]);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) questions.push_back(nlohmann::json::parse(line)["question"]);
  }
  auto start = Clock::now();
  th::run_helper({{"question", "warm up"}, {"cache_dir", cache.string()}},
                 nlohmann::json::object());
  std::printf("index open/build: %.1f ms\n", ms_since(start));

  std::vector<std::string> passages;
  for (const auto& entry : th::bundled_files().entries) {
    for (auto& passage : th::split_markdown(entry.load()))
      passages.push_back(std::move(passage.text));
  }
  std::vector<double> indexed, naive;
  for (const std::string& question : questions) {
    start = Clock::now();
    th::run_helper({{"question", question}, {"cache_dir", cache.string()}},
                   nlohmann::json::object());
    indexed.push_back(ms_since(start));
    start = Clock::now();
    naive_best(passages, th::segment_question(question));
    naive.push_back(ms_since(start));
  }
  std::printf("%zu questions, %zu passages\n", questions.size(), passages.size());
  std::printf("fts5 index : p50 %.2f ms  p95 %.2f ms  max %.2f ms\n", percentile(indexed, 0.5),
              percentile(indexed, 0.95), percentile(indexed, 1.0));
  std::printf("naive scan : p50 %.2f ms  p95 %.2f ms  max %.2f ms\n", percentile(naive, 0.5),
              percentile(naive, 0.95), percentile(naive, 1.0));
  return 0;
}
