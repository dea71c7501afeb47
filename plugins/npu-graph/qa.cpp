#include "qa.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <set>
#include <skillrt/sdk.hpp>

#include "detail/text.hpp"
#include "embedded_data.hpp"
#include "optoolkit/text.hpp"

namespace skillrt::npu_graph {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr double kK1 = 1.2;
constexpr double kB = 0.75;
constexpr size_t kMaxDocFiles = 5000;

const std::set<std::string> kStopWords = {
    "a", "an", "the", "is", "are", "was", "were", "be", "been", "what", "which", "who", "how",
    "why", "when", "where", "do", "does", "did", "i", "we", "you", "it", "its", "my", "our", "your",
    "to", "of", "in", "on", "for", "and", "or", "with", "by", "as", "at", "from", "that", "this",
    "these", "there", "can", "should", "would", "could", "will", "me", "about", "into", "if",
    "then", "than", "so", "not", "no", "yes", "get", "use", "used", "using", "any", "all", "some",
    "mean", "means", "between", "there", "have", "has", "tell", "explain", "e", "g", "vs",
    // Words that phrase a question rather than name its topic ("what does X stand for", "how
    // do I read", "what happens when"): a knowledge base seldom uses them, so left in they
    // count as unknown words and push answerable questions under the coverage bar.
    "like", "read", "happen", "happens", "happened", "find", "real", "really", "actually",
    "exactly", "need", "needs", "want", "wants", "way", "know", "see", "look", "kind", "thing",
    "things", "something", "anything", "please", "help", "possible", "make", "sure", "try", "tried",
    "trying", "seem", "seems", "go", "goes", "going", "come", "give", "take", "got", "getting",
    "also", "just", "only", "still", "even", "other", "another", "own", "same", "much", "many",
    "very", "too", "here", "now", "whether", "say", "says", "said", "meaning", "stand", "role",
    "purpose", "they", "them", "their", "am", "being", "let", "may", "might", "must", "one",
    "someone", "anyone", "us", "hi", "hey", "hello", "thanks", "typically", "usually", "normally",
    "best", "good", "ok", "okay", "able", "supposed",
    // Conjunctions and fillers.
    "but", "though", "although", "however", "because", "since", "while", "up", "keep", "keeps",
    "kept", "right",
    // What is left of a contraction split at its apostrophe ("what's", "doesn't", "we've").
    "s", "t", "d", "m", "ll", "re", "ve"};
// Bigrams of Chinese question words carry no topic.
const std::set<std::string> kStopBigrams = {
    "什么", "怎么", "如何", "是什", "么是", "为什", "哪些", "可以", "我的", "一个", "这个", "有哪",
    "么意", "意思", "的是", "是否", "么区", "区别", "要怎", "么配", "请问", "吗",   "的",   "是",
    "了",   "在",   "应该", "需要", "为何", "原因", "一下", "时候", "情况", "问题", "出现"};
// Chinese function characters end a run of CJK characters like punctuation does: a bigram
// across one ("时怎", "获与") pairs two words and matches nothing.
const std::set<std::string> kStopChars = {"的", "了", "吗", "呢", "吧", "啊", "么", "怎", "哪",
                                          "这", "那", "我", "你", "他", "它", "请", "是", "与",
                                          "和", "及", "或", "把", "被", "要", "该", "呀", "嘛"};

// Chinese terms and the English words the base uses for them, so that a question asked in
// Chinese also meets the English sections (the Chinese overview covers fewer topics). Used on
// questions only. The English side is written as the tokenizer leaves it (lower case, plural
// 's' dropped).
const std::vector<std::pair<std::string, std::vector<std::string>>> kGlossary = {
    {"图模式", {"graph", "mode"}},
    {"单算子", {"eager"}},
    {"断图", {"break"}},
    {"重编译", {"recompile", "recompilation"}},
    {"编译", {"compile"}},
    {"守卫", {"guard"}},
    {"动态", {"dynamic"}},
    {"静态", {"static"}},
    {"形状", {"shape"}},
    {"捕获", {"capture"}},
    {"重放", {"replay"}},
    {"算子", {"operator"}},
    {"转换器", {"converter"}},
    {"报错", {"error"}},
    {"错误码", {"error", "code"}},
    {"错误", {"error"}},
    {"日志", {"log"}},
    {"超时", {"timeout"}},
    {"分布式", {"distributed"}},
    {"集合通信", {"collective", "hccl"}},
    {"通信", {"hccl"}},
    {"环境变量", {"environment", "variable"}},
    {"设备", {"device"}},
    {"主机", {"host"}},
    {"显存", {"memory"}},
    {"内存", {"memory"}},
    {"内存不足", {"memory"}},
    {"回退", {"fall", "back"}},
    {"同步", {"synchronous"}},
    {"异步", {"asynchronous"}},
    {"堆栈", {"stack"}},
    {"调用栈", {"stack"}},
    {"段错误", {"segmentation", "fault"}},
    {"核心转储", {"core", "dump"}},
    {"挂死", {"hang"}},
    {"卡住", {"hang"}},
    {"线程", {"thread"}},
    {"网络", {"network"}},
    {"端口", {"port"}},
    {"安装", {"install"}},
    {"版本", {"version"}},
    {"精度", {"precision"}},
    {"格式", {"format"}},
    {"后端", {"backend"}},
    {"图引擎", {"ge"}},
    {"运行时", {"runtime"}},
    {"驱动", {"driver"}},
    {"下发", {"launch"}},
    {"任务队列", {"task", "queue"}},
    {"第一个", {"first"}},
    {"首个", {"first"}},
};

// Decodes one UTF-8 code point at s[i]; advances i. Invalid bytes decode as U+FFFD.
uint32_t next_code_point(std::string_view s, size_t* i) {
  const auto c = static_cast<unsigned char>(s[*i]);
  int extra = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : -1;
  if (extra < 0 || *i + extra >= s.size() + (extra == 0 ? 1 : 0)) {
    ++*i;
    return 0xFFFD;
  }
  uint32_t cp = extra == 0 ? c : extra == 1 ? (c & 0x1F) : extra == 2 ? (c & 0x0F) : (c & 0x07);
  for (int k = 1; k <= extra; ++k) {
    const auto cc = static_cast<unsigned char>(s[*i + k]);
    if ((cc & 0xC0) != 0x80) {
      ++*i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (cc & 0x3F);
  }
  *i += extra + 1;
  return cp;
}

bool is_cjk(uint32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0xF900 && cp <= 0xFAFF);
}

// A naive English stemmer: enough to let "graphs"/"graph" and "breaks"/"break" meet.
std::string stem(std::string w) {
  auto ends = [&w](const char* suffix) {
    const size_t n = std::char_traits<char>::length(suffix);
    return w.size() > n + 2 && w.compare(w.size() - n, n, suffix) == 0;
  };
  if (w.size() > 4 && w.compare(w.size() - 3, 3, "ies") == 0)
    return w.substr(0, w.size() - 3) + "y";
  // Plurals in "es" after a sibilant ("batches", "processes", "crashes", "prefixes"); "caches"
  // and "guides" keep their "e" through the plain 's' rule below.
  if (ends("tches") || ends("sses") || ends("shes") || ends("xes"))
    return w.substr(0, w.size() - 2);
  if (w.size() > 3 && w.back() == 's' && w[w.size() - 2] != 's') w.pop_back();
  return w;
}

// Further index forms of one English word, so that a question and a section that name the same
// thing at different granularity meet: the parts of an identifier ("cache_size_limit" also
// gives "cache", "size", "limit"; "_dynamo" gives "dynamo"), and the families of an error code
// ("err01100" gives "err01", "err011", "err0110"; "err02xxx" gives "err02"; "507014" gives
// "50", "507", "5070", "50701"), as the base writes families with x placeholders.
std::vector<std::string> derived_forms(const std::string& word) {
  std::vector<std::string> out;
  if (word.find('_') != std::string::npos) {
    size_t start = 0;
    while (start <= word.size()) {
      size_t end = word.find('_', start);
      if (end == std::string::npos) end = word.size();
      const std::string part = word.substr(start, end - start);
      if (!part.empty() && part != word && !kStopWords.count(part)) out.push_back(stem(part));
      start = end + 1;
    }
  }
  size_t letters = 0;
  while (letters < word.size() && std::isalpha(static_cast<unsigned char>(word[letters])) &&
         word[letters] != 'x')
    ++letters;
  size_t digits = letters;
  while (digits < word.size() && std::isdigit(static_cast<unsigned char>(word[digits]))) ++digits;
  size_t xs = digits;
  while (xs < word.size() && word[xs] == 'x') ++xs;
  const size_t n_digits = digits - letters;
  if (xs == word.size() && n_digits >= 2 && xs - letters >= 4) {
    const std::string prefix = word.substr(0, letters);
    for (size_t k = 2; k < n_digits; ++k) out.push_back(prefix + word.substr(letters, k));
    if (xs > digits) out.push_back(word.substr(0, digits));
  }
  // A torch_npu code's submodule is written by number too ("02 is DIST"): "err02" and
  // "err02xxx" also give "02", "err01100" gives "01".
  if (word.compare(0, 3, "err") == 0 && letters == 3 && n_digits >= 2) {
    out.push_back(word.substr(3, 2));
  }
  return out;
}

// Words engineers use for things the base names otherwise, written as the tokenizer leaves
// them. Used on questions only.
const std::vector<std::pair<std::string, std::vector<std::string>>> kSynonyms = {
    {"backtrace", {"stack", "traceback"}},
    {"stacktrace", {"stack", "traceback"}},
    {"traceback", {"stack"}},
    {"segfault", {"segmentation", "fault"}},
    {"sigsegv", {"segmentation", "fault"}},
    {"oom", {"memory"}},
    {"stuck", {"hang"}},
    {"freeze", {"hang"}},
    {"frozen", {"hang"}},
    {"hung", {"hang"}},
    {"card", {"device", "npu"}},
    {"env", {"environment"}},
    {"dtype", {"type"}},
    {"startup", {"start", "setup"}},
    {"perf", {"performance"}},
    {"graphbreak", {"graph", "break"}},
};

// Further forms of a question word: the base of an inflected verb or noun ("capturing" and
// "captured" give "capture", "compilation" gives "compile", "failed" gives "fail") and the
// synonyms above. Forms the corpus lacks cost nothing: coverage weighs known forms only.
std::vector<std::string> question_forms(const std::string& w) {
  std::vector<std::string> out;
  auto add_base = [&out](std::string base) {
    if (base.size() < 3) return;
    out.push_back(base);
    out.push_back(base + "e");
    const size_t n = base.size();
    if (n >= 4 && base[n - 1] == base[n - 2]) out.push_back(base.substr(0, n - 1));  // "running"
  };
  auto ends = [&w](const char* suffix) {
    const size_t n = std::char_traits<char>::length(suffix);
    return w.size() > n + 2 && w.compare(w.size() - n, n, suffix) == 0;
  };
  if (ends("ation")) {
    add_base(w.substr(0, w.size() - 5));
  } else if (ends("ing")) {
    add_base(w.substr(0, w.size() - 3));
  } else if (ends("ed")) {
    add_base(w.substr(0, w.size() - 2));
  } else if (ends("es")) {
    add_base(w.substr(0, w.size() - 2));
  }
  for (const auto& [word, forms] : kSynonyms) {
    if (word == w) out.insert(out.end(), forms.begin(), forms.end());
  }
  return out;
}

std::vector<std::string> sentences(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&]() {
    const std::string_view t = ops::trim_view(cur);
    if (t.size() > 2) out.emplace_back(t);
    cur.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      // A list item or blank line ends a sentence; a wrapped line continues it.
      const bool next_item = i + 1 < text.size() && (text[i + 1] == '-' || text[i + 1] == '*' ||
                                                     text[i + 1] == '\n' || text[i + 1] == '|');
      if (next_item)
        flush();
      else
        cur.push_back(' ');
      continue;
    }
    cur.push_back(c);
    if ((c == '.' && i + 1 < text.size() && text[i + 1] == ' ') ||
        (cur.size() >= 3 && cur.compare(cur.size() - 3, 3, "\xE3\x80\x82") == 0)) {
      flush();
    }
  }
  flush();
  return out;
}

}  // namespace

