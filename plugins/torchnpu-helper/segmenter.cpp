#include "segmenter.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_map>

#include "detail/utf8.hpp"

namespace skillrt::torchnpu_helper {
namespace {

using detail::decode_utf8;
using detail::is_cjk;

// Words that phrase a question rather than name its topic. Left in, they count as topic words
// the docs do not share and push answerable questions under the coverage bar.
const std::set<std::string, std::less<>> kStopWords = {
    "a",     "an",     "the",     "is",      "are",     "was",      "were",    "be",     "been",
    "what",  "which",  "who",     "how",     "why",     "when",     "where",   "do",     "does",
    "did",   "i",      "we",      "you",     "it",      "its",      "my",      "our",    "your",
    "to",    "of",     "in",      "on",      "for",     "and",      "or",      "with",   "by",
    "as",    "at",     "from",    "that",    "this",    "these",    "those",   "there",  "can",
    "could", "should", "would",   "will",    "me",      "about",    "into",    "if",     "then",
    "than",  "so",     "not",     "no",      "any",     "all",      "some",    "get",    "use",
    "used",  "using",  "mean",    "meaning", "tell",    "explain",  "need",    "want",   "way",
    "know",  "please", "help",    "also",    "just",    "only",     "still",   "other",  "much",
    "many",  "very",   "here",    "now",     "whether", "go",       "goe",     "goes",   "set",
    "doe",   "happen", "happens", "thing",   "like",    "compared", "compare", "versus", "vs",
    "look",  "say",    "have",    "has",     "one",     "before",   "after",   "give",   "make",
    "able",  "find",   "try",     "them",    "they",    "their",    "look",    "kind",   "sort"};

// Bigrams that only phrase a Chinese question.
const std::set<std::string, std::less<>> kStopBigrams = {
    "什么", "怎么", "如何", "么是", "是什", "为什", "哪些", "哪个", "可以", "一个",
    "这个", "有哪", "么意", "意思", "的是", "是否", "请问", "应该", "需要", "为何",
    "一下", "时候", "情况", "问题", "出现", "有什", "么用", "会有", "多少", "是多",
    "么办", "怎样", "会怎", "能用", "能到", "有没", "没有", "设成", "么时", "能设",
    "成什", "里的", "里面", "中的", "想保", "该设", "么区", "区别", "么条"};

// Characters that never sit inside a content word here; they end a run like punctuation does,
// so no bigram spans two words through them.
bool is_break_char(uint32_t code) {
  switch (code) {
    case 0x7684:  // 的
    case 0x4E86:  // 了
    case 0x5417:  // 吗
    case 0x5462:  // 呢
    case 0x5427:  // 吧
    case 0x554A:  // 啊
    case 0x5440:  // 呀
    case 0x561B:  // 嘛
    case 0x8BF7:  // 请
    case 0x6211:  // 我
    case 0x4F60:  // 你
      return true;
    default:
      return false;
  }
}

// English words of questions and the Chinese words the docs use for them.
const std::unordered_map<std::string, std::vector<std::string>> kGlossary = {
    {"default", {"默认"}},
    {"range", {"取值范围", "范围"}},
    {"value", {"取值", "配置为"}},
    {"dtype", {"数据类型"}},
    {"type", {"数据类型", "类型"}},
    {"parameter", {"参数"}},
    {"argument", {"参数"}},
    {"param", {"参数"}},
    {"take", {"参数"}},
    {"accept", {"支持", "取值"}},
    {"support", {"支持"}},
    {"timeout", {"超时"}},
    {"memory", {"内存"}},
    {"cache", {"缓存"}},
    {"caching", {"缓存"}},
    {"compile", {"编译"}},
    {"build", {"编译", "构建"}},
    {"install", {"安装"}},
    {"operator", {"算子"}},
    {"op", {"算子"}},
    {"enable", {"开启", "启用"}},
    {"disable", {"关闭", "禁用"}},
    {"forbid", {"禁止"}},
    {"log", {"日志"}},
    {"warning", {"告警"}},
    {"error", {"报错", "错误"}},
    {"stream", {"流"}},
    {"queue", {"队列"}},
    {"fallback", {"回退"}},
    {"mode", {"模式"}},
    {"path", {"路径"}},
    {"directory", {"路径", "目录"}},
    {"version", {"版本"}},
    {"branch", {"分支"}},
    {"test", {"测试", "用例"}},
    {"performance", {"性能"}},
    {"communication", {"通信"}},
    {"snapshot", {"快照"}},
    {"constraint", {"约束"}},
    {"limit", {"约束", "限制"}},
    {"sync", {"同步"}},
    {"synchronization", {"同步"}},
    {"output", {"输出"}},
    {"input", {"输入"}},
    {"shape", {"形状"}},
    {"allowed", {"取值", "范围"}},
    {"control", {"控制"}},
    {"implicit", {"隐式"}},
    {"community", {"社区"}},
    {"implementation", {"实现"}},
    {"field", {"字段"}},
    {"key", {"字段"}},
    {"whitelist", {"白名单"}},
    {"filter", {"过滤"}},
    {"accuracy", {"精度"}},
    {"precision", {"精度"}},
    {"quantization", {"量化"}},
    {"dynamic", {"动态"}},
    {"static", {"静态"}},
    {"graph", {"图模式", "图"}},
    {"environment", {"环境变量"}},
    {"variable", {"环境变量"}},
    {"config", {"配置"}},
    {"configuration", {"配置"}},
    {"configure", {"配置"}},
    {"gcc", {"gcc"}},
    {"recommended", {"推荐"}},
    {"scenario", {"场景"}},
    {"skip", {"跳过"}},
    {"failing", {"失败"}},
    {"module", {"模块"}},
    {"difference", {"区别"}},
    {"init", {"初始化"}},
    {"initialization", {"初始化"}},
    {"export", {"导出"}},
    {"collect", {"采集"}},
};

bool is_word_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) != 0 || c == '_';
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string stem(std::string word) {
  if (word.size() > 4 && word.ends_with("ies")) return word.substr(0, word.size() - 3) + "y";
  if (word.size() > 3 && word.back() == 's' && !word.ends_with("ss")) word.pop_back();
  return word;
}

bool has_digit(std::string_view text) {
  return std::any_of(text.begin(), text.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

bool looks_like_identifier(std::string_view raw) {
  if (raw.find_first_of("_.") != std::string_view::npos) return true;
  const auto upper = std::count_if(raw.begin(), raw.end(), [](char c) {
    return std::isupper(static_cast<unsigned char>(c)) != 0;
  });
  if (upper >= 2 && raw.size() >= 3) return true;
  const bool alpha = std::any_of(raw.begin(), raw.end(), [](char c) {
    return std::isalpha(static_cast<unsigned char>(c)) != 0;
  });
  return alpha && has_digit(raw);
}

void split_on(std::string_view text, char sep, std::vector<std::string_view>& out) {
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(sep, start), text.size());
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

// One ASCII token: the whole identifier, then its dotted and underscored parts.
void emit_ascii(std::string_view raw, std::vector<std::string>& out) {
  const std::string token = lower(raw);
  if (token.find_first_of("_.") == std::string::npos) {
    if (token.size() >= 2 || has_digit(token)) {
      out.push_back(has_digit(token) || looks_like_identifier(raw) ? token : stem(token));
    }
    return;
  }
  out.push_back(token);
  std::vector<std::string_view> dotted;
  split_on(token, '.', dotted);
  for (std::string_view piece : dotted) {
    if (dotted.size() > 1 && piece.find('_') != std::string_view::npos) out.emplace_back(piece);
    std::vector<std::string_view> parts;
    split_on(piece, '_', parts);
    if (dotted.size() == 1 && parts.size() == 1) continue;
    for (std::string_view part : parts) {
      if (part.size() >= 2) out.emplace_back(part);
    }
  }
}

void emit_cjk_run(const std::vector<std::string_view>& run, std::vector<std::string>& out) {
  if (run.size() == 1) {
    out.emplace_back(run[0]);
    return;
  }
  for (size_t i = 0; i + 1 < run.size(); ++i) {
    std::string bigram(run[i]);
    bigram.append(run[i + 1]);
    out.push_back(std::move(bigram));
  }
}

// Walks the text once; calls `ascii` with each raw ASCII token and `cjk` with each CJK run.
template <typename Ascii, typename Cjk>
void scan(std::string_view text, Ascii&& ascii, Cjk&& cjk) {
  std::vector<std::string_view> run;
  size_t pos = 0;
  while (pos < text.size()) {
    if (is_word_byte(text[pos])) {
      if (!run.empty()) cjk(run), run.clear();
      size_t end = pos;
      while (end < text.size() &&
             (is_word_byte(text[end]) || (text[end] == '.' && end + 1 < text.size() &&
                                          is_word_byte(text[end + 1]) && end > pos))) {
        ++end;
      }
      ascii(text.substr(pos, end - pos));
      pos = end;
      continue;
    }
    size_t length = 1;
    const uint32_t code = decode_utf8(text, pos, length);
    if (is_cjk(code) && !is_break_char(code)) {
      run.push_back(text.substr(pos, length));
    } else if (!run.empty()) {
      cjk(run);
      run.clear();
    }
    pos += length;
  }
  if (!run.empty()) cjk(run);
}

}  // namespace

std::string normalize_markdown(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '`') continue;
    if (c == '\\' && i + 1 < text.size() &&
        std::ispunct(static_cast<unsigned char>(text[i + 1])) != 0) {
      continue;
    }
    out.push_back(c);
  }
  return out;
}

