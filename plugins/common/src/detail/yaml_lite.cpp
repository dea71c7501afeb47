// A one-pass reader for the block-style YAML subset of the schema files. yaml-cpp needs ~80 ms
// for PyTorch's 620 KB native_functions.yaml; this needs a few. Anything outside the subset
// throws YamlUnsupported and the caller uses yaml-cpp, so both always give the same tree (a
// test compares them on every data file).
#include <string>
#include <string_view>
#include <vector>

#include "detail/yaml_tree.hpp"

namespace skillrt::ops::detail {
namespace {

struct Line {
  size_t number;  // 1-based
  size_t indent;
  std::string_view content;  // without the indentation; comments not yet removed
};

[[noreturn]] void unsupported(size_t line, const std::string& what) {
  throw YamlUnsupported("line " + std::to_string(line) + ": " + what);
}

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (s.back() == ' ')) s.remove_suffix(1);
  return s;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  return trim_right(s);
}

bool is_null_word(std::string_view s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

// A plain scalar ends at " #" (a comment).
std::string_view strip_comment(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '#' && (i == 0 || s[i - 1] == ' ')) return trim_right(s.substr(0, i));
  }
  return trim_right(s);
}

// Where "key: value" splits: the first ": " (or a final ':') outside quotes and brackets, when
// the line does not start with a quote or a flow collection.
size_t key_colon(std::string_view s) {
  if (s.empty() || s[0] == '\'' || s[0] == '"' || s[0] == '[' || s[0] == '{' || s[0] == '#') {
    return std::string_view::npos;
  }
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '#' && i > 0 && s[i - 1] == ' ') return std::string_view::npos;
    if (s[i] == ':' && (i + 1 == s.size() || s[i + 1] == ' ')) return i;
  }
  return std::string_view::npos;
}

class Reader {
 public:
  explicit Reader(std::string_view text) { split(text); }

  YamlNode document() {
    if (lines_.empty()) return YamlNode{};
    YamlNode root = block(lines_[0].indent);
    if (pos_ != lines_.size()) {
      unsupported(lines_[pos_].number, "content after the document's top-level block");
    }
    return root;
  }