std::vector<Section> split_markdown(std::string_view text, const std::string& source) {
  std::vector<Section> out;
  std::vector<std::string> stack;  // heading titles by level
  Section cur;
  bool have = false;
  bool in_fence = false;
  size_t line_no = 0;
  for (std::string_view line : detail::split_lines(text)) {
    ++line_no;
    if (detail::starts_with(ops::trim_view(line), "```")) in_fence = !in_fence;
    size_t level = 0;
    while (!in_fence && level < line.size() && line[level] == '#') ++level;
    if (level >= 1 && level <= 6 && level < line.size() && line[level] == ' ') {
      if (have && !ops::trim_view(cur.text).empty()) out.push_back(cur);
      stack.resize(level - 1 < stack.size() ? level - 1 : stack.size());
      while (stack.size() < level - 1) stack.emplace_back();
      stack.emplace_back(ops::trim_view(line.substr(level)));
      std::string heading;
      for (const std::string& h : stack) {
        if (h.empty()) continue;
        heading += (heading.empty() ? "" : " > ") + h;
      }
      cur = Section{source, heading, line_no, ""};
      have = true;
      continue;
    }
    if (!have) {
      cur = Section{source, fs::path(source).filename().string(), 1, ""};
      have = true;
    }
    cur.text.append(line);
    cur.text.push_back('\n');
  }
  if (have && !ops::trim_view(cur.text).empty()) out.push_back(cur);
  return out;
}

