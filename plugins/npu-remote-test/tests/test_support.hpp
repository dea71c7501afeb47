// Helpers for the npu-remote-test tests: a real OpenSSH server on 127.0.0.1 with throwaway
// keys, temporary folders, and a look at the local process table (the "remote" host is this
// machine, so what a run leaves behind can be checked with the same eyes as ps).
#ifndef SKILLRT_NPU_REMOTE_TEST_TESTS_TEST_SUPPORT_HPP_
#define SKILLRT_NPU_REMOTE_TEST_TESTS_TEST_SUPPORT_HPP_

#include <sys/types.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace npu_remote_test {

namespace fs = std::filesystem;
using nlohmann::json;

inline constexpr const char* kSshd = "/usr/sbin/sshd";

// A per-process, per-test directory so ctest -j and other build trees never collide.
class TempDir {
 public:
  explicit TempDir(const std::string& tag);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// sshd -D -e -f <config> on 127.0.0.1 and a free port, for the current user, with a host key
// and two user keys (one authorized, one not) made by ssh-keygen in a temp dir.
class TestSshd {
 public:
  TestSshd();
  ~TestSshd();
  TestSshd(const TestSshd&) = delete;
  TestSshd& operator=(const TestSshd&) = delete;

  static bool available();

  void start();
  // Kills the listener and every sshd process it forked, dropping open connections.
  void kill_all();

  // A complete skill input for this server: runtime none, no NPU required, run dirs and the
  // output folder inside the temp dir.
  json input(const json& job) const;

  const fs::path& dir() const { return tmp_.path(); }
  int port() const { return port_; }
  std::string user() const { return user_; }
  fs::path user_key() const { return dir() / "user_key"; }
  fs::path other_key() const { return dir() / "other_key"; }
  fs::path known_hosts() const { return dir() / "known_hosts"; }
  fs::path remote_base() const { return dir() / "remote"; }
  fs::path output_dir() const { return dir() / "out"; }
  // Makes `npu-smi` in the sessions' PATH print `text` (a fake host with NPUs).
  void fake_npu_smi(const std::string& text);

 private:
  void write_config();
  TempDir tmp_;
  int port_ = 0;
  pid_t pid_ = -1;
  std::string user_;
  std::string extra_path_;
};

// Runs a command through /bin/sh; its exit status and stdout.
struct Shell {
  int status;
  std::string out;
};
Shell sh(const std::string& command);

// pids of live (non-zombie) processes whose command line contains `needle`; waits up to
// `settle_ms` for dying ones to go.
std::vector<pid_t> processes_with(const std::string& needle, int settle_ms = 10000);

bool group_alive(pid_t pgid);
// True once no live process is left in the group, waiting up to `settle_ms` for killed ones to
// go (a loaded machine, or a sanitizer build, takes a while to tear a group down).
bool group_gone(pid_t pgid, int settle_ms = 10000);

std::string read_file(const fs::path& path);
void write_file(const fs::path& path, const std::string& content);
fs::path data_dir();

}  // namespace npu_remote_test

#endif  // SKILLRT_NPU_REMOTE_TEST_TESTS_TEST_SUPPORT_HPP_
