#include "helper.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "bundle.hpp"
#include "doc_index.hpp"
#include "handover.hpp"
#include "ranker.hpp"

namespace skillrt::torchnpu_helper {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr double kDefaultMinCoverage = 0.55;

std::vector<std::string> string_list(const json& value) {
  std::vector<std::string> out;
  if (!value.is_array()) return out;
  for (const json& item : value) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

std::string cache_dir_of(const json& input, const json& settings) {
  if (input.contains("cache_dir")) return input["cache_dir"].get<std::string>();
  if (settings.is_object() && settings.contains("cache_dir") && settings["cache_dir"].is_string()) {
    return settings["cache_dir"].get<std::string>();
  }
  return default_cache_dir();
}

std::string cite(const std::string& repo, const std::string& commit, const std::string& path,
                 int64_t first, int64_t last) {
  std::string out = repo;
  if (!commit.empty()) out += "@" + commit.substr(0, 12);
  out += ":" + path + "#L" + std::to_string(first);
  if (last > first) out += "-L" + std::to_string(last);
  return out;
}

json passage_json(const RankedPassage& passage, size_t rank) {
  const IndexHit& hit = passage.hit;
  return json{
      {"rank", rank},
      {"repo", hit.repo},
      {"commit", hit.commit},
      {"path", hit.path},
      {"line_start", passage.quote_start},
      {"line_end", passage.quote_end},
      {"heading", hit.heading},
      {"kind", hit.kind},
      {"source", hit.source_kind},
      {"coverage", std::round(passage.coverage * 1000) / 1000},
      {"matched", passage.matched},
      {"quote", passage.quote},
      {"citation", cite(hit.repo, hit.commit, hit.path, passage.quote_start, passage.quote_end)}};
}

std::string phrase(Language language, const std::string& zh, const std::string& en) {
  return language == Language::kEn ? en : zh;
}

json next_steps(Language language, const std::vector<std::string>& checkouts,
                const std::vector<std::string>& unknown) {
  json steps = json::array();
  if (checkouts.empty()) {
    steps.push_back(
        {{"skill", "torchnpu-helper"},
         {"why", phrase(language,
                        "传入 torch_npu 或 op-plugin 的本地 checkout（checkouts "
                        "字段），会同时检索源码里的环境变量、TORCH_CHECK 报错和 yaml 算子条目",
                        "pass a local torch_npu or op-plugin checkout in `checkouts`: the "
                        "index then also covers env vars read in source, TORCH_CHECK messages "
                        "and yaml op entries")}});
  }
  steps.push_back(
      {{"skill", "op-schema"},
       {"why", phrase(language, "查算子的 schema 与 yaml 条目（文件与行号）",
                      "look an operator's schema and yaml entry up, with file and line")}});
  for (const std::string& name : unknown) {
    steps.push_back({{"command", "grep -rn '" + name + "' <torch_npu or op-plugin checkout>"},
                     {"why", phrase(language, "确认 " + name + " 是否存在于你使用的版本",
                                    "check whether " + name + " exists in the version you use")}});
  }
  return steps;
}

std::string joined(const std::vector<std::string>& words, const std::string& separator) {
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : separator) + word;
  return out;
}

// Why the skill declines, naming what the sources lack: a code name no page has, words no page
// uses, or the question's words the closest passage leaves out.
std::string decline_message(Language language, const Ranking& ranking, double best_coverage) {
  if (!ranking.unknown_identifiers.empty()) {
    const std::string names = joined(ranking.unknown_identifiers, ", ");
    return phrase(language, "索引中的文档与源码都没有出现 " + names + "，无法回答；不做猜测。",
                  "None of the indexed docs or sources mention " + names +
                      ", so I cannot answer without guessing.");
  }
  if (!ranking.unseen_words.empty()) {
    const std::string words = joined(ranking.unseen_words, ", ");
    return phrase(language, "索引中的文档与源码都没有提到 " + words + "，无法回答；不做猜测。",
                  "None of the indexed docs or sources say anything about " + words +
                      ", so I cannot answer without guessing.");
  }
  const std::string share = std::to_string(static_cast<int>(best_coverage * 100)) + "%";
  if (ranking.passages.empty()) {
    return phrase(language, "索引中的文档与源码没有与这个问题相关的段落，不做猜测。",
                  "The indexed docs and sources hold no passage related to this question, so I "
                  "will not guess.");
  }
  const RankedPassage& best = ranking.passages[0];
  const std::string where =
      cite(best.hit.repo, best.hit.commit, best.hit.path, best.quote_start, best.quote_end);
  const std::string lacking = joined(ranking.missing, language == Language::kEn ? ", " : "、");
  if (ranking.identifier_missed) {
    return phrase(language,
                  "最接近的段落（" + where + "）没有提到问题里的 " + lacking + "，不做猜测。",
                  "The closest passage (" + where + ") does not mention " + lacking +
                      ", so I will not guess.");
  }
  return phrase(language,
                "索引中的文档与源码没有回答这个问题的段落：最接近的段落（" + where +
                    "）只覆盖问题的 " + share + "，没有提到 " + lacking + "；不做猜测。",
                "The indexed docs and sources hold no passage that answers this: the closest (" +
                    where + ") covers " + share + " of the question and does not mention " +
                    lacking + ", so I will not guess.");
}

struct Opened {
  std::unique_ptr<DocIndex> index;
  json sources = json::array();
};

Opened open_index(const json& input, const json& settings,
                  const std::vector<std::string>& checkouts) {
  const bool bundled = input.value("bundled", true);
  if (!bundled && checkouts.empty()) {
    throw InputError(
        "bundled is false and no checkouts are given: nothing to search; set "
        "`checkouts` to a torch_npu or op-plugin clone or drop `bundled: false`");
  }
  const fs::path dir = cache_dir_of(input, settings);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    throw InputError("cache_dir '" + dir.string() + "' cannot be created: " + ec.message() +
                     "; set cache_dir to a writable directory");
  }
  std::string key = bundled ? "bundled" : "";
  std::vector<SourceFiles> scans;
  for (const std::string& path : checkouts) {
    scans.push_back(checkout_files(path));
    key += "|" + scans.back().source.root;
  }
  Opened opened;
  opened.index =
      std::make_unique<DocIndex>((dir / ("index-" + content_hash(key) + ".sqlite")).string());
  if (bundled && opened.index->meta("bundle") != bundle_id()) {
    const SourceFiles files = bundled_files();
    opened.index->sync(files.source, files.entries);
    opened.index->set_meta("bundle", bundle_id());
  }
  if (bundled) opened.sources.push_back({{"kind", "bundled"}, {"bundle", bundle_id()}});
  for (const SourceFiles& scan : scans) {
    const SyncStats stats = opened.index->sync(scan.source, scan.entries);
    opened.sources.push_back({{"kind", "checkout"},
                              {"root", scan.source.root},
                              {"repo", scan.source.repo},
                              {"commit", scan.source.commit},
                              {"files", stats.files},
                              {"added", stats.added},
                              {"changed", stats.changed},
                              {"unchanged", stats.unchanged},
                              {"removed", stats.removed}});
  }
  return opened;
}

}  // namespace

