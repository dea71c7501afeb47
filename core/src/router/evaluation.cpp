#include "router/evaluation.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>

namespace skillrt::router {

namespace {

std::string joined(const std::vector<std::string>& skills) {
  if (skills.empty()) return std::string(kNoneLabel);
  std::string out;
  for (const auto& s : skills) out += (out.empty() ? "" : " > ") + s;
  return out;
}

double ratio(size_t part, size_t whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

}  // namespace

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
      r.kind = j.value("kind", std::string());
      r.source = j.value("source", std::string());
      if (j.contains("skills")) {
        r.skills = j["skills"].get<std::vector<std::string>>();
      } else if (r.skill != kNoneLabel) {
        r.skills = {r.skill};
      }
    } catch (const nlohmann::json::exception& e) {
      return fail(Code::kInvalidArgument,
                  where + ": wrong field type (" + e.what() +
                      "); id is a number, skills a list of strings, the others strings");
    }
    if (r.skill == kNoneLabel ? !r.skills.empty()
                              : r.skills.empty() || r.skills.front() != r.skill) {
      return fail(Code::kInvalidArgument,
                  where +
                      ": 'skills' must list the expected skills in order, starting with "
                      "'skill' (and be absent for \"none\")");
    }
    out.push_back(std::move(r));
  }
  return out;
}

double EvalReport::top1_accuracy() const { return ratio(in_scope_correct, in_scope); }

double EvalReport::none_accuracy() const { return ratio(out_of_scope_correct, out_of_scope); }

double EvalReport::multi_intent_accuracy() const { return ratio(multi_intent_exact, multi_intent); }

double EvalReport::calibration_error() const {
  size_t total = 0;
  double gap = 0.0;
  for (const auto& bin : reliability) {
    if (bin.count == 0) continue;
    total += bin.count;
    auto n = static_cast<double>(bin.count);
    gap += std::fabs(bin.confidence_sum / n - static_cast<double>(bin.correct) / n) * n;
  }
  return total == 0 ? 0.0 : gap / static_cast<double>(total);
}

EvalReport evaluate(const Router& router, const std::vector<LabelledRequest>& requests,
                    const std::vector<std::string>& splits) {
  EvalReport report;
  for (const auto& r : requests) {
    if (!splits.empty() && std::find(splits.begin(), splits.end(), r.split) == splits.end()) {
      continue;
    }
    auto answer = router.rank(r.text, kAnswerLength);
    std::vector<std::string> skills;
    for (const auto& c : answer) skills.push_back(c.skill);
    std::string predicted = skills.empty() ? std::string(kNoneLabel) : skills.front();
    bool correct = predicted == r.skill;
    if (r.skill == kNoneLabel) {
      ++report.out_of_scope;
      report.out_of_scope_correct += correct ? 1 : 0;
    } else {
      ++report.in_scope;
      report.in_scope_correct += correct ? 1 : 0;
    }
    bool exact = true;
    if (r.multi_intent()) {
      ++report.multi_intent;
      exact = skills == r.skills;
      report.multi_intent_exact += exact ? 1 : 0;
    } else if (r.skill != kNoneLabel && skills.size() > 1) {
      bool as_tasks =
          std::any_of(answer.begin(), answer.end(), [](const Candidate& c) { return c.task > 0; });
      ++(as_tasks ? report.single_as_tasks : report.single_with_alternatives);
    }
    ++report.confusion[r.skill][predicted];

    auto best = router.rank_all(r.text, 1);
    double confidence = best.empty() ? 0.0 : best.front().score;
    bool best_right = !best.empty() && best.front().skill == r.skill;
    auto bin =
        std::min<size_t>(report.reliability.size() - 1, static_cast<size_t>(confidence * 10.0));
    auto& b = report.reliability[bin];
    ++b.count;
    b.correct += best_right ? 1 : 0;
    b.confidence_sum += confidence;

    if (correct && exact) continue;
    std::string shown = joined(skills);
    if (skills.empty()) {
      shown += " (nearest " + (best.empty() ? std::string(kNoneLabel) : best.front().skill) + ")";
    }
    double score = answer.empty() ? confidence : answer.front().score;
    report.misses.push_back(Miss{r, shown, score});
  }
  return report;
}

std::string format_report(const EvalReport& report, std::string_view title) {
  std::string out;
  char buf[320];
  std::snprintf(buf, sizeof buf, "%.*s: top-1 %zu/%zu = %.1f%%, none %zu/%zu = %.1f%%\n",
                static_cast<int>(title.size()), title.data(), report.in_scope_correct,
                report.in_scope, 100.0 * report.top1_accuracy(), report.out_of_scope_correct,
                report.out_of_scope, 100.0 * report.none_accuracy());
  out += buf;
  if (report.multi_intent > 0) {
    std::snprintf(buf, sizeof buf, "multi-intent, ordered list exact: %zu/%zu = %.1f%%\n",
                  report.multi_intent_exact, report.multi_intent,
                  100.0 * report.multi_intent_accuracy());
    out += buf;
  }
  std::snprintf(buf, sizeof buf,
                "single-intent requests answered as several tasks: %zu, with alternatives: %zu\n",
                report.single_as_tasks, report.single_with_alternatives);
  out += buf;

  std::snprintf(buf, sizeof buf,
                "calibration (confidence of the best candidate -> how often it was the expected "
                "skill), expected calibration error %.3f\n",
                report.calibration_error());
  out += buf;
  for (size_t i = 0; i < report.reliability.size(); ++i) {
    const auto& bin = report.reliability[i];
    if (bin.count == 0) continue;
    auto n = static_cast<double>(bin.count);
    std::snprintf(buf, sizeof buf,
                  "  [%.1f, %.1f%c %4zu requests, mean confidence %.2f, %5.1f%% right\n",
                  0.1 * static_cast<double>(i), 0.1 * static_cast<double>(i + 1),
                  i + 1 == report.reliability.size() ? ']' : ')', bin.count, bin.confidence_sum / n,
                  100.0 * static_cast<double>(bin.correct) / n);
    out += buf;
  }

  std::set<std::string> labels;
  for (const auto& [expected, row] : report.confusion) {
    labels.insert(expected);
    for (const auto& [predicted, _] : row) labels.insert(predicted);
  }
  std::vector<std::string> columns(labels.begin(), labels.end());
  // Columns are numbered so a 20-label matrix stays readable in a terminal.
  out += "confusion matrix of the top-1 answer (rows: expected, columns: predicted)\n";
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
                  m.request.split.c_str(), m.request.lang.c_str(), joined(m.request.skills).c_str(),
                  m.predicted.c_str(), m.score);
    out += buf;
    out += m.request.text;
    out += '\n';
  }
  return out;
}

}  // namespace skillrt::router
