#include "router/detail/analyzer.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <unordered_set>

namespace skillrt::router::detail {

extern const std::string_view kBuiltinLexiconTsv;  // generated from data/lexicon.tsv
extern const std::string_view kBuiltinGrammarTsv;  // generated from data/grammar.tsv

namespace {

// Function words of requests; anything that could tell one skill from another stays out.
constexpr std::string_view kStopWords[] = {
    "a",     "about", "all",    "also",  "am",   "an",   "and",   "any",   "are",   "as",
    "at",    "be",    "been",   "being", "but",  "by",   "can",   "could", "did",   "do",
    "does",  "doing", "done",   "e",     "eg",   "etc",  "for",   "from",  "get",   "give",
    "got",   "had",   "has",    "have",  "he",   "help", "her",   "here",  "him",   "his",
    "how",   "i",     "if",     "im",    "in",   "into", "is",    "it",    "its",   "just",
    "let",   "lets",  "like",   "make",  "may",  "me",   "might", "must",  "my",    "need",
    "no",    "not",   "now",    "of",    "on",   "one",  "or",    "our",   "out",   "please",
    "shall", "she",   "should", "show",  "so",   "some", "than",  "that",  "the",   "their",
    "them",  "then",  "there",  "these", "they", "this", "those", "to",    "up",    "us",
    "via",   "want",  "was",    "we",    "were", "what", "when",  "where", "which", "who",
    "why",   "will",  "with",   "would", "you",  "your", "yours", "two",   "three", "four",
    "five",  "six",   "very",   "much",  "many", "more", "most",  "too",   "only",  "really",
    "still",
};

// Chinese function-word bigrams: frequent in every request, evidence for none of them.
constexpr std::string_view kCjkStopBigrams[] = {
    "帮我", "我想", "一下", "一个", "看看", "这个", "那个", "怎么", "什么", "如何", "可以",
    "能不", "不能", "是不", "不是", "请问", "我们", "你们", "一些", "现在", "已经", "我的",
    "你的", "时候", "需要", "应该", "有没", "没有", "为什", "这些", "那些", "之后", "以后",
    "然后", "还是", "或者", "以及", "进行", "一份", "一篇", "一张", "一首", "一次", "给我",
    "帮忙", "麻烦", "里的", "上的", "中的", "下的", "的是", "了吗", "好的", "这里", "那里",
};

// Single Chinese particles: grammar, not content. They weigh nothing, so that the last word
// of an object phrase ("关于 NPU 的诗" -> 诗) is never taken to be a particle.
constexpr std::string_view kCjkParticles[] = {"的", "了", "吗", "呢", "吧", "啊",
                                              "么", "呀", "哦", "嘛", "着"};

// How far (in content units) a negation reaches for its action: "不用登录服务器跑压测".
constexpr size_t kNegationReach = 6;

// ASCII only and locale-free: the C library's versions consult the locale on every call.
bool is_ascii_word_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix.data(), suffix.size()) == 0;
}