std::vector<std::string> segment(std::string_view text) {
  const std::string clean = normalize_markdown(text);
  std::vector<std::string> out;
  scan(
      clean, [&](std::string_view raw) { emit_ascii(raw, out); },
      [&](const std::vector<std::string_view>& run) { emit_cjk_run(run, out); });
  return out;
}

std::string segment_for_index(std::string_view text) {
  std::string out;
  for (const std::string& term : segment(text)) {
    if (!out.empty()) out.push_back(' ');
    out += term;
  }
  return out;
}

std::vector<QueryTerm> segment_question(std::string_view question) {
  const std::string clean = normalize_markdown(question);
  std::vector<QueryTerm> terms;
  std::set<std::string> seen;
  const auto add = [&](std::string text, bool identifier) {
    if (kStopWords.count(text) != 0 || kStopBigrams.count(text) != 0) return;
    if (!seen.insert(text).second) return;
    QueryTerm term{std::move(text), {}, identifier};
    const auto gloss = kGlossary.find(term.text);
    if (gloss != kGlossary.end()) {
      for (const std::string& word : gloss->second) {
        for (std::string& form : segment(word)) term.synonyms.push_back(std::move(form));
      }
    }
    terms.push_back(std::move(term));
  };
  scan(
      clean,
      [&](std::string_view raw) {
        std::vector<std::string> forms;
        emit_ascii(raw, forms);
        const bool identifier = looks_like_identifier(raw);
        for (size_t i = 0; i < forms.size(); ++i) add(std::move(forms[i]), identifier && i == 0);
      },
      [&](const std::vector<std::string_view>& run) {
        std::vector<std::string> forms;
        emit_cjk_run(run, forms);
        for (std::string& form : forms) add(std::move(form), false);
      });
  return terms;
}

Language detect_language(std::string_view question) {
  size_t cjk = 0;
  size_t english_words = 0;
  scan(
      question,
      [&](std::string_view raw) {
        const bool word = !looks_like_identifier(raw) && raw.size() >= 2 && !has_digit(raw);
        if (word) ++english_words;
      },
      [&](const std::vector<std::string_view>& run) { cjk += run.size(); });
  if (cjk == 0) return Language::kEn;
  // Product and layer names (TorchNPU, CANN, NPU) are not English prose; one plain word is
  // still a Chinese sentence with a term in it.
  if (english_words <= 1) return Language::kZh;
  return Language::kMixed;
}

const char* language_name(Language language) {
  switch (language) {
    case Language::kZh:
      return "zh";
    case Language::kEn:
      return "en";
    case Language::kMixed:
      return "mixed";
  }
  return "en";
}

}  // namespace skillrt::torchnpu_helper
