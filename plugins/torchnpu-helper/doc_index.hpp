// The passage index: one SQLite file holding the passages of the bundled docs and of any
// checkouts, an FTS5 table over their segmented terms (bm25 ranking), and per-file mtime, size
// and content hash so a re-sync re-reads only what changed.
#ifndef SKILLRT_TORCHNPU_HELPER_DOC_INDEX_HPP_
#define SKILLRT_TORCHNPU_HELPER_DOC_INDEX_HPP_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "segmenter.hpp"

namespace skillrt::plugin_io {
class Database;
}

namespace skillrt::torchnpu_helper {

struct SourceInfo {
  std::string kind;    // "bundled" or "checkout"
  std::string root;    // "bundled" or the checkout's absolute path
  std::string repo;    // "Ascend/pytorch", "Ascend/op-plugin" or "local"
  std::string commit;  // full hash when known
};

struct FileEntry {
  std::string path;  // relative to the source root, as cited
  std::string repo;  // overrides the source's repo (the bundle mixes two repositories)
  std::string commit;
  int64_t mtime_ns = 0;
  int64_t size = 0;
  bool markdown = true;
  std::function<std::string()> load;  // called only when mtime or size changed
};

struct SyncStats {
  size_t files = 0;
  size_t added = 0;
  size_t changed = 0;
  size_t unchanged = 0;
  size_t removed = 0;
  size_t passages_written = 0;
};

struct IndexHit {
  int64_t id = 0;
  int64_t file_id = 0;
  double bm25 = 0;  // FTS5 bm25(): lower is better
  std::string kind;
  std::string heading;
  std::string text;
  std::string path;
  std::string repo;
  std::string commit;
  std::string source_kind;
  int64_t line_start = 0;
  int64_t line_end = 0;
  bool starts_in_code = false;  // see Passage::starts_in_code
  std::string context;          // see Passage::context
};

class DocIndex {
 public:
  explicit DocIndex(const std::string& db_path);
  ~DocIndex();
  DocIndex(const DocIndex&) = delete;
  DocIndex& operator=(const DocIndex&) = delete;

  // Brings one source in line with `entries`: new and changed files are (re)split, files no
  // longer listed are dropped. Changed means mtime or size differ and then the hash differs.
  SyncStats sync(const SourceInfo& source, const std::vector<FileEntry>& entries);

  std::string meta(const std::string& key) const;
  void set_meta(const std::string& key, const std::string& value);

  // Passages matching any of the terms, best bm25 first (headings weigh more than bodies).
  std::vector<IndexHit> search(const std::vector<QueryTerm>& terms, size_t limit) const;

  // Every passage of one file, in line order.
  std::vector<IndexHit> file_passages(int64_t file_id) const;

  // How many passages contain the term (0 when none).
  int64_t document_frequency(const std::string& term) const;
  int64_t passage_count() const;

 private:
  void create_schema();
  int64_t source_id(const SourceInfo& source);
  void drop_file_passages(int64_t file_id);
  size_t write_passages(int64_t file_id, const FileEntry& entry, const std::string& text);

  std::unique_ptr<plugin_io::Database> db_;
};

// FNV-1a 64 of the bytes, as 16 hex digits: the change detector behind mtime and size.
std::string content_hash(std::string_view bytes);

}  // namespace skillrt::torchnpu_helper

#endif  // SKILLRT_TORCHNPU_HELPER_DOC_INDEX_HPP_
