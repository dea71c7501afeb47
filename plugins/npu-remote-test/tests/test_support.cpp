#include "test_support.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace npu_remote_test {

namespace {

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// True once sshd answers with its banner: an open port alone can still belong to a listener
// that is not serving yet.
bool sshd_answers(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = false;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    timeval tv{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char buf[8] = {};
    ok = ::recv(fd, buf, 4, MSG_WAITALL) == 4 && std::string(buf, 4) == "SSH-";
  }
  ::close(fd);
  return ok;
}

struct ProcInfo {
  pid_t pid;
  pid_t ppid;
  pid_t pgid;
  char state;
  std::string comm;
  std::string cmdline;
};

std::vector<ProcInfo> process_table() {
  std::vector<ProcInfo> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const size_t open = text.find('(');
    const size_t close = text.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    ProcInfo p{};
    p.pid = std::stoi(name);
    p.comm = text.substr(open + 1, close - open - 1);
    std::istringstream rest(text.substr(close + 2));
    rest >> p.state >> p.ppid >> p.pgid;
    std::ifstream cmd(e.path() / "cmdline");
    std::string args((std::istreambuf_iterator<char>(cmd)), std::istreambuf_iterator<char>());
    for (char& c : args) {
      if (c == '\0') c = ' ';
    }
    p.cmdline = args;
    out.push_back(p);
  }
  return out;
}

}  // namespace

TempDir::TempDir(const std::string& tag) {
  static int counter = 0;
  path_ = fs::temp_directory_path() /
          ("nrt_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(++counter));
  fs::remove_all(path_);
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

Shell sh(const std::string& command) {
  Shell r{0, ""};
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) throw std::runtime_error("popen failed: " + command);
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = ::pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  return r;
}

std::string read_file(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void write_file(const fs::path& path, const std::string& content) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

fs::path data_dir() { return fs::path(SKILLRT_NPU_REMOTE_TEST_DIR) / "data"; }

bool TestSshd::available() { return ::access(kSshd, X_OK) == 0; }

TestSshd::TestSshd() : tmp_("sshd") {
  const passwd* pw = ::getpwuid(::getuid());
  user_ = pw != nullptr ? pw->pw_name : "root";
  const std::string d = dir().string();
  if (sh("ssh-keygen -q -t ed25519 -N '' -C skillrt-test-host -f " + d + "/host_key").status != 0 ||
      sh("ssh-keygen -q -t ed25519 -N '' -C skillrt-test-user -f " + d + "/user_key").status != 0 ||
      sh("ssh-keygen -q -t ed25519 -N '' -C skillrt-test-other -f " + d + "/other_key").status !=
          0) {
    throw std::runtime_error("ssh-keygen failed in " + d);
  }
  fs::copy_file(dir() / "user_key.pub", dir() / "authorized_keys");
  fs::permissions(dir() / "authorized_keys", fs::perms::owner_read | fs::perms::owner_write);
  port_ = free_port();
  // The known_hosts line a person would get from ssh-keyscan, written from the key itself.
  write_file(known_hosts(),
             "[127.0.0.1]:" + std::to_string(port_) + " " + read_file(dir() / "host_key.pub"));
  fs::create_directories(remote_base());
  // Privilege separation needs this when sshd runs as root; systemd would create it.
  if (::getuid() == 0 && !fs::exists("/run/sshd")) fs::create_directories("/run/sshd");
  start();
}

TestSshd::~TestSshd() { kill_all(); }

void TestSshd::write_config() {
  const std::string d = dir().string();
  std::string c;
  c += "Port " + std::to_string(port_) + "\n";
  c += "ListenAddress 127.0.0.1\n";
  c += "HostKey " + d + "/host_key\n";
  c += "PidFile " + d + "/sshd.pid\n";
  c += "AuthorizedKeysFile " + d + "/authorized_keys\n";
  c += "StrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n";
  c += "PubkeyAuthentication yes\nPermitRootLogin prohibit-password\nAllowAgentForwarding no\n";
  c += "LogLevel ERROR\n";
  // Real servers offer SFTP, which scp uses by default.
  c += "Subsystem sftp /usr/lib/openssh/sftp-server\n";
  if (!extra_path_.empty()) {
    c += "SetEnv PATH=" + extra_path_ +
         ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n";
  }
  write_file(dir() / "sshd_config", c);
}

void TestSshd::start() {
  write_config();
  const std::string config = (dir() / "sshd_config").string();
  const std::string log = (dir() / "sshd.log").string();
  pid_ = ::fork();
  if (pid_ == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    ::dup2(fd, 2);
    ::execl(kSshd, kSshd, "-D", "-e", "-f", config.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  bool up = false;
  for (int i = 0; i < 100 && !(up = sshd_answers(port_)); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!up) {
    throw std::runtime_error("sshd did not start; its log: " + read_file(log));
  }
}

void TestSshd::kill_all() {
  if (pid_ <= 0) return;
  // Every sshd below the listener (the per-connection monitors and their children), then the
  // listener; the sessions' shells and jobs are not sshd and live on, as after a real crash.
  std::map<pid_t, ProcInfo> by_pid;
  for (const ProcInfo& p : process_table()) by_pid[p.pid] = p;
  for (const auto& [pid, p] : by_pid) {
    if (pid == pid_ || p.comm != "sshd") continue;
    for (pid_t up = p.ppid; up > 1 && by_pid.count(up) != 0; up = by_pid[up].ppid) {
      if (up == pid_) {
        ::kill(pid, SIGKILL);
        break;
      }
    }
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

void TestSshd::fake_npu_smi(const std::string& text) {
  const fs::path bin = dir() / "bin";
  write_file(dir() / "npu-smi.txt", text);
  write_file(bin / "npu-smi", "#!/bin/sh\ncat " + (dir() / "npu-smi.txt").string() + "\n");
  fs::permissions(bin / "npu-smi", fs::perms::owner_all);
  extra_path_ = bin.string();
  kill_all();
  start();
}

json TestSshd::input(const json& job) const {
  return {{"host", "127.0.0.1"},
          {"port", port_},
          {"user", user_},
          {"identity_file", user_key().string()},
          {"known_hosts", known_hosts().string()},
          {"runtime", "none"},
          {"require_npu", false},
          {"devices", json::array()},
          {"min_free_disk_mb", 0},
          {"remote_base", remote_base().string()},
          {"output_dir", output_dir().string()},
          {"deadline_s", 60},
          {"job", job}};
}

std::vector<pid_t> processes_with(const std::string& needle, int settle_ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(settle_ms);
  const pid_t self = ::getpid();
  for (;;) {
    std::vector<pid_t> found;
    for (const ProcInfo& p : process_table()) {
      if (p.pid == self || p.state == 'Z') continue;
      if (p.cmdline.find(needle) != std::string::npos) found.push_back(p.pid);
    }
    if (found.empty() || std::chrono::steady_clock::now() > until) return found;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

bool group_alive(pid_t pgid) {
  for (const ProcInfo& p : process_table()) {
    if (p.pgid == pgid && p.state != 'Z') return true;
  }
  return false;
}

bool group_gone(pid_t pgid, int settle_ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(settle_ms);
  while (group_alive(pgid)) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return true;
}

}  // namespace npu_remote_test
