// The repository's lint configuration: max-line-length and W503/W504 from the flake8 and
// pycodestyle configs, and the words the spelling configs accept.
#include <algorithm>
#include <cctype>

#include "optoolkit/text.hpp"
#include "session.hpp"

namespace skillrt::ci_fix::detail {

// pycodestyle's max-line-length as the repository sets it for flake8 or pycodestyle. Where the
// config ignores E501 and selects flake8-bugbear's B950 (torch_npu does), the gate's limit is
// B950's: max-line-length plus 10%.
void Session::load_line_length() {
  for (const char* cfg : {".flake8", "setup.cfg", "tox.ini", ".pycodestyle"}) {
    auto text = read_file(req_.repo + "/" + cfg);
    if (!text) continue;
    bool in_section = false;
    std::map<std::string, std::string> values;  // key -> value with continuation lines
    std::string key;
    for (const std::string& line : split_lines(*text)) {
      std::string t = ops::trim(line);
      if (t.empty() || t[0] == '#' || t[0] == ';') continue;
      if (t[0] == '[') {
        in_section = t == "[flake8]" || t == "[pycodestyle]" || t == "[pep8]";
        key.clear();
        continue;
      }
      if (!in_section) continue;
      const size_t hash = t.find(" #");
      if (hash != std::string::npos) t = ops::trim(t.substr(0, hash));
      if (!line.empty() && (line[0] == ' ' || line[0] == '\t') && !key.empty()) {
        values[key] += "," + t;  // a continuation line of the previous key
        continue;
      }
      size_t eq = t.find_first_of("=:");
      if (eq == std::string::npos) continue;
      key = ops::trim(t.substr(0, eq));
      std::replace(key.begin(), key.end(), '_', '-');
      values[key] = ops::trim(t.substr(eq + 1));
    }
    // flake8: a code is reported when its longest matching prefix in select (or flake8's
    // default select) is longer than its longest in ignore (or the default ignore list, which
    // holds W503 and W504).
    const auto longest = [&](std::initializer_list<const char*> keys, const std::string& code,
                             const std::string& fallback) {
      const auto in_list = [&](const std::string& list) {
        size_t best = 0, b = 0;
        while (b <= list.size()) {
          size_t e = list.find(',', b);
          if (e == std::string::npos) e = list.size();
          const std::string item = ops::trim(list.substr(b, e - b));
          if (!item.empty() && code.rfind(item, 0) == 0) best = std::max(best, item.size());
          b = e + 1;
        }
        return best;
      };
      size_t best = 0;
      bool replaced = false;  // select/ignore replace the defaults; extend-* add to them
      for (const char* k : keys) {
        auto f = values.find(k);
        if (f == values.end()) continue;
        replaced = replaced || std::string(k).rfind("extend", 0) != 0;
        best = std::max(best, in_list(f->second));
      }
      return replaced ? best : std::max(best, in_list(fallback));
    };
    const auto reported = [&](const std::string& code) {
      return longest({"select", "extend-select"}, code, "E,F,W,C90") >
             longest({"ignore", "extend-ignore"}, code, "E121,E123,E126,E226,E24,E704,W503,W504");
    };
    w503_enabled_ = reported("W503");
    w504_enabled_ = reported("W504");
    auto it = values.find("max-line-length");
    if (it == values.end()) continue;
    int v = std::atoi(it->second.c_str());
    if (v <= 0) continue;
    max_line_length_ = v;
    line_length_source_ = std::string(cfg);
    if (!reported("E501") && reported("B950")) {
      max_line_length_ = v + v / 10;
      line_length_source_ += " (E501 not reported, B950 is: max-line-length + 10%)";
    }
    return;
  }
}

void Session::load_spelling_config() {
  // Words the repository keeps on purpose (typos.toml, codespell's -L list) are never "fixed".
  for (const char* cfg : {"typos.toml", "_typos.toml", ".typos.toml", "pre-commit/typos.toml"}) {
    auto text = read_file(req_.repo + "/" + cfg);
    if (!text) continue;
    std::string section;
    bool in_array = false;
    for (const std::string& line : split_lines(*text)) {
      std::string t = ops::trim(line);
      if (t.empty() || t[0] == '#') continue;
      if (t[0] == '[' && !in_array) {
        section = t;
        continue;
      }
      bool words_array = starts_with(t, "extend-ignore-words-re") || in_array;
      if (starts_with(t, "extend-ignore-words-re"))
        in_array = t.find(']') == std::string::npos;
      else if (in_array && t.find(']') != std::string::npos)
        in_array = false;
      if (words_array) {
        size_t p = 0;
        while ((p = t.find('"', p)) != std::string::npos) {
          size_t q = t.find('"', p + 1);
          if (q == std::string::npos) break;
          std::string w = t.substr(p + 1, q - p - 1);
          if (!w.empty() &&
              std::all_of(w.begin(), w.end(), [](unsigned char c) { return std::isalpha(c); })) {
            ignore_word(w);
          }
          p = q + 1;
        }
        continue;
      }
      if (section.find("extend-words") != std::string::npos ||
          section.find("extend-identifiers") != std::string::npos) {
        size_t eq = t.find('=');
        if (eq != std::string::npos) ignore_word(ops::trim(t.substr(0, eq)));
      }
    }
    spelling_configs_.push_back(cfg);
  }
  for (const char* cfg : {".pre-commit-config.yaml", ".codespellrc", "setup.cfg"}) {
    auto text = read_file(req_.repo + "/" + cfg);
    if (!text) continue;
    bool found = false;
    for (std::string key : {"\"-L\"", "ignore-words-list", "--ignore-words-list"}) {
      size_t p = text->find(key);
      if (p == std::string::npos) continue;
      size_t b = text->find_first_of("\"=", p + key.size());
      if (b == std::string::npos) continue;
      if ((*text)[b] == '=') {
        size_t e = text->find_first_of("\n\"", b + 1);
        parse_word_list(text->substr(b + 1, e - b - 1));
      } else {
        size_t e = text->find('"', b + 1);
        parse_word_list(text->substr(b + 1, e - b - 1));
      }
      found = true;
    }
    if (found) spelling_configs_.push_back(cfg);
  }
}

void Session::parse_word_list(const std::string& s) {
  size_t b = 0;
  while (b <= s.size()) {
    size_t e = s.find(',', b);
    if (e == std::string::npos) e = s.size();
    std::string w = ops::trim(s.substr(b, e - b));
    if (!w.empty()) ignore_word(w);
    b = e + 1;
  }
}

void Session::ignore_word(std::string w) {
  std::transform(w.begin(), w.end(), w.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  typos_.ignore(w);
  ignored_words_.insert(w);
}

}  // namespace skillrt::ci_fix::detail
