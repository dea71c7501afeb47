// Thin RAII over the SQLite C API for the plugins that keep a database (the Helper's index, the
// trackers' history): one connection, prepared statements, transactions, and errors that name
// the database file and the statement that failed. Link skillrt::plugin_sqlite.
//
// Threading: a Database and its statements belong to one thread at a time. Lifetime: a
// Statement must not outlive the connection it was prepared on.
#ifndef SKILLRT_PLUGIN_IO_SQLITE_HPP_
#define SKILLRT_PLUGIN_IO_SQLITE_HPP_

#include <sqlite3.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace skillrt::plugin_io {

class SqliteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, double value);
  // True while a row is available; false once the statement is done.
  bool step();
  void run();  // steps to completion
  void reset();

  int64_t column_int(int index) const;
  double column_double(int index) const;
  std::string column_text(int index) const;
  bool column_is_null(int index) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

class Database {
 public:
  // Opens (creating when `create`) the file; ":memory:" works too.
  Database(const std::string& path, bool create);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(std::string_view sql);
  Statement prepare(std::string_view sql) { return Statement(db_, sql); }
  int64_t last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
  const std::string& path() const { return path_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

// BEGIN IMMEDIATE ... COMMIT, rolled back when the scope unwinds without commit().
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace skillrt::plugin_io

#endif  // SKILLRT_PLUGIN_IO_SQLITE_HPP_
