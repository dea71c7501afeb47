#include "doc_index.hpp"

#include <cstdio>
#include <unordered_map>

#include "passage.hpp"
#include "plugin_io/sqlite.hpp"

namespace skillrt::torchnpu_helper {
namespace {

constexpr int kSchemaVersion = 10;
// bm25 column weights: a heading names the topic of every line under it.
constexpr double kHeadingWeight = 4.0;
constexpr double kBodyWeight = 1.0;

struct StoredFile {
  int64_t id = 0;
  int64_t mtime_ns = 0;
  int64_t size = 0;
  std::string hash;
};

std::string fts_query(const std::vector<QueryTerm>& terms) {
  std::string query;
  const auto add = [&](const std::string& term) {
    if (!query.empty()) query += " OR ";
    query += '"';
    for (char c : term) {
      if (c == '"') query += '"';
      query += c;
    }
    query += '"';
  };
  for (const QueryTerm& term : terms) {
    add(term.text);
    for (const std::string& synonym : term.synonyms) add(synonym);
  }
  return query;
}

}  // namespace

std::string content_hash(std::string_view bytes) {
  uint64_t hash = 1469598103934665603ULL;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(hash));
  return out;
}

DocIndex::DocIndex(const std::string& db_path)
    : db_(std::make_unique<plugin_io::Database>(db_path, true)) {
  db_->exec("PRAGMA journal_mode=WAL");
  db_->exec("PRAGMA synchronous=NORMAL");
  create_schema();
}

DocIndex::~DocIndex() = default;

void DocIndex::create_schema() {
  db_->exec("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT)");
  const std::string version = meta("schema_version");
  if (!version.empty() && version != std::to_string(kSchemaVersion)) {
    // An index from another layout is a cache: rebuild rather than migrate.
    db_->exec(
        "DROP TABLE IF EXISTS passages_vocab; DROP TABLE IF EXISTS passages_fts;"
        "DROP TABLE IF EXISTS passages; DROP TABLE IF EXISTS files;"
        "DROP TABLE IF EXISTS sources; DELETE FROM meta;");
  }
  db_->exec(
      "CREATE TABLE IF NOT EXISTS sources(id INTEGER PRIMARY KEY, kind TEXT, root TEXT UNIQUE,"
      " repo TEXT, commit_id TEXT);"
      "CREATE TABLE IF NOT EXISTS files(id INTEGER PRIMARY KEY, source_id INTEGER, path TEXT,"
      " repo TEXT, commit_id TEXT, mtime INTEGER, size INTEGER, hash TEXT,"
      " UNIQUE(source_id, repo, path));"
      "CREATE TABLE IF NOT EXISTS passages(id INTEGER PRIMARY KEY, file_id INTEGER, kind TEXT,"
      " heading TEXT, line_start INTEGER, line_end INTEGER, text TEXT, in_code INTEGER,"
      " context TEXT);"
      "CREATE INDEX IF NOT EXISTS passages_by_file ON passages(file_id);"
      "CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts USING fts5(heading, body,"
      " tokenize=\"unicode61 remove_diacritics 0 tokenchars '_.'\");"
      "CREATE VIRTUAL TABLE IF NOT EXISTS passages_vocab USING fts5vocab(passages_fts, 'row');");
  set_meta("schema_version", std::to_string(kSchemaVersion));
}

std::string DocIndex::meta(const std::string& key) const {
  auto stmt = db_->prepare("SELECT value FROM meta WHERE key = ?");
  stmt.bind(1, key);
  return stmt.step() ? stmt.column_text(0) : std::string();
}

void DocIndex::set_meta(const std::string& key, const std::string& value) {
  auto stmt = db_->prepare("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)");
  stmt.bind(1, key).bind(2, value).run();
}

