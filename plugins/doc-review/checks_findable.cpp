// findable 找得到: links and anchors resolve, and every page can be reached from an index.
#include <algorithm>
#include <deque>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include "checks.hpp"
#include "detail/api.hpp"
#include "detail/text.hpp"
#include "optoolkit/text.hpp"

namespace skillrt::doc_review {

namespace fs = std::filesystem;

namespace {

bool is_external(std::string_view target) {
  if (detail::starts_with(target, "//")) return true;
  size_t i = 0;
  if (target.empty() ||
      !((target[0] >= 'a' && target[0] <= 'z') || (target[0] >= 'A' && target[0] <= 'Z')))
    return false;
  while (i < target.size() && (detail::is_ident_char(target[i]) || target[i] == '+' ||
                               target[i] == '-' || target[i] == '.'))
    ++i;
  // "C:" would be a drive; every scheme in documentation is longer than one letter.
  return i > 1 && i < target.size() && target[i] == ':';
}

bool is_markdown_path(const fs::path& p) {
  const std::string ext = detail::lower_ascii(p.extension().string());
  return ext == ".md" || ext == ".markdown";
}

// Pages a reader starts from: README/index/SUMMARY/menu files, and pages that list many pages.
bool is_index_name(const fs::path& p) {
  std::string name = detail::lower_ascii(p.filename().string());
  while (!name.empty() && name[0] == '_') name.erase(0, 1);  // _menu_x.md, _sidebar.md
  for (const char* prefix : {"readme", "index", "summary", "sidebar", "toc", "menu"})
    if (detail::starts_with(name, prefix)) return true;
  return false;
}

struct Resolved {
  bool checkable = false;
  fs::path path;  // lexically normal, absolute
  std::string fragment;
};

Resolved resolve_link(const Page& page, const Link& link, const ReviewScope& scope) {
  Resolved r;
  std::string_view target = ops::trim_view(link.target);
  const size_t hash = target.find('#');
  std::string path_part(target.substr(0, hash));
  if (hash != std::string_view::npos) r.fragment = detail::percent_decode(target.substr(hash + 1));
  const size_t query = path_part.find('?');
  if (query != std::string::npos) path_part.resize(query);
  path_part = detail::percent_decode(path_part);
  if (path_part.empty()) {
    r.checkable = true;
    r.path = page.path;
    return r;
  }
  if (path_part[0] == '/') {
    scope.skip("site-absolute-link", "links with a site-absolute path",
               "a path starting with '/' depends on where the site is served; not resolved",
               page.rel + ":" + std::to_string(link.line) + ": " + link.target);
    return r;
  }
  r.checkable = true;
  r.path = (page.path.parent_path() / path_part).lexically_normal();
  return r;
}

// Files beside the missing one whose names are close: the likely intended target.
std::string suggest_file(const fs::path& missing) {
  std::error_code ec;
  const fs::path dir = missing.parent_path();
  if (!fs::is_directory(dir, ec)) return "";
  const std::string want = missing.filename().string();
  std::string best;
  size_t best_d = std::max<size_t>(3, want.size() / 3) + 1;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const size_t d = detail::edit_distance(want, name);
    if (d < best_d) {
      best_d = d;
      best = name;
    }
  }
  return best;
}

}  // namespace