bool is_vowel(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

void undouble(std::string& s) {
  if (s.size() < 3) return;
  char last = s.back();
  if (last != s[s.size() - 2] || is_vowel(last) || last == 'l' || last == 's' || last == 'z') {
    return;
  }
  s.pop_back();
}

// Decodes one UTF-8 code point at `i`; returns its length. A byte that does not start a
// well-formed sequence decodes to U+FFFD with length 1, so malformed input degrades to
// separators instead of stopping the analysis.
size_t decode_utf8(std::string_view s, size_t i, char32_t* out) {
  auto b0 = static_cast<unsigned char>(s[i]);
  size_t len = b0 < 0x80             ? 1
               : (b0 & 0xE0) == 0xC0 ? 2
               : (b0 & 0xF0) == 0xE0 ? 3
               : (b0 & 0xF8) == 0xF0 ? 4
                                     : 0;
  *out = 0xFFFD;
  if (len == 0 || i + len > s.size()) return 1;
  if (len == 1) {
    *out = b0;
    return 1;
  }
  static constexpr unsigned char kLeadMask[] = {0, 0, 0x1F, 0x0F, 0x07};
  char32_t cp = b0 & kLeadMask[len];
  for (size_t k = 1; k < len; ++k) {
    auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 1;
    cp = (cp << 6) | (b & 0x3F);
  }
  *out = cp;
  return len;
}

bool is_cjk(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x20000 && c <= 0x2FA1F);
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

void add_concepts(const std::vector<std::string>& concepts, std::string_view surface,
                  uint32_t unit_begin, uint32_t unit_end, std::vector<Term>& out) {
  for (const auto& concept_word : concepts) {
    out.push_back(
        Term{concept_word, std::string(surface), TermKind::kConcept, unit_begin, unit_end});
  }
}

uint32_t unit_count(const Analysis& a) { return static_cast<uint32_t>(a.units.size()); }

// Calls fn(piece) for each word of an identifier; see split_identifier. Allocation-free
// because it runs for every word of every card.
template <class Fn>
void for_each_piece(std::string_view ident, Fn&& fn) {
  auto is_upper = [](char c) { return c >= 'A' && c <= 'Z'; };
  auto is_lower = [](char c) { return c >= 'a' && c <= 'z'; };
  size_t start = 0;
  auto flush = [&](size_t end) {
    if (end > start) fn(ident.substr(start, end - start));
  };
  for (size_t i = 0; i < ident.size(); ++i) {
    char c = ident[i];
    if (c == '_') {
      flush(i);
      start = i + 1;
      continue;
    }
    if (i == start || !is_upper(c)) continue;
    char prev = ident[i - 1];
    bool next_lower = i + 1 < ident.size() && is_lower(ident[i + 1]);
    // "PRs", "NPUs": a plural s ends the acronym rather than starting a word.
    if (next_lower && ident[i + 1] == 's' && (i + 2 == ident.size() || !is_lower(ident[i + 2]))) {
      next_lower = false;
    }
    // aclnnAdd: lower -> Upper; RMSNorm: the N starts a word because a lower letter follows.
    if (is_lower(prev) || (prev >= '0' && prev <= '9') || (is_upper(prev) && next_lower)) {
      flush(i);
      start = i;
    }
  }
  flush(ident.size());
}

// A cue word is a function word the structure reading needs; English ones are often stop
// words ("then", "not"), so cues are looked up before stop words are dropped. It sits before
// the next unit.
void note_ascii_cue(Cue cue, Analysis& analysis) {
  if (cue == Cue::kNone || cue == Cue::kAction || cue == Cue::kAdverb) return;
  auto u = unit_count(analysis);
  analysis.cues.push_back(CueHit{cue, u, u});
  if (cue == Cue::kSequence) {
    analysis.clause_breaks.push_back(u);
    analysis.segment_breaks.push_back(u);
  }
}

// An English word is an action when its verb form without an inflection is one:
// "reviewed", "fixes", "running" are actions, "findings" and "cleaners" are not. (The
// stemmer is too eager for this: it folds "findings" into "find".)
Cue action_cue(const std::string& lower, const Lexicon& lexicon, bool* makes) {
  auto is_action = [&](std::string_view w) {
    const Lexicon::Entry* e = lexicon.entry(w);
    if (e == nullptr || e->cue != Cue::kAction) return false;
    *makes = e->makes;
    return true;
  };
  // Runs for every English word of every card: one reused buffer, suffix checks first; the
  // word as written was looked up by the caller.
  std::string form;
  auto try_form = [&](std::string_view suffix, std::string_view replacement, size_t drop) {
    if (lower.size() <= suffix.size() + 2 || !ends_with(lower, suffix)) return false;
    form.assign(lower, 0, lower.size() - suffix.size() - drop);
    form += replacement;
    return is_action(form);
  };
  bool found = try_form("ies", "y", 0) || try_form("es", "", 0) || try_form("s", "", 0);
  for (std::string_view suffix : {"ed", "d", "ing"}) {
    if (found) break;
    found = try_form(suffix, "", 0) || try_form(suffix, "e", 0);
    // "running" -> "run", "stopped" -> "stop"
    size_t stem_end = lower.size() - suffix.size();
    if (!found && lower.size() > suffix.size() + 3 && ends_with(lower, suffix) &&
        lower[stem_end - 1] == lower[stem_end - 2]) {
      found = try_form(suffix, "", 1);
    }
  }
  return found ? Cue::kAction : Cue::kNone;
}

void analyze_ascii_run(std::string_view run, const Lexicon& lexicon, bool cues,
                       Analysis& analysis) {
  auto& out = analysis.terms;
  uint32_t run_begin = unit_count(analysis);
  size_t whole_at = out.size();
  size_t pieces = 0;
  bool whole_is_piece = false;
  for_each_piece(run, [&](std::string_view piece) {
    ++pieces;
    whole_is_piece = piece.size() == run.size();
    std::string lower = to_lower(piece);
    const Lexicon::Entry* entry = lexicon.entry(lower);
    Cue cue = entry == nullptr ? Cue::kNone : entry->cue;
    note_ascii_cue(cue, analysis);
    if (lower.size() < 2) return;
    if (is_stop_word(lower)) {
      // A function word the lexicon gives a meaning ("what" -> question) adds that meaning,
      // standing on no content unit.
      if (entry != nullptr && !entry->concepts.empty()) {
        auto u = unit_count(analysis);
        add_concepts(entry->concepts, piece, u, u, out);
      }
      return;
    }
    std::string stemmed = stem(lower);
    const std::vector<std::string>* concepts =
        entry != nullptr && !entry->concepts.empty() ? &entry->concepts : nullptr;
    if (concepts == nullptr && stemmed != lower) concepts = lexicon.find(stemmed);
    bool makes = entry != nullptr && entry->makes;
    if (cues && cue != Cue::kAction) cue = action_cue(lower, lexicon, &makes);
    uint32_t u = unit_count(analysis);
    bool number =
        std::all_of(lower.begin(), lower.end(), [](char c) { return c >= '0' && c <= '9'; });
    bool adverb = (entry != nullptr && entry->cue == Cue::kAdverb) ||
                  (lower.size() >= 5 && ends_with(lower, "ly"));
    analysis.units.push_back(Unit{1.0, number || adverb});
    if (cue == Cue::kAction) analysis.cues.push_back(CueHit{Cue::kAction, u, u + 1, makes});
    out.push_back(Term{std::move(stemmed), std::string(piece), TermKind::kWord, u, u + 1});
    if (concepts != nullptr) add_concepts(*concepts, piece, u, u + 1, out);
  });
  if (pieces == 1 && whole_is_piece) return;
  // A known identifier as a whole ("torch_npu") carries more than its pieces.
  if (const auto* concepts = lexicon.find(to_lower(run))) {
    std::vector<Term> extra;
    add_concepts(*concepts, run, run_begin, unit_count(analysis), extra);
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(whole_at), extra.begin(), extra.end());
  }
}

