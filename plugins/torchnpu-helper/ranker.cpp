#include "ranker.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <unordered_set>

namespace skillrt::torchnpu_helper {
namespace {

constexpr size_t kMaxQuoteLineBytes = 400;
constexpr double kIdentifierBoost = 1.5;
// The pieces of a code token (op, plugin, functions of op_plugin_functions.yaml) match loosely
// named mentions; they must not outweigh the whole name and the rest of the question.
constexpr double kPartShare = 0.3;
// A code name in more passages than this share names the product or a whole layer (torch_npu,
// aclnn), not the thing asked about: the best passage need not contain it.
constexpr double kGenericNameShare = 0.05;
constexpr double kMinAnswerShare = 0.35;
// Score bonuses, as shares of the question's weight: a passage that defines a name of the
// question, a page named after one, and, between the English and Chinese copies of one page,
// the copy in the question's language. Only between copies: an English question is answered
// from a Chinese page when that page is the one that says it, and most pages have no English
// copy.
constexpr double kDefinitionBonus = 0.6;
constexpr double kNamedPageBonus = 0.15;
constexpr double kSameLanguageBonus = 0.08;
constexpr double kSilentBodyPenalty = 0.2;
constexpr double kFocusBonus = 0.1;
constexpr size_t kMissingNamed = 3;
// Blank lines looked back over from an "export" line to the fence that opens its example.
constexpr size_t kExampleLines = 3;

struct WeightedTerm {
  std::vector<std::string> forms;  // the term first, then its synonyms
  std::string surface;             // as written in the question: what a definition names
  double weight = 0;
  bool identifier = false;
  bool known = false;
  bool code_name = false;  // an API, a variable, a yaml key (has '_') or a version number
  bool generic = false;    // a code name most pages mention
  bool part = false;       // a piece of a longer code token
};

// "2.9.0.post6", "3.0", "v2.7.1": a version names one release as exactly as an API name does.
bool is_version(const std::string& text) {
  const size_t first = text.front() == 'v' ? 1 : 0;
  return text.size() > first + 2 && std::isdigit(static_cast<unsigned char>(text[first])) != 0 &&
         text.find('.') != std::string::npos;
}

bool is_ascii_word(const std::string& text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
}

std::vector<WeightedTerm> weigh(const DocIndex& index, const std::vector<QueryTerm>& terms) {
  const double n = static_cast<double>(std::max<int64_t>(index.passage_count(), 1));
  const auto idf = [n](double df) { return std::log(1.0 + (n - df + 0.5) / (df + 0.5)); };
  std::vector<WeightedTerm> out;
  for (const QueryTerm& term : terms) {
    WeightedTerm weighted;
    weighted.forms.push_back(term.text);
    weighted.forms.insert(weighted.forms.end(), term.synonyms.begin(), term.synonyms.end());
    weighted.surface = term.surface.empty() ? term.text : term.surface;
    weighted.identifier = term.identifier;
    weighted.part = term.part;
    weighted.code_name =
        term.identifier && (term.text.find('_') != std::string::npos || is_version(term.text));
    double best_df = -1;
    for (const std::string& form : weighted.forms) {
      const auto df = static_cast<double>(index.document_frequency(form));
      if (df > 0 && (best_df < 0 || df > best_df)) best_df = df;
    }
    weighted.known = best_df > 0;
    weighted.generic = best_df > kGenericNameShare * n;
    weighted.weight = weighted.known ? idf(best_df) : idf(0);
    if (term.identifier && !weighted.generic) weighted.weight *= kIdentifierBoost;
    if (term.part) weighted.weight *= kPartShare;
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

std::string folded(std::string_view text) {
  std::string out = normalize_markdown(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Whether `line` (folded) defines `name`: a parameter list item ("- **offset** (int)：", "-
// gen_opapi："), a table row ("| expandable_segments | ...") or a "name:<value>" option form.
// Such a line states what the thing is; a passage that merely uses the name (an example, a
// cross-reference) does not.
bool defines(std::string_view line, const std::string& name) {
  size_t pos = 0;
  const auto skip = [&](std::string_view chars) {
    while (pos < line.size() && chars.find(line[pos]) != std::string_view::npos) ++pos;
  };
  skip(" \t>");
  // A heading names the page, which names_page() credits; here only prose lines count.
  if (pos < line.size() && line[pos] == '#') return false;
  skip("-*|+ \t");
  skip("*");
  if (line.compare(pos, name.size(), name) != 0) return false;
  pos += name.size();
  skip("*");
  if (pos == line.size()) return true;
  const std::string_view rest = line.substr(pos);
  static constexpr std::string_view kFullColon = "\xEF\xBC\x9A";  // ：
  static constexpr std::string_view kFullParen = "\xEF\xBC\x88";  // （
  return rest.starts_with(kFullColon) || rest.starts_with(kFullParen) || rest[0] == ':' ||
         rest[0] == '(' || rest[0] == '|' || rest[0] == ' ' || rest[0] == '=' || rest[0] == '<';
}

// For each line, whether it sits inside a ``` fence: code shows a name in use, prose defines it.
std::vector<bool> fenced_lines(const std::vector<std::string>& lines, bool starts_in_code) {
  std::vector<bool> fenced(lines.size(), false);
  bool inside = starts_in_code;
  for (size_t i = 0; i < lines.size(); ++i) {
    const size_t start = lines[i].find_first_not_of(" \t>");
    const bool fence = start != std::string::npos && lines[i].compare(start, 3, "```") == 0;
    fenced[i] = inside || fence;
    if (fence) inside = !inside;
  }
  return fenced;
}

// A name that could be defined: a code token or a plain ASCII word long enough to be a
// parameter ("offset"), not a number.
bool definable(const WeightedTerm& term) {
  const std::string& text = term.surface;
  if (text.size() < 3) return false;
  return std::all_of(text.begin(), text.end(),
                     [](char c) {
                       const auto u = static_cast<unsigned char>(c);
                       return u < 0x80 && (std::isalnum(u) != 0 || c == '_' || c == '.');
                     }) &&
         std::any_of(text.begin(), text.end(),
                     [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
}

// What a page is named: its file stem and its title, folded.
struct PageName {
  std::string stem;
  std::string title;
};

PageName page_name(const IndexHit& hit) {
  PageName name;
  name.stem = folded(hit.path);
  name.stem = name.stem.substr(name.stem.rfind('/') + 1);
  if (name.stem.ends_with(".md")) name.stem.resize(name.stem.size() - 3);
  name.title = folded(hit.heading.substr(0, hit.heading.find(" > ")));
  return name;
}

// The page is about this name: its file is named after it (TASK_QUEUE_ENABLE.md,
// torch_npu-npu_fusion_attention.md) or its title is the name.
bool names_page(const PageName& page, const WeightedTerm& term) {
  if (!term.identifier || term.generic) return false;
  std::string name = term.forms.front();
  std::replace(name.begin(), name.end(), '.', '-');
  if (page.stem == name || page.stem.ends_with("-" + name)) return true;
  return page.title == term.forms.front();
}

// Most of the passage's letters are CJK: a Chinese page.
bool mostly_chinese(std::string_view text) {
  size_t cjk = 0;
  size_t latin = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c & 0xF0) == 0xE0) ++cjk;  // three-byte sequences: the CJK blocks
    if (std::isalpha(c) != 0) ++latin;
  }
  return cjk * 4 > latin;
}

// A page's path with its language marks taken out ("docs/zh/x.md" and "docs/en/x.md",
// "README.md" and "README.en.md" read alike): the key its copies share.
std::string copy_key(const std::string& path) {
  std::string key = path;
  for (const std::string_view mark : {"/zh/", "/en/"}) {
    if (const size_t at = key.find(mark); at != std::string::npos) key.replace(at, 4, "/");
  }
  for (const std::string_view mark : {".en.md", ".zh.md"}) {
    if (key.ends_with(mark)) key.replace(key.size() - mark.size(), mark.size(), ".md");
  }
  return key;
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

// A line worth counting against the quote's width: blank lines, fences and figures are not.
bool content_line(const std::string& line) {
  const size_t start = line.find_first_not_of(" \t>");
  if (start == std::string::npos) return false;
  const std::string_view rest = std::string_view(line).substr(start);
  return !rest.starts_with("```") && !rest.starts_with("![") && !rest.starts_with("**\xE5\x9B\xBE");
}

// The run of lines holding at most `width` content lines that covers the most question weight;
// a line defining a question term counts that term twice, so the quote shows the definition.
void choose_quote(RankedPassage& passage, const std::vector<WeightedTerm>& terms, size_t width) {
  const std::vector<std::string> lines = split_lines(passage.hit.text);
  std::vector<std::vector<size_t>> per_line(lines.size());
  std::vector<double> defined(lines.size(), 0);
  const std::vector<bool> fenced = fenced_lines(lines, passage.hit.starts_in_code);
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto present = term_set(lines[i]);
    const std::string line = folded(lines[i]);
    for (size_t t = 0; t < terms.size(); ++t) {
      if (!matches(terms[t], present)) continue;
      per_line[i].push_back(t);
      if (!fenced[i] && definable(terms[t]) && defines(line, terms[t].surface))
        defined[i] += terms[t].weight;
    }
  }
  size_t best_first = 0;
  size_t best_last = lines.size();
  double best = -1;
  for (size_t first = 0; first < lines.size(); ++first) {
    if (!content_line(lines[first])) continue;
    std::vector<bool> seen(terms.size(), false);
    double sum = 0;
    size_t counted = 0;
    size_t last = first;
    for (; last < lines.size(); ++last) {
      if (content_line(lines[last]) && ++counted > width) break;
      sum += defined[last];
      for (size_t t : per_line[last]) {
        if (!seen[t]) sum += terms[t].weight, seen[t] = true;
      }
    }
    if (sum > best + 1e-9) best = sum, best_first = first, best_last = last;
    if (last >= lines.size()) break;
  }
  while (best_last > best_first && !content_line(lines[best_last - 1])) --best_last;
  if (best < 0) best_first = 0, best_last = lines.size();
  passage.quote.clear();
  for (size_t i = best_first; i < best_last; ++i) passage.quote += clip_line(lines[i]) + "\n";
  passage.quote_start = passage.hit.line_start + static_cast<int64_t>(best_first);
  passage.quote_end = passage.hit.line_start + static_cast<int64_t>(best_last) - 1;
}

// The variable a page is named after ("# TORCH_HCCL_DESYNC_DEBUG"), folded; empty when the
// title is not one upper-case name.
std::string page_variable(const IndexHit& hit) {
  const std::string title = normalize_markdown(hit.heading.substr(0, hit.heading.find(" > ")));
  const bool name = title.size() >= 3 && std::all_of(title.begin(), title.end(), [](char c) {
                      return std::isupper(static_cast<unsigned char>(c)) != 0 ||
                             std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '_';
                    });
  return name ? folded(title) : std::string();
}

// When the question asks how to turn something on and the best page is a variable's, the
// page's "export NAME=..." line is the answer's other half: quote the example it stands in.
void add_setting_example(const DocIndex& index, std::vector<RankedPassage>& ranked, size_t top_k) {
  if (ranked.empty()) return;
  const std::string name = page_variable(ranked[0].hit);
  if (name.empty()) return;
  const std::string assignment = name + "=";
  for (const RankedPassage& passage : ranked) {
    if (folded(passage.quote).find(assignment) != std::string::npos) return;
  }
  for (const IndexHit& hit : index.file_passages(ranked[0].hit.file_id)) {
    const std::vector<std::string> lines = split_lines(hit.text);
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string line = folded(lines[i]);
      if (line.find("export " + assignment) == std::string::npos) continue;
      // The fenced block around the line, or the line alone.
      size_t first = i;
      size_t last = i + 1;
      while (first > 0 && i - first < kExampleLines && !content_line(lines[first - 1])) --first;
      if (first > 0 && lines[first - 1].find("```") != std::string::npos) --first;
      if (last < lines.size() && lines[last].find("```") != std::string::npos) ++last;
      RankedPassage example;
      example.hit = hit;
      example.coverage = ranked[0].coverage;
      example.score = ranked[0].score;
      example.matched = ranked[0].matched;
      for (size_t k = first; k < last; ++k) example.quote += lines[k] + "\n";
      example.quote_start = hit.line_start + static_cast<int64_t>(first);
      example.quote_end = hit.line_start + static_cast<int64_t>(last) - 1;
      ranked.insert(ranked.begin() + 1, std::move(example));
      if (ranked.size() > top_k) ranked.resize(top_k);
      return;
    }
  }
}

}  // namespace

bool asks_for_setting(std::string_view question) {
  static const std::regex kSetting(
      R"((开启|启用|打开|使能|怎么设置|如何设置|怎么配置|如何配置|怎样设置|\benable\b|\bturn on\b|\bswitch on\b|\bconfigure\b|\bhow (do|can|to) (i |we )?set\b))",
      std::regex::ECMAScript | std::regex::icase);
  return std::regex_search(std::string(question), kSetting);
}

Ranking rank_passages(const DocIndex& index, const std::vector<QueryTerm>& terms,
                      const RankOptions& options) {
  Ranking ranking;
  const std::vector<WeightedTerm> weighted = weigh(index, terms);
  double total = 0;
  for (const WeightedTerm& term : weighted) total += term.weight;
  for (size_t t = 0; t < weighted.size(); ++t) {
    if (weighted[t].code_name && !weighted[t].known)
      ranking.unknown_identifiers.push_back(terms[t].text);
    if (!weighted[t].known && !weighted[t].identifier && is_ascii_word(weighted[t].surface))
      ranking.unseen_words.push_back(weighted[t].surface);
  }
  // The rarest term the docs know is most often what the question is about.
  size_t focus = weighted.size();
  for (size_t t = 0; t < weighted.size(); ++t) {
    if (!weighted[t].known || weighted[t].part) continue;
    if (focus == weighted.size() || weighted[t].weight > weighted[focus].weight) focus = t;
  }
  std::vector<IndexHit> hits = index.search(terms, options.candidates);
  double best_bm25 = 0;
  for (const IndexHit& hit : hits) best_bm25 = std::min(best_bm25, hit.bm25);
  // The pages among the candidates that have a copy in the other language there too.
  std::map<std::string, std::set<std::string>> copies;
  for (const IndexHit& hit : hits) copies[copy_key(hit.path)].insert(hit.path);
  std::vector<RankedPassage> ranked;
  for (IndexHit& hit : hits) {
    if (hit.source_kind == "bundled" && options.skip_bundled_repos.count(hit.repo) != 0) continue;
    RankedPassage passage;
    const auto said = term_set(hit.text);
    const auto titled = term_set(hit.path + " " + hit.heading + " " + hit.context);
    const auto present = [&](const WeightedTerm& term) {
      return matches(term, said) || matches(term, titled);
    };
    double covered = 0;
    double covered_by_body = 0;
    std::vector<bool> in_body(weighted.size(), false);
    for (size_t t = 0; t < weighted.size(); ++t) {
      in_body[t] = matches(weighted[t], said);
      if (!in_body[t] && !matches(weighted[t], titled)) continue;
      covered += weighted[t].weight;
      if (in_body[t]) covered_by_body += weighted[t].weight;
      passage.matched.push_back(terms[t].text);
    }
    passage.coverage = total > 0 ? covered / total : 0;
    // The title says what the page is about; a chunk whose own lines share nothing with the
    // question (a product table under an API's title) ranks below those that say something.
    const double silent = covered_by_body > 0 ? 0 : kSilentBodyPenalty;
    const double relevance = best_bm25 < 0 ? hit.bm25 / best_bm25 : 0;
    // Evidence that the passage is about the asked thing, beyond sharing its words: it defines
    // a name of the question, or its page is named after one.
    double defined = 0;
    double named = 0;
    std::vector<std::string> prose;  // folded prose lines, read only when a definition may stand
    const PageName page = page_name(hit);
    for (size_t t = 0; t < weighted.size(); ++t) {
      if (names_page(page, weighted[t])) named += weighted[t].weight;
      if (!in_body[t] || !definable(weighted[t])) continue;
      if (prose.empty()) {
        prose = split_lines(hit.text);
        const std::vector<bool> fenced = fenced_lines(prose, hit.starts_in_code);
        for (size_t i = 0; i < prose.size(); ++i) {
          prose[i] = fenced[i] ? std::string() : folded(prose[i]);
        }
      }
      const std::string& name = weighted[t].surface;
      if (std::any_of(prose.begin(), prose.end(),
                      [&](const std::string& line) { return defines(line, name); })) {
        defined += weighted[t].weight;
      }
    }
    const bool has_copy = copies[copy_key(hit.path)].size() > 1;
    const bool same_language =
        has_copy && mostly_chinese(hit.text) == (options.language != Language::kEn);
    const bool on_focus = focus < weighted.size() && present(weighted[focus]);
    passage.score = 0.7 * passage.coverage + 0.3 * relevance - silent +
                    (on_focus ? kFocusBonus : 0) +
                    kDefinitionBonus * (total > 0 ? defined / total : 0) +
                    kNamedPageBonus * (total > 0 ? named / total : 0) +
                    (same_language ? kSameLanguageBonus : 0);
    passage.hit = std::move(hit);
    ranked.push_back(std::move(passage));
  }
  std::stable_sort(
      ranked.begin(), ranked.end(),
      [](const RankedPassage& a, const RankedPassage& b) { return a.score > b.score; });
  if (ranked.size() > options.top_k) ranked.resize(options.top_k);
  for (RankedPassage& passage : ranked) choose_quote(passage, weighted, options.quote_lines);
  if (options.wants_setting) add_setting_example(index, ranked, options.top_k);
  if (!ranked.empty()) {
    bool any_known = false;
    bool hit_one = false;
    const IndexHit& best = ranked[0].hit;
    const auto present =
        term_set(best.path + " " + best.heading + " " + best.context + " " + best.text);
    for (const WeightedTerm& term : weighted) {
      if (!term.code_name || !term.known || term.generic) continue;
      any_known = true;
      hit_one = hit_one || matches(term, present);
    }
    ranking.identifier_missed = any_known && !hit_one;
    std::vector<size_t> absent;
    for (size_t t = 0; t < weighted.size(); ++t) {
      if (!weighted[t].part && !matches(weighted[t], present)) absent.push_back(t);
    }
    std::stable_sort(absent.begin(), absent.end(),
                     [&](size_t a, size_t b) { return weighted[a].weight > weighted[b].weight; });
    for (size_t i = 0; i < std::min(absent.size(), kMissingNamed); ++i) {
      ranking.missing.push_back(weighted[absent[i]].surface);
    }
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
