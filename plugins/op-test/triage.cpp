#include "triage.hpp"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace skillrt::op_test {

namespace {

struct Rule {
  std::string id;
  std::string klass;
  std::string description;
  std::vector<std::regex> any;  // one of these must match a line of the failure
  std::vector<std::regex> all;  // and each of these must match some line
  std::vector<std::string> any_text;
  std::string action;
};

struct Line {
  size_t number;
  std::string text;
};

struct Failure {
  std::string test;
  std::string kind;  // failure | error
  std::vector<Line> lines;
};

std::vector<Rule> load_rules(std::string_view text, const std::string& name) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw invalid_argument("triage rules " + name + " are not YAML: " + e.what());
  }
  std::vector<Rule> rules;
  for (const auto& n : root["rules"]) {
    Rule r;
    r.id = n["id"].as<std::string>("");
    r.klass = n["class"].as<std::string>("");
    r.description = n["description"].as<std::string>("");
    r.action = n["action"].as<std::string>("");
    if (r.id.empty() ||
        (r.klass != "test-bug" && r.klass != "adaptation-bug" && r.klass != "environment"))
      throw invalid_argument(
          "triage rules " + name + ": rule '" + r.id +
          "' needs an id and a class of test-bug, adaptation-bug or environment");
    try {
      for (const auto& p : n["any"]) {
        r.any_text.push_back(p.as<std::string>());
        r.any.emplace_back(p.as<std::string>(), std::regex::ECMAScript | std::regex::optimize);
      }
      for (const auto& p : n["all"])
        r.all.emplace_back(p.as<std::string>(), std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      throw invalid_argument("triage rules " + name + ": rule '" + r.id +
                             "' has a bad regex: " + e.what());
    }
    if (r.any.empty())
      throw invalid_argument("triage rules " + name + ": rule '" + r.id +
                             "' has no 'any' patterns");
    rules.push_back(std::move(r));
  }
  if (rules.empty()) throw invalid_argument("triage rules " + name + " hold no 'rules' list");
  return rules;
}

std::vector<Line> split_lines(const std::string& text) {
  std::vector<Line> out;
  std::istringstream in(text);
  std::string l;
  size_t n = 0;
  while (std::getline(in, l)) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    out.push_back({++n, l});
  }
  return out;
}

bool starts(const std::string& s, std::string_view p) { return s.compare(0, p.size(), p) == 0; }

std::string xml_unescape(std::string s) {
  static const std::pair<const char*, const char*> kEntities[] = {{"&lt;", "<"},    {"&gt;", ">"},
                                                                  {"&quot;", "\""}, {"&apos;", "'"},
                                                                  {"&#10;", "\n"},  {"&amp;", "&"}};
  for (const auto& [from, to] : kEntities) {
    size_t pos = 0;
    const std::string f(from);
    while ((pos = s.find(f, pos)) != std::string::npos) {
      s.replace(pos, f.size(), to);
      pos += std::string(to).size();
    }
  }
  return s;
}

std::string attr(const std::string& tag, const std::string& name) {
  const std::regex re("\\b" + name + "=\"([^\"]*)\"");
  std::smatch m;
  return std::regex_search(tag, m, re) ? xml_unescape(m[1].str()) : "";
}

// JUnit XML: each <testcase> with a <failure> or <error> child; lines keep their numbers so
// evidence points into the file.
std::vector<Failure> parse_junit(const std::vector<Line>& lines) {
  std::vector<Failure> out;
  std::string current;
  Failure* open = nullptr;
  for (const Line& l : lines) {
    const size_t tc = l.text.find("<testcase");
    if (tc != std::string::npos) {
      const std::string cls = attr(l.text, "classname"), name = attr(l.text, "name");
      current = cls.empty() ? name : cls + "::" + name;
      open = nullptr;
    }
    for (const char* kind : {"failure", "error"}) {
      const std::string tag = std::string("<") + kind;
      const size_t p = l.text.find(tag);
      if (p != std::string::npos &&
          (l.text.size() == p + tag.size() || l.text[p + tag.size()] == ' ' ||
           l.text[p + tag.size()] == '>')) {
        out.push_back({current.empty() ? "<suite>" : current, kind, {}});
        open = &out.back();
      }
    }
    if (open) open->lines.push_back({l.number, xml_unescape(l.text)});
    if (open &&
        (l.text.find("</failure>") != std::string::npos ||
         l.text.find("</error>") != std::string::npos || l.text.find("/>") != std::string::npos)) {
      if (l.text.find("</testcase>") != std::string::npos ||
          l.text.find("</failure>") != std::string::npos ||
          l.text.find("</error>") != std::string::npos)
        open = nullptr;
    }
    if (l.text.find("</testcase>") != std::string::npos) open = nullptr;
  }
  return out;
}

