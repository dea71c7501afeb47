// Text analysis shared by skill cards and requests: both sides must go through the same
// pipeline, otherwise a stemmed card word never meets the request word it came from.
//
// Requests also get a light reading of their structure (structure_of): which words are the
// task (an action word and the object it acts on), which are only mentioned (negated, or
// describing what already happened), and where one task ends and the next begins. The words
// that drive it are data (data/grammar.tsv), like the vocabulary (data/lexicon.tsv).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
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
  // Never the head of an object phrase: a number ("case 17") or an adverb ("first",
  // "safely") names an instance or a manner, not what the work is about.
  bool not_head = false;
};

// What a word of data/grammar.tsv does in a request.
enum class Cue : uint8_t {
  kNone,
  kAction,        // a verb of the work asked for: review, 审, fix, 修, run, 跑
  kNegation,      // the action after it is not asked for: 不用, 别, don't, without
  kContext,       // its clause tells what already happened: 已经, after
  kSequence,      // a next task starts here: 然后, 再, then, also
  kJoin,          // a next task starts here if an action follows at once: "and fix"
  kQuestion,      // the request asks a question, which is one task: how, 怎么
  kAdverb,        // a content word that is never an object's head: first, again
  kSpanEnd,       // an English object phrase ends before it: for, of, that; 是否, 有没有
  kObjectMarker,  // the object comes before the action: 把, 将
};

// A grammar word found in the text, on the units [unit_begin, unit_end) (empty for English
// words, which are function words and get no unit: it sits before unit_begin).
struct CueHit {
  Cue cue = Cue::kNone;
  uint32_t unit_begin = 0, unit_end = 0;
  bool makes = false;  // an action that makes or picks its object: write, 生成, recommend
};

struct Analysis {
  std::vector<Term> terms;
  std::vector<Unit> units;
  std::vector<CueHit> cues;              // in text order
  std::vector<uint32_t> clause_breaks;   // units where a clause starts (punctuation, sequence)
  std::vector<uint32_t> segment_breaks;  // units where a next task starts (sequence cues)
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

// The domain dictionary: Chinese words and English words, each with canonical concepts, and
// the grammar words with their cue.
class Lexicon {
 public:
  // Parses the TSV format documented in data/lexicon.tsv. Malformed lines are reported by
  // line number so a user extending the file sees what to fix.
  static Lexicon parse(std::string_view tsv, std::vector<std::string>* problems);
  // Adds the cues of the TSV format documented in data/grammar.tsv.
  void add_grammar(std::string_view tsv, std::vector<std::string>* problems);
  // The lexicon compiled into the binary from data/lexicon.tsv and data/grammar.tsv, and
  // those files' text.
  static const Lexicon& builtin();
  static std::string_view builtin_text();
  static std::string_view builtin_grammar_text();

  struct Entry {
    std::vector<std::string> concepts;  // empty for a grammar word without a meaning
    Cue cue = Cue::kNone;
    bool makes = false;  // an action of the grammar's "make" cue
  };
  // The entry of a term, or null: one lookup for both its concepts and its cue.
  const Entry* entry(std::string_view term) const;
  // Concepts of a term; null for a term that is not in the lexicon or only a grammar word.
  const std::vector<std::string>* find(std::string_view term) const;
  Cue cue(std::string_view term) const;
  size_t max_cjk_chars() const { return max_cjk_chars_; }
  size_t size() const { return entries_.size(); }

 private:
  void note_cjk_length(std::string_view term);

  std::unordered_map<std::string, Entry, TransparentHash, std::equal_to<>> entries_;
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

// Turns text into terms, content units and cues. Terms repeat when the text repeats them.
// `cues` false skips the costlier part of finding actions (verb forms, actions at the end of
// longer Chinese words), for text whose structure nobody reads: skill cards.
Analysis analyze_units(std::string_view text, const Lexicon& lexicon, bool cues = true);
// Terms only, for skill cards.
std::vector<Term> analyze(std::string_view text, const Lexicon& lexicon);

// What a content unit does in the request, which decides how much it weighs.
enum class Role : uint8_t {
  kPlain,    // mentioned
  kAction,   // the verb of a task asked for
  kObject,   // the head of what that verb acts on: the last word of its object phrase
  kNegated,  // in a clause part whose action is declined ("不用跑压测", "without changing")
  kContext,  // in a clause about what already happened ("迁移已经做完了", "after the port")
};

struct Structure {
  std::vector<Role> roles;  // one per unit
  // Unit ranges [begin, end) of the tasks the request asks for one after another; one range
  // (the whole request) when it has no sequence cue or is a question. A part counts as a
  // task only when it names what to act on, not just a verb ("并修复", "接着跑").
  std::vector<std::pair<uint32_t, uint32_t>> segments;
  // The object heads of actions that make or pick their object ("write a limerick" ->
  // limerick), in text order.
  std::vector<uint32_t> made;
};

// Reads the structure from the cues. Negated and context roles are only given while some
// clause of the request stays plain: a request that is all context is still the request.
Structure structure_of(const Analysis& analysis);

// The role a term takes from the units it stands on: action or object if any unit is one,
// negated or context if all are.
Role role_of(const Term& term, const Structure& structure);

}  // namespace skillrt::router::detail
