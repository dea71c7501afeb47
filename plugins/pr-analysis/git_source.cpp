#include "git_source.hpp"

#include <git2.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <set>

#include "detail/op_excerpt.hpp"
#include "errors.hpp"
#include "pr_map.hpp"

namespace skillrt::pr_analysis {
namespace {

// Commits older than `since` that may still precede newer ones in time order (clock skew
// between authors and the merge bot); after this many in a row the walk stops.
constexpr int kOldStreakLimit = 100;
// Operator-file versions kept (two files, a few versions each; ~600 KB per version).
constexpr size_t kRecentBlobs = 6;

std::string git_message(const char* what) {
  const git_error* e = git_error_last();
  return std::string(what) + ": " + (e != nullptr && e->message != nullptr ? e->message : "?");
}

template <typename T, void (*Free)(T*)>
struct Owned {
  T* p = nullptr;
  ~Owned() {
    if (p != nullptr) Free(p);
  }
  Owned() = default;
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
};

using Commit = Owned<git_commit, git_commit_free>;
using Tree = Owned<git_tree, git_tree_free>;
using Diff = Owned<git_diff, git_diff_free>;
using Patch = Owned<git_patch, git_patch_free>;
using Blob = Owned<git_blob, git_blob_free>;
using Walk = Owned<git_revwalk, git_revwalk_free>;
using Object = Owned<git_object, git_object_free>;

std::string oid_hex(const git_oid* oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof(buf), oid);
  return buf;
}

// One view per line; a 16k-line native_functions.yaml costs one vector, not 16k strings.
std::vector<NumberedLine> split_lines(const std::string& text) {
  std::vector<NumberedLine> out;
  out.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  const std::string_view all(text);
  size_t start = 0;
  size_t line = 1;
  while (start < all.size()) {
    size_t end = all.find('\n', start);
    if (end == std::string_view::npos) end = all.size();
    out.push_back({line++, all.substr(start, end - start)});
    start = end + 1;
  }
  return out;
}

const char* status_name(git_delta_t s) {
  switch (s) {
    case GIT_DELTA_ADDED:
      return "added";
    case GIT_DELTA_DELETED:
      return "removed";
    case GIT_DELTA_RENAMED:
      return "renamed";
    case GIT_DELTA_COPIED:
      return "copied";
    default:
      return "modified";
  }
}

}  // namespace

struct GitSource::Impl {
  git_repository* repo = nullptr;
  std::string path;
  ~Impl() {
    if (repo != nullptr) git_repository_free(repo);
  }

  // Recent operator-file versions by blob id. In a linear history the old version of a change
  // to native_functions.yaml is the new version of the previous change to it; reading it from
  // the pack again would replay its delta chain (inflating every base) a second time.
  std::deque<std::pair<std::string, std::shared_ptr<const std::string>>> recent_blobs;

  // The blob's text, or an empty text for the zero id (the missing side of an add/delete).
  std::shared_ptr<const std::string> blob_text(const git_oid& id) {
    if (git_oid_is_zero(&id)) return std::make_shared<const std::string>();
    const std::string hex = oid_hex(&id);
    for (const auto& [key, text] : recent_blobs) {
      if (key == hex) return text;
    }
    Blob blob;
    if (git_blob_lookup(&blob.p, repo, &id) != 0) {
      throw InputError(git_message(("blob " + hex).c_str()));
    }
    auto text =
        std::make_shared<const std::string>(static_cast<const char*>(git_blob_rawcontent(blob.p)),
                                            static_cast<size_t>(git_blob_rawsize(blob.p)));
    recent_blobs.emplace_back(hex, text);
    if (recent_blobs.size() > kRecentBlobs) recent_blobs.pop_front();
    return text;
  }
};

