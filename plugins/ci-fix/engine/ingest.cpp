// Hand-written line parsers (no std::regex: a 20,000-finding report must parse in milliseconds).
#include "ingest.hpp"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "optoolkit/text.hpp"
#include "text.hpp"

namespace skillrt::ci_fix {
namespace {

bool all_digits(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

uint32_t to_u32(std::string_view s) {
  uint32_t v = 0;
  for (char c : s) v = v * 10 + static_cast<uint32_t>(c - '0');
  return v;
}

// Splits "path:LINE[:COL]: rest". The path may itself contain ':'; the first position where the
// numbers follow wins.
struct Located {
  std::string path;
  uint32_t line = 0;
  uint32_t col = 0;
  std::string rest;
};

bool locate(std::string_view s, Located* out) {
  size_t from = 0;
  while (true) {
    size_t c1 = s.find(':', from);
    if (c1 == std::string_view::npos || c1 == 0) return false;
    size_t c2 = s.find(':', c1 + 1);
    if (c2 != std::string_view::npos && all_digits(s.substr(c1 + 1, c2 - c1 - 1))) {
      out->path = std::string(s.substr(0, c1));
      out->line = to_u32(s.substr(c1 + 1, c2 - c1 - 1));
      size_t rest = c2 + 1;
      size_t c3 = s.find(':', rest);
      if (c3 != std::string_view::npos && all_digits(s.substr(rest, c3 - rest))) {
        out->col = to_u32(s.substr(rest, c3 - rest));
        rest = c3 + 1;
      } else {
        out->col = 0;
      }
      out->rest = ops::trim(s.substr(rest));
      return true;
    }
    from = c1 + 1;
  }
}

bool is_pep8_code(std::string_view w) {
  size_t k = 0;
  while (k < w.size() && std::isupper(static_cast<unsigned char>(w[k]))) ++k;
  return k >= 1 && k <= 4 && k < w.size() && all_digits(w.substr(k));
}

// flake8 / pycodestyle / ruff: "path:line:col: CODE message".
bool parse_pep8(std::string_view line, const std::string& tool, Finding* f) {
  Located loc;
  if (!locate(line, &loc)) return false;
  std::string_view rest = loc.rest;
  size_t sp = rest.find(' ');
  std::string_view code = rest.substr(0, sp);
  if (!is_pep8_code(code)) return false;
  f->tool = tool;
  f->path = loc.path;
  f->line = loc.line;
  f->col = loc.col;
  f->code = std::string(code);
  std::string msg = sp == std::string_view::npos ? "" : ops::trim(rest.substr(sp + 1));
  if (starts_with(msg, "[*] ")) msg = msg.substr(4);  // ruff: fixable marker
  f->message = msg;
  return true;
}

// cpplint: "path:line:  message  [category/sub] [confidence]".
bool parse_cpplint(std::string_view line, Finding* f) {
  Located loc;
  if (!locate(line, &loc) || loc.col != 0) return false;
  std::string_view rest = loc.rest;
  if (rest.size() < 8 || rest.back() != ']') return false;
  size_t conf = rest.rfind(" [");
  if (conf == std::string_view::npos ||
      !all_digits(rest.substr(conf + 2, rest.size() - conf - 3))) {
    return false;
  }
  size_t cat_end = rest.rfind(']', conf);
  size_t cat_begin = rest.rfind('[', conf);
  if (cat_end == std::string_view::npos || cat_begin == std::string_view::npos ||
      cat_end < cat_begin) {
    return false;
  }
  std::string_view cat = rest.substr(cat_begin + 1, cat_end - cat_begin - 1);
  if (cat.find('/') == std::string_view::npos) return false;
  f->tool = "cpplint";
  f->path = loc.path;
  f->line = loc.line;
  f->code = std::string(cat);
  f->message = ops::trim(rest.substr(0, cat_begin));
  f->severity = std::string(rest.substr(conf + 2, rest.size() - conf - 3));
  return true;
}

// clang-tidy / cppcheck / compilers: "path:line:col: severity: message [check]".
bool parse_diagnostic(std::string_view line, const std::string& forced, Finding* f) {
  Located loc;
  if (!locate(line, &loc) || loc.col == 0) return false;
  std::string_view rest = loc.rest;
  size_t colon = rest.find(": ");
  if (colon == std::string_view::npos) return false;
  std::string sev(rest.substr(0, colon));
  static const std::set<std::string> kSev = {"warning",     "error",       "note",
                                             "style",       "performance", "portability",
                                             "information", "fatal error"};
  if (kSev.count(sev) == 0) return false;
  if (sev == "note") return true;  // notes belong to the previous diagnostic; dropped
  std::string_view msg = rest.substr(colon + 2);
  std::string check;
  if (!msg.empty() && msg.back() == ']') {
    size_t b = msg.rfind('[');
    if (b != std::string_view::npos) {
      check = std::string(msg.substr(b + 1, msg.size() - b - 2));
      msg = msg.substr(0, b);
    }
  }
  std::string tool = forced;
  if (tool.empty()) {
    bool tidy_like = check.find('-') != std::string::npos || check.find('.') != std::string::npos;
    bool cppcheck_sev =
        sev == "style" || sev == "performance" || sev == "portability" || sev == "information";
    tool = cppcheck_sev || (!tidy_like && !check.empty()) ? "cppcheck" : "clang-tidy";
  }
  f->tool = tool;
  f->path = loc.path;
  f->line = loc.line;
  f->col = loc.col;
  f->code = check.empty() ? sev : check;
  f->message = ops::trim(msg);
  f->severity = sev;
  return true;
}

// codespell: "path:line: word ==> correction[, other][ | reason]".
bool parse_codespell(std::string_view line, Finding* f) {
  Located loc;
  if (!locate(line, &loc) || loc.col != 0) return false;
  std::string_view rest = loc.rest;
  size_t arrow = rest.find(" ==> ");
  if (arrow == std::string_view::npos) return false;
  f->tool = "codespell";
  f->path = loc.path;
  f->line = loc.line;
  f->code = "typo";
  f->word = ops::trim(rest.substr(0, arrow));
  std::string corr = ops::trim(rest.substr(arrow + 5));
  size_t bar = corr.find(" | ");
  if (bar != std::string::npos) corr = ops::trim(corr.substr(0, bar));
  f->correction = corr.find(',') == std::string::npos ? corr : "";
  f->message = f->word + " ==> " + corr;
  return true;
}

std::vector<std::string> backticked(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (true) {
    size_t a = s.find('`', i);
    if (a == std::string_view::npos) break;
    size_t b = s.find('`', a + 1);
    if (b == std::string_view::npos) break;
    out.emplace_back(s.substr(a + 1, b - a - 1));
    i = b + 1;
  }
  return out;
}

// typos --format brief: "path:line:col: `teh` -> `the`".
bool parse_typos_brief(std::string_view line, Finding* f) {
  Located loc;
  if (!locate(line, &loc) || loc.col == 0) return false;
  size_t arrow = loc.rest.find(" -> ");
  if (loc.rest.empty() || loc.rest[0] != '`' || arrow == std::string::npos) return false;
  auto words = backticked(loc.rest);
  if (words.size() < 2) return false;
  f->tool = "typos";
  f->path = loc.path;
  f->line = loc.line;
  f->col = loc.col;
  f->code = "typo";
  f->word = words[0];
  f->correction = words.size() == 2 ? words[1] : "";
  f->message = loc.rest;
  return true;
}

bool parse_lintrunner(const nlohmann::json& j, Finding* f) {
  if (!j.is_object() || !j.contains("code") || !j.contains("path")) return false;
  auto str = [&](const char* k) {
    return j.contains(k) && j.at(k).is_string() ? j.at(k).get<std::string>() : std::string();
  };
  auto num = [&](const char* k) -> uint32_t {
    return j.contains(k) && j.at(k).is_number_integer() ? j.at(k).get<uint32_t>() : 0;
  };
  std::string code = str("code");
  std::string name = str("name");
  f->path = j.at("path").is_string() ? j.at("path").get<std::string>() : "";
  f->line = num("line");
  f->col = num("char");
  f->severity = str("severity");
  f->message = str("description");
  if (f->message.empty()) f->message = name;
  if (j.contains("original") && j.at("original").is_string()) f->original = str("original");
  if (j.contains("replacement") && j.at("replacement").is_string()) {
    f->replacement = str("replacement");
  }
  if (code == "FLAKE8" && is_pep8_code(name)) {
    f->tool = "flake8";
    f->via = "lintrunner";
    f->code = name;
    size_t nl = f->message.find('\n');
    if (nl != std::string::npos) f->message = f->message.substr(0, nl);
  } else {
    f->tool = "lintrunner";
    f->code = code;
    if (!name.empty() && f->message != name) f->message = name + ": " + f->message;
  }
  return true;
}

bool parse_typos_json(const nlohmann::json& j, Finding* f) {
  if (!j.is_object() || j.value("type", "") != "typo") return false;
  f->tool = "typos";
  f->path = j.value("path", "");
  f->line = j.value("line_num", 0u);
  f->code = "typo";
  f->word = j.value("typo", "");
  auto corr = j.value("corrections", std::vector<std::string>{});
  f->correction = corr.size() == 1 ? corr[0] : "";
  f->message = "`" + f->word + "` -> " + (corr.empty() ? std::string("?") : corr[0]);
  if (j.contains("byte_offset")) {
    // typos reports the byte offset in the line; turn it into a 1-based column later if needed.
    f->col = 0;
  }
  return true;
}

struct HookHeader {
  std::string name;
  std::string status;
};

bool parse_hook_header(std::string_view line, HookHeader* h) {
  for (std::string_view st : {"Failed", "Passed", "Skipped"}) {
    if (!ends_with(line, st)) continue;
    std::string_view head = line.substr(0, line.size() - st.size());
    if (ends_with(head, "(no files to check)")) head.remove_suffix(19);
    size_t k = head.size();
    while (k > 0 && head[k - 1] == '.') --k;
    if (head.size() - k < 3) continue;
    h->name = ops::trim(head.substr(0, k));
    h->status = std::string(st);
    return true;
  }
  return false;
}

}  // namespace

IngestResult ingest_report(std::string_view text, const std::string& format) {
  static const std::set<std::string> kFormats = {"auto",       "flake8",  "pycodestyle", "ruff",
                                                 "lintrunner", "cpplint", "clang-tidy",  "cppcheck",
                                                 "codespell",  "typos",   "pre-commit"};
  if (kFormats.count(format) == 0) {
    throw std::invalid_argument("report_format '" + format +
                                "' is not one of auto, flake8, pycodestyle, ruff, lintrunner, "
                                "cpplint, clang-tidy, cppcheck, codespell, typos, pre-commit");
  }
  IngestResult out;
  auto note_format = [&](const std::string& f) {
    if (std::find(out.formats.begin(), out.formats.end(), f) == out.formats.end()) {
      out.formats.push_back(f);
    }
  };
  bool any = format == "auto";
  std::string hook_id;  // pre-commit: the hook whose output we are in
  std::string hook_name;
  bool hook_failed = false;
  size_t hook_findings = 0;
  std::vector<std::string> hook_output;
  std::string typos_pending_word, typos_pending_corr, typos_pending_msg;
  bool typos_pending = false;

  auto flush_hook = [&]() {
    if (!hook_id.empty() && hook_failed && hook_findings == 0) {
      Finding f;
      f.tool = "pre-commit";
      f.code = hook_id;
      std::string shown;
      for (size_t k = 0; k < hook_output.size() && k < 5; ++k) shown += "\n" + hook_output[k];
      f.message = "hook '" + hook_name + "' failed" + (shown.empty() ? "" : ":" + shown);
      out.findings.push_back(f);
    }
    hook_findings = 0;
    hook_output.clear();
  };
  auto add = [&](Finding f, const std::string& fmt) {
    if (!hook_id.empty()) {
      f.via = "pre-commit";
      ++hook_findings;
    }
    out.findings.push_back(std::move(f));
    note_format(fmt);
  };

  for (const std::string& raw : split_lines(text)) {
    std::string line = raw;
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.pop_back();
    if (ops::trim(line).empty()) continue;
    Finding f;

    if (any || format == "pre-commit") {
      HookHeader h;
      if (parse_hook_header(line, &h)) {
        flush_hook();
        hook_name = h.name;
        hook_failed = h.status == "Failed";
        hook_id = hook_name;  // until "- hook id:" names it
        note_format("pre-commit");
        continue;
      }
      if (starts_with(line, "- hook id: ")) {
        hook_id = ops::trim(line.substr(11));
        continue;
      }
      if (starts_with(line, "- exit code: ") || starts_with(line, "- files were modified")) {
        continue;
      }
      if (!hook_id.empty() && starts_with(line, "Fixing ")) {
        f.tool = "pre-commit";
        f.code = hook_id;
        f.path = ops::trim(line.substr(7));
        f.message = hook_name + " (file rewritten by the hook)";
        add(f, "pre-commit");
        continue;
      }
      if (!hook_id.empty() && ends_with(line, ": fixed mixed line endings")) {
        f.tool = "pre-commit";
        f.code = hook_id;
        f.path = line.substr(0, line.size() - 26);
        f.message = "mixed line endings";
        add(f, "pre-commit");
        continue;
      }
    }
    if (line[0] == '{' && (any || format == "lintrunner" || format == "typos")) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (!j.is_discarded()) {
        if ((any || format == "typos") && parse_typos_json(j, &f)) {
          add(f, "typos");
          continue;
        }
        if ((any || format == "lintrunner") && parse_lintrunner(j, &f)) {
          add(f, "lintrunner");
          continue;
        }
      }
    }
    if (any || format == "typos") {
      // Long format: "error: `teh` should be `the`" then "  --> path:line:col".
      if (starts_with(line, "error: `") && line.find("should be") != std::string::npos) {
        auto words = backticked(line);
        typos_pending = words.size() >= 2;
        if (typos_pending) {
          typos_pending_word = words[0];
          typos_pending_corr = words.size() == 2 ? words[1] : "";
          typos_pending_msg = line.substr(7);
        }
        continue;
      }
      std::string t = ops::trim(line);
      if (typos_pending && starts_with(t, "--> ")) {
        // "path:line:col" has no trailing ": rest": add one so locate() can split it.
        Located loc;
        if (locate(t.substr(4) + ": ", &loc)) {
          f.tool = "typos";
          f.path = loc.path;
          f.line = loc.line;
          f.col = loc.col;
          f.code = "typo";
          f.word = typos_pending_word;
          f.correction = typos_pending_corr;
          f.message = typos_pending_msg;
          add(f, "typos");
        }
        typos_pending = false;
        continue;
      }
      if ((any || format == "typos") && parse_typos_brief(line, &f)) {
        add(f, "typos");
        continue;
      }
    }
    if ((any || format == "codespell") && parse_codespell(line, &f)) {
      add(f, "codespell");
      continue;
    }
    if ((any || format == "cpplint") && parse_cpplint(line, &f)) {
      add(f, "cpplint");
      continue;
    }
    if (any || format == "flake8" || format == "pycodestyle" || format == "ruff") {
      std::string tool = any ? "flake8" : format;
      if (any && !hook_id.empty() && (hook_id == "ruff" || hook_id == "ruff-check")) tool = "ruff";
      if (any && !hook_id.empty() && hook_id == "pycodestyle") tool = "pycodestyle";
      if (parse_pep8(line, tool, &f)) {
        add(f, tool);
        continue;
      }
    }
    if (any || format == "clang-tidy" || format == "cppcheck") {
      std::string forced = any ? "" : format;
      if (parse_diagnostic(line, forced, &f)) {
        if (!f.tool.empty()) add(f, f.tool);
        continue;
      }
    }
    if (!hook_id.empty()) {
      // Bandit: ">> Issue: [B608:hardcoded_sql_expressions] msg" then "Location: path:line:col".
      std::string t = ops::trim(line);
      if (starts_with(t, ">> Issue: [")) {
        size_t colon = t.find(':', 11);
        size_t close = t.find(']', 11);
        if (colon != std::string::npos && close != std::string::npos) {
          typos_pending_word = t.substr(11, std::min(colon, close) - 11);
          typos_pending_msg = ops::trim(t.substr(close + 1));
        }
        continue;
      }
      if (starts_with(t, "Location: ") && !typos_pending_word.empty()) {
        Located loc;
        if (locate(t.substr(10) + ": ", &loc)) {
          f.tool = "bandit";
          f.path = loc.path;
          f.line = loc.line;
          f.col = loc.col;
          f.code = typos_pending_word;
          f.message = typos_pending_msg;
          add(f, "bandit");
        }
        typos_pending_word.clear();
        continue;
      }
      hook_output.push_back(line);
      continue;
    }
    ++out.unparsed_count;
    if (out.unparsed.size() < 50) out.unparsed.push_back(line);
  }
  flush_hook();
  return out;
}

namespace {

std::string xml_unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    size_t semi = s.find(';', i);
    if (semi == std::string_view::npos) {
      out += s[i];
      continue;
    }
    std::string_view ent = s.substr(i + 1, semi - i - 1);
    if (ent == "lt") {
      out += '<';
    } else if (ent == "gt") {
      out += '>';
    } else if (ent == "amp") {
      out += '&';
    } else if (ent == "apos") {
      out += '\'';
    } else if (ent == "quot") {
      out += '"';
    } else if (!ent.empty() && ent[0] == '#') {
      unsigned long cp = ent.size() > 1 && (ent[1] == 'x' || ent[1] == 'X')
                             ? std::stoul(std::string(ent.substr(2)), nullptr, 16)
                             : std::stoul(std::string(ent.substr(1)));
      if (cp < 0x80) {
        out += static_cast<char>(cp);
      } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      } else {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      }
    } else {
      out.append(s.substr(i, semi - i + 1));
    }
    i = semi;
  }
  return out;
}

}  // namespace

