#include "optoolkit/schema.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

namespace skillrt::ops {
namespace {

// Both lists follow torchgen's BaseTy declaration order. Dimname is listed for upstream too:
// PyTorch 2.11's native_functions.yaml uses it in 106 lines, so its torchgen must accept it.
const std::vector<std::string_view> kUpstreamNames = {
    "Generator", "ScalarType", "Tensor", "int",    "Dimname",     "DimVector",  "float",
    "str",       "bool",       "Layout", "Device", "DeviceIndex", "Scalar",     "MemoryFormat",
    "QScheme",   "Storage",    "Stream", "SymInt", "SymBool",     "GraphModule"};
const std::vector<std::string_view> kTorchnpugenNames = {
    "Generator",    "ScalarType", "Tensor",  "int",    "Dimname", "DimVector",
    "float",        "str",        "bool",    "Layout", "Device",  "Scalar",
    "MemoryFormat", "QScheme",    "Storage", "Stream", "SymInt",  "ConstQuantizerPtr"};

constexpr std::string_view kTensor = "Tensor";

// base_type_sets_containing() runs for every type of every schema. An open-addressing table
// keyed by the length and the first and last letters finds a name in one or two probes.
class BaseTypeTable {
 public:
  BaseTypeTable() {
    for (std::string_view n : kUpstreamNames) add(n, kUpstreamBaseTypes);
    for (std::string_view n : kTorchnpugenNames) add(n, kTorchnpugenBaseTypes);
    tensor_sets_ = probe(kTensor);
  }

  uint32_t find(std::string_view name) const {
    // Most types of most schemas are "Tensor": one comparison of a constant length.
    if (name.size() == kTensor.size() &&
        std::memcmp(name.data(), kTensor.data(), kTensor.size()) == 0) {
      return tensor_sets_;
    }
    return probe(name);
  }

 private:
  uint32_t probe(std::string_view name) const {
    if (name.empty()) return 0;
    for (size_t i = slot(name);; i = (i + 1) % kSlots) {
      const Entry& e = entries_[i];
      if (e.name.empty()) return 0;
      if (e.name.size() != name.size()) continue;
      // The names are short and differ early ("Scalar", "Stream", "SymInt"): a loop, not memcmp.
      size_t k = 0;
      while (k < name.size() && e.name[k] == name[k]) ++k;
      if (k == name.size()) return e.sets;
    }
  }

  static constexpr size_t kSlots = 64;  // well above the 21 distinct names, so probes are short
  struct Entry {
    std::string_view name;
    uint32_t sets = 0;
  };

  static size_t slot(std::string_view n) {
    const auto byte = [](char c) { return static_cast<size_t>(static_cast<unsigned char>(c)); };
    return (n.size() * 31 + byte(n.front()) * 7 + byte(n.back())) % kSlots;
  }

  void add(std::string_view n, uint32_t set) {
    size_t i = slot(n);
    while (!entries_[i].name.empty() && entries_[i].name != n) i = (i + 1) % kSlots;
    entries_[i].name = n;
    entries_[i].sets |= set;
  }

  std::array<Entry, kSlots> entries_{};
  uint32_t tensor_sets_ = 0;
};

// Python's augmented assignment names (PEP 203), which make "__iadd__" an in-place dunder.
constexpr std::array<std::string_view, 11> kAugmentedNames = {
    "add", "sub", "mul", "div", "mod", "pow", "lshift", "rshift", "and", "xor", "or"};

constexpr std::string_view kCustomClassPrefix = "__torch__.torch.classes.";
constexpr std::string_view kArgSep = ", ";
constexpr std::string_view kSelf = "self";
constexpr std::string_view kArrow = " -> ";

bool is_alias_letter(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_class_char(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.';
}

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

// Searches over the pieces of one schema, written as plain loops: the pieces are a few dozen
// bytes, where the scan costs less than a call into the library's vectorised memchr/memcmp
// (which std::string_view::find uses, and rfind of a string calls memcmp at every position).
constexpr size_t kNpos = std::string_view::npos;

size_t find_char(std::string_view s, char c, size_t from = 0) { return s.find(c, from); }

size_t rfind_char(std::string_view s, char c) {
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] == c) return i;
  }
  return kNpos;
}

// The first ", " at or after `from`.
size_t find_separator(std::string_view s, size_t from) {
  for (size_t i = s.find(',', from); i != kNpos; i = s.find(',', i + 1)) {
    if (i + 1 < s.size() && s[i + 1] == ' ') return i;
  }
  return kNpos;
}

// The last ") -> ", where the arguments end and the returns begin.
size_t rfind_close_arrow(std::string_view s) {
  if (s.size() < 5) return kNpos;
  for (size_t i = s.size() - 5 + 1; i-- > 0;) {
    if (s[i] == ')' && s[i + 1] == ' ' && s[i + 2] == '-' && s[i + 3] == '>' && s[i + 4] == ' ') {
      return i;
    }
  }
  return kNpos;
}

// Prefix and suffix tests against literals: the length is a constant, so the compiler compares
// in place instead of calling memcmp.
template <size_t N>
bool has_prefix(std::string_view s, const char (&literal)[N]) {
  return s.size() >= N - 1 && std::memcmp(s.data(), literal, N - 1) == 0;
}