GitSource::GitSource(const std::string& path) : impl_(std::make_unique<Impl>()) {
  static const bool kInit = [] {
    git_libgit2_init();
    // libgit2 re-hashes every object it reads (SHA-1 with collision detection) to verify it;
    // git does not, and on a diff-heavy walk that hashing costs as much as the diffs. The
    // objects come from the user's own clone, which git already verified when fetching.
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
    return true;
  }();
  (void)kInit;
  impl_->path = path;
  if (git_repository_open_ext(&impl_->repo, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) !=
      0) {
    impl_->repo = nullptr;
    throw InputError("repo '" + path + "' is not a git repository (" + git_message("libgit2") +
                     "); pass the path of a PyTorch clone, or use source: github");
  }
}

GitSource::~GitSource() = default;

Selection GitSource::select(const LocalQuery& q) {
  Selection sel;
  Walk walk;
  if (git_revwalk_new(&walk.p, impl_->repo) != 0) throw InputError(git_message("revwalk"));
  git_revwalk_sorting(walk.p, GIT_SORT_TIME);
  git_revwalk_simplify_first_parent(walk.p);
  if (!q.rev_range.empty()) {
    if (q.rev_range.find("..") == std::string::npos) {
      throw InputError("rev_range '" + q.rev_range +
                       "' is not a range: write it as A..B (e.g. v2.10.0..v2.11.0)");
    }
    git_revspec spec;
    if (git_revparse(&spec, impl_->repo, q.rev_range.c_str()) != 0) {
      throw InputError("rev_range '" + q.rev_range + "' does not exist in " + impl_->path + " (" +
                       git_message("libgit2") +
                       "); check both ends with `git rev-parse` and fetch missing tags");
    }
    Object from;
    Object to;
    from.p = spec.from;
    to.p = spec.to;
    if (from.p == nullptr || to.p == nullptr) {
      throw InputError("rev_range '" + q.rev_range + "' needs both ends: write it as A..B");
    }
    git_revwalk_push(walk.p, git_object_id(to.p));
    git_revwalk_hide(walk.p, git_object_id(from.p));
  } else {
    Object head;
    if (git_revparse_single(&head.p, impl_->repo, q.ref.c_str()) != 0) {
      if (q.ref == "HEAD" && git_repository_head_unborn(impl_->repo) == 1) {
        sel.empty_reason = "repo '" + impl_->path + "' has no commits yet (HEAD is unborn)";
        return sel;
      }
      throw InputError("ref '" + q.ref + "' does not exist in " + impl_->path + " (" +
                       git_message("libgit2") + "); pass an existing branch or tag as `ref`");
    }
    Object peeled;
    if (git_object_peel(&peeled.p, head.p, GIT_OBJECT_COMMIT) != 0) {
      throw InputError("ref '" + q.ref + "' does not name a commit in " + impl_->path);
    }
    git_revwalk_push(walk.p, git_object_id(peeled.p));
  }

  const std::set<int64_t> wanted(q.prs.begin(), q.prs.end());
  std::set<int64_t> found;
  git_oid oid;
  int old_streak = 0;
  int64_t newest_seen = 0;
  int64_t oldest_seen = 0;
  size_t examined = 0;
  while (git_revwalk_next(&oid, walk.p) == 0) {
    Commit c;
    if (git_commit_lookup(&c.p, impl_->repo, &oid) != 0) continue;
    const int64_t t = static_cast<int64_t>(git_commit_time(c.p));
    if (examined++ == 0) newest_seen = t;
    oldest_seen = t;
    if (q.until && t > *q.until) continue;
    if (q.since && t < *q.since) {
      if (++old_streak >= kOldStreakLimit) break;
      continue;
    }
    old_streak = 0;
    if (!wanted.empty()) {
      const PrLink link = map_commit_to_pr(git_commit_message(c.p));
      if (!link.pr || wanted.count(*link.pr) == 0) continue;
      found.insert(*link.pr);
    }
    if (sel.shas.size() >= q.max_commits) {
      sel.truncated = true;
      break;
    }
    sel.shas.push_back(oid_hex(&oid));
  }
  std::reverse(sel.shas.begin(), sel.shas.end());
  for (int64_t n : wanted) {
    if (found.count(n) == 0) sel.prs_not_found.push_back(n);
  }
  if (!sel.shas.empty()) return sel;
  if (!wanted.empty()) {
    std::string list;
    for (int64_t n : wanted) list += (list.empty() ? "#" : ", #") + std::to_string(n);
    sel.empty_reason = "none of the PRs " + list + " is named by a commit message (trailer, " +
                       "title suffix or revert line) among " + std::to_string(examined) +
                       " commits examined in " + impl_->path;
  } else if (!q.rev_range.empty()) {
    sel.empty_reason = "rev_range '" + q.rev_range +
                       "' selects no commits: its right end is an ancestor of (or equal to) its "
                       "left end; swap them?";
  } else if (examined == 0) {
    sel.empty_reason = "ref '" + q.ref + "' has no commits";
  } else {
    sel.empty_reason = "no commits on '" + q.ref + "' between " +
                       (q.since ? format_time(*q.since) : std::string("the start")) + " and " +
                       (q.until ? format_time(*q.until) : std::string("now")) + " in " +
                       impl_->path + "; the newest commit is from " + format_time(newest_seen) +
                       " and the oldest examined from " + format_time(oldest_seen);
  }
  return sel;
}

