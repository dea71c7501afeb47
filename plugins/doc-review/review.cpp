#include "review.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "checks.hpp"
#include "code_index.hpp"
#include "detail/python_syntax.hpp"
#include "detail/text.hpp"
#include "plugin_io/atomic_file.hpp"
#include "report.hpp"

namespace skillrt::doc_review {

namespace fs = std::filesystem;

namespace {

constexpr uintmax_t kMaxPageBytes = 8u << 20;
constexpr const char* kMarkdownReport = "doc-review.md";
constexpr const char* kHtmlReport = "doc-review.html";

bool is_markdown(const fs::path& p) {
  const std::string ext = detail::lower_ascii(p.extension().string());
  return ext == ".md" || ext == ".markdown";
}

// `child` is `parent` or below it.
bool inside(const fs::path& child, const fs::path& parent) {
  const fs::path rel = child.lexically_relative(parent);
  return !rel.empty() && *rel.begin() != "..";
}

bool strictly_inside(const fs::path& child, const fs::path& parent) {
  return child != parent && inside(child, parent);
}

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

fs::path existing(const std::string& field, const std::string& value) {
  std::error_code ec;
  if (value.empty()) throw InputError("'" + field + "' is empty; give a path");
  const fs::path p = fs::canonical(value, ec);
  if (ec) {
    throw InputError("'" + field + "' path '" + value + "' does not exist (" + ec.message() +
                     "); check the path");
  }
  return p;
}

std::vector<fs::path> markdown_files(const fs::path& root, Skips* skips) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code fec;
    const std::string name = it->path().filename().string();
    if (it->is_directory(fec)) {
      if (!name.empty() && (name[0] == '.' || name == "node_modules"))
        it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(fec) || !is_markdown(it->path())) continue;
    if (it->file_size(fec) > kMaxPageBytes) {
      skips->add("page-too-large", "pages larger than 8 MiB", "not read",
                 it->path().lexically_relative(root).generic_string());
      continue;
    }
    out.push_back(fs::canonical(it->path(), fec));
  }
  std::sort(out.begin(), out.end());
  return out;
}

int severity_rank(std::string_view s) { return s == "error" ? 0 : s == "warning" ? 1 : 2; }

int axis_rank(std::string_view a) {
  int k = 0;
  for (Axis axis : kAllAxes) {
    if (to_string(axis) == a) return k;
    ++k;
  }
  return k;
}

Json finding_json(const Finding& f) {
  Json evidence = {{"doc", f.doc_text}};
  if (!f.code_ref.empty()) evidence["code_ref"] = f.code_ref;
  if (!f.code_text.empty()) evidence["code"] = f.code_text;
  return {{"axis", to_string(f.axis)},
          {"axis_zh", chinese_name(f.axis)},
          {"severity", to_string(f.severity)},
          {"rule", f.rule},
          {"page", f.page},
          {"line", f.line},
          {"message", f.message},
          {"evidence", evidence},
          {"suggestion", f.suggestion}};
}

}  // namespace