bool is_cjk_particle(std::string_view c) {
  return std::find(std::begin(kCjkParticles), std::end(kCjkParticles), c) !=
         std::end(kCjkParticles);
}

void analyze_cjk_run(std::string_view text, const std::vector<size_t>& offsets,
                     const Lexicon& lexicon, bool cues, Analysis& analysis) {
  auto& out = analysis.terms;
  // offsets holds the byte offset of every character plus one past the last.
  size_t n = offsets.size() - 1;
  auto slice = [&](size_t from, size_t to) {
    return text.substr(offsets[from], offsets[to] - offsets[from]);
  };
  // One unit per character; characters of function words weigh nothing.
  auto base = unit_count(analysis);
  analysis.units.resize(base + n, Unit{0.5, false});
  for (size_t i = 0; i + 1 < n; ++i) {
    if (is_cjk_stop_bigram(slice(i, i + 2))) {
      analysis.units[base + i].weight = 0.0;
      analysis.units[base + i + 1].weight = 0.0;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (is_cjk_particle(slice(i, i + 1))) analysis.units[base + i].weight = 0.0;
  }
  auto unit = [&](size_t char_index) { return static_cast<uint32_t>(base + char_index); };
  // Characters of grammar words other than actions ("然后", "不用") start no bigram of
  // their own.
  std::vector<char> function_char(n, 0);
  // Longest match against the lexicon: "算子适配" must win over "算子" + "适配".
  size_t max_len = std::max<size_t>(lexicon.max_cjk_chars(), 1);
  for (size_t i = 0; i < n;) {
    size_t matched = 0;
    for (size_t len = std::min(max_len, n - i); len >= 1; --len) {
      std::string_view candidate = slice(i, i + len);
      const Lexicon::Entry* entry = lexicon.entry(candidate);
      if (entry == nullptr) continue;
      const auto* concepts = entry->concepts.empty() ? nullptr : &entry->concepts;
      Cue cue = entry->cue;
      if (concepts != nullptr) {
        out.push_back(Term{std::string(candidate), std::string(candidate), TermKind::kCjkWord,
                           unit(i), unit(i + len)});
        add_concepts(*concepts, candidate, unit(i), unit(i + len), out);
      }
      if (cues && cue == Cue::kNone && concepts != nullptr) {
        // A word ending in an action is that action on the rest: "算子适配", "代码审查".
        for (size_t tail = len - 1; tail >= 1; --tail) {
          if (lexicon.cue(slice(i + len - tail, i + len)) != Cue::kAction) continue;
          analysis.cues.push_back(CueHit{Cue::kAction, unit(i + len - tail), unit(i + len)});
          break;
        }
      }
      if (cue != Cue::kNone) {
        analysis.cues.push_back(CueHit{cue, unit(i), unit(i + len), entry->makes});
        if (cue != Cue::kAction) {
          for (size_t k = i; k < i + len; ++k) {
            analysis.units[unit(k)].weight = 0.0;
            function_char[k] = 1;
          }
        }
        if (cue == Cue::kSequence) {
          analysis.clause_breaks.push_back(unit(i));
          analysis.segment_breaks.push_back(unit(i));
        }
      }
      matched = len;
      break;
    }
    i += matched > 0 ? matched : 1;
  }
  // Bigrams cover what the lexicon does not know, matching Chinese example requests.
  for (size_t i = 0; i + 1 < n; ++i) {
    std::string_view bigram = slice(i, i + 2);
    if (is_cjk_stop_bigram(bigram) || (function_char[i] && function_char[i + 1])) continue;
    out.push_back(
        Term{std::string(bigram), std::string(bigram), TermKind::kCjkBigram, unit(i), unit(i + 2)});
  }
}

// Clause punctuation: ASCII ",.;:!?" only when a space or the end follows ("torch.cuda",
// "[1,2]" and "v2.11" stay whole), and the Chinese full-width marks. The enumeration comma
// "、" joins items of one phrase and is not a break.
bool is_ascii_break(std::string_view text, size_t i) {
  char c = text[i];
  if (c == '\n') return true;
  if (c != ',' && c != '.' && c != ';' && c != ':' && c != '!' && c != '?') return false;
  return i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\t' || text[i + 1] == '\n' ||
         text[i + 1] == '\r';
}

bool is_cjk_break(char32_t cp) {
  return cp == 0xFF0C || cp == 0x3002 || cp == 0xFF1B || cp == 0xFF1A || cp == 0xFF01 ||
         cp == 0xFF1F || cp == 0x2026;
}
}  // namespace

