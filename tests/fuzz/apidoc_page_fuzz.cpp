// Fuzz target of op-apidoc's reader of operator API pages (plugins/op-apidoc/page.cpp) and of the
// check that compares a page with its schema (check.cpp), the input being a Markdown page. The
// first byte picks the API the page is read for (one of eight whose real pages seed the corpus,
// with their op-plugin schemas), the rest is the page. Besides no crash and ASan/UBSan clean:
// - the page's lines are the input's lines (split at '\n', one trailing '\r' dropped), numbered
//   from 1, and in_code follows the ``` fences;
// - every section starts at a heading line outside code and ends where the next heading of the
//   same or a higher level starts (or at the end of the page); the title is the first level-1
//   heading;
// - every prototype, parameter item and example call cites a line inside its own section (an
//   example call inside a code block, on a line that names the API), and an argument's line lies
//   within its prototype's 200-line reach;
// - reading is deterministic: the same page read twice gives the same result, and the page with
//   CRLF line ends gives the result of the page with LF ones;
// - the check reads what the reader reads, and every finding cites a line of the page (0 or 1
//   where the page has none to cite), in order.
// Built as a libFuzzer target by `make fuzz`, and run over its corpus by ctest.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <skillrt/sdk.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "apidoc.hpp"
#include "page.hpp"

namespace {

namespace oa = skillrt::op_apidoc;

struct Api {
  const char* name;
  const char* schema;
};

// The APIs of the seed pages (tests/data/real_pages/pages), with their schema in op-plugin's
// op_plugin_functions.yaml as labels.jsonl gives it.
constexpr Api kApis[] = {
    {"npu_rms_norm",
     "npu_rms_norm(Tensor self, Tensor gamma, float epsilon=1e-06) -> (Tensor, "
     "Tensor)"},
    {"npu_add_rms_norm",
     "npu_add_rms_norm(Tensor x1, Tensor x2, Tensor gamma, float epsilon=1e-06) -> (Tensor, "
     "Tensor, Tensor)"},
    {"npu_gelu", "npu_gelu(Tensor self, *, str approximate='none') -> Tensor"},
    {"npu_fast_gelu", "npu_fast_gelu(Tensor self) -> Tensor"},
    {"scatter_update",
     "scatter_update(Tensor self, Tensor indices, Tensor updates, int axis) -> Tensor"},
    {"batch_norm_reduce", "batch_norm_reduce(Tensor input, float eps) -> (Tensor, Tensor)"},
    {"npu_dynamic_block_quant",
     "npu_dynamic_block_quant(Tensor x, *, float min_scale=0.0, str round_mode=\"rint\", int "
     "dst_type=1, int row_block_size=1, int col_block_size=128, float dst_type_max=0.0) -> "
     "(Tensor y, Tensor scale)"},
    {"npu_top_k_top_p", "npu_top_k_top_p(Tensor logits, Tensor? p=None, Tensor? k=None) -> Tensor"},
};
constexpr size_t kApiCount = sizeof(kApis) / sizeof(kApis[0]);

std::string_view g_page;  // for the failure message

// As the host writes results: bytes that are not UTF-8 replaced, never an exception.
std::string dumped(const skillrt::Json& j) {
  return j.dump(-1, ' ', false, skillrt::Json::error_handler_t::replace);
}

[[noreturn]] void broken(const std::string& what, size_t line = 0) {
  std::fprintf(stderr, "apidoc_page: %s (page line %zu)\npage: %.*s\n", what.c_str(), line,
               static_cast<int>(g_page.size() > 2000 ? 2000 : g_page.size()), g_page.data());
  std::abort();
}

// The page's lines as std::getline reads them, one trailing '\r' dropped.
std::vector<std::string_view> page_lines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    start = end + 1;
  }
  return out;
}

bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

bool is_fence(std::string_view line) {
  while (!line.empty() && is_space(line.front())) line.remove_prefix(1);
  return line.substr(0, 3) == "```";
}

// Everything the reader returns, spelled out, to compare two reads.
std::string spelled(const oa::ApiPage& p) {
  std::string s = p.title + "|" + std::to_string(p.title_line) + "|" +
                  std::to_string(p.params_heading_line) + "\n";
  for (const auto& l : p.lines) {
    s += std::to_string(l.number) + (l.in_code ? "c " : "  ") + l.text + "\n";
  }
  for (const auto& x : p.sections) {
    s += "S" + x.title + "|" + std::to_string(x.level) + "|" + std::to_string(x.heading) + "|" +
         std::to_string(x.end) + "\n";
  }
  for (const auto& x : p.prototypes) {
    s += "P" + std::to_string(x.line) + "|" + std::to_string(x.has_varargs) + "|" +
         std::to_string(x.return_count) + "|" + x.returns_text + "\n";
    for (const auto& a : x.args) {
      s += " " + a.name + "|" + a.type + "|" + (a.default_text ? "=" + *a.default_text : "-") +
           "|" + std::to_string(a.kwonly) + "|" + std::to_string(a.line) + "\n";
    }
  }
  for (const auto& x : p.params) {
    s += "I" + x.name + "|" + x.type + "|" + (x.default_text ? "=" + *x.default_text : "-") + "|" +
         std::to_string(x.line) + "\n";
  }
  for (const auto& x : p.calls) {
    s += "C" + std::to_string(x.line) + "\n";
    for (const auto& v : x.positional) s += " " + v + "\n";
    for (const auto& [k, v] : x.keywords) s += " " + k + "=" + v + "\n";
  }
  return s;
}