template <size_t N>
bool has_suffix(std::string_view s, const char (&literal)[N]) {
  return s.size() >= N - 1 && std::memcmp(s.data() + s.size() - (N - 1), literal, N - 1) == 0;
}

// Copies a piece of the input into the model. clear() + append() rather than assign(): the same
// result, without assign()'s handling of a source inside the destination, which costs a measurable
// share of parsing (a few strings per argument).
void set_text(std::string* dst, std::string_view text) {
  dst->clear();
  dst->append(text.data(), text.size());
}

// Whose type is being parsed, for error messages only: the text is built when an error is
// reported, never on the success path (returns are numbered, arguments named).
struct Owner {
  std::string_view argument;
  size_t return_number = 0;  // 1-based; 0 for an argument

  std::string text() const {
    return return_number ? "return " + std::to_string(return_number) : std::string(argument);
  }
};

// Parsing state shared by the helpers: the grammar and the first error, reported by column.
class Parser {
 public:
  Parser(std::string_view text, const Grammar& grammar) : text_(text), grammar_(grammar) {}

  SchemaParseResult run();

 private:
  struct Span {
    std::string_view text;
    size_t offset;  // of text[0] within the whole schema
  };

  bool fail(size_t offset, std::string message) {
    if (!failed_) {
      failed_ = true;
      error_.column = offset + 1;
      error_.message = std::move(message);
    }
    return false;
  }

  static Span sub(Span s, size_t pos, size_t len = std::string_view::npos) {
    return Span{s.text.substr(pos, len), s.offset + pos};
  }

  bool parse_operator_name(Span s, OperatorName* out);
  bool parse_arguments(Span s, FunctionSchema* schema);
  bool parse_argument(Span s, Argument* out);
  bool parse_returns(Span s, FunctionSchema* schema);
  bool parse_annotated_type(Span s, Type* type, std::optional<Annotation>* annotation,
                            const Owner& owner);
  bool parse_type(Span s, Type* out);
  bool parse_annotation(Span s, Annotation* out);
  bool diagnose_bad_argument_type(Span type_text, const Owner& owner);
  bool check_invariants(FunctionSchema* schema);

  std::string_view text_;
  const Grammar& grammar_;
  bool failed_ = false;
  SchemaError error_;
  size_t star_offset_ = std::string_view::npos;
  // The base type sets covering every type parsed so far (custom classes are in every set;
  // "Tensor(a)" types are "Tensor", which is too), gathered while parsing so that each type
  // name is looked up once.
  uint32_t type_sets_ = kUpstreamBaseTypes | kTorchnpugenBaseTypes;
};

SchemaParseResult Parser::run() {
  SchemaParseResult result;
  const size_t newline = find_char(text_, '\n');
  if (newline != std::string_view::npos) {
    fail(newline, "a schema is a single line; found a line break");
    result.error = error_;
    return result;
  }
  const size_t lparen = find_char(text_, '(');
  const size_t arrow = rfind_close_arrow(text_);
  if (lparen == std::string_view::npos) {
    fail(text_.size(), "expected '(' after the operator name");
  } else if (lparen == 0) {
    fail(0, "expected an operator name before '('");
  } else if (arrow == std::string_view::npos || arrow < lparen) {
    const size_t close = text_.rfind(')');
    if (close == std::string_view::npos || close < lparen) {
      fail(text_.size(), "expected ')' closing the argument list, then ' -> ' and the returns");
    } else {
      fail(close + 1, "expected ' -> ' (one space on each side) after ')' and then the returns");
    }
  }
  if (failed_) {
    result.error = error_;
    return result;
  }
  // torchgen prints every schema it parses and asserts the text comes back. Here the round trip
  // holds by construction, so nothing is printed: the name is the text before the first '(',
  // the arguments the text up to the last ") -> " split at ", ", the returns the rest; every
  // name, type base, type suffix, default and overload is stored as the slice of the input it
  // came from, and the parts that are decoded (the "*" marker, alias annotations, the in-place,
  // dunder and "_functional" forms of the name, the parentheses around returns) are accepted
  // only in the one spelling the printer writes for them. The tests print and compare every
  // schema of the data files and of a million mutants of them.
  // Built in place in the result, not moved there: this runs for every schema of a file.
  FunctionSchema& schema = result.schema.emplace();
  const Span whole{text_, 0};
  if (parse_operator_name(sub(whole, 0, lparen), &schema.name) &&
      parse_arguments(sub(whole, lparen + 1, arrow - lparen - 1), &schema) &&
      parse_returns(sub(whole, arrow + 1 + kArrow.size()), &schema)) {
    check_invariants(&schema);
  }
  if (failed_) {
    result.schema.reset();
    result.error = error_;
  }
  return result;
}