std::vector<Finding> parse_clang_format_xml(std::string_view xml, const std::string& path,
                                            std::string_view source, std::string* error) {
  std::vector<Finding> out;
  LineIndex lines(source);
  size_t i = 0;
  while (true) {
    size_t tag = xml.find("<replacement ", i);
    if (tag == std::string_view::npos) break;
    size_t close = xml.find('>', tag);
    size_t end = xml.find("</replacement>", close);
    bool self_closed = close != std::string_view::npos && close > 0 && xml[close - 1] == '/';
    if (close == std::string_view::npos || (!self_closed && end == std::string_view::npos)) {
      *error = "malformed <replacement> element";
      return {};
    }
    std::string_view attrs = xml.substr(tag, close - tag);
    auto attr = [&](std::string_view name) -> long {
      size_t p = attrs.find(std::string(name) + "='");
      if (p == std::string_view::npos) return -1;
      p += name.size() + 2;
      size_t q = attrs.find('\'', p);
      return std::stol(std::string(attrs.substr(p, q - p)));
    };
    long off = attr("offset");
    long len = attr("length");
    if (off < 0 || len < 0 || static_cast<size_t>(off + len) > source.size()) {
      *error = "replacement outside the file (offset " + std::to_string(off) + ")";
      return {};
    }
    std::string text = self_closed ? "" : xml_unescape(xml.substr(close + 1, end - close - 1));
    Finding f;
    f.tool = "clang-format";
    f.code = "clang-format";
    f.path = path;
    f.line = lines.line_of(static_cast<size_t>(off));
    f.end_line = len > 0 ? lines.line_of(static_cast<size_t>(off + len - 1)) : f.line;
    f.col = static_cast<uint32_t>(static_cast<size_t>(off) - lines.start(f.line)) + 1;
    f.has_edit = true;
    f.edit = Edit{static_cast<uint32_t>(off), static_cast<uint32_t>(off + len), text};
    f.message = "replace `" +
                shown(source.substr(static_cast<size_t>(off), static_cast<size_t>(len))) +
                "` with `" + shown(text) + "`";
    out.push_back(std::move(f));
    i = self_closed ? close : end;
  }
  return out;
}

}  // namespace skillrt::ci_fix
