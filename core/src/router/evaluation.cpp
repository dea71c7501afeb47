#include "router/evaluation.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>

namespace skillrt::router {

Result<std::vector<LabelledRequest>> load_labelled(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) {
    return fail(Code::kNotFound, "cannot read " + path.string() + "; check the path");
  }
  std::vector<LabelledRequest> out;
  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto where = path.string() + ":" + std::to_string(line_no);
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      return fail(Code::kInvalidArgument, where + ": not a JSON object; one request per line");
    }
    if (!j.contains("text") || !j["text"].is_string() || !j.contains("skill") ||
        !j["skill"].is_string()) {
      return fail(Code::kInvalidArgument,
                  where +
                      ": needs string fields 'text' and 'skill' (use \"none\" for requests "
                      "no skill serves)");
    }
    LabelledRequest r;
    try {
      r.id = j.value("id", static_cast<int>(line_no));
      r.text = j["text"].get<std::string>();
      r.skill = j["skill"].get<std::string>();
      r.lang = j.value("lang", std::string());
      r.split = j.value("split", std::string("dev"));
    } catch (const nlohmann::json::exception& e) {
      return fail(Code::kInvalidArgument, where + ": wrong field type (" + e.what() +
                                              "); id is a number, the others strings");
    }
    out.push_back(std::move(r));
  }
  return out;
}

double EvalReport::top1_accuracy() const {
  return in_scope == 0 ? 0.0
                       : static_cast<double>(in_scope_correct) / static_cast<double>(in_scope);
}

double EvalReport::none_accuracy() const {
  return out_of_scope == 0
             ? 0.0
             : static_cast<double>(out_of_scope_correct) / static_cast<double>(out_of_scope);
}

EvalReport evaluate(const Router& router, const std::vector<LabelledRequest>& requests,
                    const std::vector<std::string>& splits) {
  EvalReport report;
  for (const auto& r : requests) {
    if (!splits.empty() && std::find(splits.begin(), splits.end(), r.split) == splits.end()) {
      continue;
    }
    auto ranked = router.rank_all(r.text, 1);
    std::string predicted(kNoneLabel);
    double score = ranked.empty() ? 0.0 : ranked.front().score;
    if (!ranked.empty() && score >= router.threshold()) predicted = ranked.front().skill;
    bool correct = predicted == r.skill;
    if (r.skill == kNoneLabel) {
      ++report.out_of_scope;
      report.out_of_scope_correct += correct ? 1 : 0;
    } else {
      ++report.in_scope;
      report.in_scope_correct += correct ? 1 : 0;
    }
    ++report.confusion[r.skill][predicted];
    if (!correct) {
      std::string nearest = ranked.empty() ? std::string(kNoneLabel) : ranked.front().skill;
      report.misses.push_back(
          Miss{r, predicted == kNoneLabel ? "none (nearest " + nearest + ")" : predicted, score});
    }
  }
  return report;
}

std::string format_report(const EvalReport& report, std::string_view title) {
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%.*s: top-1 %zu/%zu = %.1f%%, none %zu/%zu = %.1f%%\n",
                static_cast<int>(title.size()), title.data(), report.in_scope_correct,
                report.in_scope, 100.0 * report.top1_accuracy(), report.out_of_scope_correct,
                report.out_of_scope, 100.0 * report.none_accuracy());
  out += buf;

  std::set<std::string> labels;
  for (const auto& [expected, row] : report.confusion) {
    labels.insert(expected);
    for (const auto& [predicted, _] : row) labels.insert(predicted);
  }
  std::vector<std::string> columns(labels.begin(), labels.end());
  // Columns are numbered so a 20-label matrix stays readable in a terminal.
  out += "confusion matrix (rows: expected, columns: predicted)\n";
  for (size_t c = 0; c < columns.size(); ++c) {
    std::snprintf(buf, sizeof buf, "  [%2zu] %s\n", c, columns[c].c_str());
    out += buf;
  }
  out += std::string(26, ' ');
  for (size_t c = 0; c < columns.size(); ++c) {
    std::snprintf(buf, sizeof buf, "%3zu", c);
    out += buf;
  }
  out += '\n';
  for (const auto& expected : columns) {
    auto row = report.confusion.find(expected);
    if (row == report.confusion.end()) continue;
    std::snprintf(buf, sizeof buf, "  %-24s", expected.c_str());
    out += buf;
    for (const auto& predicted : columns) {
      auto cell = row->second.find(predicted);
      if (cell == row->second.end()) {
        out += "  .";
      } else {
        std::snprintf(buf, sizeof buf, "%3zu", cell->second);
        out += buf;
      }
    }
    out += '\n';
  }
  if (!report.misses.empty()) out += "misses:\n";
  for (const auto& m : report.misses) {
    std::snprintf(buf, sizeof buf, "  #%d [%s/%s] expected %s, got %s (score %.2f): ", m.request.id,
                  m.request.split.c_str(), m.request.lang.c_str(), m.request.skill.c_str(),
                  m.predicted.c_str(), m.score);
    out += buf;
    out += m.request.text;
    out += '\n';
  }
  return out;
}

}  // namespace skillrt::router
