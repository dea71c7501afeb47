// Shared by the daily-trackers tests: temporary folders, and helper processes (the fake servers,
// the SMTP sink, the skillrt binary) that are killed and reaped when the test ends.
#ifndef SKILLRT_DAILY_TRACKERS_TESTS_TEST_SUPPORT_HPP_
#define SKILLRT_DAILY_TRACKERS_TESTS_TEST_SUPPORT_HPP_

#include <signal.h>
#include <sys/types.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dtt {

namespace fs = std::filesystem;
using nlohmann::json;

inline const std::string kTestData = SKILLRT_DAILY_TRACKERS_TEST_DATA;
inline const std::string kPluginData = SKILLRT_DAILY_TRACKERS_DATA;
inline const char* kPython = "/usr/bin/python3";

class TempDir {
 public:
  explicit TempDir(const std::string& tag);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string str(const std::string& sub = "") const { return (path_ / sub).string(); }

 private:
  fs::path path_;
};

std::string read_file(const fs::path& p);

// A child process; `port_line` makes the constructor wait for a port number on its stdout.
class Child {
 public:
  Child(const std::vector<std::string>& argv, bool port_line, const std::string& log = "");
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  void kill_now(int sig);
  int wait_exit();  // exit code, or -signal

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

// GET http://127.0.0.1:port/path as text (the fake servers' control endpoints).
std::string http_get(int port, const std::string& path);

}  // namespace dtt

#endif  // SKILLRT_DAILY_TRACKERS_TESTS_TEST_SUPPORT_HPP_