// Built once; looked up for every word of every card and request.
using ViewSet = std::unordered_set<std::string_view, TransparentHash>;

// Sparse tables: most lookups miss, and a miss into an empty bucket compares no strings.
const ViewSet& stop_words() {
  static const ViewSet set(std::begin(kStopWords), std::end(kStopWords), 2048);
  return set;
}

const ViewSet& cjk_stop_bigrams() {
  static const ViewSet set(std::begin(kCjkStopBigrams), std::end(kCjkStopBigrams), 1024);
  return set;
}

bool is_stop_word(std::string_view lower_word) {
  // No stop word is longer than six letters; most words skip the lookup.
  return lower_word.size() <= 6 && stop_words().contains(lower_word);
}

std::string stem(std::string_view lower_word) {
  std::string s(lower_word);
  if (s.size() <= 3) return s;
  if (std::any_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) return s;
  if (ends_with(s, "ies") && s.size() > 4) {
    s.replace(s.size() - 3, 3, "y");
  } else if (ends_with(s, "sses")) {
    s.resize(s.size() - 2);
  } else if (ends_with(s, "s") && !ends_with(s, "ss") && !ends_with(s, "us") &&
             !ends_with(s, "is")) {
    s.pop_back();
  }
  if (ends_with(s, "ation") && s.size() >= 9) {
    s.resize(s.size() - 5);
  } else if (ends_with(s, "ing") && s.size() >= 7) {
    s.resize(s.size() - 3);
    undouble(s);
  } else if (ends_with(s, "ed") && s.size() >= 6) {
    s.resize(s.size() - 2);
    undouble(s);
  } else if (ends_with(s, "er") && s.size() >= 7) {
    s.resize(s.size() - 2);
  } else if (ends_with(s, "ly") && s.size() >= 6) {
    s.resize(s.size() - 2);
  }
  if (ends_with(s, "ate") && s.size() >= 7) {
    s.resize(s.size() - 3);
  } else if (ends_with(s, "at") && s.size() >= 6) {
    s.resize(s.size() - 2);
  } else if (ends_with(s, "e") && s.size() >= 5) {
    s.pop_back();
  }
  return s;
}