std::string default_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return (fs::path(xdg) / "skillrt" / "torchnpu-helper").string();
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return (fs::path(home) / ".cache" / "skillrt" / "torchnpu-helper").string();
  }
  return (fs::temp_directory_path() / "skillrt-torchnpu-helper").string();
}

json run_helper(const json& input, const json& settings) {
  const auto started = std::chrono::steady_clock::now();
  const std::string question = input.at("question").get<std::string>();
  std::vector<std::string> checkouts = string_list(input.value("checkouts", json::array()));
  if (checkouts.empty() && settings.is_object())
    checkouts = string_list(settings.value("checkouts", json::array()));
  const Language language = detect_language(question);
  const std::vector<Handover> handovers = detect_handover(question, language);
  Opened opened = open_index(input, settings, checkouts);

  RankOptions options;
  options.top_k = input.value("top_k", 3);
  options.language = language;
  options.wants_setting = asks_for_setting(question);
  for (const json& source : opened.sources) {
    if (source["kind"] == "checkout")
      options.skip_bundled_repos.insert(source["repo"].get<std::string>());
  }
  const DocIndex& index = *opened.index;
  const std::vector<QueryTerm> terms = segment_question(
      question, [&index](const std::string& term) { return index.document_frequency(term); });
  const Ranking ranking = rank_passages(*opened.index, terms, options);
  const double min_coverage = input.value("min_coverage", kDefaultMinCoverage);
  const double best = ranking.passages.empty() ? 0 : ranking.passages[0].coverage;
  const bool found = !ranking.passages.empty() && best >= min_coverage &&
                     ranking.unknown_identifiers.empty() && !ranking.identifier_missed;

  json out{{"question", question}, {"language", language_name(language)}};
  json passages = json::array();
  if (found) {
    for (size_t i = 0; i < ranking.passages.size(); ++i) {
      passages.push_back(passage_json(ranking.passages[i], i + 1));
    }
    const AnswerLine line = answer_line(ranking.passages[0], terms);
    if (!line.sentence.empty()) {
      const IndexHit& hit = ranking.passages[0].hit;
      out["answer"] = {{"text", line.sentence},
                       {"citation", cite(hit.repo, hit.commit, hit.path, line.line, line.line)}};
    }
  } else {
    out["unknown"] = {{"message", decline_message(language, ranking, best)},
                      {"next", next_steps(language, checkouts, ranking.unknown_identifiers)}};
  }
  out["passages"] = passages;
  json handover_json = json::array();
  bool task = false;
  for (const Handover& handover : handovers) {
    handover_json.push_back(
        {{"skill", handover.skill}, {"task", handover.task}, {"reason", handover.reason}});
    task = task || handover.task;
  }
  out["handover"] = handover_json;
  out["status"] = task ? "handover" : (found ? "answered" : "not_found");
  out["index"] = {{"passages", opened.index->passage_count()}, {"sources", opened.sources}};
  out["elapsed_ms"] =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return out;
}

}  // namespace skillrt::torchnpu_helper