bool Parser::parse_operator_name(Span s, OperatorName* out) {
  Span base = s;
  const size_t dot = find_char(s.text, '.');
  if (dot != std::string_view::npos) {
    base = sub(s, 0, dot);
    set_text(&out->overload, s.text.substr(dot + 1));
    if (out->overload.empty()) {
      return fail(s.offset + dot + 1, "expected an overload name after '.' (or drop the '.')");
    }
  }
  if (grammar_.namespaces) {
    size_t colons = find_char(base.text, ':');
    while (colons != kNpos && (colons + 1 >= base.text.size() || base.text[colons + 1] != ':')) {
      colons = find_char(base.text, ':', colons + 1);
    }
    if (colons != std::string_view::npos) {
      set_text(&out->ns, base.text.substr(0, colons));
      if (out->ns.empty()) return fail(base.offset, "expected a namespace before '::'");
      base = sub(base, colons + 2);
    }
  }
  std::string_view name = base.text;
  if (name.empty()) return fail(base.offset, "expected an operator name");
  if (has_suffix(name, "_out")) {
    return fail(base.offset + name.size() - 4,
                "the '_out' suffix is reserved for overloads; name the out variant with an "
                "overload instead (e.g. 'abs.out', not 'abs_out')");
  }
  const bool dunder_shape = name.size() > 4 && has_prefix(name, "__") && has_suffix(name, "__") &&
                            find_char(name.substr(2, name.size() - 4), '_') == kNpos;
  std::string_view core = name;
  if (dunder_shape) {
    out->dunder = true;
    core = name.substr(2, name.size() - 4);
    if (core[0] == 'i') {
      const std::string_view rest = core.substr(1);
      if (std::find(kAugmentedNames.begin(), kAugmentedNames.end(), rest) ==
          kAugmentedNames.end()) {
        return fail(base.offset + 2,
                    "dunder name " + quoted(name) + " starts with 'i' but " + quoted(rest) +
                        " is not an augmented-assignment operator (add, sub, mul, div, mod, pow, "
                        "lshift, rshift, and, xor, or)");
      }
      out->inplace = true;
      core = rest;
    }
  } else if (core.back() == '_') {
    out->inplace = true;
    core.remove_suffix(1);
  }
  constexpr std::string_view kFunctional = "_functional";
  if (has_suffix(core, "_functional")) {
    if (out->dunder || out->inplace) {
      return fail(base.offset,
                  "a '_functional' operator cannot also be in-place or a dunder "
                  "method: " +
                      quoted(name));
    }
    out->functional_overload = true;
    core.remove_suffix(kFunctional.size());
  }
  set_text(&out->base, core);
  return true;
}

bool Parser::parse_arguments(Span s, FunctionSchema* schema) {
  enum class Group { kPositional, kKwargOnly, kOut } group = Group::kPositional;
  if (s.text.empty()) return true;
  schema->arguments.reserve(1 + static_cast<size_t>(std::count(s.text.begin(), s.text.end(), ',')));
  size_t pos = 0;
  std::string_view last_out_name;
  while (pos <= s.text.size()) {
    size_t end = find_separator(s.text, pos);
    if (end == std::string_view::npos) end = s.text.size();
    const Span piece = sub(s, pos, end - pos);
    pos = end + kArgSep.size();
    if (piece.text.empty()) {
      return fail(piece.offset,
                  "expected an argument here; found an empty one between "
                  "separators (arguments are separated by exactly ', ')");
    }
    if (piece.text.size() == 1 && piece.text[0] == '*') {
      if (group != Group::kPositional) {
        return fail(piece.offset, "'*' (start of keyword-only arguments) may appear only once");
      }
      group = Group::kKwargOnly;
      star_offset_ = piece.offset;
      continue;
    }
    Argument& arg = schema->arguments.emplace_back();
    if (!parse_argument(piece, &arg)) return false;
    if (arg.is_write()) {
      if (group == Group::kKwargOnly) group = Group::kOut;
    } else if (group == Group::kOut) {
      return fail(piece.offset,
                  "argument " + quoted(arg.name) + " is not mutable but follows the out argument " +
                      quoted(last_out_name) +
                      "; out arguments (mutable keyword-only, e.g. 'Tensor(a!) out') come last");
    }
    arg.kwarg_only = group != Group::kPositional;
    arg.out = group == Group::kOut;
    if (arg.out) last_out_name = arg.name;
    arg.column = piece.offset + 1;
    if (end == s.text.size()) break;
  }
  if (star_offset_ != std::string_view::npos &&
      std::none_of(schema->arguments.begin(), schema->arguments.end(),
                   [](const Argument& a) { return a.kwarg_only; })) {
    return fail(star_offset_, "'*' must be followed by at least one keyword-only argument");
  }
  return true;
}

