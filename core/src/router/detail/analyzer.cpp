#include "router/detail/analyzer.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <unordered_set>

namespace skillrt::router::detail {

extern const std::string_view kBuiltinLexiconTsv;  // generated from data/lexicon.tsv

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
    "why",   "will",  "with",   "would", "you",  "your", "yours",
};

// Chinese function-word bigrams: frequent in every request, evidence for none of them.
constexpr std::string_view kCjkStopBigrams[] = {
    "帮我", "我想", "一下", "一个", "看看", "这个", "那个", "怎么", "什么", "如何", "可以",
    "能不", "不能", "是不", "不是", "请问", "我们", "你们", "一些", "现在", "已经", "我的",
    "你的", "时候", "需要", "应该", "有没", "没有", "为什", "这些", "那些", "之后", "以后",
    "然后", "还是", "或者", "以及", "进行", "一份", "一篇", "一张", "一首", "一次", "给我",
    "帮忙", "麻烦", "里的", "上的", "中的", "下的", "的是", "了吗", "好的", "这里", "那里",
};

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
    // aclnnAdd: lower -> Upper; RMSNorm: the N starts a word because a lower letter follows.
    if (is_lower(prev) || (prev >= '0' && prev <= '9') || (is_upper(prev) && next_lower)) {
      flush(i);
      start = i;
    }
  }
  flush(ident.size());
}

void analyze_ascii_run(std::string_view run, const Lexicon& lexicon, Analysis& analysis) {
  auto& out = analysis.terms;
  uint32_t run_begin = unit_count(analysis);
  size_t whole_at = out.size();
  size_t pieces = 0;
  bool whole_is_piece = false;
  for_each_piece(run, [&](std::string_view piece) {
    ++pieces;
    whole_is_piece = piece.size() == run.size();
    std::string lower = to_lower(piece);
    if (lower.size() < 2 || is_stop_word(lower)) return;
    std::string stemmed = stem(lower);
    const auto* concepts = lexicon.find(lower);
    if (concepts == nullptr && stemmed != lower) concepts = lexicon.find(stemmed);
    uint32_t u = unit_count(analysis);
    analysis.units.push_back(Unit{1.0});
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

void analyze_cjk_run(std::string_view text, const std::vector<size_t>& offsets,
                     const Lexicon& lexicon, Analysis& analysis) {
  auto& out = analysis.terms;
  // offsets holds the byte offset of every character plus one past the last.
  size_t n = offsets.size() - 1;
  auto slice = [&](size_t from, size_t to) {
    return text.substr(offsets[from], offsets[to] - offsets[from]);
  };
  // One unit per character; characters of function words weigh nothing.
  auto base = unit_count(analysis);
  analysis.units.resize(base + n, Unit{0.5});
  for (size_t i = 0; i + 1 < n; ++i) {
    if (is_cjk_stop_bigram(slice(i, i + 2))) {
      analysis.units[base + i].weight = 0.0;
      analysis.units[base + i + 1].weight = 0.0;
    }
  }
  auto unit = [&](size_t char_index) { return static_cast<uint32_t>(base + char_index); };
  // Longest match against the lexicon: "算子适配" must win over "算子" + "适配".
  size_t max_len = std::max<size_t>(lexicon.max_cjk_chars(), 1);
  for (size_t i = 0; i < n;) {
    size_t matched = 0;
    for (size_t len = std::min(max_len, n - i); len >= 1; --len) {
      std::string_view candidate = slice(i, i + len);
      if (const auto* concepts = lexicon.find(candidate)) {
        out.push_back(Term{std::string(candidate), std::string(candidate), TermKind::kCjkWord,
                           unit(i), unit(i + len)});
        add_concepts(*concepts, candidate, unit(i), unit(i + len), out);
        matched = len;
        break;
      }
    }
    i += matched > 0 ? matched : 1;
  }
  // Bigrams cover what the lexicon does not know, matching Chinese example requests.
  for (size_t i = 0; i + 1 < n; ++i) {
    std::string_view bigram = slice(i, i + 2);
    if (is_cjk_stop_bigram(bigram)) continue;
    out.push_back(
        Term{std::string(bigram), std::string(bigram), TermKind::kCjkBigram, unit(i), unit(i + 2)});
  }
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
  return analyze_units(text, lexicon).terms;
}

Analysis analyze_units(std::string_view text, const Lexicon& lexicon) {
  Analysis out;
  out.terms.reserve(text.size() / 3 + 4);
  out.units.reserve(text.size() / 4 + 4);
  std::vector<size_t> cjk_offsets;
  size_t i = 0;
  while (i < text.size()) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (!is_ascii_word_char(c)) {
        ++i;
        continue;
      }
      size_t start = i;
      while (i < text.size() && is_ascii_word_char(static_cast<unsigned char>(text[i]))) ++i;
      analyze_ascii_run(text.substr(start, i - start), lexicon, out);
      continue;
    }
    char32_t cp = 0;
    size_t len = decode_utf8(text, i, &cp);
    if (!is_cjk(cp)) {
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
    analyze_cjk_run(text, cjk_offsets, lexicon, out);
  }
  return out;
}

Lexicon Lexicon::parse(std::string_view tsv, std::vector<std::string>* problems) {
  Lexicon lex;
  size_t line_no = 0;
  while (!tsv.empty()) {
    size_t eol = tsv.find('\n');
    std::string_view line = tsv.substr(0, eol);
    tsv = eol == std::string_view::npos ? std::string_view{} : tsv.substr(eol + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    size_t tab = line.find('\t');
    if (tab == std::string_view::npos || tab == 0 || tab + 1 >= line.size()) {
      if (problems != nullptr) {
        problems->push_back("lexicon line " + std::to_string(line_no) +
                            ": expected '<term>\\t<concepts>'; separate term and concepts "
                            "with one tab");
      }
      continue;
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
      continue;
    }
    if (!ascii) {
      size_t chars = 0;
      for (size_t k = 0; k < term.size();) {
        char32_t cp = 0;
        k += decode_utf8(term, k, &cp);
        ++chars;
      }
      lex.max_cjk_chars_ = std::max(lex.max_cjk_chars_, chars);
    }
    auto& slot = lex.entries_[std::move(term)];
    for (auto& c : concepts) {
      if (std::find(slot.begin(), slot.end(), c) == slot.end()) slot.push_back(std::move(c));
    }
  }
  // Sparse, for the same reason as the stop-word tables.
  lex.entries_.rehash(lex.entries_.size() * 8);
  return lex;
}

const Lexicon& Lexicon::builtin() {
  // Parsed once; the file is part of the build, so a malformed line is a build-time mistake
  // that tests/unit/router reports through Lexicon::parse.
  static const Lexicon lexicon = parse(kBuiltinLexiconTsv, nullptr);
  return lexicon;
}

std::string_view Lexicon::builtin_text() { return kBuiltinLexiconTsv; }

const std::vector<std::string>* Lexicon::find(std::string_view term) const {
  auto it = entries_.find(term);
  return it == entries_.end() ? nullptr : &it->second;
}

}  // namespace skillrt::router::detail
