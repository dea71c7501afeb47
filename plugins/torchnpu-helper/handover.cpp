#include "handover.hpp"

#include <regex>

namespace skillrt::torchnpu_helper {
namespace {

struct Rule {
  const char* skill;
  bool task;
  const char* pattern;  // ECMAScript, case-insensitive, matched on the UTF-8 bytes
  const char* reason_en;
  const char* reason_zh;
};

// Order matters only for the output: the first rule that fires is listed first.
const Rule kRules[] = {
    {"npu-graph-diagnose", true,
     R"(Traceback \(most recent call last\)|File "[^"]+", line [0-9]+|\bERR[0-9]{5}\b|\bE[A-Z][0-9]{4}\b)",
     "the request carries a traceback or error codes: npu-graph-diagnose decodes them layer by "
     "layer with evidence",
     "请求里带有报错堆栈或错误码：npu-graph-diagnose 会逐层解码并给出证据"},
    {"op-adaptation", true,
     R"((adapt|port|add|register|implement)\b.{0,40}\b(op|operator|kernel)\b|适配.{0,30}算子|算子.{0,12}适配|新增.{0,12}算子)",
     "adapting an operator is a task: op-adaptation checks and generates the ~14 files",
     "算子适配是一项任务：op-adaptation 会检查并生成约 14 个相关文件"},
    {"op-test", true,
     R"((write|generate)\b.{0,30}\btests?\b.{0,30}\bop|给.{0,20}算子.{0,10}(写|生成).{0,6}(测试|用例))",
     "writing operator tests is op-test's job", "编写算子测试由 op-test 完成"},
    {"gpu-migration-analyze", true,
     R"((migrate|port)\b.{0,40}\b(cuda|gpu)\b.{0,30}\b(project|code|repo|model)|(把|将).{0,30}(cuda|gpu).{0,20}迁移)",
     "migrating a CUDA project is gpu-migration-analyze's job",
     "迁移 CUDA 项目由 gpu-migration-analyze 完成"},
    {"api-consistency", true,
     R"(compare\b.{0,30}\b(npu|cpu)\b.{0,20}\boutputs?|精度比对|对比.{0,20}(npu|cpu).{0,10}输出)",
     "comparing NPU and CPU outputs is api-consistency's job",
     "比对 NPU 与 CPU 输出由 api-consistency 完成"},
    {"npu-graph-qa", false,
     R"(torch\.compile|torchair|aclgraph|npugraph_ex|dynamo|图模式|入图|断图)",
     "graph-mode questions: npu-graph-qa has the graph-mode knowledge base",
     "图模式相关问题：npu-graph-qa 有图模式知识库"},
    {"op-schema", false, R"(\bschema\b|函数签名|native_functions\.yaml)",
     "op-schema parses and looks up operator schemas in the yaml files with file and line",
     "op-schema 可解析算子 schema，并在 yaml 中给出文件与行号"},
};

}  // namespace

std::vector<Handover> detect_handover(std::string_view question, Language language) {
  // Compiled once: the patterns are constant and std::regex compilation costs milliseconds.
  static const std::vector<std::regex> kPatterns = [] {
    std::vector<std::regex> patterns;
    for (const Rule& rule : kRules) {
      patterns.emplace_back(rule.pattern, std::regex::ECMAScript | std::regex::icase);
    }
    return patterns;
  }();
  std::vector<Handover> out;
  const std::string text(question);
  for (size_t i = 0; i < kPatterns.size(); ++i) {
    if (!std::regex_search(text, kPatterns[i])) continue;
    const Rule& rule = kRules[i];
    out.push_back(Handover{rule.skill, rule.task,
                           language == Language::kEn ? rule.reason_en : rule.reason_zh});
  }
  return out;
}

}  // namespace skillrt::torchnpu_helper
