#include "ssh_client.hpp"

#include "detail/shell.hpp"

namespace skillrt::npu_remote {

namespace {

bool contains(const std::string& text, std::string_view needle) {
  return text.find(needle) != std::string::npos;
}

std::string first_lines(const std::string& text, size_t max_lines) {
  std::string out;
  size_t lines = 0;
  for (char c : text) {
    if (c == '\n') {
      if (++lines >= max_lines) break;
      out += " | ";
      continue;
    }
    if (c != '\r') out += c;
  }
  return out;
}

}  // namespace

std::vector<std::string> SshClient::common_options() const {
  const SshTarget& t = target_;
  std::vector<std::string> o = {"-F", t.ssh_config == "none" ? "/dev/null" : t.ssh_config};
  auto opt = [&o](const std::string& kv) {
    o.push_back("-o");
    o.push_back(kv);
  };
  // Never a prompt: a password or passphrase request fails instead of hanging the call.
  opt("BatchMode=yes");
  opt("PasswordAuthentication=no");
  opt("KbdInteractiveAuthentication=no");
  opt("PubkeyAuthentication=yes");
  opt(std::string("StrictHostKeyChecking=") + (t.accept_new_host_key ? "accept-new" : "yes"));
  opt("UserKnownHostsFile=" + t.known_hosts);
  opt("GlobalKnownHostsFile=/dev/null");
  opt("UpdateHostKeys=no");
  opt("ForwardAgent=no");
  opt("ForwardX11=no");
  opt("ClearAllForwardings=yes");
  opt("ConnectTimeout=" + std::to_string(t.connect_timeout_s));
  // A dead link is noticed within 15 s instead of the TCP timeout.
  opt("ServerAliveInterval=5");
  opt("ServerAliveCountMax=3");
  opt("LogLevel=ERROR");
  if (!t.identity_file.empty()) {
    o.push_back("-i");
    o.push_back(t.identity_file);
    opt("IdentitiesOnly=yes");
  }
  return o;
}

std::string SshClient::destination() const {
  return target_.user.empty() ? target_.host : target_.user + "@" + target_.host;
}

std::vector<std::string> SshClient::ssh_argv(const std::string& remote_command) const {
  std::vector<std::string> argv = {"ssh"};
  for (std::string& o : common_options()) argv.push_back(std::move(o));
  argv.insert(argv.end(),
              {"-p", std::to_string(target_.port), "-T", "--", destination(), remote_command});
  return argv;
}

std::vector<std::string> SshClient::scp_from_argv(const std::string& remote_path,
                                                  const std::string& local_path) const {
  std::vector<std::string> argv = {"scp"};
  for (std::string& o : common_options()) argv.push_back(std::move(o));
  const std::string host =
      target_.host.find(':') == std::string::npos ? target_.host : "[" + target_.host + "]";
  const std::string who = target_.user.empty() ? host : target_.user + "@" + host;
  argv.insert(argv.end(), {"-P", std::to_string(target_.port), "-p", "-r", "--",
                           who + ":" + remote_path, local_path});
  return argv;
}

std::vector<std::string> SshClient::scp_to_argv(const std::string& local_path,
                                                const std::string& remote_path) const {
  std::vector<std::string> argv = {"scp"};
  for (std::string& o : common_options()) argv.push_back(std::move(o));
  const std::string host =
      target_.host.find(':') == std::string::npos ? target_.host : "[" + target_.host + "]";
  const std::string who = target_.user.empty() ? host : target_.user + "@" + host;
  argv.insert(argv.end(), {"-P", std::to_string(target_.port), "-p", "--", local_path,
                           who + ":" + remote_path});
  return argv;
}

std::string SshClient::display_target() const {
  return destination() + ":" + std::to_string(target_.port);
}

std::optional<SshFailure> SshClient::classify(int status, const std::string& err,
                                              bool connected) const {
  if (status != 255) return std::nullopt;
  const SshTarget& t = target_;
  const std::string port = std::to_string(t.port);
  const std::string key_name = t.port == 22 ? t.host : "[" + t.host + "]:" + port;
  SshFailure f;
  if (contains(err, "REMOTE HOST IDENTIFICATION HAS CHANGED")) {
    f.kind = SshFailure::Kind::kChangedHostKey;
    f.message = "the host key of " + key_name + " differs from the one in " + t.known_hosts +
                ": refusing to connect (this is what a man-in-the-middle looks like). If the "
                "host was reinstalled, confirm its new fingerprint with its administrator, then "
                "run: ssh-keygen -R '" +
                key_name + "' -f " + t.known_hosts + " && ssh-keyscan -p " + port + " " + t.host +
                " >> " + t.known_hosts;
    return f;
  }
  if (contains(err, "Host key verification failed") || contains(err, "host key is known") ||
      contains(err, "No matching host key")) {
    f.kind = SshFailure::Kind::kUnknownHostKey;
    f.message = "the host key of " + key_name + " is not in " + t.known_hosts +
                ", and strict host key checking is on. To accept it, check its fingerprint "
                "(`ssh-keyscan -p " +
                port + " " + t.host +
                " | ssh-keygen -lf -` here against "
                "`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` on the host), then append "
                "it: ssh-keyscan -p " +
                port + " " + t.host + " >> " + t.known_hosts +
                " (or set accept_new_host_key: true to trust a first-seen key)";
    return f;
  }
  if (contains(err, "Permission denied")) {
    f.kind = SshFailure::Kind::kAuthentication;
    f.message =
        "the host refused key authentication for " + destination() + " (" +
        (t.identity_file.empty() ? std::string("ssh's default keys") : "key " + t.identity_file) +
        "): add the public key (" +
        (t.identity_file.empty() ? std::string("~/.ssh/id_*.pub") : t.identity_file + ".pub") +
        ") to ~" + (t.user.empty() ? std::string("") : t.user) +
        "/.ssh/authorized_keys on the host, or give the right identity_file and user; "
        "passwords are never used";
    return f;
  }
  if (!connected && (contains(err, "Connection refused") || contains(err, "timed out") ||
                     contains(err, "Could not resolve") || contains(err, "No route to host") ||
                     contains(err, "Network is unreachable") ||
                     contains(err, "Connection closed by") || contains(err, "kex_exchange"))) {
    f.kind = SshFailure::Kind::kUnreachable;
    f.message = "cannot reach " + display_target() + ": " + first_lines(err, 2) +
                "; check the host name, port and that sshd runs there";
    return f;
  }
  f.kind = connected ? SshFailure::Kind::kConnectionLost : SshFailure::Kind::kOther;
  f.message = (connected ? "the connection to " + display_target() + " was lost: "
                         : "ssh to " + display_target() + " failed: ") +
              (err.empty() ? std::string("ssh exited with status 255 and no message")
                           : first_lines(err, 3));
  return f;
}

}  // namespace skillrt::npu_remote
