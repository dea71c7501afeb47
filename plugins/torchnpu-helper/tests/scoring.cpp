#include "scoring.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "helper.hpp"
#include "segmenter.hpp"

namespace torchnpu_helper_test {
namespace {

using nlohmann::json;

std::string fold(std::string text) {
  text = skillrt::torchnpu_helper::normalize_markdown(text);
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// A fact is a string or a list of alternatives.
bool holds(const std::string& text, const json& fact) {
  if (fact.is_string()) return text.find(fold(fact.get<std::string>())) != std::string::npos;
  return std::any_of(fact.begin(), fact.end(), [&](const json& alt) { return holds(text, alt); });
}

std::string check_answer(const json& question, const json& result) {
  if (result["status"] == "not_found") return "declined an answerable question";
  std::string all;
  if (result.contains("answer")) all += fold(result["answer"]["text"].get<std::string>()) + "\n";
  for (const json& passage : result["passages"]) all += fold(passage["quote"].get<std::string>());
  for (const json& fact : question["facts"]) {
    if (!holds(all, fact)) return "fact missing: " + fact.dump();
  }
  for (const json& passage : result["passages"]) {
    const std::string quote = fold(passage["quote"].get<std::string>());
    for (const json& source : question["sources"]) {
      if (source["path"] != passage["path"]) continue;
      for (const json& fact : question["facts"]) {
        if (holds(quote, fact)) return {};
      }
    }
  }
  return "no citation of the expected source quotes a fact";
}

void print_answer(const json& question, const json& result) {
  std::printf("== %s [%s] %s\n   status %s\n", question["id"].get<std::string>().c_str(),
              result["language"].get<std::string>().c_str(),
              question["question"].get<std::string>().c_str(),
              result["status"].get<std::string>().c_str());
  if (result.contains("answer")) {
    std::printf("   answer: %s\n", result["answer"]["text"].get<std::string>().c_str());
  }
  if (result.contains("unknown")) {
    std::printf("   unknown: %s\n", result["unknown"]["message"].get<std::string>().c_str());
  }
  for (const json& passage : result["passages"]) {
    std::printf("   [%s] %.3f %s\n", passage["citation"].get<std::string>().c_str(),
                passage["coverage"].get<double>(), passage["matched"].dump().c_str());
  }
}

}  // namespace

Score score_file(const std::string& jsonl, const std::string& cache_dir, bool show) {
  std::ifstream in(jsonl);
  if (!in) throw std::runtime_error("cannot read question set " + jsonl);
  Score score;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const json question = json::parse(line);
    const json result = skillrt::torchnpu_helper::run_helper(
        json{{"question", question["question"]}, {"cache_dir", cache_dir}}, json::object());
    score.worst_ms = std::max(score.worst_ms, result["elapsed_ms"].get<double>());
    if (show) print_answer(question, result);
    const std::string id = question["id"].get<std::string>();
    if (!question["answerable"].get<bool>()) {
      ++score.unanswerable;
      if (result["status"] == "not_found") {
        ++score.declined_right;
      } else {
        const std::string where =
            result["passages"].empty() ? "" : result["passages"][0]["path"].get<std::string>();
        score.misses.push_back(id + ": answered an unanswerable question from " + where);
      }
      continue;
    }
    ++score.answerable;
    const std::string why = check_answer(question, result);
    if (why.empty()) {
      ++score.answered_right;
    } else {
      const std::string top =
          result["passages"].empty() ? "-" : result["passages"][0]["citation"].get<std::string>();
      score.misses.push_back(id + ": " + why + " (top: " + top + ")");
    }
  }
  return score;
}

}  // namespace torchnpu_helper_test