std::vector<std::string_view> split_identifier(std::string_view ident) {
  std::vector<std::string_view> out;
  for_each_piece(ident, [&](std::string_view piece) { out.push_back(piece); });
  return out;
}

bool is_cjk_stop_bigram(std::string_view bigram) { return cjk_stop_bigrams().contains(bigram); }

std::vector<Term> analyze(std::string_view text, const Lexicon& lexicon) {
  return analyze_units(text, lexicon, false).terms;
}

Analysis analyze_units(std::string_view text, const Lexicon& lexicon, bool cues) {
  Analysis out;
  out.terms.reserve(text.size() / 3 + 4);
  out.units.reserve(text.size() / 4 + 4);
  std::vector<size_t> cjk_offsets;
  auto clause_break = [&] { out.clause_breaks.push_back(unit_count(out)); };
  size_t i = 0;
  while (i < text.size()) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (!is_ascii_word_char(c)) {
        if (is_ascii_break(text, i)) clause_break();
        ++i;
        continue;
      }
      size_t start = i;
      while (i < text.size() && is_ascii_word_char(static_cast<unsigned char>(text[i]))) ++i;
      analyze_ascii_run(text.substr(start, i - start), lexicon, cues, out);
      continue;
    }
    char32_t cp = 0;
    size_t len = decode_utf8(text, i, &cp);
    if (!is_cjk(cp)) {
      if (is_cjk_break(cp)) clause_break();
      i += len;
      continue;
    }
    cjk_offsets.clear();
    while (i < text.size()) {
      size_t l = decode_utf8(text, i, &cp);
      if (!is_cjk(cp)) break;
      cjk_offsets.push_back(i);
      i += l;
    }
    cjk_offsets.push_back(i);
    analyze_cjk_run(text, cjk_offsets, lexicon, cues, out);
  }
  // "adapt the op and generate its tests": a join followed at once by an action starts a task.
  // So does one that opens a clause when an action follows later: "compare the outputs, and
  // if they differ, write tests".
  std::vector<uint32_t> clause_starts = out.clause_breaks;
  for (const CueHit& join : out.cues) {
    if (join.cue != Cue::kJoin) continue;
    bool opens_clause = std::find(clause_starts.begin(), clause_starts.end(), join.unit_begin) !=
                        clause_starts.end();
    bool action_next = std::any_of(out.cues.begin(), out.cues.end(), [&](const CueHit& c) {
      return c.cue == Cue::kAction &&
             (c.unit_begin == join.unit_end || (opens_clause && c.unit_begin >= join.unit_end));
    });
    if (!action_next) continue;
    out.clause_breaks.push_back(join.unit_begin);
    out.segment_breaks.push_back(join.unit_begin);
  }
  return out;
}

