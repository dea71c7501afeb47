#include "qa.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <set>
#include <skillrt/sdk.hpp>

#include "detail/text.hpp"
#include "embedded_data.hpp"

namespace skillrt::npu_graph {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr double kK1 = 1.2;
constexpr double kB = 0.75;
constexpr size_t kMaxDocFiles = 5000;

const std::set<std::string> kStopWords = {
    "a",     "an",    "the",     "is",   "are",    "was",   "were",  "be",      "been",  "what",
    "which", "who",   "how",     "why",  "when",   "where", "do",    "does",    "did",   "i",
    "we",    "you",   "it",      "its",  "my",     "our",   "your",  "to",      "of",    "in",
    "on",    "for",   "and",     "or",   "with",   "by",    "as",    "at",      "from",  "that",
    "this",  "these", "there",   "can",  "should", "would", "could", "will",    "me",    "about",
    "into",  "if",    "then",    "than", "so",     "not",   "no",    "yes",     "get",   "use",
    "used",  "using", "any",     "all",  "some",   "mean",  "means", "between", "there", "have",
    "has",   "tell",  "explain", "e",    "g",      "vs"};
// Bigrams of Chinese question words carry no topic.
const std::set<std::string> kStopBigrams = {"什么", "怎么", "如何", "是什", "么是", "为什", "哪些",
                                            "可以", "我的", "一个", "这个", "有哪", "么意", "意思",
                                            "的是", "是否", "么区", "区别", "要怎", "么配", "请问",
                                            "吗",   "的",   "是",   "了",   "在"};

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
  if (w.size() > 4 && w.compare(w.size() - 3, 3, "ies") == 0)
    return w.substr(0, w.size() - 3) + "y";
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

std::vector<std::string> sentences(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&]() {
    const std::string_view t = detail::trim(cur);
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
    if (detail::starts_with(detail::trim(line), "```")) in_fence = !in_fence;
    size_t level = 0;
    while (!in_fence && level < line.size() && line[level] == '#') ++level;
    if (level >= 1 && level <= 6 && level < line.size() && line[level] == ' ') {
      if (have && !detail::trim(cur.text).empty()) out.push_back(cur);
      stack.resize(level - 1 < stack.size() ? level - 1 : stack.size());
      while (stack.size() < level - 1) stack.emplace_back();
      stack.emplace_back(detail::trim(line.substr(level)));
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
  if (have && !detail::trim(cur.text).empty()) out.push_back(cur);
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
  std::vector<std::vector<std::string>> out;
  std::string word;
  std::vector<std::string> han;  // the current run of CJK characters, one string each
  auto flush_word = [&]() {
    if (!word.empty() && !kStopWords.count(word)) {
      std::vector<std::string> group{stem(word)};
      for (std::string& f : derived_forms(word)) {
        if (f != group.front()) group.push_back(std::move(f));
      }
      out.push_back(std::move(group));
    }
    word.clear();
  };
  auto flush_han = [&]() {
    if (han.size() == 1 && !kStopBigrams.count(han[0])) out.push_back({han[0]});
    for (size_t k = 0; k + 1 < han.size(); ++k) {
      std::string bigram = han[k] + han[k + 1];
      if (!kStopBigrams.count(bigram)) out.push_back({std::move(bigram)});
    }
    han.clear();
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
    if (is_cjk(cp)) {
      han.emplace_back(text.substr(start, i - start));
    } else {
      flush_han();
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

std::vector<Bm25Index::Hit> Bm25Index::search(std::string_view query, size_t k) const {
  // One group per query word: the word and its derived forms (identifier parts, code families).
  std::vector<std::vector<std::string>> groups = tokenize_groups(query);
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  std::vector<std::string> terms;
  for (const auto& g : groups) terms.insert(terms.end(), g.begin(), g.end());
  std::sort(terms.begin(), terms.end());
  terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
  // Coverage counts each query word once. A word the corpus knows in some form weighs the idf
  // of its rarest known form; character bigrams over-generate, so an unseen one is most likely
  // a pair across a word boundary ("块怎") and counts half; an unseen English word counts fully:
  // it is a real word the corpus does not know.
  std::vector<double> group_mass(groups.size(), 0);
  double idf_mass = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    for (const std::string& t : groups[g]) {
      if (df_.count(t)) group_mass[g] = std::max(group_mass[g], idf(t));
    }
    if (group_mass[g] == 0) {
      const std::string& t = groups[g].front();
      const bool cjk = static_cast<unsigned char>(t[0]) >= 0x80;
      group_mass[g] = cjk ? 0.5 * idf(t) : idf(t);
    }
    idf_mass += group_mass[g];
  }
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
    double matched_idf = 0;
    for (size_t g = 0; g < groups.size(); ++g) {
      double best = 0;
      for (const std::string& t : groups[g]) {
        if (tf_[i].count(t)) best = std::max(best, idf(t));
      }
      matched_idf += std::min(best, group_mass[g]);
    }
    if (h.score <= 0) continue;
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
                        {"text", detail::clip(detail::trim(s.text), 1200)}});
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
