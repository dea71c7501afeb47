#include "ranker.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace skillrt::torchnpu_helper {
namespace {

constexpr size_t kMaxQuoteLineBytes = 400;
// A Chinese bigram no passage contains is usually a cut across two words of the question, not
// an unknown topic: it counts half.
constexpr double kUnseenBigramShare = 0.5;
constexpr double kIdentifierBoost = 1.5;
constexpr double kMinAnswerShare = 0.35;

struct WeightedTerm {
  std::vector<std::string> forms;  // the term first, then its synonyms
  double weight = 0;
  bool identifier = false;
  bool known = false;
  bool code_name = false;  // contains '_' or a dotted name: an API, a variable, a yaml key
};

bool is_ascii(const std::string& text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

std::vector<WeightedTerm> weigh(const DocIndex& index, const std::vector<QueryTerm>& terms) {
  const double n = static_cast<double>(std::max<int64_t>(index.passage_count(), 1));
  const auto idf = [n](double df) { return std::log(1.0 + (n - df + 0.5) / (df + 0.5)); };
  std::vector<WeightedTerm> out;
  for (const QueryTerm& term : terms) {
    WeightedTerm weighted;
    weighted.forms.push_back(term.text);
    weighted.forms.insert(weighted.forms.end(), term.synonyms.begin(), term.synonyms.end());
    weighted.identifier = term.identifier;
    weighted.code_name = term.identifier && term.text.find('_') != std::string::npos;
    double best_df = -1;
    for (const std::string& form : weighted.forms) {
      const auto df = static_cast<double>(index.document_frequency(form));
      if (df > 0 && (best_df < 0 || df > best_df)) best_df = df;
    }
    weighted.known = best_df > 0;
    weighted.weight = weighted.known ? idf(best_df) : idf(0);
    if (!weighted.known && !is_ascii(term.text)) weighted.weight *= kUnseenBigramShare;
    if (term.identifier) weighted.weight *= kIdentifierBoost;
    out.push_back(std::move(weighted));
  }
  return out;
}

std::unordered_set<std::string> term_set(const std::string& text) {
  std::vector<std::string> terms = segment(text);
  return {std::make_move_iterator(terms.begin()), std::make_move_iterator(terms.end())};
}

bool matches(const WeightedTerm& term, const std::unordered_set<std::string>& present) {
  return std::any_of(term.forms.begin(), term.forms.end(),
                     [&](const std::string& form) { return present.count(form) != 0; });
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string clip_line(const std::string& line) {
  if (line.size() <= kMaxQuoteLineBytes) return line;
  size_t cut = kMaxQuoteLineBytes;
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;
  return line.substr(0, cut) + " …";
}

// The run of at most `width` lines that covers the most question weight.
void choose_quote(RankedPassage& passage, const std::vector<WeightedTerm>& terms, size_t width) {
  const std::vector<std::string> lines = split_lines(passage.hit.text);
  std::vector<std::vector<size_t>> per_line(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto present = term_set(lines[i]);
    for (size_t t = 0; t < terms.size(); ++t) {
      if (matches(terms[t], present)) per_line[i].push_back(t);
    }
  }
  size_t best_first = 0;
  double best = -1;
  for (size_t first = 0; first < std::max<size_t>(lines.size(), 1); ++first) {
    std::vector<bool> seen(terms.size(), false);
    double sum = 0;
    for (size_t i = first; i < std::min(lines.size(), first + width); ++i) {
      for (size_t t : per_line[i]) {
        if (!seen[t]) sum += terms[t].weight, seen[t] = true;
      }
    }
    if (sum > best + 1e-9) best = sum, best_first = first;
    if (first + width >= lines.size()) break;
  }
  const size_t last = std::min(lines.size(), best_first + width);
  passage.quote.clear();
  for (size_t i = best_first; i < last; ++i) passage.quote += clip_line(lines[i]) + "\n";
  passage.quote_start = passage.hit.line_start + static_cast<int64_t>(best_first);
  passage.quote_end = passage.hit.line_start + static_cast<int64_t>(last) - 1;
}

}  // namespace

Ranking rank_passages(const DocIndex& index, const std::vector<QueryTerm>& terms,
                      const RankOptions& options) {
  Ranking ranking;
  const std::vector<WeightedTerm> weighted = weigh(index, terms);
  double total = 0;
  for (const WeightedTerm& term : weighted) total += term.weight;
  for (size_t t = 0; t < weighted.size(); ++t) {
    if (weighted[t].code_name && !weighted[t].known)
      ranking.unknown_identifiers.push_back(terms[t].text);
  }
  std::vector<IndexHit> hits = index.search(terms, options.candidates);
  double best_bm25 = 0;
  for (const IndexHit& hit : hits) best_bm25 = std::min(best_bm25, hit.bm25);
  std::vector<RankedPassage> ranked;
  for (IndexHit& hit : hits) {
    if (hit.source_kind == "bundled" && options.skip_bundled_repos.count(hit.repo) != 0) continue;
    RankedPassage passage;
    const auto present = term_set(hit.path + " " + hit.heading + " " + hit.text);
    double covered = 0;
    for (size_t t = 0; t < weighted.size(); ++t) {
      if (!matches(weighted[t], present)) continue;
      covered += weighted[t].weight;
      passage.matched.push_back(terms[t].text);
    }
    passage.coverage = total > 0 ? covered / total : 0;
    const double relevance = best_bm25 < 0 ? hit.bm25 / best_bm25 : 0;
    passage.score = 0.7 * passage.coverage + 0.3 * relevance;
    passage.hit = std::move(hit);
    ranked.push_back(std::move(passage));
  }
  std::stable_sort(
      ranked.begin(), ranked.end(),
      [](const RankedPassage& a, const RankedPassage& b) { return a.score > b.score; });
  if (ranked.size() > options.top_k) ranked.resize(options.top_k);
  for (RankedPassage& passage : ranked) choose_quote(passage, weighted, options.quote_lines);
  if (!ranked.empty()) {
    bool any_known = false;
    bool hit_one = false;
    const auto present =
        term_set(ranked[0].hit.path + " " + ranked[0].hit.heading + " " + ranked[0].hit.text);
    for (const WeightedTerm& term : weighted) {
      if (!term.code_name || !term.known) continue;
      any_known = true;
      hit_one = hit_one || matches(term, present);
    }
    ranking.identifier_missed = any_known && !hit_one;
  }
  ranking.passages = std::move(ranked);
  return ranking;
}

AnswerLine answer_line(const RankedPassage& passage, const std::vector<QueryTerm>& terms) {
  AnswerLine best;
  if (terms.empty()) return best;
  std::vector<WeightedTerm> weighted;
  for (const QueryTerm& term : terms) {
    WeightedTerm w;
    w.forms.push_back(term.text);
    w.forms.insert(w.forms.end(), term.synonyms.begin(), term.synonyms.end());
    w.weight = term.identifier ? kIdentifierBoost : 1.0;
    weighted.push_back(std::move(w));
  }
  double total = 0;
  for (const WeightedTerm& term : weighted) total += term.weight;
  double best_sum = 0;
  const std::vector<std::string> lines = split_lines(passage.quote);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string line = lines[i];
    const size_t start = line.find_first_not_of(" ->#*|");
    if (start == std::string::npos || line.rfind("```", 0) == 0) continue;
    line = line.substr(start);
    const auto present = term_set(line);
    double sum = 0;
    for (const WeightedTerm& term : weighted) sum += matches(term, present) ? term.weight : 0;
    if (sum > best_sum + 1e-9) {
      best_sum = sum;
      best = AnswerLine{line, passage.quote_start + static_cast<int64_t>(i)};
    }
  }
  if (best_sum < kMinAnswerShare * total) return AnswerLine{};
  return best;
}

}  // namespace skillrt::torchnpu_helper