namespace {

// Sorted breaks strictly inside (0, n), turned into ranges covering [0, n).
std::vector<std::pair<uint32_t, uint32_t>> ranges(std::vector<uint32_t> breaks, uint32_t n) {
  std::sort(breaks.begin(), breaks.end());
  std::vector<std::pair<uint32_t, uint32_t>> out;
  uint32_t start = 0;
  for (uint32_t b : breaks) {
    if (b <= start || b >= n) continue;
    out.emplace_back(start, b);
    start = b;
  }
  out.emplace_back(start, n);
  return out;
}

// The last unit with content in [from, to) that can be a head and no other role has taken, or
// `to` if none.
uint32_t last_content(const Analysis& a, const std::vector<Role>& roles, uint32_t from,
                      uint32_t to) {
  for (uint32_t u = to; u > from; --u) {
    if (a.units[u - 1].weight > 0.0 && !a.units[u - 1].not_head && roles[u - 1] == Role::kPlain) {
      return u - 1;
    }
  }
  return to;
}

// Marks the action cues of one clause [begin, end), each with the head of its object phrase,
// after negation has been marked (a declined action is no task).
void mark_actions(const Analysis& a, const std::vector<const CueHit*>& cues, uint32_t begin,
                  uint32_t end, std::vector<Role>& roles, std::vector<uint32_t>& made) {
  std::vector<const CueHit*> actions;
  for (const CueHit* c : cues) {
    if (c->cue == Cue::kAction && roles[c->unit_begin] == Role::kPlain) actions.push_back(c);
  }
  // "把 api 精度对比脚本放到服务器上跑一遍": after an object marker the clause's last
  // action is the verb; actions before it are part of the object phrase.
  const CueHit* marker = nullptr;
  for (const CueHit* c : cues) {
    if (c->cue == Cue::kObjectMarker && marker == nullptr) marker = c;
  }
  if (marker != nullptr && actions.size() > 1) {
    std::vector<const CueHit*> kept;
    for (size_t k = 0; k < actions.size(); ++k) {
      bool in_object = actions[k]->unit_begin >= marker->unit_end && k + 1 < actions.size();
      if (!in_object) kept.push_back(actions[k]);
    }
    actions = std::move(kept);
  }
  for (const CueHit* act : actions) {
    for (uint32_t u = act->unit_begin; u < act->unit_end; ++u) roles[u] = Role::kAction;
  }
  uint32_t previous_end = begin;
  for (size_t k = 0; k < actions.size(); ++k) {
    const CueHit* act = actions[k];
    uint32_t next_action = k + 1 < actions.size() ? actions[k + 1]->unit_begin : end;
    uint32_t head = end;
    if (marker != nullptr && marker->unit_begin >= previous_end &&
        marker->unit_end <= act->unit_begin) {
      // "把 train.py 的 cuda 调用改成 npu": the object is between the marker and the action,
      // up to a span end ("把脚本放到服务器上跑" -> 脚本).
      uint32_t object_end = act->unit_begin;
      for (const CueHit* c : cues) {
        if (c->cue == Cue::kSpanEnd && c->unit_begin >= marker->unit_end &&
            c->unit_begin < object_end) {
          object_end = c->unit_begin;
        }
      }
      head = last_content(a, roles, marker->unit_end, object_end);
      if (head == object_end) head = end;
    } else {
      uint32_t span_end = next_action;
      for (const CueHit* c : cues) {
        if (c->cue == Cue::kSpanEnd && c->unit_begin >= act->unit_end && c->unit_begin < span_end) {
          span_end = c->unit_begin;
        }
      }
      head = last_content(a, roles, act->unit_end, span_end);
      // Nothing after the verb: the object came first ("这份 plog 帮我分析一下").
      if (head == span_end) {
        head = last_content(a, roles, previous_end, act->unit_begin);
        if (head == act->unit_begin) head = end;
      }
    }
    if (head < end && roles[head] == Role::kPlain) {
      roles[head] = Role::kObject;
      if (act->makes) made.push_back(head);
    }
    previous_end = act->unit_end;
  }
}

}  // namespace