 private:
  void split(std::string_view text) {
    size_t number = 0;
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      std::string_view raw = text.substr(start, end - start);
      start = end + 1;
      ++number;
      if (raw.find('\r') != std::string_view::npos) unsupported(number, "carriage return");
      if (raw.find('\t') != std::string_view::npos) unsupported(number, "tab");
      size_t indent = 0;
      while (indent < raw.size() && raw[indent] == ' ') ++indent;
      std::string_view content = trim_right(raw.substr(indent));
      if (content.empty() || content[0] == '#') continue;
      if (indent == 0 &&
          (content.substr(0, 3) == "---" || content.substr(0, 3) == "..." || content[0] == '%')) {
        unsupported(number, "document markers and directives");
      }
      lines_.push_back(Line{number, indent, content});
    }
  }

  bool at_end() const { return pos_ >= lines_.size(); }
  const Line& cur() const { return lines_[pos_]; }

  static bool is_item(std::string_view c) { return c == "-" || c.substr(0, 2) == "- "; }

  YamlNode block(size_t indent) {
    const Line& l = cur();
    if (is_item(l.content)) return sequence(indent);
    if (key_colon(l.content) != std::string_view::npos) return mapping(indent);
    const size_t number = l.number;
    ++pos_;
    return value(l.content, number, indent);
  }

  YamlNode sequence(size_t indent) {
    YamlNode node;
    node.kind = YamlNode::Kind::kSequence;
    node.line = cur().number;
    while (!at_end() && cur().indent == indent && is_item(cur().content)) {
      Line& l = lines_[pos_];
      if (l.content == "-") {
        const size_t number = l.number;
        ++pos_;
        if (!at_end() && cur().indent > indent) {
          node.items.push_back(block(cur().indent));
        } else {
          YamlNode null;
          null.line = number;
          node.items.push_back(null);
        }
        continue;
      }
      // "- rest": the rest is a node whose column is after the dash and its spaces; parse it as
      // if it stood on its own line there.
      size_t skip = 1;
      while (skip < l.content.size() && l.content[skip] == ' ') ++skip;
      l.indent += skip;
      l.content.remove_prefix(skip);
      if (is_item(l.content)) unsupported(l.number, "nested inline sequence");
      node.items.push_back(block(l.indent));
    }
    if (!at_end() && cur().indent > indent) {
      unsupported(cur().number, "unexpected indentation after a sequence");
    }
    return node;
  }

  YamlNode mapping(size_t indent) {
    YamlNode node;
    node.kind = YamlNode::Kind::kMap;
    node.line = cur().number;
    while (!at_end() && cur().indent == indent && !is_item(cur().content)) {
      const Line l = cur();
      const size_t colon = key_colon(l.content);
      if (colon == std::string_view::npos) unsupported(l.number, "expected 'key: value'");
      YamlNode key;
      key.kind = YamlNode::Kind::kScalar;
      key.line = l.number;
      key.scalar = std::string(trim(l.content.substr(0, colon)));
      if (key.scalar.empty() || key.scalar[0] == '?' || key.scalar[0] == '&' ||
          key.scalar[0] == '*' || key.scalar[0] == '!') {
        unsupported(l.number, "complex, anchored or tagged key");
      }
      const std::string_view rest = trim(l.content.substr(colon + 1));
      ++pos_;
      YamlNode v;
      if (rest.empty() || rest[0] == '#') {
        if (!at_end() && cur().indent > indent) {
          v = block(cur().indent);
        } else if (!at_end() && cur().indent == indent && is_item(cur().content)) {
          v = sequence(indent);  // a sequence may sit at its key's indentation
        } else {
          v.line = l.number;
        }
      } else {
        v = value(rest, l.number, indent);
      }
      node.entries.emplace_back(std::move(key), std::move(v));
    }
    if (!at_end() && cur().indent > indent) {
      unsupported(cur().number, "unexpected indentation in a mapping");
    }
    return node;
  }

  // An inline value; plain scalars continue on following lines indented more than `parent`.
  YamlNode value(std::string_view text, size_t number, size_t parent) {
    const char c = text[0];
    if (c == '|' || c == '>' || c == '&' || c == '*' || c == '!' || c == '@' || c == '`' ||
        c == '%' || c == '?') {
      unsupported(number, "block scalars, anchors, aliases, tags and reserved indicators");
    }
    std::string joined;
    if ((c == '\'' || c == '"') && !closes(text)) {
      // A quoted scalar over several lines: the line breaks fold into single spaces.
      joined = std::string(text);
      while (!closes(joined)) {
        if (at_end() || cur().indent <= parent || cur().number != lines_[pos_ - 1].number + 1) {
          unsupported(number, "quoted scalar with blank or unindented lines");
        }
        if (joined.back() == '\\') unsupported(number, "escaped line break");
        joined += ' ';
        joined += cur().content;
        ++pos_;
      }
      text = joined;
    }
    if (c == '[' || c == '{' || c == '\'' || c == '"') {
      size_t at = 0;
      YamlNode node = flow(text, &at, number);
      const std::string_view after = trim(text.substr(at));
      if (!after.empty() && after[0] != '#') unsupported(number, "text after a closed value");
      if (!at_end() && cur().indent > parent) unsupported(number, "multi-line value");
      return node;
    }
    if (key_colon(text) != std::string_view::npos) {
      unsupported(number, "a mapping on the same line as its key");
    }
    YamlNode node;
    node.line = number;
    std::string scalar(strip_comment(text));
    const bool commented = scalar.size() != trim_right(text).size();
    while (!at_end() && cur().indent > parent) {
      const Line& more = cur();
      if (commented || is_item(more.content) || key_colon(more.content) != std::string_view::npos) {
        unsupported(more.number, "continuation line that is not plain text");
      }
      if (more.number != lines_[pos_ - 1].number + 1) {
        unsupported(more.number, "blank line inside a multi-line scalar");
      }
      scalar += ' ';
      scalar += strip_comment(more.content);
      ++pos_;
    }
    if (is_null_word(scalar)) return node;
    node.kind = YamlNode::Kind::kScalar;
    node.scalar = std::move(scalar);
    return node;
  }

  // Whether the quoted scalar that starts text closes on it.
  static bool closes(std::string_view text) {
    const char q = text[0];
    for (size_t i = 1; i < text.size(); ++i) {
      if (q == '"' && text[i] == '\\') {
        ++i;
        continue;
      }
      if (text[i] != q) continue;
      if (q == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
        ++i;
        continue;
      }
      return true;
    }
    return false;
  }

  // A one-line flow value starting at text[*at]: quoted scalar, [..] or {..}.
  YamlNode flow(std::string_view text, size_t* at, size_t number) {
    YamlNode node;
    node.line = number;
    const char c = text[*at];
    if (c == '\'') {
      node.kind = YamlNode::Kind::kScalar;
      for (size_t i = *at + 1; i < text.size(); ++i) {
        if (text[i] != '\'') {
          node.scalar += text[i];
          continue;
        }
        if (i + 1 < text.size() && text[i + 1] == '\'') {
          node.scalar += '\'';
          ++i;
          continue;
        }
        *at = i + 1;
        return node;
      }
      unsupported(number, "multi-line single-quoted scalar");
    }
    if (c == '"') {
      node.kind = YamlNode::Kind::kScalar;
      for (size_t i = *at + 1; i < text.size(); ++i) {
        if (text[i] == '"') {
          *at = i + 1;
          return node;
        }
        if (text[i] != '\\') {
          node.scalar += text[i];
          continue;
        }
        if (++i >= text.size()) break;
        switch (text[i]) {
          case '"':
          case '\\':
          case '/':
            node.scalar += text[i];
            break;
          case 'n':
            node.scalar += '\n';
            break;
          case 't':
            node.scalar += '\t';
            break;
          default:
            unsupported(number, "escape sequence");
        }
      }
      unsupported(number, "multi-line double-quoted scalar");
    }
    const bool is_map = c == '{';
    const char close = is_map ? '}' : ']';
    node.kind = is_map ? YamlNode::Kind::kMap : YamlNode::Kind::kSequence;
    size_t i = *at + 1;
    auto skip_spaces = [&] {
      while (i < text.size() && text[i] == ' ') ++i;
    };
    skip_spaces();
    if (i < text.size() && text[i] == close) {
      *at = i + 1;
      return node;
    }
    while (true) {
      skip_spaces();
      if (i >= text.size()) unsupported(number, "multi-line flow collection");
      YamlNode key = flow_item(text, &i, number, is_map);
      skip_spaces();
      if (is_map) {
        if (i >= text.size() || text[i] != ':') unsupported(number, "flow mapping without ':'");
        ++i;
        skip_spaces();
        YamlNode v = flow_item(text, &i, number, false);
        node.entries.emplace_back(std::move(key), std::move(v));
        skip_spaces();
      } else {
        node.items.push_back(std::move(key));
      }
      if (i >= text.size()) unsupported(number, "multi-line flow collection");
      if (text[i] == ',') {
        ++i;
        continue;
      }
      if (text[i] == close) {
        *at = i + 1;
        return node;
      }
      unsupported(number, "unexpected character in a flow collection");
    }
  }

  // One item of a flow collection: nested flow, quoted, or plain up to ',', the closing
  // bracket, or (for keys) ':'.
  YamlNode flow_item(std::string_view text, size_t* at, size_t number, bool key) {
    const char c = text[*at];
    if (c == '[' || c == '{' || c == '\'' || c == '"') return flow(text, at, number);
    if (c == '&' || c == '*' || c == '!' || c == '|' || c == '>' || c == '#') {
      unsupported(number, "indicator inside a flow collection");
    }
    size_t i = *at;
    while (i < text.size() && text[i] != ',' && text[i] != ']' && text[i] != '}' &&
           !(key && text[i] == ':') && text[i] != '[' && text[i] != '{' && text[i] != '#') {
      if (text[i] == ':' && (i + 1 < text.size() && text[i + 1] == ' ')) {
        unsupported(number, "': ' inside a flow sequence item");
      }
      ++i;
    }
    YamlNode node;
    node.line = number;
    const std::string_view word = trim(text.substr(*at, i - *at));
    *at = i;
    if (is_null_word(word)) return node;
    node.kind = YamlNode::Kind::kScalar;
    node.scalar = std::string(word);
    return node;
  }

  std::vector<Line> lines_;
  size_t pos_ = 0;
};

}  // namespace

YamlNode read_yaml_subset(std::string_view text) { return Reader(text).document(); }

}  // namespace skillrt::ops::detail
