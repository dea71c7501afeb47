// Fixers that apply another tool's edits: clang-format's replacements and lintrunner's
// replacement hunks, each only where it changes whitespace.
#include <algorithm>

#include "fixer_kit.hpp"

namespace skillrt::ci_fix::detail {

namespace {

// Whitespace only; in C/C++ a backslash-newline (a line splice, removed in translation phase 2,
// which clang-format adds when it breaks a #define) counts as whitespace too. The proof decides.
bool all_space(std::string_view s, bool splices = false) {
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') continue;
    if (splices && c == '\\' && i + 1 < s.size() && (s[i + 1] == '\n' || s[i + 1] == '\r'))
      continue;
    return false;
  }
  return true;
}

std::string strip_space(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (!(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')) out += c;
  }
  return out;
}

}  // namespace

void clang_format_edit(const FileContext& ctx, const Finding& f, const Finding& repl, size_t id,
                       const Rule& rule, const FixClass& klass, FixerOutput* out) {
  std::string_view old = ctx.text.substr(repl.edit.begin, repl.edit.end - repl.edit.begin);
  bool cpp = ctx.lang == Language::kCpp;
  if (!all_space(old, cpp) || !all_space(repl.edit.text, cpp)) {
    out->refusals.push_back({"clang-format would " + repl.message +
                                 ": not a whitespace-only change (comment reflow or token edit)",
                             "Apply it by hand after checking it, or run clang-format on the file.",
                             repl.line});
    return;
  }
  Candidate c = make(f, id, rule, klass, repl.line, "clang-format: " + repl.message);
  c.edits.push_back(repl.edit);
  out->candidates.push_back(std::move(c));
}

namespace {

// Line diff (Myers, O((N+M)D)) between two texts; returns hunks as [a0,a1) x [b0,b1) line ranges.
struct LineHunk {
  size_t a0, a1, b0, b1;
};

std::vector<std::string_view> raw_lines(std::string_view s) {
  std::vector<std::string_view> out;
  size_t b = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n') {
      out.push_back(s.substr(b, i + 1 - b));
      b = i + 1;
    }
  }
  if (b < s.size()) out.push_back(s.substr(b));
  return out;
}

// Backtracks the Myers trace into the (x, y) pairs of matched lines, in order.
std::vector<std::pair<long, long>> matched_pairs(const std::vector<std::vector<long>>& trace,
                                                 long off, long found_d, long n, long m) {
  std::vector<std::pair<long, long>> path;
  long x = n, y = m;
  for (long d = found_d; d > 0; --d) {
    const auto& vv = trace[static_cast<size_t>(d)];
    long k = x - y;
    long pk;
    if (k == -d ||
        (k != d && vv[static_cast<size_t>(off + k - 1)] < vv[static_cast<size_t>(off + k + 1)])) {
      pk = k + 1;
    } else {
      pk = k - 1;
    }
    long px = vv[static_cast<size_t>(off + pk)];
    long py = px - pk;
    while (x > px && y > py) {
      path.emplace_back(x - 1, y - 1);
      --x;
      --y;
    }
    x = px;
    y = py;
  }
  while (x > 0 && y > 0) {
    path.emplace_back(x - 1, y - 1);
    --x;
    --y;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

std::vector<LineHunk> diff_lines(const std::vector<std::string_view>& a,
                                 const std::vector<std::string_view>& b) {
  // Trim common prefix and suffix first: formatter output usually differs in few places.
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre &&
         a[a.size() - 1 - suf] == b[b.size() - 1 - suf])
    ++suf;
  auto n = static_cast<long>(a.size() - pre - suf);
  auto m = static_cast<long>(b.size() - pre - suf);
  std::vector<LineHunk> hunks;
  if (n == 0 && m == 0) return hunks;
  long max = n + m;
  std::vector<long> v(static_cast<size_t>(2 * max + 2), 0);
  std::vector<std::vector<long>> trace;
  long off = max;
  long found_d = -1;
  for (long d = 0; d <= max; ++d) {
    trace.push_back(v);
    for (long k = -d; k <= d; k += 2) {
      long x;
      if (k == -d ||
          (k != d && v[static_cast<size_t>(off + k - 1)] < v[static_cast<size_t>(off + k + 1)])) {
        x = v[static_cast<size_t>(off + k + 1)];
      } else {
        x = v[static_cast<size_t>(off + k - 1)] + 1;
      }
      long y = x - k;
      while (x < n && y < m && a[pre + static_cast<size_t>(x)] == b[pre + static_cast<size_t>(y)]) {
        ++x;
        ++y;
      }
      v[static_cast<size_t>(off + k)] = x;
      if (x >= n && y >= m) {
        found_d = d;
        break;
      }
    }
    if (found_d >= 0) break;
  }
  const std::vector<std::pair<long, long>> path = matched_pairs(trace, off, found_d, n, m);
  long pa = 0, pb = 0;
  auto emit = [&](long ea, long eb) {
    if (ea > pa || eb > pb) {
      hunks.push_back({pre + static_cast<size_t>(pa), pre + static_cast<size_t>(ea),
                       pre + static_cast<size_t>(pb), pre + static_cast<size_t>(eb)});
    }
  };
  for (auto [mx, my] : path) {
    emit(mx, my);
    pa = mx + 1;
    pb = my + 1;
  }
  emit(n, m);
  return hunks;
}

}  // namespace

void replacement_hunks(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                       const FixClass& klass, FixerOutput* out) {
  if (!f.original || !f.replacement) {
    out->refusals.push_back({"the lintrunner message carries no original/replacement text",
                             "Run `lintrunner -a` or fix by hand."});
    return;
  }
  if (*f.original != ctx.text) {
    out->refusals.push_back({"stale report: lintrunner's `original` no longer matches the file",
                             "Re-run lintrunner and feed the new report."});
    return;
  }
  auto a = raw_lines(*f.original);
  auto b = raw_lines(*f.replacement);
  auto hunks = diff_lines(a, b);
  if (hunks.empty()) {
    out->nothing_to_do = "the replacement equals the file";
    return;
  }
  std::vector<size_t> a_start(a.size() + 1, 0);
  for (size_t k = 0; k < a.size(); ++k) a_start[k + 1] = a_start[k] + a[k].size();
  for (const LineHunk& h : hunks) {
    std::string old_text, new_text;
    for (size_t k = h.a0; k < h.a1; ++k) old_text += a[k];
    for (size_t k = h.b0; k < h.b1; ++k) new_text += b[k];
    auto line = static_cast<uint32_t>(h.a0 + 1);
    if (klass.name == "clang-format" && strip_space(old_text) != strip_space(new_text)) {
      out->refusals.push_back({"lintrunner's " + f.code + " hunk at line " + std::to_string(line) +
                                   " changes more than whitespace (comment reflow or token edit)",
                               "Apply that hunk by hand after checking it.", line});
      continue;
    }
    Candidate c = make(f, id, rule, klass, line,
                       f.code + " hunk: lines " + std::to_string(h.a0 + 1) + "-" +
                           std::to_string(std::max(h.a0 + 1, h.a1)));
    c.edits.push_back(
        Edit{static_cast<uint32_t>(a_start[h.a0]), static_cast<uint32_t>(a_start[h.a1]), new_text});
    out->candidates.push_back(std::move(c));
  }
}

}  // namespace skillrt::ci_fix::detail