std::vector<std::string> tokenize(std::string_view text) {
  std::vector<std::string> out;
  for (std::vector<std::string>& group : tokenize_groups(text)) {
    for (std::string& t : group) out.push_back(std::move(t));
  }
  return out;
}

std::vector<std::vector<std::string>> tokenize_groups(std::string_view text) {
  return tokenize_groups(text, false);
}

std::vector<std::vector<std::string>> tokenize_groups(std::string_view text, bool bilingual) {
  std::vector<std::vector<std::string>> out;
  std::string word;
  std::vector<std::string> han;  // the current run of CJK characters, one string each
  bool han_after_stop = false;   // the run began right after a function character
  auto flush_word = [&]() {
    if (!word.empty() && !kStopWords.count(word)) {
      std::vector<std::string> group{stem(word)};
      for (std::string& f : derived_forms(word)) {
        if (f != group.front()) group.push_back(std::move(f));
      }
      if (bilingual) {
        for (std::string& f : question_forms(group.front())) {
          if (std::find(group.begin(), group.end(), f) == group.end()) group.push_back(f);
        }
      }
      out.push_back(std::move(group));
      // The last three digits of a torch_npu code name the kind of error ("100" an ACL call
      // failed) independently of the submodule, so they are a word of their own: a section
      // that explains both the submodule (01) and the kind (100) answers "what is ERR01100"
      // better than one that only lists the submodule prefixes.
      if (word.size() == 8 && word.compare(0, 3, "err") == 0 &&
          std::all_of(word.begin() + 3, word.end(),
                      [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        out.push_back({word.substr(5)});
      }
    }
    word.clear();
  };
  auto flush_han = [&]() {
    // A lone character left over between function characters ("要", "用") is rarely a topic.
    if (han.size() == 1 && !han_after_stop && !kStopBigrams.count(han[0])) out.push_back({han[0]});
    std::string run;
    for (const std::string& c : han) run += c;
    std::vector<std::vector<std::string>> groups;  // one per bigram start
    for (size_t k = 0; k + 1 < han.size(); ++k) groups.push_back({han[k] + han[k + 1]});
    // Glossary terms, longest first at each position: the bigrams inside a term join one group
    // with its English words, so the term counts once and either language satisfies it.
    std::vector<bool> absorbed(groups.size(), false);
    size_t byte = 0;
    for (size_t k = 0; bilingual && k < han.size(); byte += han[k].size(), ++k) {
      const std::pair<std::string, std::vector<std::string>>* best = nullptr;
      for (const auto& entry : kGlossary) {
        if (run.compare(byte, entry.first.size(), entry.first) == 0 &&
            (best == nullptr || entry.first.size() > best->first.size())) {
          best = &entry;
        }
      }
      if (best == nullptr || k >= groups.size() || absorbed[k]) continue;
      const size_t chars = best->first.size() / 3;  // CJK characters are three bytes in UTF-8
      for (size_t j = k + 1; j + 1 < k + chars && j < groups.size(); ++j) {
        groups[k].push_back(groups[j].front());
        absorbed[j] = true;
      }
      for (const std::string& en : best->second) groups[k].push_back(en);
    }
    for (size_t k = 0; k < groups.size(); ++k) {
      if (absorbed[k] || kStopBigrams.count(groups[k].front())) continue;
      out.push_back(std::move(groups[k]));
    }
    han.clear();
    han_after_stop = false;
  };
  size_t i = 0;
  while (i < text.size()) {
    const size_t start = i;
    const uint32_t cp = next_code_point(text, &i);
    if (cp < 0x80 && (std::isalnum(static_cast<int>(cp)) || cp == '_')) {
      flush_han();
      word.push_back(static_cast<char>(std::tolower(static_cast<int>(cp))));
      continue;
    }
    flush_word();
    const std::string_view ch = text.substr(start, i - start);
    if (is_cjk(cp) && !kStopChars.count(std::string(ch))) {
      han.emplace_back(ch);
    } else {
      const bool stop = is_cjk(cp);
      flush_han();
      han_after_stop = stop;
    }
  }
  flush_word();
  flush_han();
  return out;
}

Bm25Index::Bm25Index(std::vector<Section> sections) : sections_(std::move(sections)) {
  double total = 0;
  for (const Section& s : sections_) {
    std::unordered_map<std::string, int> tf;
    // The heading counts twice: it names what the section is about.
    const std::vector<std::string> head = tokenize(s.heading);
    for (const std::string& t : head) tf[t] += 2;
    const std::vector<std::string> body = tokenize(s.text);
    for (const std::string& t : body) ++tf[t];
    for (const auto& kv : tf) ++df_[kv.first];
    length_.push_back(2 * head.size() + body.size());
    total += static_cast<double>(length_.back());
    tf_.push_back(std::move(tf));
  }
  avg_length_ = sections_.empty() ? 1 : total / static_cast<double>(sections_.size());
}

double Bm25Index::idf(const std::string& term) const {
  const auto it = df_.find(term);
  const double df = it == df_.end() ? 0 : static_cast<double>(it->second);
  const double n = static_cast<double>(sections_.size());
  return std::log(1.0 + (n - df + 0.5) / (df + 0.5));
}

namespace {

// The words of `text` (lower-cased, stemmed as the tokenizer does) written as names: with a
// capital letter after the first character, with digits, or capitalised in the middle of a
// sentence.
std::set<std::string> named_words(std::string_view text) {
  std::set<std::string> out;
  bool sentence_start = true;
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (!std::isalnum(c)) {
      if (c == '.' || c == '?' || c == '!' || c == ':' || c == '\n') sentence_start = true;
      ++i;
      continue;
    }
    size_t end = i;
    bool upper_inside = false, digit = false;
    while (end < text.size() && std::isalnum(static_cast<unsigned char>(text[end]))) {
      const auto d = static_cast<unsigned char>(text[end]);
      upper_inside = upper_inside || (end > i && std::isupper(d));
      digit = digit || std::isdigit(d);
      ++end;
    }
    // Digits make a name only in a code ("EZ9999", "507015"); "8-card", "7B" and "2.30" are
    // quantities.
    size_t digits = 0;
    for (size_t k = i; k < end; ++k)
      digits += std::isdigit(static_cast<unsigned char>(text[k])) ? 1 : 0;
    const bool code = digit && digits >= 4;
    const bool capital = std::isupper(c) != 0;
    if (upper_inside || code || (capital && !sentence_start)) {
      out.insert(stem(detail::to_lower(text.substr(i, end - i))));
    }
    sentence_start = false;
    i = end;
  }
  return out;
}

}  // namespace

// Corpus terms that an unknown English word most likely abbreviates or inflects: the longest
// known words that are a prefix of it ("exec" for "execution"), or that share a long prefix with
// it ("recompilation" and "recompile"). Empty when nothing is close enough.
std::vector<std::string> Bm25Index::near_forms(const std::string& word) const {
  constexpr size_t kMinPrefix = 4;
  constexpr size_t kMinShared = 6;
  std::vector<std::string> out;
  if (word.size() <= kMinPrefix || !std::all_of(word.begin(), word.end(), [](char c) {
        return std::islower(static_cast<unsigned char>(c)) != 0;
      })) {
    return out;
  }
  size_t best = 0;
  for (const auto& kv : df_) {
    const std::string& t = kv.first;
    size_t shared = 0;
    while (shared < t.size() && shared < word.size() && t[shared] == word[shared]) ++shared;
    const size_t shorter = std::min(t.size(), word.size());
    const bool prefix = shared == t.size() && shared >= kMinPrefix;
    const bool close = shared >= kMinShared && 4 * shared >= 3 * shorter;
    if (!prefix && !close) continue;
    if (shared > best) {
      best = shared;
      out.clear();
    }
    if (shared == best) out.push_back(t);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Bm25Index::Hit> Bm25Index::search(std::string_view query, size_t k) const {
  // One group per query word: the word and its derived forms (identifier parts, code families,
  // the English words for a Chinese term).
  std::vector<std::vector<std::string>> groups = tokenize_groups(query, true);
  // Terms that are no topic at all, decided on the groups in question order:
  // - a plain number of one or two digits is a quantity ("8 cards", "2.30 TiB"), known or not;
  //   an unseen one of three digits too (a known one may be the kind of an ERR code);
  // - an unseen Chinese bigram next to a known one is a pair across a word boundary ("直断"
  //   between "一直" and "断图", "认保" between "默认" and "保存"): the known word holds its
  //   characters, the pair carries nothing.
  auto known_cjk = [this](const std::vector<std::string>& g) {
    for (const std::string& t : g) {
      if (static_cast<unsigned char>(t[0]) >= 0x80 && df_.count(t)) return true;
    }
    return false;
  };
  auto cjk_forms_touch = [](const std::vector<std::string>& g, const std::string& ch, bool at_end) {
    for (const std::string& t : g) {
      if (static_cast<unsigned char>(t[0]) < 0x80 || t.size() < ch.size()) continue;
      if (at_end ? t.compare(t.size() - ch.size(), ch.size(), ch) == 0 : t.rfind(ch, 0) == 0)
        return true;
    }
    return false;
  };
  std::vector<bool> noise(groups.size(), false);
  for (size_t g = 0; g < groups.size(); ++g) {
    const std::string& head = groups[g].front();
    const bool number = std::all_of(head.begin(), head.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
    if (number && head.size() <= 2) {
      noise[g] = true;
      continue;
    }
    if (df_.count(head) || groups[g].size() > 1) continue;
    if (head.size() <= 3 && std::all_of(head.begin(), head.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c)) != 0;
        })) {
      noise[g] = true;
    } else if (head.size() == 6 && static_cast<unsigned char>(head[0]) >= 0x80) {
      const std::string first = head.substr(0, 3), second = head.substr(3);
      noise[g] =
          (g > 0 && known_cjk(groups[g - 1]) && cjk_forms_touch(groups[g - 1], first, true)) ||
          (g + 1 < groups.size() && known_cjk(groups[g + 1]) &&
           cjk_forms_touch(groups[g + 1], second, false));
    }
  }
  {
    std::vector<std::vector<std::string>> kept;
    for (size_t g = 0; g < groups.size(); ++g) {
      if (!noise[g]) kept.push_back(std::move(groups[g]));
    }
    groups = std::move(kept);
  }
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  // Coverage counts each query word once, as the share of its weight (`mass`) that a section
  // matches (`credit`):
  // - a word the corpus knows in some form weighs the idf of its rarest known form;
  // - a Chinese term weighs its English words when the corpus knows them, so that an English
  //   section answers it fully; an unseen bigram is most likely a pair across a word boundary
  //   ("块怎") and counts half;
  // - an unseen English word written as a name (NCCL, MindSpore, vLLM, a word with digits)
  //   counts fully: the question is about something the base does not describe; an unseen
  //   ordinary lower-case word ("stored", "pull") is more likely phrasing and counts half;
  // - an unseen identifier weighs its rarest part, an unknown part fully ("nccl_blocking_wait"
  //   as much as "nccl"), and earns that weight in proportion to the idf of the parts a section
  //   has, so that matching "blocking" and "wait" does not answer a question about NCCL;
  // - an unseen plain word earns at most what its nearest known form (near_forms) is worth.
  const std::set<std::string> named = named_words(query);
  enum class Kind { kKnown, kChinese, kIdentifier, kUnknown };
  std::vector<Kind> kind(groups.size(), Kind::kKnown);
  std::vector<double> group_mass(groups.size(), 0);
  std::vector<double> part_mass(groups.size(), 0);
  double idf_mass = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    std::vector<std::string>& forms = groups[g];
    const std::string& head = forms.front();
    const bool cjk = static_cast<unsigned char>(head[0]) >= 0x80;
    double known = 0, known_english = 0;
    for (const std::string& t : forms) {
      if (!df_.count(t)) continue;
      known = std::max(known, idf(t));
      if (static_cast<unsigned char>(t[0]) < 0x80) known_english = std::max(known_english, idf(t));
    }
    if (cjk) {
      kind[g] = Kind::kChinese;
      group_mass[g] = known_english > 0 ? known_english : known > 0 ? known : 0.5 * idf(head);
    } else if (!df_.count(head) && head.find('_') != std::string::npos) {
      kind[g] = Kind::kIdentifier;
      for (size_t f = 1; f < forms.size(); ++f) {
        part_mass[g] += idf(forms[f]);
        group_mass[g] = std::max(group_mass[g], idf(forms[f]));
      }
      if (group_mass[g] == 0) group_mass[g] = idf(head);
    } else if (known > 0) {
      group_mass[g] = known;
    } else {
      kind[g] = Kind::kUnknown;
      group_mass[g] = named.count(head) ? idf(head) : 0.5 * idf(head);
      for (std::string& t : near_forms(head)) forms.push_back(std::move(t));
    }
    idf_mass += group_mass[g];
  }
  std::vector<std::string> terms;
  for (const auto& g : groups) terms.insert(terms.end(), g.begin(), g.end());
  std::sort(terms.begin(), terms.end());
  terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
  std::vector<Hit> hits;
  for (size_t i = 0; i < sections_.size(); ++i) {
    Hit h{i, 0, 0, {}};
    const double norm = kK1 * (1 - kB + kB * static_cast<double>(length_[i]) / avg_length_);
    for (const std::string& t : terms) {
      const auto it = tf_[i].find(t);
      if (it == tf_[i].end()) continue;
      const double f = it->second;
      h.score += idf(t) * f * (kK1 + 1) / (f + norm);
      h.matched.push_back(t);
    }
    if (h.score <= 0) continue;
    double matched_idf = 0;
    for (size_t g = 0; g < groups.size(); ++g) {
      double credit = 0;
      if (kind[g] == Kind::kIdentifier) {
        for (size_t f = 1; f < groups[g].size(); ++f) {
          if (tf_[i].count(groups[g][f])) credit += idf(groups[g][f]);
        }
        credit = part_mass[g] > 0 ? group_mass[g] * credit / part_mass[g] : 0;
      } else {
        for (const std::string& t : groups[g]) {
          if (tf_[i].count(t)) credit = std::max(credit, idf(t));
        }
      }
      matched_idf += std::min(credit, group_mass[g]);
    }
    h.coverage = idf_mass > 0 ? matched_idf / idf_mass : 0;
    hits.push_back(std::move(h));
  }
  std::sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) {
    return a.score != b.score ? a.score > b.score : a.section < b.section;
  });
  if (hits.size() > k) hits.resize(k);
  return hits;
}