void check_findable(const ReviewScope& scope) {
  // Pages outside the docs tree that links point at (for their anchors), read once.
  std::map<std::string, std::unique_ptr<Page>> outside;
  auto page_for = [&](const fs::path& p) -> const Page* {
    std::error_code ec;
    const fs::path canonical = fs::canonical(p, ec);
    if (ec) return nullptr;
    if (const Page* in = scope.page_at(canonical)) return in;
    auto& slot = outside[canonical.string()];
    if (!slot) {
      std::ifstream f(canonical, std::ios::binary);
      std::ostringstream ss;
      ss << f.rdbuf();
      slot = std::make_unique<Page>(parse_page(ss.str(), canonical, canonical.string()));
    }
    return slot.get();
  };

  // Link graph for reachability: canonical page -> pages it links.
  std::map<std::string, std::set<std::string>> edges;
  auto walk_links = [&](const Page& page, bool report) {
    for (const Link& link : page.links) {
      const std::string_view target = ops::trim_view(link.target);
      const std::string where = page.rel + ":" + std::to_string(link.line);
      if (target.empty()) {
        if (report) {
          scope.add({Axis::kFindable, Severity::kWarning, "empty-link", page.rel, link.line,
                     "link '" + detail::excerpt(link.text, 60) + "' has no target",
                     detail::excerpt(page.line(link.line)), "", "",
                     "point the link at the page or section it names, or remove the link"});
        }
        continue;
      }
      if (is_external(target) || target[0] == '<') {
        if (report)
          scope.skip("external-link", "external links (http, mailto, ...)",
                     "a static review does not use the network", where + ": " + link.target);
        continue;
      }
      const Resolved r = resolve_link(page, link, scope);
      if (!r.checkable) continue;
      std::error_code ec;
      const bool self = r.path == page.path;
      if (!self && !fs::exists(r.path, ec)) {
        if (!report) continue;
        const std::string near = suggest_file(r.path);
        Finding f{Axis::kFindable,
                  Severity::kError,
                  link.image ? "broken-image" : "broken-link",
                  page.rel,
                  link.line,
                  std::string(link.image ? "image" : "link") + " target '" + link.target +
                      "' does not exist (resolved to " +
                      r.path.lexically_relative(page.path.parent_path()).generic_string() + ")",
                  detail::excerpt(page.line(link.line)),
                  "",
                  "",
                  near.empty() ? "fix the path or remove the link"
                               : "did you mean '" + near + "'? fix the path"};
        scope.add(std::move(f));
        continue;
      }
      if (!self && is_markdown_path(r.path)) {
        const fs::path canonical = fs::canonical(r.path, ec);
        if (!ec) edges[page.path.string()].insert(canonical.string());
      }
      if (r.fragment.empty() || !report) continue;
      if (!self && !is_markdown_path(r.path)) continue;
      const Page* target_page = self ? &page : page_for(r.path);
      if (!target_page || target_page->has_anchor(r.fragment)) continue;
      std::string near;
      size_t best = std::max<size_t>(2, r.fragment.size() / 4) + 1;
      for (const std::string& a : target_page->anchors) {
        const size_t d = detail::edit_distance(r.fragment, a);
        if (d < best) {
          best = d;
          near = a;
        }
      }
      scope.add({Axis::kFindable, Severity::kWarning, "broken-anchor", page.rel, link.line,
                 "anchor '#" + r.fragment + "' does not exist in " +
                     (self ? std::string("this page") : "'" + target_page->rel + "'") +
                     "; the link opens the page's top instead of the section",
                 detail::excerpt(page.line(link.line)), "", "",
                 near.empty() ? "link to an existing heading's anchor or add <a id=\"" +
                                    r.fragment + "\"></a> at the section"
                              : "did you mean '#" + near + "'?"});
    }
  };

  for (const Page& page : scope.pages) {
    if (scope.cancelled && scope.cancelled()) return;
    walk_links(page, true);
  }

  if (scope.single_page) {
    scope.skip("orphan-check", "reachability from an index",
               "one page was given; reachability needs the whole docs tree");
    return;
  }
  for (const Page& entry : scope.entry_pages) walk_links(entry, false);

  // Roots: index pages of the tree and the checkout's README files.
  std::set<std::string> roots;
  for (const Page& page : scope.pages) {
    std::set<std::string> targets;
    const auto it = edges.find(page.path.string());
    if (it != edges.end()) targets = it->second;
    if (is_index_name(page.path) || targets.size() >= 10) roots.insert(page.path.string());
  }
  for (const Page& entry : scope.entry_pages) roots.insert(entry.path.string());
  if (roots.empty()) {
    scope.skip("orphan-check", "reachability from an index",
               "no index page (README.md, index.md, SUMMARY.md, menu*.md, or a page linking "
               "10 or more pages) in the tree");
    return;
  }
  std::set<std::string> reached(roots.begin(), roots.end());
  std::deque<std::string> queue(roots.begin(), roots.end());
  while (!queue.empty()) {
    const std::string cur = queue.front();
    queue.pop_front();
    const auto it = edges.find(cur);
    if (it == edges.end()) continue;
    for (const std::string& next : it->second)
      if (reached.insert(next).second) queue.push_back(next);
  }
  for (const Page& page : scope.pages) {
    if (reached.count(page.path.string())) continue;
    // The index closest to the page: in its folder, else the nearest folder above.
    std::string index_hint;
    size_t best_depth = 0;
    for (const std::string& r : roots) {
      const fs::path rp(r);
      const fs::path rel = page.path.parent_path().lexically_relative(rp.parent_path());
      if (rel.empty() || *rel.begin() == "..") continue;
      const size_t depth = static_cast<size_t>(std::distance(rp.begin(), rp.end()));
      if (depth > best_depth) {
        best_depth = depth;
        const Page* p = scope.page_at(rp);
        index_hint = p ? p->rel : rp.filename().string();
      }
    }
    scope.add({Axis::kFindable, Severity::kWarning, "orphan-page", page.rel, 1,
               "no index page links to this page (directly or through other pages), so a reader "
               "browsing the docs cannot find it",
               detail::excerpt(page.lines.empty() ? "" : page.lines[0]), "", "",
               index_hint.empty() ? "link it from the index page of its section"
                                  : "link it from '" + index_hint + "'"});
  }
}

}  // namespace skillrt::doc_review
