// The system OpenSSH client (ssh, scp) run as child processes: key authentication only, the
// host key checked against a known_hosts file, no agent or X11 forwarding, no password prompts.
#ifndef SKILLRT_NPU_REMOTE_TEST_SSH_CLIENT_HPP_
#define SKILLRT_NPU_REMOTE_TEST_SSH_CLIENT_HPP_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "request.hpp"

namespace skillrt::npu_remote {

// Why ssh could not run a command at all (its exit status 255), told so a person can act.
struct SshFailure {
  enum class Kind {
    kUnknownHostKey,
    kChangedHostKey,
    kAuthentication,
    kUnreachable,
    kConnectionLost,
    kOther
  };
  Kind kind = Kind::kOther;
  std::string message;
};

class SshClient {
 public:
  explicit SshClient(SshTarget target) : target_(std::move(target)) {}

  // ssh's argument vector for one remote command (run by the login shell on the host).
  std::vector<std::string> ssh_argv(const std::string& remote_command) const;
  // scp's for copying `remote_path` (on the host) to `local_path`, recursively.
  std::vector<std::string> scp_from_argv(const std::string& remote_path,
                                         const std::string& local_path) const;
  // scp's for copying a local file to `remote_path`.
  std::vector<std::string> scp_to_argv(const std::string& local_path,
                                       const std::string& remote_path) const;

  // "user@host:port" for messages.
  std::string display_target() const;

  // The failure that ssh's stderr shows, or nullopt when the command ran (any status but
  // 255 with a recognised message). `connected` says whether the command had started.
  std::optional<SshFailure> classify(int status, const std::string& stderr_text,
                                     bool connected) const;

  const SshTarget& target() const { return target_; }

 private:
  std::vector<std::string> common_options() const;
  std::string destination() const;
  SshTarget target_;
};

}  // namespace skillrt::npu_remote

#endif  // SKILLRT_NPU_REMOTE_TEST_SSH_CLIENT_HPP_