Structure structure_of(const Analysis& a) {
  auto n = static_cast<uint32_t>(a.units.size());
  Structure s;
  s.roles.assign(n, Role::kPlain);
  for (auto [begin, end] : ranges(a.clause_breaks, n)) {
    std::vector<const CueHit*> cues;
    for (const auto& c : a.cues) {
      if (c.unit_begin >= begin && c.unit_begin < end) cues.push_back(&c);
    }
    bool context = std::any_of(cues.begin(), cues.end(),
                               [](const CueHit* c) { return c->cue == Cue::kContext; });
    if (context) {
      std::fill(s.roles.begin() + begin, s.roles.begin() + end, Role::kContext);
      continue;
    }
    // A negation declines the action it reaches: from the negation to the clause end.
    for (size_t k = 0; k < cues.size(); ++k) {
      if (cues[k]->cue != Cue::kNegation) continue;
      const CueHit* action = nullptr;
      for (size_t m = k + 1; m < cues.size() && action == nullptr; ++m) {
        if (cues[m]->cue == Cue::kAction) action = cues[m];
      }
      if (action == nullptr) continue;
      size_t between = 0;
      for (uint32_t u = cues[k]->unit_end; u < action->unit_begin; ++u) {
        between += a.units[u].weight > 0.0 ? 1 : 0;
      }
      if (between > kNegationReach) continue;
      std::fill(s.roles.begin() + cues[k]->unit_begin, s.roles.begin() + end, Role::kNegated);
      break;
    }
    mark_actions(a, cues, begin, end, s.roles, s.made);
  }
  // A request that is all negation or context is still what was asked.
  bool plain_left = false;
  for (uint32_t u = 0; u < n; ++u) {
    bool damped = s.roles[u] == Role::kNegated || s.roles[u] == Role::kContext;
    plain_left = plain_left || (a.units[u].weight > 0.0 && !damped);
  }
  if (!plain_left) {
    for (auto& r : s.roles) {
      if (r == Role::kNegated || r == Role::kContext) r = Role::kPlain;
    }
  }
  auto parts = ranges(a.segment_breaks, n);
  // A question word after an action of its clause is an embedded question, the object of
  // that action ("assess how hard the port is, then apply it"), not a question asked.
  auto clauses = ranges(a.clause_breaks, n);
  auto embedded = [&](const CueHit& q) {
    auto clause = std::find_if(clauses.begin(), clauses.end(),
                               [&](auto r) { return q.unit_begin < r.second; });
    uint32_t clause_begin = clause == clauses.end() ? 0 : clause->first;
    return std::any_of(a.cues.begin(), a.cues.end(), [&](const CueHit& c) {
      return c.cue == Cue::kAction && c.unit_begin >= clause_begin && c.unit_end <= q.unit_begin;
    });
  };
  bool question = std::any_of(a.cues.begin(), a.cues.end(), [&](const CueHit& c) {
    return c.cue == Cue::kQuestion && c.unit_begin < parts.front().second && !embedded(c);
  });
  for (auto range : parts) {
    bool names_object = false;
    for (uint32_t u = range.first; u < range.second && !names_object; ++u) {
      names_object = a.units[u].weight > 0.0 && s.roles[u] != Role::kAction;
    }
    if (names_object) s.segments.push_back(range);
  }
  if (question || s.segments.size() < 2) s.segments.assign(1, {0, n});
  return s;
}

Role role_of(const Term& term, const Structure& structure) {
  if (term.unit_begin >= term.unit_end || term.unit_end > structure.roles.size()) {
    return Role::kPlain;
  }
  bool all_damped = true, negated = false, object = false;
  for (uint32_t u = term.unit_begin; u < term.unit_end; ++u) {
    Role r = structure.roles[u];
    if (r == Role::kAction) return Role::kAction;
    object = object || r == Role::kObject;
    negated = negated || r == Role::kNegated;
    all_damped = all_damped && (r == Role::kNegated || r == Role::kContext);
  }
  if (object) return Role::kObject;
  if (all_damped) return negated ? Role::kNegated : Role::kContext;
  return Role::kPlain;
}

void Lexicon::note_cjk_length(std::string_view term) {
  size_t chars = 0;
  for (size_t k = 0; k < term.size();) {
    char32_t cp = 0;
    k += decode_utf8(term, k, &cp);
    ++chars;
  }
  max_cjk_chars_ = std::max(max_cjk_chars_, chars);
}