bool Parser::parse_argument(Span s, Argument* out) {
  Span type_text;
  Span name_text;
  std::optional<Span> default_text;
  const size_t first_eq =
      grammar_.default_split == DefaultSplit::kEqualsFirst ? find_char(s.text, '=') : kNpos;
  if (first_eq != std::string_view::npos) {
    const size_t eq = first_eq;
    const size_t eq2 = find_char(s.text, '=', eq + 1);
    if (eq2 != std::string_view::npos) {
      return fail(s.offset + eq2, "argument " + quoted(s.text) +
                                      " has more than one '='; a default value cannot contain '='");
    }
    default_text = sub(s, eq + 1);
    const Span left = sub(s, 0, eq);
    const size_t space = rfind_char(left.text, ' ');
    if (space == std::string_view::npos) {
      return fail(s.offset, "expected '<type> <name>=<default>' in argument " + quoted(s.text));
    }
    type_text = sub(left, 0, space);
    name_text = sub(left, space + 1);
  } else {
    const size_t space = rfind_char(s.text, ' ');
    if (space == std::string_view::npos) {
      return fail(s.offset, "expected '<type> <name>' in argument " + quoted(s.text));
    }
    type_text = sub(s, 0, space);
    name_text = sub(s, space + 1);
    const size_t eq = find_char(name_text.text, '=');
    if (eq != std::string_view::npos) {
      const size_t eq2 = find_char(name_text.text, '=', eq + 1);
      if (eq2 != std::string_view::npos) {
        return fail(name_text.offset + eq2,
                    "argument " + quoted(s.text) +
                        " has more than one '='; a default value cannot contain '='");
      }
      default_text = sub(name_text, eq + 1);
      name_text = sub(name_text, 0, eq);
    }
  }
  if (name_text.text.empty()) {
    return fail(name_text.offset,
                "expected an argument name after the type " + quoted(type_text.text));
  }
  set_text(&out->name, name_text.text);
  if (default_text) {
    if (default_text->text.empty()) {
      return fail(default_text->offset, "expected a default value after '=' in argument " +
                                            quoted(out->name) + " (or drop the '=')");
    }
    out->default_value.emplace(default_text->text);
  }
  return parse_annotated_type(type_text, &out->type, &out->annotation, Owner{out->name});
}

bool Parser::parse_returns(Span s, FunctionSchema* schema) {
  if (s.text.empty()) {
    return fail(s.offset, "expected the returns after ' -> ' (write '()' when there are none)");
  }
  if (s.text.size() == 2 && s.text[0] == '(' && s.text[1] == ')') return true;
  Span list = s;
  const bool parenthesized = s.text.front() == '(' && s.text.back() == ')';
  if (parenthesized) list = sub(s, 1, s.text.size() - 2);
  schema->returns.reserve(1 +
                          static_cast<size_t>(std::count(list.text.begin(), list.text.end(), ',')));
  size_t pos = 0;
  while (true) {
    size_t end = find_separator(list.text, pos);
    if (end == std::string_view::npos) end = list.text.size();
    const Span piece = sub(list, pos, end - pos);
    Return& ret = schema->returns.emplace_back();
    Span type_text = piece;
    const size_t space = rfind_char(piece.text, ' ');
    if (space != std::string_view::npos) {
      type_text = sub(piece, 0, space);
      const Span name = sub(piece, space + 1);
      if (name.text.empty()) {
        return fail(name.offset, "expected a return name after the space (or drop the space)");
      }
      ret.name.emplace(name.text);
    }
    const Owner owner{{}, schema->returns.size()};
    if (!parse_annotated_type(type_text, &ret.type, &ret.annotation, owner)) return false;
    ret.column = piece.offset + 1;
    if (end == list.text.size()) break;
    pos = end + kArgSep.size();
  }
  if (parenthesized && schema->returns.size() == 1) {
    return fail(s.offset, "a single return is written without parentheses: " + quoted(list.text));
  }
  if (!parenthesized && schema->returns.size() > 1) {
    return fail(s.offset, "two or more returns must be enclosed in parentheses: '(" +
                              std::string(s.text) + ")'");
  }
  return true;
}

bool Parser::parse_annotated_type(Span s, Type* type, std::optional<Annotation>* annotation,
                                  const Owner& owner) {
  constexpr std::string_view kTensorParen = "Tensor(";
  const bool tensor_paren = has_prefix(s.text, "Tensor(");
  const size_t close = tensor_paren ? rfind_char(s.text, ')') : kNpos;
  if (tensor_paren && close != std::string_view::npos && close > kTensorParen.size()) {
    const Span ann = sub(s, kTensorParen.size(), close - kTensorParen.size());
    const Span rest = sub(s, close + 1);
    if (rest.text != "" && rest.text != "?" && rest.text != "[]") {
      return fail(rest.offset, "after 'Tensor(<alias>)' only '?' or '[]' may follow, found " +
                                   quoted(rest.text) + " in " + owner.text());
    }
    if (!parse_annotation(ann, &annotation->emplace())) {
      annotation->reset();
      return false;
    }
    set_text(&type->base, kTensor);
    set_text(&type->suffix, rest.text);
    return true;
  }
  if (parse_type(s, type)) return true;
  // The generic "unknown type" error is replaced by a more useful one when the text shows a
  // typical slip: a missing space after ',' or a missing ', ' between arguments.
  failed_ = false;
  const SchemaError generic = error_;
  if (diagnose_bad_argument_type(s, owner)) {
    failed_ = true;
    error_ = generic;
  }
  return false;
}