Json run_review(const Json& input, const ReviewHooks& hooks) {
  auto cancelled = [&] { return hooks.cancelled && hooks.cancelled(); };
  auto progress = [&](double done, double total, const std::string& msg) {
    if (hooks.progress) hooks.progress(done, total, msg);
  };

  // --- Input.
  const std::string docs_arg = input.value("docs", "");
  const fs::path docs = existing("docs", docs_arg);
  std::error_code ec;
  const bool single = fs::is_regular_file(docs, ec);
  if (!single && !fs::is_directory(docs, ec)) {
    throw InputError("'docs' path '" + docs_arg +
                     "' is neither a file nor a folder; give a Markdown page or a docs folder");
  }
  if (single && !is_markdown(docs)) {
    throw InputError("'docs' file '" + docs_arg +
                     "' is not Markdown (.md or .markdown); give a Markdown page or a folder of "
                     "them");
  }
  const fs::path docs_root = single ? docs.parent_path() : docs;

  std::optional<fs::path> code_root;
  if (input.contains("code") && !input["code"].is_null()) {
    const std::string code_arg = input["code"].get<std::string>();
    code_root = existing("code", code_arg);
    if (!fs::is_directory(*code_root, ec)) {
      throw InputError("'code' path '" + code_arg +
                       "' is not a folder; give the root of the checkout (op-plugin, torch_npu or "
                       "an AscendC operator project)");
    }
  }

  std::optional<fs::path> output_dir;
  if (input.contains("output_dir") && !input["output_dir"].is_null()) {
    const std::string out_arg = input["output_dir"].get<std::string>();
    if (out_arg.empty()) throw InputError("'output_dir' is empty; give a folder for the reports");
    const fs::path out = fs::weakly_canonical(fs::absolute(out_arg), ec);
    if (ec) throw InputError("'output_dir' '" + out_arg + "' cannot be resolved: " + ec.message());
    if (!single && (out == docs_root || inside(out, docs_root))) {
      throw InputError("'output_dir' '" + out_arg + "' is inside the docs tree '" +
                       docs_root.string() +
                       "'; the review never writes into the docs: choose a folder outside it");
    }
    if (single && out == docs_root) {
      throw InputError("'output_dir' '" + out_arg +
                       "' is the folder of the page under review; "
                       "the review never writes next to the docs: choose another folder");
    }
    if (fs::exists(out, ec) && !fs::is_directory(out, ec)) {
      throw InputError("'output_dir' '" + out_arg +
                       "' exists and is not a folder; choose a "
                       "folder for the reports");
    }
    output_dir = out;
  }

  std::vector<Axis> axes;
  if (input.contains("axes")) {
    for (const Json& a : input["axes"]) {
      const auto axis = parse_axis(a.get<std::string>());
      if (!axis) {
        throw InputError("'axes' has unknown axis '" + a.get<std::string>() +
                         "'; use findable, trustworthy, learnable, operable or readable");
      }
      if (std::find(axes.begin(), axes.end(), *axis) == axes.end()) axes.push_back(*axis);
    }
  }
  if (axes.empty()) axes.assign(kAllAxes.begin(), kAllAxes.end());
  const size_t max_findings = input.value("max_findings", size_t{500});

  // --- Pages.
  Skips skips;
  const std::vector<fs::path> files =
      single ? std::vector<fs::path>{docs} : markdown_files(docs_root, &skips);
  if (files.empty()) {
    throw InputError("'docs' folder '" + docs_arg +
                     "' holds no Markdown pages (.md); give a docs folder or one page");
  }
  ReviewScope scope;
  scope.docs_root = docs_root;
  scope.single_page = single;
  scope.skips = &skips;
  scope.cancelled = cancelled;
  if (input.contains("long_sentence_units"))
    scope.limits.long_sentence_units = input["long_sentence_units"].get<int>();
  const double total = static_cast<double>(files.size()) + 1 + static_cast<double>(axes.size());
  double done = 0;
  for (const fs::path& f : files) {
    if (cancelled()) throw Cancelled("cancelled while reading the pages");
    const std::string rel =
        single ? f.filename().string() : f.lexically_relative(docs_root).generic_string();
    scope.page_by_path[f.string()] = scope.pages.size();
    scope.pages.push_back(parse_page(read_file(f), f, rel));
    progress(++done, total, "read " + rel);
  }

  // --- Code.
  CodeIndex code;
  if (code_root) {
    std::vector<fs::path> exclude;
    // Non-Markdown files of a docs folder inside the checkout (snippets, figures) are not code:
    // a name only the docs carry must not confirm itself.
    if (!single && strictly_inside(docs_root, *code_root)) exclude.push_back(docs_root);
    IndexHooks ih;
    ih.cancelled = cancelled;
    try {
      code = build_code_index(*code_root, exclude, ih);
    } catch (const std::invalid_argument& e) {
      throw InputError(e.what());
    } catch (const std::runtime_error& e) {
      if (cancelled()) throw Cancelled(e.what());
      throw;
    }
    scope.code = &code;
    for (const std::string& note : code.notes)
      skips.add("code-file", "code files not read", "larger than the 4 MiB limit", note);
    // The checkout's README files lead into the docs tree: they count as index pages.
    if (!single && strictly_inside(docs_root, *code_root)) {
      for (fs::path dir = docs_root.parent_path();; dir = dir.parent_path()) {
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
          const fs::path& p = it->path();
          const std::string name = detail::lower_ascii(p.filename().string());
          const bool wanted =
              dir == *code_root ? is_markdown(p) : detail::starts_with(name, "readme");
          if (!wanted || !it->is_regular_file(ec)) continue;
          const fs::path c = fs::canonical(p, ec);
          if (ec) continue;
          scope.entry_pages.push_back(
              parse_page(read_file(c), c, c.lexically_relative(*code_root).generic_string()));
        }
        if (dir == *code_root || dir == dir.parent_path()) break;
      }
    }
  }
  progress(++done, total, code_root ? "read the code checkout" : "no code checkout");

  // --- Checks.
  const bool want_operable = std::find(axes.begin(), axes.end(), Axis::kOperable) != axes.end();
  if (want_operable) scope.python = detail::find_python();
  std::vector<Finding> findings;
  scope.emit = [&findings](Finding f) { findings.push_back(std::move(f)); };
  for (Axis axis : axes) {
    if (cancelled())
      throw Cancelled("cancelled during the " + std::string(to_string(axis)) + " checks");
    switch (axis) {
      case Axis::kFindable:
        check_findable(scope);
        break;
      case Axis::kTrustworthy:
        check_trustworthy(scope);
        break;
      case Axis::kLearnable:
        check_learnable(scope);
        break;
      case Axis::kOperable:
        check_operable(scope);
        break;
      case Axis::kReadable:
        check_readable(scope);
        break;
    }
    progress(++done, total, std::string(to_string(axis)) + " checked");
  }
  if (cancelled()) throw Cancelled("cancelled during the checks");

  // --- Result.
  std::vector<Json> all;
  all.reserve(findings.size());
  for (const Finding& f : findings) all.push_back(finding_json(f));
  std::stable_sort(all.begin(), all.end(), [](const Json& a, const Json& b) {
    const auto key = [](const Json& j) {
      return std::make_tuple(severity_rank(j["severity"].get<std::string>()),
                             axis_rank(j["axis"].get<std::string>()), j["page"].get<std::string>(),
                             j["line"].get<int>());
    };
    return key(a) < key(b);
  });
  Json counts = Json::object();
  for (Axis axis : axes)
    counts[std::string(to_string(axis))] = {{"error", 0}, {"warning", 0}, {"info", 0}};
  size_t errors = 0, warnings = 0, infos = 0;
  for (const Json& f : all) {
    const std::string sev = f["severity"];
    counts[f["axis"].get<std::string>()][sev] =
        counts[f["axis"].get<std::string>()][sev].get<int>() + 1;
    (sev == "error" ? errors : sev == "warning" ? warnings : infos)++;
  }
  Json shown = Json::array();
  for (size_t k = 0; k < all.size() && k < max_findings; ++k) shown.push_back(all[k]);

  Json skipped = Json::array();
  for (const auto& [key, e] : skips.entries) {
    Json s = {{"what", e.what}, {"count", e.count}, {"reason", e.reason}};
    if (!e.example.empty()) s["example"] = e.example;
    skipped.push_back(s);
  }
  Json axes_json = Json::array();
  for (Axis a : axes) axes_json.push_back(to_string(a));

  Json result = {{"docs", docs.string()},
                 {"pages", scope.pages.size()},
                 {"axes", axes_json},
                 {"summary",
                  {{"findings", all.size()},
                   {"errors", errors},
                   {"warnings", warnings},
                   {"infos", infos},
                   {"shown", shown.size()},
                   {"truncated", shown.size() < all.size()}}},
                 {"counts", counts},
                 {"findings", shown},
                 {"skipped", skipped},
                 {"limits", {{"long_sentence_units", scope.limits.long_sentence_units}}}};
  result["code"] = code_root ? Json(code_root->string()) : Json(nullptr);
  result["code_kind"] = code_root ? Json(std::string(to_string(code.kind))) : Json(nullptr);
  if (want_operable) result["python"] = scope.python.empty() ? Json(nullptr) : Json(scope.python);

  if (output_dir) {
    fs::create_directories(*output_dir, ec);
    if (ec) {
      throw InputError("cannot create 'output_dir' '" + output_dir->string() +
                       "': " + ec.message() + "; choose a writable folder");
    }
    const auto md = plugin_io::path_under(*output_dir, kMarkdownReport);
    const auto html = plugin_io::path_under(*output_dir, kHtmlReport);
    if (!md || !html) {
      throw InputError("the reports would leave 'output_dir' '" + output_dir->string() +
                       "' (a symbolic link points elsewhere); choose a plain folder");
    }
    result["reports"] = {{"markdown", md->string()}, {"html", html->string()}};
    plugin_io::write_file_atomic(*md, render_markdown(result));
    plugin_io::write_file_atomic(*html, render_html(result));
  }
  return result;
}

}  // namespace skillrt::doc_review