// The section (by heading index) a 1-based line number falls in: after the heading, before end.
bool inside(const oa::PageSection& s, size_t number) {
  return number >= s.heading + 2 && number <= s.end;
}

const oa::PageSection* section_of(const oa::ApiPage& p, size_t number,
                                  std::initializer_list<const char*> names) {
  for (const auto& s : p.sections) {
    for (const char* n : names) {
      if (s.title == n) return inside(s, number) ? &s : nullptr;  // the first so named
    }
  }
  return nullptr;
}

void check_page(const oa::ApiPage& p, std::string_view text, const std::string& api) {
  const std::vector<std::string_view> lines = page_lines(text);
  if (p.lines.size() != lines.size()) broken("the page has another number of lines");
  bool fence = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const oa::PageLine& l = p.lines[i];
    if (l.number != i + 1) broken("lines are not numbered from 1", l.number);
    if (l.text != lines[i]) broken("a line that is not the input's", i + 1);
    const bool marker = is_fence(lines[i]);
    if (l.in_code != (fence || marker)) broken("in_code does not follow the fences", i + 1);
    if (marker) fence = !fence;
  }
  const size_t n = lines.size();
  size_t previous = 0;
  bool first = true;
  for (size_t k = 0; k < p.sections.size(); ++k) {
    const oa::PageSection& s = p.sections[k];
    if (s.heading >= n || s.end > n || s.end <= s.heading) broken("a section outside the page");
    if (!first && s.heading <= previous) broken("sections out of order", s.heading + 1);
    first = false;
    previous = s.heading;
    if (p.lines[s.heading].in_code || s.level < 1 || s.level > 6) {
      broken("a section that does not start at a heading", s.heading + 1);
    }
    size_t want = n;
    for (size_t t = k + 1; t < p.sections.size(); ++t) {
      if (p.sections[t].level <= s.level) {
        want = p.sections[t].heading;
        break;
      }
    }
    if (s.end != want) broken("a section ends elsewhere than at the next heading", s.heading + 1);
  }
  size_t title_line = 0;
  for (const auto& s : p.sections) {
    if (s.level == 1) {
      title_line = s.heading + 1;
      if (p.title != s.title) broken("the title is not the first level-1 heading", title_line);
      break;
    }
  }
  if (p.title_line != title_line) broken("the title line is not the first level-1 heading");
  for (const auto& proto : p.prototypes) {
    if (section_of(p, proto.line,
                   {"函数原型", "接口原型", "Prototype", "Function Prototype", "Syntax", "原型"}) ==
        nullptr) {
      broken("a prototype outside the prototype section", proto.line);
    }
    for (const auto& a : proto.args) {
      if (a.line < proto.line || a.line >= proto.line + 200 || a.line > n) {
        broken("an argument's line outside its prototype", a.line);
      }
    }
    if (proto.return_count < -1) broken("a negative return count", proto.line);
  }
  if (!p.params.empty() && p.params_heading_line == 0) broken("parameter items without a section");
  if (p.params_heading_line > n) broken("the parameter heading outside the page");
  for (const auto& item : p.params) {
    if (section_of(p, item.line,
                   {"参数说明", "参数", "Parameters", "Parameter", "Arguments", "入参说明"}) ==
            nullptr ||
        p.lines[item.line - 1].in_code) {
      broken("a parameter item outside the parameter section", item.line);
    }
    if (item.name.empty()) broken("a parameter item without a name", item.line);
  }
  for (const auto& call : p.calls) {
    if (section_of(p, call.line, {"调用示例", "示例", "Examples", "Example", "使用示例"}) ==
            nullptr ||
        !p.lines[call.line - 1].in_code) {
      broken("an example call outside the examples' code", call.line);
    }
    if (lines[call.line - 1].find(api) == std::string_view::npos) {
      broken("an example call on a line that does not name the API", call.line);
    }
  }
}

void check_findings(const skillrt::Json& out, const oa::ApiPage& page) {
  const skillrt::Json& read = out.at("read");
  if (read.at("prototypes") != page.prototypes.size() ||
      read.at("parameter_items") != page.params.size() ||
      read.at("example_calls") != page.calls.size()) {
    broken("the check read the page differently: " + dumped(read));
  }
  const size_t last = page.lines.empty() ? 1 : page.lines.size();
  size_t previous = 0;
  for (const auto& f : out.at("findings")) {
    if (!f.at("line").is_number_unsigned()) broken("a finding without a line: " + dumped(f));
    const size_t line = f.at("line").get<size_t>();
    if (line > last) broken("a finding cites a line past the page: " + dumped(f), line);
    if (line < previous) broken("findings out of line order", line);
    previous = line;
  }
  if (out.at("summary").at("findings") != out.at("findings").size()) {
    broken("the summary counts another number of findings");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const Api& api = kApis[data[0] % kApiCount];
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  g_page = text;
  const oa::ApiPage page = oa::read_api_page(text, api.name);
  check_page(page, text, api.name);
  if (spelled(page) != spelled(oa::read_api_page(text, api.name))) {
    broken("reading the page twice gave two results");
  }
  // Pages edited on Windows: the same page with CRLF line ends reads the same.
  if (text.find('\r') == std::string_view::npos && text.find('\n') != std::string_view::npos) {
    std::string crlf;
    for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    if (spelled(oa::read_api_page(crlf, api.name)) != spelled(page)) {
      broken("the page with CRLF line ends reads differently");
    }
  }
  const skillrt::Json out = oa::run_check({{"mode", "check"},
                                           {"schema", api.schema},
                                           {"doc_text", std::string(text)},
                                           {"template", true}});
  check_findings(out, page);
  return 0;
}
