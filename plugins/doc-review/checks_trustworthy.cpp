// trustworthy 信得过: what the docs state about the code is what the code says. APIs named in
// prose and prototypes exist; prototypes, parameter lists and defaults match the code's
// signatures; dtypes are real dtypes; environment variables are read somewhere in the code.
#include <algorithm>
#include <set>

#include "checks.hpp"
#include "detail/api.hpp"
#include "detail/blocks.hpp"
#include "detail/text.hpp"
#include "optoolkit/text.hpp"

namespace skillrt::doc_review {

namespace {

using detail::ApiResolution;
using detail::ApiStatus;

bool is_mention_line(LineKind k) {
  return k == LineKind::kProse || k == LineKind::kHeading || k == LineKind::kTable ||
         k == LineKind::kHtml;
}

// A line that says the API is gone or going: its absence from the code is the point.
bool deprecation_context(std::string_view line) {
  for (const char* w : {"废弃", "弃用", "删除", "下线", "不再", "deprecat", "removed", "no longer",
                        "obsolete", "替换为", "replaced by"})
    if (detail::icontains(line, w)) return true;
  return false;
}

std::string signature_text(const Signature& s) { return detail::excerpt(s.text, 200); }

std::string nearest_hint(const ApiResolution& r) {
  if (r.nearest.empty()) return "";
  std::string out = "; the code has ";
  for (size_t k = 0; k < r.nearest.size(); ++k) out += (k ? ", " : "") + r.nearest[k];
  return out;
}

// The page's API name from its title: "# （beta）torch_npu.npu_x" -> "torch_npu.npu_x".
std::string title_api(const Page& page) {
  std::string t = page.title;
  std::string clean;
  for (char c : t)
    if (c != '\\') clean.push_back(c);
  for (const char* prefix : {"torch_npu.", "torch.npu.", "torch.ops."}) {
    const size_t p = clean.find(prefix);
    if (p == std::string::npos) continue;
    size_t e = p;
    while (e < clean.size() && (detail::is_ident_char(clean[e]) || clean[e] == '.')) ++e;
    return clean.substr(p, e - p);
  }
  return "";
}

const Signature* best_signature(const std::vector<const Signature*>& sigs,
                                const std::vector<Param>& doc) {
  const Signature* best = nullptr;
  int best_score = -1;
  for (const Signature* s : sigs) {
    int score = 0;
    for (const Param& d : doc)
      for (const Param& c : s->params) score += detail::same_param_name(d.name, c.name) ? 1 : 0;
    if (score > best_score) {
      best_score = score;
      best = s;
    }
  }
  return best;
}

// A None default in the code means "decided inside": a page that states the effective value
// ("默认值为int8", 传None时当做int8处理) is not contradicting it.
bool code_default_is_none(const Param& p) { return p.default_value == "None"; }

bool all_open(const std::vector<const Signature*>& sigs) {
  if (sigs.empty()) return true;
  for (const Signature* s : sigs)
    if (s->open) return true;
  return false;
}

// "默认值为`1e-6`", "默认为 True", "default value is 0", "defaults to None", "Default: 1".
std::optional<std::string> stated_default(std::string_view text) {
  static const char* kPhrases[] = {
      "默认值为",         "默认值是",       "默认值：",    "默认值:",  "默认为",    "缺省值为",
      "default value is", "default value:", "defaults to", "default:", "default is"};
  for (const char* phrase : kPhrases) {
    const std::string lower = detail::lower_ascii(text);
    const size_t p = lower.find(phrase);
    if (p == std::string::npos) continue;
    std::string_view rest = ops::trim_view(text.substr(p + std::string_view(phrase).size()));
    std::string value;
    if (!rest.empty() && rest[0] == '`') {
      const size_t close = rest.find('`', 1);
      if (close == std::string_view::npos) continue;
      value = std::string(rest.substr(1, close - 1));
    } else {
      size_t e = 0;
      while (e < rest.size() &&
             (detail::is_ident_char(rest[e]) || rest[e] == '.' || rest[e] == '-' ||
              rest[e] == '+' || rest[e] == '"' || rest[e] == '\''))
        ++e;
      value = std::string(rest.substr(0, e));
      while (!value.empty() && value.back() == '.') value.pop_back();
    }
    if (value.empty()) continue;
    return value;
  }
  return std::nullopt;
}

const std::set<std::string>& known_dtypes() {
  static const std::set<std::string> k = {"float32",
                                          "float",
                                          "float64",
                                          "double",
                                          "float16",
                                          "half",
                                          "bfloat16",
                                          "complex32",
                                          "chalf",
                                          "complex64",
                                          "cfloat",
                                          "complex128",
                                          "cdouble",
                                          "uint8",
                                          "uint16",
                                          "uint32",
                                          "uint64",
                                          "int8",
                                          "int16",
                                          "short",
                                          "int32",
                                          "int",
                                          "int64",
                                          "long",
                                          "bool",
                                          "quint8",
                                          "qint8",
                                          "qint32",
                                          "quint4x2",
                                          "quint2x4",
                                          "float8_e4m3fn",
                                          "float8_e5m2",
                                          "float8_e4m3fnuz",
                                          "float8_e5m2fnuz",
                                          "float8_e8m0fnu",
                                          "float4_e2m1fn_x2",
                                          "bits8",
                                          "bits16",
                                          "bits1x8",
                                          "bits2x4",
                                          "bits4x2",
                                          "int1",
                                          "int2",
                                          "int3",
                                          "int4",
                                          "int5",
                                          "int6",
                                          "int7",
                                          "uint1",
                                          "uint2",
                                          "uint3",
                                          "uint4",
                                          "uint5",
                                          "uint6",
                                          "uint7"};
  return k;
}

bool dtype_like(std::string_view w) {
  for (const char* p : {"float", "bfloat", "int", "uint", "complex", "qint", "quint", "hifloat"})
    if (detail::starts_with(w, p)) {
      // "int" alone or followed by digits/underscore forms; not "interpolate", "info".
      const std::string_view rest = w.substr(std::string_view(p).size());
      return rest.empty() || detail::is_digit(rest[0]) || rest[0] == '_';
    }
  return false;
}

// Variables CANN itself reads: a torch_npu or op-plugin checkout never mentions all of them.
const std::set<std::string>& cann_variables() {
  static const std::set<std::string> k = {"ASCEND_HOME_PATH",
                                          "ASCEND_TOOLKIT_HOME",
                                          "ASCEND_OPP_PATH",
                                          "ASCEND_AICPU_PATH",
                                          "ASCEND_RT_VISIBLE_DEVICES",
                                          "ASCEND_DEVICE_ID",
                                          "ASCEND_LAUNCH_BLOCKING",
                                          "ASCEND_GLOBAL_LOG_LEVEL",
                                          "ASCEND_SLOG_PRINT_TO_STDOUT",
                                          "ASCEND_GLOBAL_EVENT_ENABLE",
                                          "ASCEND_PROCESS_LOG_PATH",
                                          "ASCEND_CACHE_PATH",
                                          "ASCEND_WORK_PATH",
                                          "ASCEND_CUSTOM_OPP_PATH",
                                          "ASCEND_MODULE_LOG_LEVEL",
                                          "ASCEND_HOST_LOG_FILE_NUM",
                                          "ASCEND_LOG_DEVICE_FLUSH_TIMEOUT",
                                          "ASCEND_COREDUMP_SIGNAL",
                                          "ASCEND_MAX_OP_CACHE_SIZE",
                                          "ASCEND_REMAIN_CACHE_SIZE_RATIO",
                                          "ASCEND_TOOLKIT_PATH",
                                          "ASCEND_DRIVER_PATH",
                                          "ASCEND_CUSTOM_PATH",
                                          "ASCEND_INSTALL_PATH",
                                          "ASCEND_VISIBLE_DEVICES",
                                          "ASCEND_ENGINE_PATH",
                                          "ASCEND_CUSTOM_OPP_PATHS",
                                          "ASCEND_OPP_DEBUG",
                                          "ASCEND_DYNAMIC_TILING",
                                          "ASCEND_HOST_LOG_FILE_NUM",
                                          "ASCEND_SLOG_PRINT_TO_STDERR"};
  return k;
}

void check_api_mentions(const ReviewScope& scope, const Page& page) {
  const CodeIndex& code = *scope.code;
  struct Seen {
    int count = 0;
  };
  std::map<std::string, Seen> reported;
  const std::set<std::string> defined_here = detail::names_defined_on_page(page);
  auto consider = [&](const detail::ApiRef& ref, bool in_prototype) {
    const std::string& line_text = page.line(ref.line);
    if (deprecation_context(line_text)) return;
    if (defined_here.count(ref.name.substr(ref.name.rfind('.') + 1))) {
      scope.skip("api-defined-on-page", "API names the page itself defines",
                 "the page defines them in its own code (a tutorial that adds them)",
                 page.rel + ":" + std::to_string(ref.line) + ": " + ref.name);
      return;
    }
    const ApiResolution r = detail::resolve_api(ref.name, code);
    if (r.status == ApiStatus::kUnknown) {
      scope.skip("api-outside-checkout", "API names the checkout cannot confirm or deny", r.reason,
                 page.rel + ":" + std::to_string(ref.line) + ": " + ref.name);
      return;
    }
    if (r.status == ApiStatus::kMissing) {
      if (reported[ref.name].count++ > 0) return;
      scope.add({Axis::kTrustworthy, Severity::kError, "api-not-in-code", page.rel, ref.line,
                 "'" + ref.name + "' is named " +
                     (in_prototype ? std::string("in a prototype") : std::string("on the page")) +
                     " but the code does not define it" + nearest_hint(r),
                 detail::excerpt(line_text), "", "",
                 r.nearest.empty() ? "check the name against the code, or remove the mention"
                                   : "use the name the code defines (" + r.nearest[0] + ")"});
      return;
    }
    for (const detail::Keyword& k : detail::unknown_keywords(ref, r)) {
      const Signature* s = r.signatures.front();
      scope.add({Axis::kTrustworthy, Severity::kError, "keyword-not-in-code", page.rel, k.line,
                 "'" + ref.name + "' has no parameter '" + k.name + "'",
                 detail::excerpt(page.line(k.line)), s->where.ref(), signature_text(*s),
                 "use a parameter name from the code's signature"});
    }
  };
  for (int n = 1; n <= static_cast<int>(page.lines.size()); ++n) {
    if (!is_mention_line(page.kind(n))) continue;
    for (const detail::ApiRef& ref : detail::find_api_refs(page.line(n), n)) consider(ref, false);
  }
  for (const CodeBlock& b : page.blocks) {
    if (detail::classify_block(page, b) != detail::BlockKind::kPrototype) continue;
    for (const detail::ApiRef& ref : detail::find_api_refs(b.text, b.first_line)) {
      detail::ApiRef bare = ref;
      bare.keywords.clear();  // a prototype's "x=1" are defaults, compared below
      consider(bare, true);
    }
  }
}

void check_prototypes(const ReviewScope& scope, const Page& page,
                      std::vector<const Signature*>* page_sigs) {
  const CodeIndex& code = *scope.code;
  for (const CodeBlock& b : page.blocks) {
    if (detail::classify_block(page, b) != detail::BlockKind::kPrototype) continue;
    for (const detail::Prototype& p : detail::parse_prototypes(b)) {
      std::string name = p.name;
      if (name.find('.') == std::string::npos && code.ops.count(name)) name = "torch_npu." + name;
      const ApiResolution r = detail::resolve_api(name, code);
      if (r.status != ApiStatus::kFound || all_open(r.signatures)) continue;
      page_sigs->insert(page_sigs->end(), r.signatures.begin(), r.signatures.end());
      const Signature* best = best_signature(r.signatures, p.params);
      // Parameters the other side lacks; a pair at the same position is one renamed parameter.
      std::vector<size_t> doc_only;
      for (size_t k = 0; k < p.params.size(); ++k)
        if (!detail::find_param(r.signatures, p.params[k].name)) doc_only.push_back(k);
      std::vector<const Param*> code_params;
      for (const Param& c : best->params)
        if (!c.out) code_params.push_back(&c);
      std::vector<bool> code_documented(code_params.size(), false);
      for (size_t k = 0; k < code_params.size(); ++k)
        for (const Param& d : p.params)
          if (detail::same_param_name(d.name, code_params[k]->name)) code_documented[k] = true;
      for (size_t k : doc_only) {
        const Param& d = p.params[k];
        if (k < code_params.size() && !code_documented[k]) {
          code_documented[k] = true;
          const std::string& code_name = code_params[k]->name;
          if (code_name == "self") {
            // The schema's self: no caller passes it by keyword (torch.ops binds it as self,
            // PyTorch-style docs write input), so the name is a matter of convention.
            scope.add({Axis::kTrustworthy, Severity::kWarning, "prototype-parameter-not-in-code",
                       page.rel, p.line,
                       "prototype of '" + p.name + "' calls its first parameter '" + d.name +
                           "'; the schema calls it self (written input in PyTorch-style docs)",
                       detail::excerpt(p.text), best->where.ref(), signature_text(*best),
                       "call it 'input', as PyTorch's docs do for self"});
            continue;
          }
          scope.add({Axis::kTrustworthy, Severity::kError, "prototype-parameter-not-in-code",
                     page.rel, p.line,
                     "prototype of '" + p.name + "' calls parameter " + std::to_string(k + 1) +
                         " '" + d.name + "'; the code calls it '" + code_name +
                         "', so a call with " + d.name + "= fails",
                     detail::excerpt(p.text), best->where.ref(), signature_text(*best),
                     "rename '" + d.name + "' to '" + code_name + "'"});
          continue;
        }
        scope.add({Axis::kTrustworthy, Severity::kError, "prototype-parameter-not-in-code",
                   page.rel, p.line,
                   "prototype of '" + p.name + "' has parameter '" + d.name +
                       "', which the code's signature does not have",
                   detail::excerpt(p.text), best->where.ref(), signature_text(*best),
                   "rename or remove '" + d.name + "' to match the code"});
      }
      for (const Param& d : p.params) {
        const Param* c = detail::find_param(r.signatures, d.name);
        if (!c) continue;
        if (d.has_default && c->has_default && !code_default_is_none(*c) &&
            !detail::same_default(d.default_value, c->default_value)) {
          scope.add({Axis::kTrustworthy, Severity::kWarning, "default-differs", page.rel, p.line,
                     "prototype of '" + p.name + "' gives '" + d.name + "' the default " +
                         d.default_value + "; the code's default is " + c->default_value,
                     detail::excerpt(p.text), best->where.ref(), signature_text(*best),
                     "write the code's default (" + c->default_value + ")"});
        } else if (d.has_default && !c->has_default && !c->out) {
          scope.add({Axis::kTrustworthy, Severity::kWarning, "default-differs", page.rel, p.line,
                     "prototype of '" + p.name + "' makes '" + d.name + "' optional (default " +
                         d.default_value + "); the code requires it",
                     detail::excerpt(p.text), best->where.ref(), signature_text(*best),
                     "drop the default or check the code"});
        }
      }
      if (p.variadic || p.params.empty()) continue;
      std::string missing, example;
      size_t count = 0;
      for (size_t k = 0; k < code_params.size(); ++k) {
        if (code_documented[k]) continue;
        const Param& c = *code_params[k];
        missing += (count++ ? ", " : "") + c.name;
        if (example.empty()) example = c.name + (c.has_default ? "=" + c.default_value : "");
      }
      if (count == 0) continue;
      scope.add(
          {Axis::kTrustworthy, Severity::kWarning, "prototype-missing-parameter", page.rel, p.line,
           "prototype of '" + p.name + "' leaves out " + std::to_string(count) +
               (count == 1 ? " parameter" : " parameters") + " the code has: " + missing,
           detail::excerpt(p.text), best->where.ref(), signature_text(*best),
           "add them to the prototype (e.g. " + example + ") or say why they are not public"});
    }
  }
}

void check_parameter_list(const ReviewScope& scope, const Page& page,
                          std::vector<const Signature*> sigs) {
  if (sigs.empty()) {
    const std::string api = title_api(page);
    if (api.empty()) return;
    const ApiResolution r = detail::resolve_api(api, *scope.code);
    if (r.status != ApiStatus::kFound) return;
    sigs = r.signatures;
  }
  if (all_open(sigs)) return;
  // The described parameters, in page order: "- **name** (`Type`)" / "- `name`：".
  struct Bullet {
    int line;
    std::string name;
  };
  std::vector<Bullet> bullets;
  for (int n = 1; n <= static_cast<int>(page.lines.size()); ++n) {
    if (page.kind(n) != LineKind::kProse) continue;
    const int h = page.heading_of(n);
    if (h < 0 || !detail::is_parameter_heading(page.headings[static_cast<size_t>(h)].plain))
      continue;
    const std::string& l = page.line(n);
    size_t i = 0;
    while (i < l.size() && l[i] == ' ') ++i;
    // Top-level items only: nested ones describe parts of a parameter (its shape's symbols).
    if (i > 1 || i + 2 >= l.size() || (l[i] != '-' && l[i] != '*' && l[i] != '+') ||
        l[i + 1] != ' ')
      continue;
    i += 2;
    while (i < l.size() && l[i] == ' ') ++i;
    std::string_view rest = std::string_view(l).substr(i);
    size_t open_len = 0;
    if (detail::starts_with(rest, "**")) {
      open_len = 2;
    } else if (detail::starts_with(rest, "`")) {
      open_len = 1;
    } else {
      continue;
    }
    rest.remove_prefix(open_len);
    size_t e = 0;
    while (e < rest.size() && (detail::is_ident_char(rest[e]) || rest[e] == '\\')) ++e;
    std::string name;
    for (char c : rest.substr(0, e))
      if (c != '\\') name.push_back(c);
    const std::string_view after = rest.substr(e);
    if (name.empty() || !detail::is_ident_start(name[0])) continue;
    if (!(detail::starts_with(after, "**") || detail::starts_with(after, "`"))) continue;
    bullets.push_back({n, name});
  }
  if (bullets.empty()) return;
  std::vector<Param> described;
  for (const Bullet& b : bullets) described.push_back({b.name, "", false, false, false});
  const Signature* best = best_signature(sigs, described);
  std::vector<const Param*> code_params;
  for (const Param& c : best->params)
    if (!c.out) code_params.push_back(&c);
  std::vector<bool> covered(code_params.size(), false);
  for (size_t k = 0; k < code_params.size(); ++k)
    for (const Bullet& b : bullets)
      if (detail::same_param_name(b.name, code_params[k]->name)) covered[k] = true;

  std::set<std::string> reported;
  for (size_t k = 0; k < bullets.size(); ++k) {
    const Bullet& b = bullets[k];
    const std::string& l = page.line(b.line);
    const Param* c = detail::find_param(sigs, b.name);
    if (!c) {
      if (!reported.insert(b.name).second) continue;
      // The code's parameter at the same position, when no other entry describes it.
      std::string hint;
      if (k < code_params.size() && !covered[k]) {
        covered[k] = true;
        hint = code_params[k]->name;
      }
      if (hint == "self") {
        scope.add({Axis::kTrustworthy, Severity::kWarning, "parameter-not-in-code", page.rel,
                   b.line,
                   "parameter '" + b.name + "' is described where the schema of '" + best->name +
                       "' has self (written input in PyTorch-style docs)",
                   detail::excerpt(l), best->where.ref(), signature_text(*best),
                   "call it 'input', as PyTorch's docs do for self"});
        continue;
      }
      scope.add({Axis::kTrustworthy, Severity::kError, "parameter-not-in-code", page.rel, b.line,
                 "parameter '" + b.name + "' is described, but the code's signature of '" +
                     best->name + "' has no such parameter" +
                     (hint.empty() ? "" : "; at this position the code has '" + hint + "'"),
                 detail::excerpt(l), best->where.ref(), signature_text(*best),
                 hint.empty() ? "rename it to the code's parameter or remove the entry"
                              : "rename it to '" + hint + "'"});
      continue;
    }
    const std::optional<std::string> stated = stated_default(l);
    if (stated && c->has_default && !code_default_is_none(*c) &&
        !detail::same_default(*stated, c->default_value)) {
      scope.add({Axis::kTrustworthy, Severity::kWarning, "default-differs", page.rel, b.line,
                 "parameter '" + b.name + "' is documented with default " + *stated +
                     "; the code's default is " + c->default_value,
                 detail::excerpt(l), best->where.ref(), signature_text(*best),
                 "write the code's default (" + c->default_value + ")"});
    }
  }
}

void check_dtypes(const ReviewScope& scope, const Page& page) {
  std::set<std::string> reported;
  for (int n = 1; n <= static_cast<int>(page.lines.size()); ++n) {
    const std::string& l = page.line(n);
    size_t p = 0;
    while ((p = l.find("torch.", p)) != std::string::npos) {
      const bool boundary = p == 0 || (!detail::is_ident_char(l[p - 1]) && l[p - 1] != '.');
      p += 6;
      if (!boundary) continue;
      size_t e = p;
      while (e < l.size() && detail::is_ident_char(l[e])) ++e;
      const std::string w = l.substr(p, e - p);
      if (e < l.size() && (l[e] == '.' || l[e] == '(')) continue;  // torch.int.xxx / a call
      if (!dtype_like(w) || known_dtypes().count(w)) continue;
      if (scope.code && scope.code->has_word(w)) continue;
      if (!reported.insert(w).second) continue;
      scope.add({Axis::kTrustworthy, Severity::kWarning, "unknown-dtype", page.rel, n,
                 "'torch." + w + "' is not a torch dtype" +
                     std::string(scope.code ? " and the code does not define it" : ""),
                 detail::excerpt(l), "", "",
                 "use a dtype torch defines (e.g. torch.float16, torch.bfloat16, torch.int8)"});
    }
  }
}

// Whether a line presents a name as an environment variable: it says so, or sets or reads one.
bool env_context(std::string_view line, std::string_view var, std::string_view section) {
  for (const char* w : {"环境变量", "environment variable", "env var", "export ", "unset ",
                        "os.environ", "getenv", "environ.get", "setenv"})
    if (detail::icontains(line, w)) return true;
  const size_t p = line.find(var);
  if (p != std::string_view::npos && p + var.size() < line.size() && line[p + var.size()] == '=')
    return true;
  return detail::icontains(section, "环境变量") || detail::icontains(section, "environment");
}

// Which families of variables a checkout of this kind defines. torch_npu reads PYTORCH_NPU_*;
// op-plugin a few TORCH_NPU_* and ASCEND_* ones; a checkout that reads none of a family is not
// where its variables are defined.
bool owns_family(const CodeIndex& code, std::string_view family) {
  if (family == "PYTORCH_NPU_" && code.kind == CodeKind::kOpPlugin) return false;
  return code.has_prefix_family(family);
}

void check_env_vars(const ReviewScope& scope, const Page& page) {
  const CodeIndex& code = *scope.code;
  std::set<std::string> reported;
  for (int n = 1; n <= static_cast<int>(page.lines.size()); ++n) {
    const std::string& l = page.line(n);
    const int h = page.heading_of(n);
    const std::string section = h >= 0 ? page.headings[static_cast<size_t>(h)].plain : "";
    for (const char* family : {"PYTORCH_NPU_", "TORCH_NPU_", "ASCEND_"}) {
      size_t p = 0;
      const std::string_view fam = family;
      while ((p = l.find(fam, p)) != std::string::npos) {
        const bool boundary = p == 0 || !detail::is_ident_char(l[p - 1]);
        size_t e = p;
        while (e < l.size() && (detail::is_upper(l[e]) || detail::is_digit(l[e]) || l[e] == '_'))
          ++e;
        const bool clean_end = e >= l.size() || !detail::is_ident_char(l[e]);
        const std::string var = l.substr(p, e - p);
        p = e;
        if (!boundary || !clean_end || var.size() <= fam.size() + 1 || var.back() == '_') continue;
        if (code.has_word(var) || cann_variables().count(var) || reported.count(var)) continue;
        if (!env_context(l, var, section)) continue;
        if (!owns_family(code, fam)) {
          scope.skip("env-family-" + std::string(fam),
                     "environment variables " + std::string(fam) + "*",
                     "the checkout (" + std::string(to_string(code.kind)) +
                         ") is not where variables of this family are defined",
                     page.rel + ":" + std::to_string(n) + ": " + var);
          continue;
        }
        reported.insert(var);
        scope.add({Axis::kTrustworthy, Severity::kWarning, "env-var-not-in-code", page.rel, n,
                   "environment variable " + var + " appears nowhere in the code's sources",
                   detail::excerpt(l), "", "",
                   "check the variable's name against the code, or remove it if it was dropped"});
      }
    }
  }
}

}  // namespace

void check_trustworthy(const ReviewScope& scope) {
  for (const Page& page : scope.pages) {
    if (scope.cancelled && scope.cancelled()) return;
    check_dtypes(scope, page);
    if (!scope.code) continue;
    check_api_mentions(scope, page);
    std::vector<const Signature*> sigs;
    check_prototypes(scope, page, &sigs);
    check_parameter_list(scope, page, sigs);
    check_env_vars(scope, page);
  }
  if (!scope.code) {
    scope.skip("no-code-trustworthy", "API, prototype, parameter and environment variable checks",
               "no code checkout was given (input 'code')");
  }
}

}  // namespace skillrt::doc_review
