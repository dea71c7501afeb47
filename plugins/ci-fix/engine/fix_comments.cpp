// Comment fixers: the comment prefix ("# " / "// "), and typos in comments and prose from the
// typo table.
#include <algorithm>
#include <cctype>

#include "fixer_kit.hpp"

namespace skillrt::ci_fix::detail {

void comment_prefix(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                    const FixClass& klass, FixerOutput* out) {
  if (f.line == 0 || f.line > ctx.lines->count()) {
    out->nothing_to_do = "line " + std::to_string(f.line) + " is not in the file now";
    return;
  }
  auto cs = comments_on(ctx, f.line);
  size_t off = 0;
  offset_of(ctx, f, &off);
  const Token* cm = nullptr;
  for (const Token* x : cs) {
    if (f.col == 0 || x->begin == off) cm = x;
  }
  if (cm == nullptr && !cs.empty()) cm = cs.front();
  if (cm == nullptr) {
    out->nothing_to_do = "no comment on line " + std::to_string(f.line) + " now";
    return;
  }
  std::string_view text = ctx.text.substr(cm->begin, cm->end - cm->begin);
  if (cm->kind == TokKind::kDirectiveComment) {
    out->refusals.push_back({"`" + std::string(text.substr(0, 40)) +
                                 "` is a comment tools obey (coding cookie, noqa, type:, pragma, "
                                 "NOLINT...): its text is not changed",
                             "Leave it, or add `# noqa: " + f.code + "` if the gate insists."});
    return;
  }
  std::string want;
  if (ctx.lang == Language::kPython) {
    size_t k = 0;
    while (k < text.size() && text[k] == '#') ++k;
    std::string_view body = text.substr(k);
    if (f.code == "E265") {
      // Keep the hashes the author wrote when there is only one; add the missing space.
      if (!body.empty() && body[0] != ' ')
        want = std::string(text.substr(0, k)) + " " + std::string(body);
    } else {
      size_t s = 0;
      while (s < body.size() && is_hspace(body[s])) ++s;
      want = "# " + std::string(body.substr(s));
      if (body.substr(s).empty()) want = "#";
    }
  } else if (ctx.lang == Language::kCpp) {
    if (starts_with(text, "//") && text.size() > 2 && text[2] != ' ' && text[2] != '/' &&
        text[2] != '!' && text[2] != '<') {
      want = "// " + std::string(text.substr(2));
    }
  }
  if (want.empty() || want == text) {
    out->nothing_to_do = "the comment already starts the expected way";
    return;
  }
  Candidate c = make(f, id, rule, klass, f.line,
                     "rewrite the comment start `" + std::string(text.substr(0, 8)) + "` as `" +
                         want.substr(0, 8) + "`");
  c.edits.push_back(Edit{cm->begin, cm->end, want});
  std::string side = too_long_impl(ctx, f.line, c.edits);
  if (!side.empty()) {
    out->refusals.push_back({side, "Shorten the comment by hand."});
    return;
  }
  out->candidates.push_back(std::move(c));
}

namespace {

std::string keep_case(std::string_view word, std::string corr) {
  if (corr.empty()) return corr;
  bool all_upper = word.size() > 1 && std::all_of(word.begin(), word.end(), [](unsigned char c) {
                     return !std::isalpha(c) || std::isupper(c);
                   });
  if (all_upper) {
    std::transform(corr.begin(), corr.end(), corr.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  } else if (std::isupper(static_cast<unsigned char>(word[0]))) {
    corr[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(corr[0])));
  }
  return corr;
}

// The one correction of the finding's word, or false with the refusal: a file type without a
// tokenizer for comments, no word or no single correction, or a word the code also uses.
bool typo_correction(const FileContext& ctx, const Finding& f, std::string* corr,
                     FixerOutput* out) {
  if (ctx.lang != Language::kPython && ctx.lang != Language::kCpp &&
      ctx.lang != Language::kMarkdown && ctx.lang != Language::kRst) {
    out->refusals.push_back({std::string("no tokenizer knows where comments and prose are in a ") +
                                 "file of this type, so a spelling fix cannot be proven safe here",
                             "Fix the spelling by hand if it is prose."});
    return false;
  }
  const std::string& word = f.word;
  *corr = f.correction;
  if (word.empty()) {
    out->refusals.push_back({"the report does not name the misspelt word", "Fix by hand."});
    return false;
  }
  if (corr->empty() && ctx.typos != nullptr) *corr = ctx.typos->correct(word);
  if (corr->empty() || corr->find_first_of(" ,") != std::string::npos) {
    out->refusals.push_back({"no single correction for `" + word + "` (" + f.message + ")",
                             "Choose the right word by hand."});
    return false;
  }
  if (ctx.identifier_words.count(lower(word))) {
    out->refusals.push_back(
        {"`" + word +
             "` is also an identifier (or part of one) in this file's code: a fix in the "
             "comment would no longer match the code, and renaming the code is not whitelisted",
         "Leave it, or rename the identifier by hand with a deprecation path if it is public "
         "API."});
    return false;
  }
  return true;
}

// Where an occurrence [b, e) of the word lies. Paths, file names, dotted names and URLs are not
// prose: they count as code.
Region typo_region(const FileContext& ctx, size_t b, size_t e) {
  char before = b > 0 ? ctx.text[b - 1] : ' ';
  char after = e < ctx.text.size() ? ctx.text[e] : ' ';
  if (before == '.' || before == '/' || before == '\\' || before == '-' || after == '/' ||
      after == '\\' || after == '-' ||
      (after == '.' && e + 1 < ctx.text.size() &&
       is_word_char(static_cast<unsigned char>(ctx.text[e + 1])))) {
    return Region::kCode;
  }
  return region_at(ctx, b);
}

}  // namespace

void typo(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
          const FixClass& klass, FixerOutput* out) {
  std::string corr;
  if (!typo_correction(ctx, f, &corr, out)) return;
  const std::string& word = f.word;
  uint32_t first = f.line == 0 ? 1 : f.line;
  uint32_t last = f.line == 0 ? static_cast<uint32_t>(ctx.lines->count()) : f.line;
  size_t want_off = 0;
  bool have_col = f.col > 0 && offset_of(ctx, f, &want_off);
  size_t fixed = 0, refused_string = 0, refused_code = 0, refused_directive = 0;
  for (uint32_t l = first; l <= last && l <= ctx.lines->count(); ++l) {
    size_t lb = ctx.lines->start(l);
    std::string_view content = ctx.lines->content(l);
    size_t p = 0;
    while ((p = content.find(word, p)) != std::string_view::npos) {
      size_t b = lb + p, e = b + word.size();
      p += word.size();
      if (!word_boundary(ctx.text, b, e)) continue;
      if (have_col && b != want_off) continue;
      Region r = typo_region(ctx, b, e);
      if (r == Region::kString) {
        ++refused_string;
        continue;
      }
      if (r == Region::kDirective) {
        ++refused_directive;
        continue;
      }
      if (r != Region::kComment) {
        ++refused_code;
        continue;
      }
      Candidate c =
          make(f, id, rule, klass, l, "correct `" + word + "` to `" + keep_case(word, corr) + "`");
      c.edits.push_back(
          Edit{static_cast<uint32_t>(b), static_cast<uint32_t>(e), keep_case(word, corr)});
      out->candidates.push_back(std::move(c));
      ++fixed;
    }
  }
  if (refused_string > 0) {
    out->refusals.push_back({"`" + word +
                                 "` is inside a string literal (or code span): changing it "
                                 "changes a value, a message other tools match, or an example",
                             "Fix by hand if the string is free prose no test or tool compares."});
  }
  if (refused_code > 0) {
    out->refusals.push_back({"`" + word + "` is part of an identifier, path or code, not prose",
                             "Leave it, or rename by hand with a deprecation path."});
  }
  if (refused_directive > 0) {
    out->refusals.push_back(
        {"`" + word + "` is in a comment tools obey (noqa, type:, NOLINT...)", "Leave it."});
  }
  if (fixed == 0 && out->refusals.empty()) {
    out->nothing_to_do = "`" + word + "` is not on line " + std::to_string(f.line) + " now";
  }
}

}  // namespace skillrt::ci_fix::detail