// Returns true when it found nothing more specific than the error already recorded.
bool Parser::diagnose_bad_argument_type(Span s, const Owner& owner) {
  const size_t comma = s.text.find(',');
  const size_t bracket = s.text.find('[');
  if (comma != std::string_view::npos && (bracket == std::string_view::npos || comma < bracket)) {
    fail(s.offset + comma,
         "expected ', ' (a comma and one space) between items; found ',' "
         "without the space in " +
             owner.text());
    return false;
  }
  const size_t space = s.text.find(' ');
  if (space == std::string_view::npos) return true;
  const size_t second = s.text.find(' ', space + 1);
  const Span first = sub(s, 0, space);
  const Span name =
      sub(s, space + 1, second == std::string_view::npos ? s.text.npos : second - space - 1);
  Type probe;
  std::optional<Annotation> probe_annotation;
  Parser checker(text_, grammar_);
  if (!checker.parse_annotated_type(first, &probe, &probe_annotation, owner)) return true;
  if (name.text.find('\'') != std::string_view::npos ||
      name.text.find('"') != std::string_view::npos) {
    fail(s.offset + space, "the default of " + owner.text() +
                               " contains a space; the torchnpugen grammar splits an argument at "
                               "its last space, so defaults cannot contain spaces");
    return false;
  }
  if (owner.return_number != 0) {
    fail(name.offset + name.text.size(),
         "expected ', ' or ')' after " + quoted(name.text) + " in " + owner.text());
  } else {
    fail(name.offset + name.text.size(), "expected ',' or ')' after argument " + quoted(name.text));
  }
  return false;
}

bool Parser::parse_type(Span s, Type* out) {
  // Suffixes are peeled from the right, as torchgen does: "int[]?" is Optional(List(int)).
  Span rest = s;
  while (!rest.text.empty()) {
    if (rest.text.size() > 1 && rest.text.back() == '?') {
      rest = sub(rest, 0, rest.text.size() - 1);
      continue;
    }
    if (rest.text.back() == ']') {
      const size_t open = rfind_char(rest.text, '[');
      if (open == std::string_view::npos || open == 0) break;
      const std::string_view digits = rest.text.substr(open + 1, rest.text.size() - open - 2);
      if (!std::all_of(digits.begin(), digits.end(), is_digit)) break;
      if (!digits.empty() && digits[0] == '0') {
        return fail(rest.offset + open + 1,
                    "list size " + quoted(digits) +
                        " does not print back: write a size without leading zeros, and '[]' "
                        "instead of '[0]'");
      }
      if (digits.size() > 9) {
        return fail(rest.offset + open + 1, "list size " + quoted(digits) + " is too large");
      }
      rest = sub(rest, 0, open);
      continue;
    }
    break;
  }
  // Every suffix peeled above prints back as written, so the text is the canonical form.
  if (rest.text.size() != s.text.size()) {
    set_text(&out->suffix, s.text.substr(rest.text.size()));
  } else {
    out->suffix.clear();
  }
  const std::string_view base = rest.text;
  if (base.empty()) return fail(rest.offset, "expected a type");
  if (base.size() > kCustomClassPrefix.size() && has_prefix(base, "__torch__.torch.classes.") &&
      std::all_of(base.begin() + kCustomClassPrefix.size(), base.end(), is_class_char)) {
    set_text(&out->base, base);
    out->custom_class = true;
    return true;
  }
  const uint32_t sets = base_type_sets_containing(base);
  if ((sets & grammar_.base_types) != 0 ||
      (!grammar_.extra_base_types.empty() &&
       std::find(grammar_.extra_base_types.begin(), grammar_.extra_base_types.end(), base) !=
           grammar_.extra_base_types.end())) {
    set_text(&out->base, base);
    type_sets_ &= sets;
    return true;
  }
  if (sets != 0) {
    const std::string where = (sets & kUpstreamBaseTypes) ? "upstream torchgen" : "torchnpugen";
    return fail(rest.offset, "type " + quoted(base) + " exists only in the " + where +
                                 " grammar, which this parse does not accept; parse with a "
                                 "grammar that includes it");
  }
  return fail(rest.offset,
              "unknown type " + quoted(base) +
                  "; expected a base type such as Tensor, int, SymInt, float, bool, "
                  "str, Scalar, ScalarType, optionally followed by '?', '[]' or '[N]'");
}

bool Parser::parse_annotation(Span s, Annotation* out) {
  const std::string_view t = s.text;
  size_t i = 0;
  auto at = [&](size_t k) { return k < t.size() ? t[k] : '\0'; };
  if (!is_alias_letter(at(0))) {
    return fail(s.offset, "expected an alias letter a-z in the annotation " + quoted(t));
  }
  out->alias_set.push_back(t[0]);
  i = 1;
  while (at(i) == '|' && is_alias_letter(at(i + 1))) {
    if (out->alias_set.size() == 2) {
      return fail(s.offset + i, "at most two aliases may precede '!' or ' -> ' in " + quoted(t) +
                                    "; torchgen keeps only the last '|x', so a third does not "
                                    "print back");
    }
    out->alias_set.push_back(t[i + 1]);
    i += 2;
  }
  if (at(i) == '!') {
    out->is_write = true;
    ++i;
  }
  if (t.substr(i, kArrow.size()) == kArrow) {
    i += kArrow.size();
    if (at(i) == '*') {
      out->alias_set_after.push_back('*');
      ++i;
    } else if (is_alias_letter(at(i))) {
      out->alias_set_after.push_back(t[i]);
      ++i;
      while (at(i) == '|' && is_alias_letter(at(i + 1))) {
        out->alias_set_after.push_back(t[i + 1]);
        i += 2;
      }
    } else {
      return fail(s.offset + i, "expected '*' or an alias letter after ' -> ' in " + quoted(t));
    }
  }
  if (i != t.size()) {
    return fail(s.offset + i, "unexpected " + quoted(t.substr(i, 1)) + " in alias annotation " +
                                  quoted(t) + "; expected '|x', '!', ' -> ' or the closing ')'");
  }
  if (out->is_write && out->alias_set.size() > 1) {
    return fail(s.offset, "a written alias ('!') must be a single letter, found " + quoted(t));
  }
  if (out->alias_set.size() > 1 && out->alias_set_after.size() > 1) {
    return fail(s.offset, "alias sets before and after ' -> ' cannot both have several letters: " +
                              quoted(t));
  }
  return true;
}