int64_t DocIndex::source_id(const SourceInfo& source) {
  auto find = db_->prepare("SELECT id FROM sources WHERE root = ?");
  find.bind(1, source.root);
  if (find.step()) {
    const int64_t id = find.column_int(0);
    auto update = db_->prepare("UPDATE sources SET repo = ?, commit_id = ? WHERE id = ?");
    update.bind(1, source.repo).bind(2, source.commit).bind(3, id).run();
    return id;
  }
  auto insert = db_->prepare("INSERT INTO sources(kind, root, repo, commit_id) VALUES(?, ?, ?, ?)");
  insert.bind(1, source.kind).bind(2, source.root).bind(3, source.repo).bind(4, source.commit);
  insert.run();
  return db_->last_insert_rowid();
}

void DocIndex::drop_file_passages(int64_t file_id) {
  auto fts = db_->prepare(
      "DELETE FROM passages_fts WHERE rowid IN (SELECT id FROM passages WHERE file_id = ?)");
  fts.bind(1, file_id).run();
  auto rows = db_->prepare("DELETE FROM passages WHERE file_id = ?");
  rows.bind(1, file_id).run();
}

size_t DocIndex::write_passages(int64_t file_id, const FileEntry& entry, const std::string& text) {
  const std::vector<Passage> passages =
      entry.markdown ? split_markdown(text) : extract_source(entry.path, text);
  auto row = db_->prepare(
      "INSERT INTO passages(file_id, kind, heading, line_start, line_end, text, in_code, context)"
      " VALUES(?, ?, ?, ?, ?, ?, ?, ?)");
  auto fts = db_->prepare("INSERT INTO passages_fts(rowid, heading, body) VALUES(?, ?, ?)");
  for (const Passage& passage : passages) {
    row.bind(1, file_id).bind(2, passage.kind).bind(3, passage.heading);
    row.bind(4, static_cast<int64_t>(passage.line_start));
    row.bind(5, static_cast<int64_t>(passage.line_end)).bind(6, passage.text);
    row.bind(7, static_cast<int64_t>(passage.starts_in_code ? 1 : 0)).bind(8, passage.context);
    row.run();
    row.reset();
    // The file name is part of the heading: env var and API pages are named after the thing.
    fts.bind(1, db_->last_insert_rowid());
    fts.bind(2, segment_for_index(entry.path + " " + passage.heading));
    fts.bind(3, segment_for_index(passage.text));
    fts.run();
    fts.reset();
  }
  return passages.size();
}

SyncStats DocIndex::sync(const SourceInfo& source, const std::vector<FileEntry>& entries) {
  SyncStats stats;
  plugin_io::Transaction transaction(*db_);
  const int64_t sid = source_id(source);
  std::unordered_map<std::string, StoredFile> stored;
  {
    auto list =
        db_->prepare("SELECT id, repo, path, mtime, size, hash FROM files WHERE source_id = ?");
    list.bind(1, sid);
    while (list.step()) {
      stored[list.column_text(1) + "\t" + list.column_text(2)] = StoredFile{
          list.column_int(0), list.column_int(3), list.column_int(4), list.column_text(5)};
    }
  }
  auto touch = db_->prepare(
      "UPDATE files SET mtime = ?, size = ?, hash = ?, repo = ?,"
      " commit_id = ? WHERE id = ?");
  auto insert = db_->prepare(
      "INSERT INTO files(source_id, path, repo, commit_id, mtime, size, hash)"
      " VALUES(?, ?, ?, ?, ?, ?, ?)");
  for (const FileEntry& entry : entries) {
    ++stats.files;
    const auto found = stored.find(entry.repo + "\t" + entry.path);
    const bool known = found != stored.end();
    if (known && found->second.mtime_ns == entry.mtime_ns && found->second.size == entry.size) {
      ++stats.unchanged;
      stored.erase(found);
      continue;
    }
    const std::string text = entry.load();
    const std::string hash = content_hash(text);
    if (known) {
      const int64_t id = found->second.id;
      const bool same = found->second.hash == hash;
      touch.bind(1, entry.mtime_ns).bind(2, entry.size).bind(3, hash).bind(4, entry.repo);
      touch.bind(5, entry.commit).bind(6, id).run();
      touch.reset();
      stored.erase(found);
      if (same) {
        ++stats.unchanged;
        continue;
      }
      drop_file_passages(id);
      stats.passages_written += write_passages(id, entry, text);
      ++stats.changed;
      continue;
    }
    insert.bind(1, sid).bind(2, entry.path).bind(3, entry.repo).bind(4, entry.commit);
    insert.bind(5, entry.mtime_ns).bind(6, entry.size).bind(7, hash).run();
    insert.reset();
    stats.passages_written += write_passages(db_->last_insert_rowid(), entry, text);
    ++stats.added;
  }
  auto remove = db_->prepare("DELETE FROM files WHERE id = ?");
  for (const auto& [path, file] : stored) {
    drop_file_passages(file.id);
    remove.bind(1, file.id).run();
    remove.reset();
    ++stats.removed;
  }
  transaction.commit();
  return stats;
}

