// Shared by the pr-analysis tests: per-process temporary directories, the planted repository,
// and a child process (the fake GitHub server) that is always reaped.
#ifndef SKILLRT_PR_ANALYSIS_TEST_SUPPORT_HPP_
#define SKILLRT_PR_ANALYSIS_TEST_SUPPORT_HPP_

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>

namespace pra_test {

namespace fs = std::filesystem;
using nlohmann::json;

inline const std::string kData = SKILLRT_PR_ANALYSIS_TEST_DATA;
inline const char* kPython = "/usr/bin/python3";

// A directory unique to this process and call; removed when the object goes.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    static int n = 0;
    path_ = fs::temp_directory_path() /
            ("pra_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(++n));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  std::string str(const std::string& sub = "") const { return (path_ / sub).string(); }

 private:
  fs::path path_;
};

inline std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Builds the planted repository under dir (pytorch/, torch_npu/, op-plugin/, planted.json).
inline json make_planted(const TempDir& dir) {
  const std::string cmd = std::string(kPython) + " '" + kData + "/make_demo_repo.py' '" +
                          dir.str() + "' > '" + dir.str("make.log") + "' 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    throw std::runtime_error("make_demo_repo.py failed: " + read_file(dir.path() / "make.log"));
  }
  return json::parse(read_file(dir.path() / "planted.json"));
}

// The fake GitHub server, started on a port of its choosing; killed and reaped on destruction.
class FakeGithub {
 public:
  FakeGithub() {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(fds[1], 1);
      ::close(fds[0]);
      ::close(fds[1]);
      const std::string script = kData + "/fake_github.py";
      ::execl(kPython, kPython, script.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    FILE* f = ::fdopen(fds[0], "r");
    char line[64] = {0};
    if (f == nullptr || std::fgets(line, sizeof(line), f) == nullptr) {
      if (f != nullptr) std::fclose(f);
      stop();
      throw std::runtime_error("fake_github.py did not print its port");
    }
    out_ = f;
    port_ = std::atoi(line);
  }
  ~FakeGithub() {
    stop();
    if (out_ != nullptr) std::fclose(out_);
  }
  FakeGithub(const FakeGithub&) = delete;
  FakeGithub& operator=(const FakeGithub&) = delete;

  std::string url(const std::string& scenario) const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/" + scenario;
  }

 private:
  void stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
    }
  }
  pid_t pid_ = -1;
  int port_ = 0;
  FILE* out_ = nullptr;
};

}  // namespace pra_test

#endif  // SKILLRT_PR_ANALYSIS_TEST_SUPPORT_HPP_