// unittest: "FAIL: test_x (module.Class)" between "=====" rulers, up to the next ruler.
std::vector<Failure> parse_unittest(const std::vector<Line>& lines) {
  static const std::regex kHead(R"(^(FAIL|ERROR): (\S+) \(([^)]+)\))");
  std::vector<Failure> out;
  Failure* open = nullptr;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& t = lines[i].text;
    std::smatch m;
    if (std::regex_search(t, m, kHead)) {
      out.push_back({m[3].str() + "." + m[2].str(), m[1] == "FAIL" ? "failure" : "error", {}});
      open = &out.back();
      open->lines.push_back(lines[i]);
      continue;
    }
    if (!open) continue;
    if (starts(t, "======") || starts(t, "Ran ")) {
      open = nullptr;
      continue;
    }
    // The dashed ruler after the header separates it from the traceback; a later one ends it.
    if (starts(t, "------") && open->lines.size() > 1) {
      open = nullptr;
      continue;
    }
    open->lines.push_back(lines[i]);
  }
  return out;
}

// pytest: "____ Class.test_x ____" sections of the FAILURES / ERRORS blocks, plus
// "ERROR collecting" sections.
std::vector<Failure> parse_pytest(const std::vector<Line>& lines) {
  static const std::regex kHead(R"(^_{3,} (.+?) _{3,}$)");
  static const std::regex kSummary(R"(^(FAILED|ERROR) (\S+))");
  std::vector<Failure> out;
  Failure* open = nullptr;
  bool in_block = false;
  for (const Line& l : lines) {
    const std::string& t = l.text;
    if (starts(t, "=====")) {
      in_block =
          t.find(" FAILURES ") != std::string::npos || t.find(" ERRORS ") != std::string::npos;
      open = nullptr;
      continue;
    }
    std::smatch m;
    if (in_block && std::regex_search(t, m, kHead)) {
      std::string name = m[1].str();
      std::string kind = "failure";
      for (const char* p : {"ERROR at setup of ", "ERROR at teardown of ", "ERROR collecting "})
        if (starts(name, p)) {
          name = name.substr(std::string(p).size());
          kind = "error";
        }
      out.push_back({name, kind, {l}});
      open = &out.back();
      continue;
    }
    if (open) open->lines.push_back(l);
  }
  // Summary lines name tests whose section was not printed (e.g. -q --tb=no).
  for (const Line& l : lines) {
    std::smatch m;
    if (!std::regex_search(l.text, m, kSummary)) continue;
    const std::string id = m[2].str();
    bool known = false;
    auto norm = [](std::string s) {
      for (size_t p = 0; (p = s.find("::", p)) != std::string::npos;) s.replace(p, 2, ".");
      return s;
    };
    const std::string nid = norm(m[2].str());
    for (Failure& f : out) {
      const std::string nt = norm(f.test);
      if (nid.size() >= nt.size() && nid.compare(nid.size() - nt.size(), nt.size(), nt) == 0) {
        f.lines.push_back(l);
        known = true;
      }
    }
    if (!known) out.push_back({id, m[1] == "FAILED" ? "failure" : "error", {l}});
  }
  return out;
}

std::string detect_format(const std::vector<Line>& lines) {
  for (const Line& l : lines) {
    if (l.text.find("<testsuite") != std::string::npos ||
        l.text.find("<testcase") != std::string::npos)
      return "junit";
  }
  for (const Line& l : lines) {
    if (starts(l.text, "=====") && (l.text.find("test session starts") != std::string::npos ||
                                    l.text.find(" FAILURES ") != std::string::npos ||
                                    l.text.find(" ERRORS ") != std::string::npos ||
                                    l.text.find("short test summary") != std::string::npos))
      return "pytest";
  }
  for (const Line& l : lines)
    if (starts(l.text, "FAIL: ") || starts(l.text, "ERROR: ")) return "unittest";
  return "plain";
}

}  // namespace

