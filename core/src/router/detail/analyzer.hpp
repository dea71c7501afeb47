// Text analysis shared by skill cards and requests: both sides must go through the same
// pipeline, otherwise a stemmed card word never meets the request word it came from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace skillrt::router::detail {

// Where a term came from; the router weighs them differently because a Chinese character
// bigram is far noisier evidence than a whole English word.
enum class TermKind {
  kWord,       // an English word or identifier piece, stemmed
  kConcept,    // added by the lexicon for a word or Chinese term
  kCjkWord,    // a Chinese lexicon term as written
  kCjkBigram,  // two adjacent CJK characters
};

struct Term {
  std::string text;     // the indexed form
  std::string surface;  // what the text said, for explanations ("算子" for concept "operator")
  TermKind kind = TermKind::kWord;
  // Content units (see Analysis) this term stands on: [unit_begin, unit_end).
  uint32_t unit_begin = 0, unit_end = 0;
};

// The request's content, for measuring how much of it a skill explains: each English word
// that is not a stop word weighs 1, each Chinese character outside function words 0.5 (two
// characters make a typical Chinese word).
struct Unit {
  double weight = 0.0;
};

struct Analysis {
  std::vector<Term> terms;
  std::vector<Unit> units;
};

// FNV-1a: terms are a few bytes long, where it beats the library's general-purpose hash, and
// building an index hashes every word of every card.
struct TransparentHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept {
    uint64_t h = 1469598103934665603ULL;
    for (char c : s) {
      h ^= static_cast<unsigned char>(c);
      h *= 1099511628211ULL;
    }
    return static_cast<size_t>(h);
  }
};

// The domain dictionary: Chinese words and English words, each with canonical concepts.
class Lexicon {
 public:
  // Parses the TSV format documented in data/lexicon.tsv. Malformed lines are reported by
  // line number so a user extending the file sees what to fix.
  static Lexicon parse(std::string_view tsv, std::vector<std::string>* problems);
  // The lexicon compiled into the binary from data/lexicon.tsv, and that file's text.
  static const Lexicon& builtin();
  static std::string_view builtin_text();

  const std::vector<std::string>* find(std::string_view term) const;
  size_t max_cjk_chars() const { return max_cjk_chars_; }
  size_t size() const { return entries_.size(); }

 private:
  std::unordered_map<std::string, std::vector<std::string>, TransparentHash, std::equal_to<>>
      entries_;
  size_t max_cjk_chars_ = 0;
};

// English light stemmer: folds plurals and common suffixes so "tests", "testing" and
// "tested" meet. Only ever compared with its own output, so it need not produce real words.
std::string stem(std::string_view lower_word);

// True for short function words that carry no routing evidence.
bool is_stop_word(std::string_view lower_word);

// Splits an identifier into words: "npu_fusion_attention" -> npu fusion attention,
// "aclnnAddRmsNorm" -> aclnn Add Rms Norm, "RMSNorm" -> RMS Norm. Case is kept.
std::vector<std::string_view> split_identifier(std::string_view ident);

// True for Chinese function-word bigrams ("一下", "这个") that carry no routing evidence.
bool is_cjk_stop_bigram(std::string_view bigram);

// Turns text into terms and content units. Terms repeat when the text repeats them.
Analysis analyze_units(std::string_view text, const Lexicon& lexicon);
// Terms only.
std::vector<Term> analyze(std::string_view text, const Lexicon& lexicon);

}  // namespace skillrt::router::detail
