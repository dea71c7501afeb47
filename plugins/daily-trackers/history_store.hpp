// The trackers' history: one SQLite file (WAL) holding every run, one row per tracked item and
// per benchmark point with its fetch time, each run's snapshot of them, and per-source
// checkpoints. A run that dies keeps what it committed; the next call with the same run key
// resumes it (finished sources are not fetched again, an unfinished one continues from its
// cursor), and the primary keys make a second write of the same row a replacement, never a
// duplicate.
#ifndef SKILLRT_DAILY_TRACKERS_HISTORY_STORE_HPP_
#define SKILLRT_DAILY_TRACKERS_HISTORY_STORE_HPP_

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model.hpp"

struct sqlite3;

namespace skillrt::daily_trackers {

struct RunInfo {
  int64_t id = 0;
  bool resumed = false;             // an unfinished run with this key existed and is continued
  std::optional<int64_t> previous;  // the last finished run of the same skill before this one
};

struct Checkpoint {
  std::string cursor;  // where to continue (a URL, a commit); empty: from the start
  bool done = false;
};

class HistoryStore {
 public:
  // Opens or creates `path` and brings its schema to the current version. Throws InputError
  // naming the file when it cannot be opened or is not a tracker history.
  explicit HistoryStore(const std::string& path);
  ~HistoryStore();
  HistoryStore(const HistoryStore&) = delete;
  HistoryStore& operator=(const HistoryStore&) = delete;

  int schema_version();
  RunInfo begin_run(const std::string& skill, const std::string& run_key);
  void finish_run(int64_t run);

  Checkpoint checkpoint(int64_t run, const std::string& source);
  // The items of one fetched page and the source's new cursor, in one transaction.
  void save_items(int64_t run, const std::string& source, const std::vector<TrackedItem>& items,
                  const Checkpoint& next);
  void save_points(int64_t run, const std::string& source, const std::vector<BenchPoint>& points,
                   const Checkpoint& next);
  void mark_failed(int64_t run, const std::string& source, const std::string& error);

  // This run's snapshot, ordered by repo then key (points by key).
  std::vector<TrackedItem> run_items(int64_t run);
  std::vector<BenchPoint> run_points(int64_t run);
  // The newest snapshot of an item in a finished run before `run`.
  std::optional<TrackedItem> previous_item(int64_t run, const std::string& skill,
                                           const std::string& repo, const std::string& key);
  // Every point of finished runs before `run` and of `run` itself, oldest run first.
  std::vector<std::pair<int64_t, BenchPoint>> point_history(int64_t run, const std::string& skill);

 private:
  void exec(const char* sql);
  void in_transaction(const std::function<void()>& body);
  void save_checkpoint(int64_t run, const std::string& source, const Checkpoint& next);
  void migrate();
  int64_t previous_run(int64_t run, const std::string& skill);

  sqlite3* db_ = nullptr;
  std::string path_;
};

}  // namespace skillrt::daily_trackers

#endif  // SKILLRT_DAILY_TRACKERS_HISTORY_STORE_HPP_