bool Parser::check_invariants(FunctionSchema* schema) {
  auto& args = schema->arguments;
  auto& rets = schema->returns;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].kwarg_only && args[i].name == kSelf) {
      schema->self_index = i;
      break;
    }
  }
  // torchgen's Arguments invariant: nothing before `self` may be written to.
  if (schema->self_index) {
    for (size_t i = 0; i < *schema->self_index; ++i) {
      if (args[i].is_write()) {
        return fail(args[i].column - 1, "mutable argument " + quoted(args[i].name) +
                                            " comes before 'self'; mutable positional arguments "
                                            "must follow 'self'");
      }
    }
  }
  // TensorOptions: dtype, layout, device, pin_memory in a row among keyword-only arguments.
  static const std::array<std::pair<std::string_view, std::string_view>, 4> kTensorOptions = {
      {{"dtype", "ScalarType"},
       {"layout", "Layout"},
       {"device", "Device"},
       {"pin_memory", "bool"}}};
  auto matches_option = [](const Argument& a, size_t k) {
    if (a.name != kTensorOptions[k].first || a.type.base != kTensorOptions[k].second ||
        a.type.custom_class) {
      return false;
    }
    return a.type.suffix.empty() || (a.type.suffix.size() == 1 && a.type.suffix[0] == '?');
  };
  // Keyword-only arguments come before out arguments, so both groups are index ranges.
  size_t first_kwarg = 0;
  while (first_kwarg < args.size() && !args[first_kwarg].kwarg_only) ++first_kwarg;
  size_t first_out = first_kwarg;
  while (first_out < args.size() && !args[first_out].out) ++first_out;
  const size_t kwarg_count = first_out - first_kwarg;
  auto kwargs = [&](size_t k) { return first_kwarg + k; };
  for (size_t k = 0; k + kTensorOptions.size() <= kwarg_count;) {
    bool group = true;
    for (size_t j = 0; j < kTensorOptions.size() && group; ++j) {
      group = matches_option(args[kwargs(k + j)], j);
    }
    if (!group) {
      ++k;
      continue;
    }
    if (schema->tensor_options_index) {
      return fail(args[kwargs(k)].column - 1,
                  "a second dtype/layout/device/pin_memory group; "
                  "TensorOptions may appear only once");
    }
    schema->tensor_options_index = kwargs(k);
    k += kTensorOptions.size();
  }

  const size_t out_count = args.size() - first_out;
  const size_t returns_offset = rets.empty() ? text_.size() : rets.front().column - 1;
  for (size_t k = 0; k < out_count && k < rets.size(); ++k) {
    if (args[first_out + k].annotation != rets[k].annotation) {
      return fail(rets[k].column - 1,
                  "return " + std::to_string(k + 1) +
                      " must carry the same "
                      "annotation as out argument " +
                      quoted(args[first_out + k].name) +
                      " (the i-th return corresponds to the i-th out argument)");
    }
  }
  const size_t post_self = schema->self_index ? *schema->self_index + 1 : 0;
  for (size_t i = post_self; i < args.size(); ++i) {
    if (args[i].kwarg_only || !args[i].is_write()) continue;
    for (size_t r = 0; r < rets.size(); ++r) {
      if (rets[r].annotation == args[i].annotation) {
        return fail(rets[r].column - 1, "mutable positional argument " + quoted(args[i].name) +
                                            " must not be returned");
      }
    }
  }
  size_t mutable_returns = 0;
  for (const Return& r : rets) mutable_returns += r.is_write() ? 1 : 0;
  if (mutable_returns != 0 && mutable_returns != rets.size()) {
    return fail(returns_offset,
                "returns must be all mutable or all immutable; mix of 'Tensor(a!)' "
                "and plain returns is not allowed");
  }
  for (size_t r = 0; r < rets.size(); ++r) {
    if (!rets[r].is_write()) continue;
    bool aliased = false;
    for (size_t i = first_out; i < args.size(); ++i) {
      aliased = aliased || args[i].annotation == rets[r].annotation;
    }
    for (size_t i = 0; i < args.size(); ++i) {
      if (!args[i].kwarg_only && args[i].name == kSelf) {
        aliased = aliased || args[i].annotation == rets[r].annotation;
      }
    }
    if (!aliased) {
      return fail(rets[r].column - 1,
                  "mutable return " + std::to_string(r + 1) +
                      " must alias an out argument or 'self'; did you forget to "
                      "put the out argument after '*'?");
    }
  }
  bool is_scratch = false;
  size_t non_scratch_outs = 0;
  bool all_plain = true;
  for (size_t i = first_out; i < args.size(); ++i) {
    const bool scratch = starts_with(args[i].name, "_scratch_");
    is_scratch = is_scratch || scratch;
    non_scratch_outs += scratch ? 0 : 1;
    all_plain = all_plain && args[i].type.is_plain("Tensor");
  }
  if (out_count != 0) {
    if (!all_plain && !rets.empty()) {
      return fail(returns_offset,
                  "an out= schema whose out arguments are not all plain 'Tensor' "
                  "(e.g. 'Tensor(a!)[]') must return '()'");
    }
    if (all_plain) {
      const size_t expected = non_scratch_outs;
      if (expected != rets.size()) {
        return fail(returns_offset,
                    "an out= schema must return one 'Tensor(x!)' per out argument "
                    "(not counting '_scratch_' ones): expected " +
                        std::to_string(expected) + ", found " + std::to_string(rets.size()));
      }
    }
  }
  if (schema->name.inplace) {
    if (!schema->self_index || !args[*schema->self_index].is_write()) {
      return fail(0, "in-place operator " + quoted(schema->name.full_base()) +
                         " needs a mutable 'self' argument, e.g. 'Tensor(a!) self'");
    }
    const Argument& self = args[*schema->self_index];
    if (self.type.is_plain("Tensor")) {
      if (rets.size() != 1 || rets[0].annotation != self.annotation) {
        return fail(returns_offset, "in-place operator " + quoted(schema->name.full_base()) +
                                        " must return exactly 'self' with its annotation, e.g. "
                                        "'-> Tensor(a!)'");
      }
    } else if (!rets.empty()) {
      return fail(returns_offset, "in-place operator with a non-Tensor 'self' must return '()'");
    }
  }
  const bool is_out = out_count != 0;
  if (is_out && schema->name.inplace) {
    return fail(args[first_out].column - 1,
                "an in-place operator cannot also have out arguments; "
                "torchgen cannot classify it");
  }
  bool is_mutable = false;
  for (size_t i = post_self; i < args.size(); ++i) {
    is_mutable = is_mutable || (!args[i].kwarg_only && args[i].is_write());
  }
  if (schema->name.inplace) {
    schema->kind = SchemaKind::kInplace;
  } else if (is_scratch) {
    schema->kind = SchemaKind::kScratch;
  } else if (is_out) {
    schema->kind = SchemaKind::kOut;
  } else if (is_mutable) {
    schema->kind = SchemaKind::kMutable;
  } else {
    schema->kind = SchemaKind::kFunctional;
  }
  if (schema->tensor_options_index && schema->kind != SchemaKind::kFunctional) {
    return fail(args[*schema->tensor_options_index].column - 1,
                "dtype/layout/device/pin_memory (TensorOptions) are only allowed on functional "
                "schemas; this one is " +
                    std::string(to_string(schema->kind)));
  }
  if (schema->name.overload.size() >= 10 &&
      schema->name.overload.find("functional") != std::string::npos &&
      schema->kind != SchemaKind::kFunctional) {
    return fail(schema->name.full_base().size() + 1,
                "an overload name containing 'functional' requires a functional schema; this one "
                "is " +
                    std::string(to_string(schema->kind)));
  }
  schema->base_type_sets = type_sets_;
  return true;
}

}  // namespace

