// Routing latency: rank() per request, p50 / p99 / max, with the real skill cards and with
// 200 synthetic skills; plus the time to build a Router.
//
//   router_bench [--rounds N] [--skills N] [--cards DIR]... [--data FILE]...
//
// Requests are the labelled ones in tests/data/routing_dev.jsonl and
// tests/data/routing_heldout.jsonl (Chinese, English, mixed, multi-intent, out of scope), each
// ranked once per round; --data replaces them, --cards replaces skills/. Run by hand on a
// quiet machine, side by side with the baseline binary; results go in bench/router/RESULTS.md.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "router/evaluation.hpp"
#include "router/router.hpp"
#include "router/skill_docs.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using skillrt::router::Router;
using skillrt::router::SkillCard;

// CPU time of this thread: on a shared machine, wall time also counts other processes.
double thread_cpu_micros() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

double micros(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  auto idx = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(idx, v.size() - 1)];
}

// Synthetic cards: vocabulary of the real cards mixed with made-up words, so that requests
// hit many postings (the realistic worst case) while every card stays distinct.
std::vector<SkillCard> synthetic_cards(const std::vector<SkillCard>& real, size_t count) {
  std::mt19937 rng(42);
  std::vector<std::string> vocab;
  for (const auto& c : real) {
    std::string text = c.description;
    for (const auto& k : c.keywords) text += " " + k;
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
      if (i == text.size() || text[i] == ' ') {
        if (i > start) vocab.push_back(text.substr(start, i - start));
        start = i + 1;
      }
    }
  }
  const char* syllables[] = {"ka", "lo", "mi", "ner", "tus", "vai", "zen", "qor", "pim", "dal"};
  const char* han[] = {"算子", "精度", "日志", "图模式", "迁移", "测试", "文档", "性能",
                       "报错", "分析", "配置", "数据",   "模型", "训练", "接口", "版本"};
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  std::vector<SkillCard> out;
  for (size_t i = 0; i < count; ++i) {
    SkillCard card;
    std::string invented;
    for (int s = 0; s < 3; ++s) invented += syllables[pick(std::size(syllables))];
    card.name = "synthetic-" + invented + "-" + std::to_string(i);
    for (int w = 0; w < 60; ++w) card.description += vocab[pick(vocab.size())] + " ";
    card.description += invented;
    for (int k = 0; k < 12; ++k) card.keywords.push_back(vocab[pick(vocab.size())]);
    card.keywords.push_back(invented);
    for (int e = 0; e < 2; ++e) {
      card.examples.push_back(std::string(han[pick(std::size(han))]) + han[pick(std::size(han))] +
                              "的" + han[pick(std::size(han))] + "问题");
      card.examples.push_back(vocab[pick(vocab.size())] + " " + vocab[pick(vocab.size())] + " " +
                              invented);
    }
    out.push_back(std::move(card));
  }
  return out;
}

void run(const char* label, const std::vector<SkillCard>& cards,
         const std::vector<std::string>& texts, int rounds) {
  std::vector<double> build, build_cpu;
  for (int i = 0; i < 10; ++i) {
    auto t0 = Clock::now();
    double c0 = thread_cpu_micros();
    Router r(cards);
    build_cpu.push_back(thread_cpu_micros() - c0);
    build.push_back(micros(Clock::now() - t0));
  }
  Router router(cards);
  std::vector<double> lat;
  lat.reserve(texts.size() * static_cast<size_t>(rounds));
  size_t answered = 0;
  for (int r = 0; r < rounds; ++r) {
    for (const auto& t : texts) {
      auto t0 = Clock::now();
      auto ranked = router.rank(t, 5);
      lat.push_back(micros(Clock::now() - t0));
      answered += ranked.empty() ? 0 : 1;
    }
  }
  std::printf(
      "%-18s skills %4zu | build median %7.0f us wall, %7.0f us cpu | rank n %5zu "
      "p50 %6.1f us p99 %6.1f us max %8.1f us | answered %zu\n",
      label, cards.size(), percentile(build, 0.5), percentile(build_cpu, 0.5), lat.size(),
      percentile(lat, 0.5), percentile(lat, 0.99), *std::max_element(lat.begin(), lat.end()),
      answered);
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 20;
  size_t synthetic = 200;
  std::vector<std::string> data;
  std::vector<std::filesystem::path> card_dirs;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--skills") == 0 && i + 1 < argc) {
      synthetic = static_cast<size_t>(std::atol(argv[++i]));
    } else if (std::strcmp(argv[i], "--cards") == 0 && i + 1 < argc) {
      card_dirs.emplace_back(argv[++i]);
    } else if (std::strcmp(argv[i], "--data") == 0 && i + 1 < argc) {
      data.emplace_back(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: %s [--rounds N] [--skills N] [--cards DIR]... [--data FILE]...\n",
                   argv[0]);
      return 2;
    }
  }
  if (data.empty()) {
    data = {SKILLRT_SOURCE_DIR "/tests/data/routing_dev.jsonl",
            SKILLRT_SOURCE_DIR "/tests/data/routing_heldout.jsonl"};
  }
  if (card_dirs.empty()) card_dirs = {SKILLRT_SOURCE_DIR "/skills"};
  auto docs = skillrt::router::read_skills_dirs(card_dirs);
  if (docs.docs.empty()) {
    std::fprintf(stderr, "error: no SKILL.md under the --cards directories\n");
    return 1;
  }
  std::vector<std::string> texts;
  for (const auto& file : data) {
    auto requests = skillrt::router::load_labelled(file);
    if (!requests) {
      std::fprintf(stderr, "error: %s\n", requests.error().message.c_str());
      return 1;
    }
    for (const auto& r : *requests) texts.push_back(r.text);
  }
  auto real = skillrt::router::to_cards(docs.docs);
  run("real skill cards", real, texts, rounds);
  auto fake = synthetic_cards(real, synthetic);
  run("synthetic skills", fake, texts, rounds);
  auto both = real;
  both.insert(both.end(), fake.begin(), fake.end());
  run("real + synthetic", both, texts, rounds);
  return 0;
}
