// A prepared statement that finalizes itself, with binding by position and typed columns.
#ifndef SKILLRT_DAILY_TRACKERS_DETAIL_SQLITE_STATEMENT_HPP_
#define SKILLRT_DAILY_TRACKERS_DETAIL_SQLITE_STATEMENT_HPP_

#include <sqlite3.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace skillrt::daily_trackers::detail {

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) {
      throw std::runtime_error(std::string("history database: cannot prepare '") + sql +
                               "': " + sqlite3_errmsg(db));
    }
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  // True while a row is available.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw std::runtime_error(std::string("history database: ") + sqlite3_errmsg(db_));
  }
  void run() {
    while (step()) {
    }
  }
  int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }
  bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::string text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p == nullptr ? std::string() : std::string(p, sqlite3_column_bytes(stmt_, col));
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace skillrt::daily_trackers::detail

#endif  // SKILLRT_DAILY_TRACKERS_DETAIL_SQLITE_STATEMENT_HPP_
