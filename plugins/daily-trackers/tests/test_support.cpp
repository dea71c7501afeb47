#include "test_support.hpp"

#include <curl/curl.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace dtt {

TempDir::TempDir(const std::string& tag) {
  static int n = 0;
  path_ = fs::temp_directory_path() /
          ("dtt_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(++n));
  fs::remove_all(path_);
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Child::Child(const std::vector<std::string>& argv, bool port_line, const std::string& log) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(fds[1], 1);
    ::close(fds[0]);
    ::close(fds[1]);
    if (!log.empty()) {
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        ::dup2(fd, 2);
        if (!port_line) ::dup2(fd, 1);
      }
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  if (!port_line) {
    ::close(fds[0]);
    return;
  }
  FILE* f = ::fdopen(fds[0], "r");
  char line[64] = {0};
  const bool got = f != nullptr && std::fgets(line, sizeof(line), f) != nullptr;
  if (f != nullptr) std::fclose(f);
  if (!got) {
    kill_now(SIGKILL);
    throw std::runtime_error(argv.back() + " did not print its port");
  }
  port_ = std::atoi(line);
}

Child::~Child() { kill_now(SIGTERM); }

void Child::kill_now(int sig) {
  if (pid_ <= 0) return;
  ::kill(pid_, sig);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

int Child::wait_exit() {
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

namespace {
size_t on_body(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}
}  // namespace

std::string http_get(int port, const std::string& path) {
  std::string body;
  CURL* c = curl_easy_init();
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + path;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 5000L);
  curl_easy_perform(c);
  curl_easy_cleanup(c);
  return body;
}

}  // namespace dtt
