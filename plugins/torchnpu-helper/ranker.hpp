// Re-ranks FTS5 candidates by how much of the question a passage covers (idf-weighted), cuts
// each to the lines that carry the matched terms, and picks the sentence that states the answer.
#ifndef SKILLRT_TORCHNPU_HELPER_RANKER_HPP_
#define SKILLRT_TORCHNPU_HELPER_RANKER_HPP_

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "doc_index.hpp"
#include "segmenter.hpp"

namespace skillrt::torchnpu_helper {

struct RankedPassage {
  IndexHit hit;
  double coverage = 0;  // share of the question's idf mass this passage matches
  double score = 0;
  std::vector<std::string> matched;
  int64_t quote_start = 0;  // the quoted lines, 1-based, inclusive
  int64_t quote_end = 0;
  std::string quote;
};

struct Ranking {
  std::vector<RankedPassage> passages;  // best first, at most top_k
  // Code names of the question that no passage contains (an API or variable the sources lack).
  std::vector<std::string> unknown_identifiers;
  // The best passage misses every code name of the question that the index does know.
  bool identifier_missed = false;
  // Words of the question the best passage does not contain, heaviest first (at most a few):
  // what a decline names as missing.
  std::vector<std::string> missing;
  // English words of the question that no indexed page uses.
  std::vector<std::string> unseen_words;
};

struct RankOptions {
  size_t top_k = 3;
  size_t candidates = 80;
  size_t quote_lines = 16;
  std::set<std::string> skip_bundled_repos;  // repos a checkout supersedes
  Language language = Language::kZh;         // of the question: pages in it rank a little higher
  // The question asks how to turn something on or set it: when the best page is a variable's
  // page, its configuration example (export NAME=...) is quoted too.
  bool wants_setting = false;
};

// Whether the question asks how to enable, set or configure something.
bool asks_for_setting(std::string_view question);

Ranking rank_passages(const DocIndex& index, const std::vector<QueryTerm>& terms,
                      const RankOptions& options);

struct AnswerLine {
  std::string sentence;
  int64_t line = 0;
};

// The sentence of the best passage's quote that matches the most question weight; empty when
// no sentence names the question's topic.
AnswerLine answer_line(const RankedPassage& passage, const std::vector<QueryTerm>& terms);

}  // namespace skillrt::torchnpu_helper

#endif  // SKILLRT_TORCHNPU_HELPER_RANKER_HPP_
