#include "history_store.hpp"

#include <sqlite3.h>

#include <chrono>
#include <ctime>

#include "plugin_io/sqlite.hpp"

namespace skillrt::daily_trackers {
namespace {

using plugin_io::Statement;

// Each entry moves the schema from version i to i + 1 (PRAGMA user_version); entries are only
// ever appended, so an old history file is upgraded in place and never rebuilt.
constexpr const char* kMigrations[] = {
    // 1: runs, checkpoints, items (latest state) and per-run snapshots, benchmark points.
    "CREATE TABLE runs(id INTEGER PRIMARY KEY, skill TEXT NOT NULL, run_key TEXT NOT NULL,"
    " started_at TEXT NOT NULL, finished_at TEXT);"
    "CREATE TABLE checkpoints(run_id INTEGER NOT NULL, source TEXT NOT NULL, cursor TEXT NOT NULL,"
    " done INTEGER NOT NULL, error TEXT, PRIMARY KEY(run_id, source));"
    "CREATE TABLE items(repo TEXT NOT NULL, item_key TEXT NOT NULL, first_run INTEGER NOT NULL,"
    " last_run INTEGER NOT NULL, data TEXT NOT NULL, fetched_at TEXT NOT NULL,"
    " PRIMARY KEY(repo, item_key));"
    "CREATE TABLE item_snapshots(run_id INTEGER NOT NULL, repo TEXT NOT NULL,"
    " item_key TEXT NOT NULL, source TEXT NOT NULL, data TEXT NOT NULL,"
    " fetched_at TEXT NOT NULL, PRIMARY KEY(run_id, repo, item_key));"
    "CREATE TABLE bench_points(run_id INTEGER NOT NULL, point_key TEXT NOT NULL,"
    " source TEXT NOT NULL, data TEXT NOT NULL, fetched_at TEXT NOT NULL,"
    " PRIMARY KEY(run_id, point_key));",
    // 2: the look-ups change detection makes on every item and point.
    "CREATE INDEX item_snapshots_by_item ON item_snapshots(repo, item_key, run_id);"
    "CREATE INDEX runs_by_skill ON runs(skill, finished_at, id);",
};
constexpr int kSchemaVersion = static_cast<int>(sizeof(kMigrations) / sizeof(kMigrations[0]));

std::string now_text() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

HistoryStore::HistoryStore(const std::string& path) : path_(path) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    const std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw InputError("history database '" + path + "' cannot be opened (" + why +
                     "); pass a writable path as `db`");
  }
  sqlite3_busy_timeout(db_, 10000);
  try {
    exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
    migrate();
  } catch (const std::runtime_error& e) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw InputError("history database '" + path + "': " + e.what() +
                     "; point `db` at a tracker history file or a new path");
  }
}

HistoryStore::~HistoryStore() { sqlite3_close(db_); }

void HistoryStore::exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string why = err != nullptr ? err : "unknown error";
    sqlite3_free(err);
    throw std::runtime_error(why);
  }
}

int HistoryStore::schema_version() {
  Statement s(db_, "PRAGMA user_version");
  return s.step() ? static_cast<int>(s.column_int(0)) : 0;
}

void HistoryStore::migrate() {
  const int version = schema_version();
  if (version > kSchemaVersion) {
    throw std::runtime_error("schema version " + std::to_string(version) +
                             " is newer than this build understands (" +
                             std::to_string(kSchemaVersion) + ")");
  }
  for (int v = version; v < kSchemaVersion; ++v) {
    exec("BEGIN IMMEDIATE");
    try {
      exec(kMigrations[v]);
      exec(("PRAGMA user_version=" + std::to_string(v + 1)).c_str());
      exec("COMMIT");
    } catch (...) {
      exec("ROLLBACK");
      throw;
    }
  }
}

int64_t HistoryStore::previous_run(int64_t run, const std::string& skill) {
  Statement s(db_,
              "SELECT id FROM runs WHERE skill=? AND finished_at IS NOT NULL AND id<? "
              "ORDER BY id DESC LIMIT 1");
  s.bind(1, skill).bind(2, run);
  return s.step() ? s.column_int(0) : 0;
}

RunInfo HistoryStore::begin_run(const std::string& skill, const std::string& run_key) {
  RunInfo info;
  {
    Statement s(db_,
                "SELECT id FROM runs WHERE skill=? AND run_key=? AND finished_at IS NULL "
                "ORDER BY id DESC LIMIT 1");
    s.bind(1, skill).bind(2, run_key);
    if (s.step()) {
      info.id = s.column_int(0);
      info.resumed = true;
    }
  }
  if (!info.resumed) {
    Statement s(db_, "INSERT INTO runs(skill, run_key, started_at) VALUES(?,?,?)");
    s.bind(1, skill).bind(2, run_key).bind(3, now_text()).run();
    info.id = sqlite3_last_insert_rowid(db_);
  }
  if (const int64_t prev = previous_run(info.id, skill); prev > 0) info.previous = prev;
  return info;
}

void HistoryStore::finish_run(int64_t run) {
  Statement s(db_, "UPDATE runs SET finished_at=? WHERE id=?");
  s.bind(1, now_text()).bind(2, run).run();
}