std::vector<Section> load_knowledge(const std::vector<std::string>& docs, bool builtin) {
  std::vector<Section> out;
  if (builtin) {
    for (const auto& [name, text] : embedded_data_files()) {
      if (!detail::starts_with(name, "kb/")) continue;
      auto s = split_markdown(text, "npu-graph:" + std::string(name));
      out.insert(out.end(), s.begin(), s.end());
    }
  }
  size_t files = 0;
  for (const std::string& d : docs) {
    std::error_code ec;
    std::vector<std::string> paths;
    if (fs::is_regular_file(d, ec)) {
      paths.push_back(d);
    } else if (fs::is_directory(d, ec)) {
      for (auto it = fs::recursive_directory_iterator(d, ec);
           it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) break;
        const std::string ext = detail::to_lower(it->path().extension().string());
        if (it->is_regular_file(ec) && (ext == ".md" || ext == ".markdown")) {
          paths.push_back(it->path().string());
        }
      }
      std::sort(paths.begin(), paths.end());
    } else {
      throw skillrt::invalid_argument("npu-graph-qa: 'docs' entry '" + d +
                                      "' is neither a Markdown file nor a directory");
    }
    for (const std::string& p : paths) {
      if (++files > kMaxDocFiles) {
        throw skillrt::invalid_argument("npu-graph-qa: more than " + std::to_string(kMaxDocFiles) +
                                        " Markdown files under 'docs': point at a narrower folder");
      }
      auto s = split_markdown(read_text_file(p), p);
      out.insert(out.end(), s.begin(), s.end());
    }
  }
  return out;
}