Json run_triage(const Json& input) {
  std::string text, source = "log";
  if (input.contains("log")) {
    text = input.at("log").get<std::string>();
  } else if (input.contains("log_file")) {
    source = input.at("log_file").get<std::string>();
    std::ifstream f(source, std::ios::binary);
    if (!f) throw invalid_argument("field 'log_file': cannot read " + source + "; check the path");
    std::ostringstream ss;
    ss << f.rdbuf();
    text = ss.str();
  } else {
    throw invalid_argument("triage needs 'log' (the text) or 'log_file' (a path)");
  }
  std::vector<Rule> rules;
  if (input.contains("rules_file")) {
    const std::string path = input.at("rules_file").get<std::string>();
    std::ifstream f(path);
    if (!f) throw invalid_argument("field 'rules_file': cannot read " + path);
    std::ostringstream ss;
    ss << f.rdbuf();
    rules = load_rules(ss.str(), path);
  }
  // The built-in rules are parsed once per process; copies share their compiled patterns.
  static const std::vector<Rule> kBuiltin =
      load_rules(builtin_triage_rules(), "data/triage_rules.yaml");
  rules.insert(rules.end(), kBuiltin.begin(), kBuiltin.end());

  const std::vector<Line> lines = split_lines(text);
  const std::string format = detect_format(lines);
  std::vector<Failure> failures;
  if (format == "junit") failures = parse_junit(lines);
  if (format == "pytest") failures = parse_pytest(lines);
  if (format == "unittest") failures = parse_unittest(lines);
  if (failures.empty()) {
    // A crash before any test ran (import error, no device) still deserves a verdict: the whole
    // log is one failure when it shows a traceback or an error line.
    bool errorish = false;
    for (const Line& l : lines)
      errorish = errorish || l.text.find("Error") != std::string::npos ||
                 l.text.find("Traceback") != std::string::npos;
    if (errorish) failures.push_back({"<log>", "error", lines});
  }

  Json out_failures = Json::array();
  std::map<std::string, int> counts;
  for (const Failure& f : failures) {
    Json item = {{"test", f.test}, {"outcome", f.kind}};
    const Rule* hit = nullptr;
    Json evidence = Json::array();
    for (const Rule& r : rules) {
      Json ev = Json::array();
      for (const Line& l : f.lines)
        for (const auto& re : r.any)
          if (std::regex_search(l.text, re)) {
            ev.push_back({{"line", l.number}, {"text", l.text.substr(0, 400)}});
            break;
          }
      if (ev.empty()) continue;
      bool all_ok = true;
      for (const auto& re : r.all) {
        bool found = false;
        for (const Line& l : f.lines)
          if (std::regex_search(l.text, re)) {
            found = true;
            bool dup = false;
            for (const auto& e : ev) dup = dup || e["line"] == l.number;
            if (!dup) ev.push_back({{"line", l.number}, {"text", l.text.substr(0, 400)}});
            break;
          }
        all_ok = all_ok && found;
      }
      if (!all_ok) continue;
      hit = &r;
      evidence = ev;
      break;
    }
    if (hit) {
      item["class"] = hit->klass;
      item["rule"] = hit->id;
      item["reason"] = hit->description;
      item["action"] = hit->action;
      item["evidence"] = evidence;
    } else {
      item["class"] = "undecided";
      item["rule"] = "none";
      item["reason"] = "no rule in data/triage_rules.yaml matched these lines";
      item["action"] =
          "read the traceback; add a rule (field 'rules_file') once the cause is known";
      Json ev = Json::array();
      for (const Line& l : f.lines)
        if (ev.size() < 3 && (l.text.find("Error") != std::string::npos || starts(l.text, "E ")))
          ev.push_back({{"line", l.number}, {"text", l.text.substr(0, 400)}});
      if (ev.empty() && !f.lines.empty())
        ev.push_back({{"line", f.lines.front().number}, {"text", f.lines.front().text}});
      item["evidence"] = ev;
    }
    ++counts[item["class"].get<std::string>()];
    out_failures.push_back(item);
  }
  Json by_class = Json::object();
  for (const auto& [k, v] : counts) by_class[k] = v;
  std::string line = std::to_string(failures.size()) + " failure(s) in " + format + " log";
  for (const auto& [k, v] : counts) line += ", " + std::to_string(v) + " " + k;
  return {{"mode", "triage"},
          {"format", format},
          {"source", source},
          {"failures", out_failures},
          {"summary", {{"total", failures.size()}, {"by_class", by_class}, {"text", line}}}};
}

}  // namespace skillrt::op_test