const std::vector<std::string_view>& base_type_names(BaseTypeSet set) {
  return set == kUpstreamBaseTypes ? kUpstreamNames : kTorchnpugenNames;
}

uint32_t base_type_sets_containing(std::string_view name) {
  // Function-local, so that it is built before any use, even from another file's static init.
  static const BaseTypeTable kTable;
  return kTable.find(name);
}

std::vector<TypeSuffix> Type::suffixes() const {
  std::vector<TypeSuffix> out;
  for (size_t i = 0; i < suffix.size(); ++i) {
    if (suffix[i] == '?') {
      out.push_back({TypeSuffix::kOptional, 0});
      continue;
    }
    uint32_t size = 0;
    for (++i; i < suffix.size() && suffix[i] != ']'; ++i) {
      size = size * 10 + static_cast<uint32_t>(suffix[i] - '0');
    }
    out.push_back({TypeSuffix::kList, size});
  }
  return out;
}

std::string_view to_string(SchemaKind kind) {
  switch (kind) {
    case SchemaKind::kFunctional:
      return "functional";
    case SchemaKind::kInplace:
      return "inplace";
    case SchemaKind::kOut:
      return "out";
    case SchemaKind::kMutable:
      return "mutable";
    case SchemaKind::kScratch:
      return "scratch";
  }
  return "functional";
}

std::string OperatorName::full_base() const {
  std::string s;
  if (!ns.empty()) s += ns + "::";
  if (dunder) return s + "__" + (inplace ? "i" : "") + base + "__";
  s += base;
  if (inplace) return s + "_";
  if (functional_overload) return s + "_functional";
  return s;
}