json answer_question(std::string_view question, const Bm25Index& index, const QaOptions& o) {
  const std::vector<Bm25Index::Hit> hits = index.search(question, std::max<size_t>(o.top_k, 1));
  json passages = json::array();
  for (const auto& h : hits) {
    const Section& s = index.section(h.section);
    passages.push_back({{"source", s.source},
                        {"heading", s.heading},
                        {"line", s.line},
                        {"score", std::round(h.score * 1000) / 1000},
                        {"coverage", std::round(h.coverage * 1000) / 1000},
                        {"matched_terms", h.matched},
                        {"text", detail::clip(ops::trim_view(s.text), 1200)}});
  }
  const bool known =
      !hits.empty() && hits.front().coverage >= o.min_coverage && hits.front().score >= o.min_score;
  json result{{"question", question},
              {"known", known},
              {"passages", passages},
              {"threshold", {{"min_coverage", o.min_coverage}, {"min_score", o.min_score}}},
              {"sections_searched", index.size()}};
  if (!known) {
    result["answer"] =
        "I don't know: no section of the knowledge base covers enough of this question "
        "(best coverage " +
        std::to_string(hits.empty() ? 0 : static_cast<int>(hits.front().coverage * 100)) +
        "%, needed " + std::to_string(static_cast<int>(o.min_coverage * 100)) +
        "%). Point 'docs' at a torch_npu or torchair documentation checkout, or rephrase.";
    result["citations"] = json::array();
    return result;
  }
  // Extractive answer: the sentences of the cited sections that share most query terms.
  const std::vector<std::string> q = tokenize(question);
  const std::set<std::string> qset(q.begin(), q.end());
  std::string answer;
  json citations = json::array();
  for (size_t n = 0; n < hits.size() && n < 2; ++n) {
    if (n > 0 && (hits[n].score < 0.7 * hits[0].score || hits[n].coverage < o.min_coverage)) break;
    const Section& s = index.section(hits[n].section);
    std::vector<std::pair<size_t, size_t>> scored;  // (matches, index)
    const std::vector<std::string> sents = sentences(s.text);
    for (size_t i = 0; i < sents.size(); ++i) {
      size_t m = 0;
      for (const std::string& t : tokenize(sents[i])) m += qset.count(t);
      if (m > 0) scored.emplace_back(m, i);
    }
    std::stable_sort(scored.begin(), scored.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    const size_t take = n == 0 ? 3 : 1;
    std::vector<size_t> chosen;
    for (size_t i = 0; i < scored.size() && i < take; ++i) chosen.push_back(scored[i].second);
    if (chosen.empty() && !sents.empty()) chosen.push_back(0);
    std::sort(chosen.begin(), chosen.end());
    for (size_t i : chosen) {
      std::string sent = sents[i];
      while (!sent.empty() && (sent[0] == '-' || sent[0] == '*' || sent[0] == ' '))
        sent.erase(0, 1);
      answer += (answer.empty() ? "" : " ") + sent;
    }
    answer += " [" + std::to_string(n + 1) + "]";
    citations.push_back(
        {{"n", n + 1}, {"source", s.source}, {"heading", s.heading}, {"line", s.line}});
  }
  result["answer"] = answer;
  result["citations"] = citations;
  return result;
}

// The built-in base alone is parsed and indexed once per process (search is const and safe from
// any thread); a call that adds its own docs gets an index of its own.
namespace {
const Bm25Index& builtin_index() {
  static const Bm25Index index(load_knowledge({}, true));
  return index;
}
}  // namespace

json run_qa(const json& input) {
  const std::string question = input.at("question").get<std::string>();
  if (tokenize(question).empty()) {
    throw skillrt::invalid_argument(
        "npu-graph-qa: 'question' has no searchable words: ask in English or Chinese");
  }
  std::vector<std::string> docs;
  if (input.contains("docs")) docs = input["docs"].get<std::vector<std::string>>();
  const bool builtin = input.value("builtin", true);
  QaOptions o;
  if (input.contains("top_k")) o.top_k = input["top_k"].get<size_t>();
  if (input.contains("min_coverage")) o.min_coverage = input["min_coverage"].get<double>();
  if (docs.empty() && builtin) return answer_question(question, builtin_index(), o);
  std::vector<Section> sections;
  try {
    sections = load_knowledge(docs, builtin);
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const skillrt::SkillError*>(&e)) throw;
    throw skillrt::invalid_argument(std::string("npu-graph-qa: 'docs': ") + e.what());
  }
  Bm25Index index(std::move(sections));
  return answer_question(question, index, o);
}

}  // namespace skillrt::npu_graph