Checkpoint HistoryStore::checkpoint(int64_t run, const std::string& source) {
  Statement s(db_, "SELECT cursor, done FROM checkpoints WHERE run_id=? AND source=?");
  s.bind(1, run).bind(2, source);
  Checkpoint c;
  if (s.step()) {
    c.cursor = s.column_text(0);
    c.done = s.column_int(1) != 0;
  }
  return c;
}

void HistoryStore::save_items(int64_t run, const std::string& source,
                              const std::vector<TrackedItem>& items, const Checkpoint& next) {
  const std::string now = now_text();
  in_transaction([&] {
    // Prepared once per page, not per item.
    Statement snapshot(db_, "INSERT OR REPLACE INTO item_snapshots VALUES(?,?,?,?,?,?)");
    Statement latest(db_,
                     "INSERT INTO items VALUES(?,?,?,?,?,?) ON CONFLICT(repo, item_key) DO UPDATE "
                     "SET last_run=excluded.last_run, data=excluded.data, "
                     "fetched_at=excluded.fetched_at");
    for (const TrackedItem& it : items) {
      const std::string data = it.to_json().dump();
      snapshot.bind(1, run).bind(2, it.repo).bind(3, it.key).bind(4, source).bind(5, data);
      snapshot.bind(6, now).run();
      snapshot.reset();
      latest.bind(1, it.repo).bind(2, it.key).bind(3, run).bind(4, run).bind(5, data);
      latest.bind(6, now).run();
      latest.reset();
    }
    save_checkpoint(run, source, next);
  });
}

void HistoryStore::save_points(int64_t run, const std::string& source,
                               const std::vector<BenchPoint>& points, const Checkpoint& next) {
  const std::string now = now_text();
  in_transaction([&] {
    Statement point(db_, "INSERT OR REPLACE INTO bench_points VALUES(?,?,?,?,?)");
    for (const BenchPoint& p : points) {
      point.bind(1, run).bind(2, p.key()).bind(3, source).bind(4, p.to_json().dump());
      point.bind(5, now).run();
      point.reset();
    }
    save_checkpoint(run, source, next);
  });
}

// A page's rows and the checkpoint after it commit together: a run killed between pages resumes
// at the checkpoint with nothing written twice.
void HistoryStore::in_transaction(const std::function<void()>& body) {
  exec("BEGIN IMMEDIATE");
  try {
    body();
    exec("COMMIT");
  } catch (...) {
    exec("ROLLBACK");
    throw;
  }
}

void HistoryStore::save_checkpoint(int64_t run, const std::string& source, const Checkpoint& next) {
  Statement c(db_, "INSERT OR REPLACE INTO checkpoints VALUES(?,?,?,?,NULL)");
  c.bind(1, run).bind(2, source).bind(3, next.cursor).bind(4, int64_t{next.done ? 1 : 0}).run();
}

void HistoryStore::mark_failed(int64_t run, const std::string& source, const std::string& error) {
  // A failed source is fetched again by the next attempt: the error is kept, done stays 0.
  Statement s(db_,
              "INSERT INTO checkpoints VALUES(?,?,'',0,?) ON CONFLICT(run_id, source) DO UPDATE "
              "SET error=excluded.error");
  s.bind(1, run).bind(2, source).bind(3, error).run();
}

std::vector<TrackedItem> HistoryStore::run_items(int64_t run) {
  Statement s(db_, "SELECT data FROM item_snapshots WHERE run_id=? ORDER BY repo, item_key");
  s.bind(1, run);
  std::vector<TrackedItem> out;
  while (s.step()) out.push_back(TrackedItem::from_json(Json::parse(s.column_text(0))));
  return out;
}

std::vector<BenchPoint> HistoryStore::run_points(int64_t run) {
  Statement s(db_, "SELECT data FROM bench_points WHERE run_id=? ORDER BY point_key");
  s.bind(1, run);
  std::vector<BenchPoint> out;
  while (s.step()) out.push_back(BenchPoint::from_json(Json::parse(s.column_text(0))));
  return out;
}

std::optional<TrackedItem> HistoryStore::previous_item(int64_t run, const std::string& skill,
                                                       const std::string& repo,
                                                       const std::string& key) {
  Statement s(db_,
              "SELECT s.data FROM item_snapshots s JOIN runs r ON r.id = s.run_id "
              "WHERE s.repo=? AND s.item_key=? AND r.skill=? AND r.finished_at IS NOT NULL "
              "AND r.id<? ORDER BY r.id DESC LIMIT 1");
  s.bind(1, repo).bind(2, key).bind(3, skill).bind(4, run);
  if (!s.step()) return std::nullopt;
  return TrackedItem::from_json(Json::parse(s.column_text(0)));
}

std::vector<std::pair<int64_t, BenchPoint>> HistoryStore::point_history(int64_t run,
                                                                        const std::string& skill) {
  Statement s(db_,
              "SELECT p.run_id, p.data FROM bench_points p JOIN runs r ON r.id = p.run_id "
              "WHERE r.skill=? AND (r.id=? OR (r.finished_at IS NOT NULL AND r.id<?)) "
              "ORDER BY p.run_id, p.point_key");
  s.bind(1, skill).bind(2, run).bind(3, run);
  std::vector<std::pair<int64_t, BenchPoint>> out;
  while (s.step())
    out.emplace_back(s.column_int(0), BenchPoint::from_json(Json::parse(s.column_text(1))));
  return out;
}

}  // namespace skillrt::daily_trackers