std::string OperatorName::qualified() const {
  return overload.empty() ? full_base() : full_base() + "." + overload;
}

bool FunctionSchema::has_kwarg_only_or_out() const {
  return std::any_of(arguments.begin(), arguments.end(),
                     [](const Argument& a) { return a.kwarg_only; });
}

SchemaParseResult parse_schema(std::string_view text, const Grammar& grammar) {
  return Parser(text, grammar).run();
}

FunctionSchema parse_schema_or_throw(std::string_view text, const Grammar& grammar) {
  SchemaParseResult r = parse_schema(text, grammar);
  if (!r.ok()) throw SchemaParseError(r.error);
  return std::move(*r.schema);
}

namespace {

// The printers run twice over a schema: once to size the output, once to fill it, so printing
// costs one allocation and straight copies. Consumers print every schema of a file (the op-schema
// skill's "roundtrip" field, diffs, the benchmark), so this matters.
struct Measure {
  size_t size = 0;
  void put(std::string_view s) { size += s.size(); }
  void put(char) { ++size; }
};

struct Fill {
  char* at;
  void put(std::string_view s) {
    std::memcpy(at, s.data(), s.size());
    at += s.size();
  }
  void put(char c) { *at++ = c; }
};

template <typename Out>
void emit_type(Out& out, const Type& type) {
  out.put(type.base);
  out.put(type.suffix);
}

template <typename Out>
void emit_aliases(Out& out, const std::string& aliases) {
  for (size_t i = 0; i < aliases.size(); ++i) {
    if (i) out.put('|');
    out.put(aliases[i]);
  }
}

template <typename Out>
void emit_annotation(Out& out, const Annotation& a) {
  emit_aliases(out, a.alias_set);
  if (a.is_write) out.put('!');
  if (!a.alias_set_after.empty()) {
    out.put(kArrow);
    emit_aliases(out, a.alias_set_after);
  }
}

template <typename Out>
void emit_annotated_type(Out& out, const Type& type, const std::optional<Annotation>& annotation) {
  if (!annotation) {
    emit_type(out, type);
    return;
  }
  // Only Tensor, Tensor? and Tensor[] carry annotations, so "Tensor" is always the base.
  out.put("Tensor(");
  emit_annotation(out, *annotation);
  out.put(')');
  out.put(type.suffix);
}

template <typename Out>
void emit_argument(Out& out, const Argument& a) {
  emit_annotated_type(out, a.type, a.annotation);
  out.put(' ');
  out.put(a.name);
  if (a.default_value && !a.default_value->empty()) {
    out.put('=');
    out.put(*a.default_value);
  }
}

template <typename Out>
void emit_return(Out& out, const Return& r) {
  emit_annotated_type(out, r.type, r.annotation);
  if (r.name) {
    out.put(' ');
    out.put(*r.name);
  }
}

template <typename Out>
void emit_schema(Out& out, const FunctionSchema& schema) {
  const OperatorName& n = schema.name;
  if (!n.ns.empty()) {
    out.put(n.ns);
    out.put("::");
  }
  if (n.dunder) {
    out.put(n.inplace ? "__i" : "__");
    out.put(n.base);
    out.put("__");
  } else {
    out.put(n.base);
    if (n.inplace) {
      out.put('_');
    } else if (n.functional_overload) {
      out.put("_functional");
    }
  }
  if (!n.overload.empty()) {
    out.put('.');
    out.put(n.overload);
  }
  out.put('(');
  bool first = true;
  bool star = false;
  for (const Argument& a : schema.arguments) {
    if (!first) out.put(kArgSep);
    if (a.kwarg_only && !star) {
      out.put('*');
      out.put(kArgSep);
      star = true;
    }
    emit_argument(out, a);
    first = false;
  }
  out.put(')');
  out.put(kArrow);
  if (schema.returns.size() == 1) {
    emit_return(out, schema.returns[0]);
  } else {
    out.put('(');
    for (size_t i = 0; i < schema.returns.size(); ++i) {
      if (i) out.put(kArgSep);
      emit_return(out, schema.returns[i]);
    }
    out.put(')');
  }
}

// Prints with `emit`: measures, then constructs the string at its final size (the constructor is
// inlined, where resize() is a library call) and fills it.
template <typename Emit>
std::string print_with(const Emit& emit) {
  Measure m;
  emit(m);
  std::string s(m.size, '\0');
  Fill f{s.data()};
  emit(f);
  return s;
}

}  // namespace

std::string print_type(const Type& type) {
  return print_with([&](auto& o) { emit_type(o, type); });
}

std::string print_annotation(const Annotation& a) {
  return print_with([&](auto& o) { emit_annotation(o, a); });
}

std::string print_annotated_type(const Type& type, const std::optional<Annotation>& annotation) {
  return print_with([&](auto& o) { emit_annotated_type(o, type, annotation); });
}

std::string print_argument(const Argument& a) {
  return print_with([&](auto& o) { emit_argument(o, a); });
}

std::string print_return(const Return& r) {
  return print_with([&](auto& o) { emit_return(o, r); });
}

std::string print_schema(const FunctionSchema& schema) {
  return print_with([&](auto& o) { emit_schema(o, schema); });
}

}  // namespace skillrt::ops