ChangeSet GitSource::load(const std::string& sha) {
  git_oid oid;
  if (git_oid_fromstr(&oid, sha.c_str()) != 0) throw InputError("bad commit id '" + sha + "'");
  Commit c;
  if (git_commit_lookup(&c.p, impl_->repo, &oid) != 0) {
    throw InputError(git_message(("commit " + sha).c_str()));
  }
  ChangeSet cs;
  cs.sha = sha;
  const char* msg = git_commit_message(c.p);
  cs.message = msg != nullptr ? msg : "";
  cs.title = message_title(cs.message);
  const git_signature* author = git_commit_author(c.p);
  if (author != nullptr) {
    cs.author = std::string(author->name ? author->name : "") + " <" +
                (author->email ? author->email : "") + ">";
  }
  cs.time = static_cast<int64_t>(git_commit_time(c.p));
  const PrLink link = map_commit_to_pr(cs.message);
  cs.pr = link.pr;
  cs.pr_source = link.source;
  cs.revert = link.revert;
  cs.reverted_sha = link.reverted_sha;

  Tree tree;
  Tree parent_tree;
  if (git_commit_tree(&tree.p, c.p) != 0) throw InputError(git_message("commit tree"));
  if (git_commit_parentcount(c.p) > 0) {
    Commit parent;
    if (git_commit_parent(&parent.p, c.p, 0) != 0 ||
        git_commit_tree(&parent_tree.p, parent.p) != 0) {
      throw InputError(git_message(("parent of " + sha).c_str()));
    }
  }
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  // No context: evidence names the changed lines themselves.
  opts.context_lines = 0;
  opts.interhunk_lines = 0;
  Diff diff;
  if (git_diff_tree_to_tree(&diff.p, impl_->repo, parent_tree.p, tree.p, &opts) != 0) {
    throw InputError(git_message(("diff of " + sha).c_str()));
  }
  git_diff_find_options find = GIT_DIFF_FIND_OPTIONS_INIT;
  find.flags = GIT_DIFF_FIND_RENAMES;
  git_diff_find_similar(diff.p, &find);

  const size_t n = git_diff_num_deltas(diff.p);
  cs.files.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const git_diff_delta* delta = git_diff_get_delta(diff.p, i);
    FileDiff f;
    Patch patch;
    const bool op_file =
        detail::operator_file_format(delta->status == GIT_DELTA_DELETED
                                         ? delta->old_file.path
                                         : delta->new_file.path) != ops::SourceFormat::kUnknown;
    if (op_file) {
      // Operator files are read once: the same blobs give the patch and the versions the
      // operator diff reads.
      f.old_text = impl_->blob_text(delta->old_file.id);
      f.new_text = impl_->blob_text(delta->new_file.id);
      if (git_patch_from_buffers(&patch.p, f.old_text->data(), f.old_text->size(),
                                 delta->old_file.path, f.new_text->data(), f.new_text->size(),
                                 delta->new_file.path, &opts) != 0) {
        continue;
      }
    } else if (git_patch_from_diff(&patch.p, diff.p, i) != 0) {
      continue;
    }
    const char* new_path = delta->new_file.path;
    const char* old_path = delta->old_file.path;
    f.status = status_name(delta->status);
    f.path = delta->status == GIT_DELTA_DELETED ? old_path : new_path;
    f.old_path = old_path;
    f.binary = (delta->flags & GIT_DIFF_FLAG_BINARY) != 0;
    if (patch.p == nullptr) {
      cs.files.push_back(std::move(f));
      continue;
    }
    size_t context = 0;
    size_t adds = 0;
    size_t dels = 0;
    git_patch_line_stats(&context, &adds, &dels, patch.p);
    f.additions = adds;
    f.deletions = dels;
    const size_t hunks = git_patch_num_hunks(patch.p);
    f.hunks.reserve(hunks);
    for (size_t h = 0; h < hunks; ++h) {
      const git_diff_hunk* gh = nullptr;
      size_t lines = 0;
      if (git_patch_get_hunk(&gh, &lines, patch.p, h) != 0) continue;
      Hunk hunk;
      hunk.old_start = static_cast<size_t>(gh->old_start);
      hunk.old_lines = static_cast<size_t>(gh->old_lines);
      hunk.new_start = static_cast<size_t>(gh->new_start);
      hunk.new_lines = static_cast<size_t>(gh->new_lines);
      hunk.lines.reserve(lines);
      for (size_t l = 0; l < lines; ++l) {
        const git_diff_line* gl = nullptr;
        if (git_patch_get_line_in_hunk(&gl, patch.p, h, l) != 0) continue;
        if (gl->origin != '+' && gl->origin != '-' && gl->origin != ' ') continue;
        size_t len = gl->content_len;
        while (len > 0 && (gl->content[len - 1] == '\n' || gl->content[len - 1] == '\r')) --len;
        DiffLine dl;
        dl.origin = gl->origin;
        dl.old_line = gl->old_lineno > 0 ? static_cast<size_t>(gl->old_lineno) : 0;
        dl.new_line = gl->new_lineno > 0 ? static_cast<size_t>(gl->new_lineno) : 0;
        dl.text.assign(gl->content, len);
        hunk.lines.push_back(std::move(dl));
      }
      f.hunks.push_back(std::move(hunk));
    }
    if (op_file && !f.binary) {
      f.has_versions = true;
      f.old_version = split_lines(*f.old_text);
      f.new_version = split_lines(*f.new_text);
    }
    cs.files.push_back(std::move(f));
  }
  return cs;
}

std::optional<int64_t> parse_date(const std::string& text, bool end_of_day) {
  int y = 0;
  int mo = 0;
  int d = 0;
  int h = 0;
  int mi = 0;
  int s = 0;
  char tail = 0;
  std::tm tm{};
  if (text.size() == 10 && std::sscanf(text.c_str(), "%4d-%2d-%2d%c", &y, &mo, &d, &tail) == 3) {
    if (end_of_day) {
      h = 23;
      mi = 59;
      s = 59;
    }
  } else if (text.size() == 20 &&
             std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2dZ", &y, &mo, &d, &h, &mi, &s) == 6 &&
             text.back() == 'Z') {
  } else {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return std::nullopt;
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return static_cast<int64_t>(timegm(&tm));
}

std::string format_time(int64_t t) {
  const std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace skillrt::pr_analysis