// Calls `each(line_no, line)` for every line of a data file that is not blank or a '#' comment,
// without its line break; the lexicon and the grammar share this format.
template <typename Each>
void for_each_data_line(std::string_view tsv, Each&& each) {
  size_t line_no = 0;
  while (!tsv.empty()) {
    const size_t eol = tsv.find('\n');
    std::string_view line = tsv.substr(0, eol);
    tsv = eol == std::string_view::npos ? std::string_view{} : tsv.substr(eol + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    each(line_no, line);
  }
}

Lexicon Lexicon::parse(std::string_view tsv, std::vector<std::string>* problems) {
  Lexicon lex;
  for_each_data_line(tsv, [&](size_t line_no, std::string_view line) {
    size_t tab = line.find('\t');
    if (tab == std::string_view::npos || tab == 0 || tab + 1 >= line.size()) {
      if (problems != nullptr) {
        problems->push_back("lexicon line " + std::to_string(line_no) +
                            ": expected '<term>\\t<concepts>'; separate term and concepts "
                            "with one tab");
      }
      return;
    }
    std::string term(line.substr(0, tab));
    bool ascii = std::all_of(term.begin(), term.end(),
                             [](char ch) { return static_cast<unsigned char>(ch) < 0x80; });
    if (ascii) term = to_lower(term);
    std::vector<std::string> concepts;
    // Concepts pass through the same pipeline as card text so "analysis" meets "analyses".
    for (const Term& t : analyze(line.substr(tab + 1), Lexicon{})) {
      if (t.kind != TermKind::kWord) continue;
      if (std::find(concepts.begin(), concepts.end(), t.text) == concepts.end()) {
        concepts.push_back(t.text);
      }
    }
    if (concepts.empty()) {
      if (problems != nullptr) {
        problems->push_back("lexicon line " + std::to_string(line_no) + ": term '" + term +
                            "' has no usable concept words; write English words after the tab");
      }
      return;
    }
    if (!ascii) lex.note_cjk_length(term);
    auto& slot = lex.entries_[std::move(term)].concepts;
    for (auto& c : concepts) {
      if (std::find(slot.begin(), slot.end(), c) == slot.end()) slot.push_back(std::move(c));
    }
  });
  // Sparse, for the same reason as the stop-word tables.
  lex.entries_.rehash(lex.entries_.size() * 8);
  return lex;
}

void Lexicon::add_grammar(std::string_view tsv, std::vector<std::string>* problems) {
  static constexpr std::pair<std::string_view, Cue> kCues[] = {
      {"action", Cue::kAction},    {"negation", Cue::kNegation},
      {"context", Cue::kContext},  {"sequence", Cue::kSequence},
      {"span-end", Cue::kSpanEnd}, {"object-marker", Cue::kObjectMarker},
      {"join", Cue::kJoin},        {"question", Cue::kQuestion},
      {"adverb", Cue::kAdverb},    {"make", Cue::kAction},
  };
  for_each_data_line(tsv, [&](size_t line_no, std::string_view line) {
    size_t tab = line.find('\t');
    std::string_view name = tab == std::string_view::npos ? line : line.substr(0, tab);
    const auto* kind = std::find_if(std::begin(kCues), std::end(kCues),
                                    [&](const auto& c) { return c.first == name; });
    if (tab == std::string_view::npos || tab + 1 >= line.size() || kind == std::end(kCues)) {
      if (problems != nullptr) {
        problems->push_back(
            "grammar line " + std::to_string(line_no) +
            ": expected '<cue>\\t<word>' with the cue one of action, negation, "
            "context, sequence, join, question, adverb, span-end, object-marker, make");
      }
      return;
    }
    std::string word(line.substr(tab + 1));
    bool ascii = std::all_of(word.begin(), word.end(),
                             [](char ch) { return static_cast<unsigned char>(ch) < 0x80; });
    if (ascii) {
      word = to_lower(word);
      bool one_word = !word.empty() && std::all_of(word.begin(), word.end(), [](char ch) {
        return is_ascii_word_char(static_cast<unsigned char>(ch));
      });
      if (!one_word) {
        if (problems != nullptr) {
          problems->push_back("grammar line " + std::to_string(line_no) + ": '" + word +
                              "' is not one English word; write one word per line");
        }
        return;
      }
    } else {
      note_cjk_length(word);
    }
    Entry& entry = entries_[word];
    if (entry.cue != Cue::kNone && entry.cue != kind->second) {
      if (problems != nullptr) {
        problems->push_back("grammar line " + std::to_string(line_no) + ": '" + word +
                            "' already has another cue; a word has one cue, remove one line");
      }
      return;
    }
    entry.cue = kind->second;
    entry.makes = entry.makes || name == "make";
  });
  entries_.rehash(entries_.size() * 8);
}

const Lexicon& Lexicon::builtin() {
  // Parsed once; the files are part of the build, so a malformed line is a build-time
  // mistake that tests/unit/router reports through Lexicon::parse and add_grammar.
  static const Lexicon lexicon = [] {
    Lexicon lex = parse(kBuiltinLexiconTsv, nullptr);
    lex.add_grammar(kBuiltinGrammarTsv, nullptr);
    return lex;
  }();
  return lexicon;
}

std::string_view Lexicon::builtin_text() { return kBuiltinLexiconTsv; }

std::string_view Lexicon::builtin_grammar_text() { return kBuiltinGrammarTsv; }

const Lexicon::Entry* Lexicon::entry(std::string_view term) const {
  auto it = entries_.find(term);
  return it == entries_.end() ? nullptr : &it->second;
}

const std::vector<std::string>* Lexicon::find(std::string_view term) const {
  const Entry* e = entry(term);
  return e == nullptr || e->concepts.empty() ? nullptr : &e->concepts;
}

Cue Lexicon::cue(std::string_view term) const {
  const Entry* e = entry(term);
  return e == nullptr ? Cue::kNone : e->cue;
}

}  // namespace skillrt::router::detail