namespace {

// The columns read_hit() expects, after the id and the score.
constexpr const char* kHitColumns =
    "p.kind, p.heading, p.text, f.path, f.repo, f.commit_id, s.kind, p.line_start, p.line_end,"
    " p.in_code, p.context, p.file_id";

IndexHit read_hit(plugin_io::Statement& stmt) {
  IndexHit hit;
  hit.id = stmt.column_int(0);
  hit.bm25 = stmt.column_double(1);
  hit.kind = stmt.column_text(2);
  hit.heading = stmt.column_text(3);
  hit.text = stmt.column_text(4);
  hit.path = stmt.column_text(5);
  hit.repo = stmt.column_text(6);
  hit.commit = stmt.column_text(7);
  hit.source_kind = stmt.column_text(8);
  hit.line_start = stmt.column_int(9);
  hit.line_end = stmt.column_int(10);
  hit.starts_in_code = stmt.column_int(11) != 0;
  hit.context = stmt.column_text(12);
  hit.file_id = stmt.column_int(13);
  return hit;
}

}  // namespace

std::vector<IndexHit> DocIndex::search(const std::vector<QueryTerm>& terms, size_t limit) const {
  std::vector<IndexHit> hits;
  if (terms.empty()) return hits;
  auto stmt = db_->prepare(std::string("SELECT p.id, r.score, ") + kHitColumns +
                           " FROM (SELECT rowid AS id, bm25(passages_fts, ?, ?) AS score"
                           " FROM passages_fts WHERE passages_fts MATCH ? ORDER BY score LIMIT ?)"
                           " AS r JOIN passages p ON p.id = r.id JOIN files f ON f.id = p.file_id"
                           " JOIN sources s ON s.id = f.source_id ORDER BY r.score");
  stmt.bind(1, kHeadingWeight).bind(2, kBodyWeight).bind(3, fts_query(terms));
  stmt.bind(4, static_cast<int64_t>(limit));
  while (stmt.step()) hits.push_back(read_hit(stmt));
  return hits;
}

std::vector<IndexHit> DocIndex::file_passages(int64_t file_id) const {
  std::vector<IndexHit> hits;
  auto stmt = db_->prepare(std::string("SELECT p.id, 0.0, ") + kHitColumns +
                           " FROM passages p JOIN files f ON f.id = p.file_id"
                           " JOIN sources s ON s.id = f.source_id WHERE p.file_id = ?"
                           " ORDER BY p.line_start");
  stmt.bind(1, file_id);
  while (stmt.step()) hits.push_back(read_hit(stmt));
  return hits;
}

int64_t DocIndex::document_frequency(const std::string& term) const {
  auto stmt = db_->prepare("SELECT doc FROM passages_vocab WHERE term = ?");
  stmt.bind(1, term);
  return stmt.step() ? stmt.column_int(0) : 0;
}

int64_t DocIndex::passage_count() const {
  auto stmt = db_->prepare("SELECT count(*) FROM passages");
  return stmt.step() ? stmt.column_int(0) : 0;
}

}  // namespace skillrt::torchnpu_helper
