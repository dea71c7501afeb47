#include "segmenter.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <set>
#include <unordered_map>

#include "detail/utf8.hpp"

namespace skillrt::torchnpu_helper {
namespace {

using detail::decode_utf8;
using detail::is_cjk;

// Words that phrase a question rather than name its topic. Left in, they count as topic words
// the docs do not share and push answerable questions under the coverage bar. Besides question
// words, the whole closed classes of English (pronouns, auxiliaries, prepositions, conjunctions,
// determiners, adverbs of degree and frequency): the English pages are few, so such a word is
// often absent from them while the answer is there.
const std::set<std::string, std::less<>> kStopWords = {
    "a",        "an",       "the",        "is",       "are",        "was",       "were",
    "be",       "been",     "what",       "which",    "who",        "how",       "why",
    "when",     "where",    "do",         "does",     "did",        "i",         "we",
    "you",      "it",       "its",        "my",       "our",        "your",      "to",
    "of",       "in",       "on",         "for",      "and",        "or",        "with",
    "by",       "as",       "at",         "from",     "that",       "this",      "these",
    "those",    "there",    "can",        "could",    "should",     "would",     "will",
    "me",       "about",    "into",       "if",       "then",       "than",      "so",
    "not",      "no",       "any",        "all",      "some",       "get",       "use",
    "used",     "using",    "mean",       "meaning",  "tell",       "explain",   "need",
    "want",     "way",      "know",       "please",   "help",       "also",      "just",
    "only",     "still",    "other",      "much",     "many",       "very",      "here",
    "now",      "whether",  "go",         "goe",      "goes",       "set",       "doe",
    "happen",   "happens",  "thing",      "like",     "compared",   "compare",   "versus",
    "vs",       "look",     "say",        "have",     "has",        "one",       "before",
    "after",    "give",     "make",       "able",     "find",       "try",       "them",
    "they",     "their",    "kind",       "sort",     "myself",     "ours",      "ourselves",
    "yours",    "yourself", "yourselves", "he",       "him",        "his",       "himself",
    "she",      "her",      "hers",       "herself",  "itself",     "theirs",    "themselves",
    "whom",     "am",       "being",      "had",      "having",     "doing",     "but",
    "because",  "until",    "while",      "against",  "between",    "through",   "during",
    "above",    "below",    "up",         "down",     "out",        "off",       "over",
    "under",    "again",    "further",    "once",     "both",       "each",      "few",
    "more",     "most",     "such",       "nor",      "own",        "same",      "too",
    "s",        "t",        "don",        "shall",    "may",        "might",     "must",
    "ought",    "cannot",   "around",     "within",   "without",    "upon",      "onto",
    "toward",   "towards",  "across",     "along",    "among",      "behind",    "beside",
    "besides",  "beyond",   "near",       "since",    "though",     "although",  "unless",
    "whereas",  "whenever", "wherever",   "however",  "therefore",  "thus",      "yet",
    "already",  "ever",     "never",      "always",   "often",      "sometimes", "usually",
    "really",   "quite",    "rather",     "somewhat", "almost",     "enough",    "else",
    "anyway",   "anything", "something",  "nothing",  "everything", "someone",   "anyone",
    "everyone", "either",   "neither",    "every",    "another",    "whose"};

// Bigrams that only phrase a Chinese question.
const std::set<std::string, std::less<>> kStopBigrams = {
    "什么", "怎么", "如何", "么是", "是什", "为什", "哪些", "哪个", "可以", "一个", "这个", "有哪",
    "么意", "意思", "的是", "是否", "请问", "应该", "需要", "为何", "一下", "时候", "情况", "问题",
    "出现", "有什", "么用", "会有", "多少", "是多", "么办", "怎样", "会怎", "能用", "能到", "有没",
    "没有", "设成", "么时", "能设", "成什", "里的", "里面", "中的", "想保", "该设", "么区", "区别",
    "么条", "几次", "几个", "多大", "多久", "多长", "太慢", "注意", "要做", "时要", "下会", "中途",
    "为啥", "咋办", "能否", "一般", "具体", "到底", "以后", "之后", "之前", "哪里", "哪儿"};

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
    case 0x662F:  // 是 (默认值是多少: 值是 is not a word)
    case 0x624D:  // 才
    case 0x4E5F:  // 也
    case 0x90FD:  // 都
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
    {"compile", {"编译", "build"}},
    {"compilation", {"编译", "build"}},
    {"build", {"编译", "构建", "compile"}},
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
    {"affinity", {"亲和"}},
    {"release", {"释放", "发布"}},
    {"free", {"释放"}},
    {"allocator", {"分配器"}},
    {"allocate", {"申请", "分配"}},
    {"uninstall", {"卸载"}},
    {"upgrade", {"升级"}},
    {"image", {"镜像"}},
    {"mirror", {"镜像"}},
    {"pull", {"拉取"}},
    {"source", {"源码"}},
    {"warmup", {"预热"}},
    {"fault", {"故障"}},
    {"hardware", {"硬件"}},
    {"return", {"返回"}},
    {"crash", {"崩溃"}},
    {"maintenance", {"维护"}},
    {"optimizer", {"优化器"}},
    {"fused", {"融合"}},
    {"fusion", {"融合"}},
    {"execution", {"执行"}},
    {"execute", {"执行"}},
    {"run", {"执行", "运行"}},
    {"thread", {"线程"}},
    {"process", {"进程"}},
    {"distributed", {"分布式"}},
    {"cluster", {"集群"}},
    {"node", {"节点"}},
    {"bandwidth", {"带宽"}},
    {"buffer", {"缓冲", "缓存"}},
    {"size", {"大小"}},
    {"layout", {"排布"}},
    {"format", {"格式"}},
    {"deterministic", {"确定性"}},
    {"random", {"随机"}},
    {"tensor", {"张量"}},
    {"sparse", {"稀疏"}},
    {"weight", {"权重"}},
    {"scale", {"缩放"}},
    {"offset", {"偏移"}},
    {"group", {"分组"}},
    {"virtual", {"虚拟"}},
    {"physical", {"物理"}},
    {"share", {"共享"}},
    {"parse", {"解析"}},
    {"offline", {"离线"}},
    {"analysis", {"分析"}},
    {"analyze", {"分析"}},
    {"file", {"文件"}},
    {"print", {"打印"}},
    {"level", {"级别", "等级"}},
    {"threshold", {"阈值"}},
    {"detection", {"检测"}},
    {"detect", {"检测"}},
    {"check", {"检查", "校验"}},
    {"verify", {"验证", "校验"}},
    {"lint", {"静态检查"}},
    {"dependency", {"依赖"}},
    {"library", {"库"}},
    {"link", {"链接"}},
    {"training", {"训练"}},
    {"train", {"训练"}},
    {"inference", {"推理"}},
    {"model", {"模型"}},
    {"backend", {"后端"}},
    {"optimization", {"优化"}},
    {"tuning", {"调优"}},
    {"overhead", {"开销"}},
    {"dispatch", {"下发"}},
    {"launch", {"下发", "启动"}},
    {"pipeline", {"流水"}},
    {"event", {"事件"}},
    {"wait", {"等待"}},
    {"capture", {"捕获"}},
    {"replay", {"重放"}},
    {"compatible", {"兼容"}},
    {"compatibility", {"兼容", "配套"}},
    {"contribute", {"贡献"}},
    {"contributing", {"贡献"}},
    {"license", {"许可"}},
    {"sign", {"签署"}},
    {"review", {"评审"}},
    {"step", {"步"}},
    {"device", {"设备"}},
    {"card", {"卡"}},
    {"core", {"核"}},
    {"cores", {"核数"}},
    {"product", {"产品"}},
    {"hang", {"卡死", "卡住"}},
    {"deadlock", {"卡死"}},
    {"slow", {"慢"}},
    {"signature", {"函数原型"}},
    {"ut", {"单元测试", "测试用例"}},
    {"unit", {"单元"}},
    {"case", {"用例"}},
    {"prototype", {"函数原型"}},
    // General software and training words the Chinese pages write in Chinese.
    {"program", {"程序"}},
    {"application", {"应用"}},
    {"deploy", {"部署"}},
    {"deployment", {"部署"}},
    {"recommend", {"推荐", "建议"}},
    {"suggest", {"建议"}},
    {"safe", {"安全"}},
    {"flow", {"流程"}},
    {"plugin", {"插件"}},
    {"shared", {"共享"}},
    {"function", {"函数", "功能"}},
    {"interface", {"接口"}},
    {"call", {"调用"}},
    {"invoke", {"调用"}},
    {"example", {"示例", "样例"}},
    {"feature", {"特性", "功能"}},
    {"container", {"容器"}},
    {"driver", {"驱动"}},
    {"firmware", {"固件"}},
    {"framework", {"框架"}},
    {"gradient", {"梯度"}},
    {"backward", {"反向"}},
    {"forward", {"正向", "前向"}},
    {"overflow", {"溢出"}},
    {"sequence", {"序列"}},
    {"attention", {"注意力"}},
    {"kernel", {"算子", "内核"}},
    {"profile", {"采集", "性能数据"}},
    {"profiling", {"采集", "性能数据"}},
    {"trace", {"跟踪"}},
    {"pool", {"内存池"}},
    {"reuse", {"复用"}},
    {"swap", {"交换"}},
    {"offload", {"卸载"}},
    {"host", {"主机", "host"}},
    {"copy", {"拷贝", "复制"}},
    {"transfer", {"迁移", "传输"}},
    {"migrate", {"迁移"}},
    {"migration", {"迁移"}},
    {"replace", {"替换"}},
    {"package", {"软件包"}},
    {"safety", {"安全"}},
    {"memory pool", {"内存池"}},
    {"restriction", {"约束", "限制"}},
    {"usage", {"用法", "使用"}},
    {"note", {"说明", "注意"}},
    {"description", {"说明", "描述"}},
    // Chinese words of questions and the words the docs use for the same thing.
    {"运行", {"执行"}},
    {"执行", {"运行"}},
    {"导出", {"保存", "生成"}},
    {"保存", {"导出"}},
    {"启用", {"开启"}},
    {"打开", {"开启"}},
    {"开启", {"启用"}},
    {"禁用", {"关闭"}},
    {"缺省", {"默认"}},
    {"报错", {"错误"}},
    {"设置", {"配置"}},
    {"配置", {"设置"}},
    {"限制", {"约束"}},
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

bool has_vowel(std::string_view text) {
  return text.find_first_of("aeiouy") != std::string_view::npos;
}

// A light English stemmer, the same on both sides: plurals, -ing and -ed (with a doubled final
// consonant undone) and a final silent e, so "submitting", "enabled" and "caches" meet
// "submit", "enable" and "cache".
std::string stem(std::string word) {
  if (word.size() > 4 && word.ends_with("ies")) {
    word.resize(word.size() - 3);
    word.push_back('y');
  } else if (word.size() > 3 && word.back() == 's' && !word.ends_with("ss") &&
             !word.ends_with("us") && !word.ends_with("is")) {
    word.pop_back();
  }
  for (const std::string_view suffix : {std::string_view("ing"), std::string_view("ed")}) {
    if (word.size() < suffix.size() + 3 || !word.ends_with(suffix)) continue;
    std::string base = word.substr(0, word.size() - suffix.size());
    if (!has_vowel(base)) continue;
    const char last = base.back();
    if (base.size() > 2 && last == base[base.size() - 2] &&
        std::string_view("lsz").find(last) == std::string_view::npos &&
        !has_vowel(std::string_view(&last, 1))) {
      base.pop_back();
    }
    word = std::move(base);
    break;
  }
  if (word.size() > 4 && word.back() == 'e') word.pop_back();
  return word;
}

bool has_digit(std::string_view text) {
  return std::any_of(text.begin(), text.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// "2.1", "3.10": a major.minor version.
bool is_short_version(std::string_view text) {
  const size_t dot = text.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == text.size()) return false;
  const auto digits = [](std::string_view part) {
    return std::all_of(part.begin(), part.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
  };
  return digits(text.substr(0, dot)) && digits(text.substr(dot + 1));
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

// The tails of a dotted name with at least two pieces: torch_npu.profiler.dynamic_profile.init
// also yields profiler.dynamic_profile.init and dynamic_profile.init, so a question may name the
// API with or without its module (and torch.npu.x meets torch_npu.npu.x at npu.x). Version
// numbers (2.9.0.post6) have no tails: 9.0.post6 would match other versions.
std::vector<std::string> dotted_suffixes(const std::vector<std::string_view>& dotted) {
  std::vector<std::string> out;
  const bool named = std::all_of(dotted.begin(), dotted.end(), [](std::string_view piece) {
    return !piece.empty() && std::isdigit(static_cast<unsigned char>(piece[0])) == 0;
  });
  if (!named) return out;
  for (size_t first = 1; first + 2 <= dotted.size(); ++first) {
    std::string tail(dotted[first]);
    for (size_t i = first + 1; i < dotted.size(); ++i) tail += "." + std::string(dotted[i]);
    out.push_back(std::move(tail));
  }
  return out;
}

// One ASCII token: the whole identifier, its dotted tails, then its dotted and underscored
// parts.
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
  for (const std::string& suffix : dotted_suffixes(dotted)) out.push_back(suffix);
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

// Stop bigrams are words too: cutting them out whole keeps their characters from pairing with
// the topic words around them ("中途怎么手动" is 中途|怎么|手动, not 途怎 or 么手).
constexpr double kStopBigramScore = 12.0;
// A bigram the docs never use still beats two loose characters: an unknown word should stay in
// the question (it is what makes a decline right), not vanish.
constexpr double kBigramBonus = 0.1;

// The bigrams of `run` (character strings) that a best non-overlapping cut keeps, in order.
std::vector<std::string> cut_run(const std::vector<std::string_view>& run,
                                 const TermFrequency& frequency) {
  if (run.size() == 1) return {std::string(run[0])};
  const size_t n = run.size();
  const auto bigram = [&](size_t i) {
    std::string out(run[i]);
    out.append(run[i + 1]);
    return out;
  };
  // best[i]: the best score of run[i..n); take[i]: whether run[i] starts a kept bigram there.
  std::vector<double> best(n + 1, 0);
  std::vector<bool> take(n + 1, false);
  for (size_t i = n; i-- > 0;) {
    best[i] = best[i + 1];
    if (i + 1 >= n) continue;
    const std::string pair = bigram(i);
    const double score =
        kStopBigrams.count(pair) != 0
            ? kStopBigramScore
            : std::log1p(static_cast<double>(std::max<int64_t>(frequency(pair), 0))) + kBigramBonus;
    if (score + best[i + 2] > best[i]) {
      best[i] = score + best[i + 2];
      take[i] = true;
    }
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < n;) {
    if (take[i]) {
      out.push_back(bigram(i));
      i += 2;
    } else {
      ++i;
    }
  }
  return out;
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

namespace {

// English contractions written out ("isn't" -> "is not", "what's" -> "what is"), so that their
// halves are the stop words they are instead of the fragments "isn" and "t" the apostrophe
// would leave. Both the ASCII and the typographic apostrophe.
std::string expand_contractions(std::string_view text) {
  static const std::array<std::pair<std::string_view, std::string_view>, 10> kForms = {{
      {"can't", "cannot"},
      {"won't", "will not"},
      {"n't", " not"},
      {"'re", " are"},
      {"'ve", " have"},
      {"'ll", " will"},
      {"'d", " would"},
      {"'m", " am"},
      {"'s", " is"},
      {"\xE2\x80\x99", "'"},  // ’
  }};
  std::string out(text);
  // The typographic apostrophe first, so the forms above see one spelling.
  for (size_t at = out.find(kForms.back().first); at != std::string::npos;
       at = out.find(kForms.back().first, at)) {
    out.replace(at, kForms.back().first.size(), "'");
  }
  std::string lowered = lower(out);
  for (size_t f = 0; f + 1 < kForms.size(); ++f) {
    const auto& [form, spelled] = kForms[f];
    for (size_t at = lowered.find(form); at != std::string::npos; at = lowered.find(form, at)) {
      // Only at the end of a word: "'s" of "it's", not the quote before "s3".
      const size_t end = at + form.size();
      if (end < lowered.size() && std::isalnum(static_cast<unsigned char>(lowered[end])) != 0) {
        ++at;
        continue;
      }
      out.replace(at, form.size(), spelled);
      lowered.replace(at, form.size(), spelled);
      at += spelled.size();
    }
  }
  return out;
}

}  // namespace

std::vector<QueryTerm> segment_question(std::string_view question, const TermFrequency& frequency) {
  const std::string clean = normalize_markdown(expand_contractions(question));
  std::vector<QueryTerm> terms;
  std::set<std::string> seen;
  // The question's words are stemmed; so are the keys they are looked up by.
  static const std::set<std::string> kStemmedStopWords = [] {
    std::set<std::string> words;
    for (const std::string& word : kStopWords) {
      words.insert(word);
      words.insert(stem(word));
    }
    return words;
  }();
  static const std::unordered_map<std::string, std::vector<std::string>> kStemmedGlossary = [] {
    std::unordered_map<std::string, std::vector<std::string>> glossary;
    for (const auto& [word, forms] : kGlossary) {
      const bool ascii = std::all_of(word.begin(), word.end(),
                                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
      auto& entry = glossary[ascii ? stem(word) : word];
      entry.insert(entry.end(), forms.begin(), forms.end());
    }
    return glossary;
  }();
  const auto add = [&](std::string text, bool identifier, bool part) {
    if (kStemmedStopWords.count(text) != 0 || kStopBigrams.count(text) != 0) return;
    if (!seen.insert(text).second) return;
    QueryTerm term{std::move(text), {}, identifier, part, {}};
    term.surface = term.text;
    // "PyTorch 2.1" is written 2.1.0 in the docs.
    if (is_short_version(term.text)) term.synonyms.push_back(term.text + ".0");
    const auto gloss = kStemmedGlossary.find(term.text);
    if (gloss != kStemmedGlossary.end()) {
      for (const std::string& word : gloss->second) {
        for (std::string& form : segment(word)) {
          if (form != term.text &&
              std::find(term.synonyms.begin(), term.synonyms.end(), form) == term.synonyms.end()) {
            term.synonyms.push_back(std::move(form));
          }
        }
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
        // A dotted name's tails are other spellings of the whole name, not pieces of it.
        std::vector<std::string_view> dotted;
        const std::string token = lower(raw);
        split_on(token, '.', dotted);
        const std::vector<std::string> tails =
            dotted.size() > 2 ? dotted_suffixes(dotted) : std::vector<std::string>{};
        const size_t before = terms.size();
        for (size_t i = 0; i < forms.size(); ++i) {
          if (i > 0 && std::find(tails.begin(), tails.end(), forms[i]) != tails.end()) continue;
          add(std::move(forms[i]), identifier && i == 0, i > 0);
        }
        if (terms.size() > before && !terms[before].part) terms[before].surface = token;
        if (terms.size() > before && terms[before].identifier) {
          terms[before].synonyms.insert(terms[before].synonyms.end(), tails.begin(), tails.end());
        }
      },
      [&](const std::vector<std::string_view>& run) {
        std::vector<std::string> forms;
        // A lone character (跑, 装, 用) is a verb or a particle, not a topic.
        if (run.size() == 1) return;
        if (frequency) {
          forms = cut_run(run, frequency);
        } else {
          emit_cjk_run(run, forms);
        }
        for (std::string& form : forms) add(std::move(form), false, false);
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
