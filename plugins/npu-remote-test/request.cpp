#include "request.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <random>
#include <regex>
#include <set>

namespace skillrt::npu_remote {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string str_or(const json& j, const char* key, const std::string& fallback) {
  if (!j.contains(key) || j.at(key).is_null()) return fallback;
  if (!j.at(key).is_string()) throw InputError(std::string(key) + ": must be a string");
  return j.at(key).get<std::string>();
}

std::vector<std::string> strings_of(const json& j, const char* key) {
  std::vector<std::string> out;
  if (!j.contains(key) || j.at(key).is_null()) return out;
  for (const json& v : j.at(key)) out.push_back(v.get<std::string>());
  return out;
}

bool has_newline(const std::string& s) { return s.find_first_of("\n\r") != std::string::npos; }

void apply_target_fields(const json& from, SshTarget& t, const std::string& where) {
  t.host = str_or(from, "host", t.host);
  t.user = str_or(from, "user", t.user);
  t.identity_file = str_or(from, "identity_file", t.identity_file);
  t.known_hosts = str_or(from, "known_hosts", t.known_hosts);
  t.ssh_config = str_or(from, "ssh_config", t.ssh_config);
  if (from.contains("port") && !from.at("port").is_null()) {
    if (!from.at("port").is_number_integer() || from.at("port").get<int>() < 1 ||
        from.at("port").get<int>() > 65535) {
      throw InputError(where + "port: must be an integer 1-65535");
    }
    t.port = from.at("port").get<int>();
  }
  if (from.contains("accept_new_host_key") && from.at("accept_new_host_key").is_boolean()) {
    t.accept_new_host_key = from.at("accept_new_host_key").get<bool>();
  }
}

void check_target(const SshTarget& t) {
  static const std::regex kHost(R"(^[A-Za-z0-9._:-]+$)");
  static const std::regex kUser(R"(^[A-Za-z0-9._][A-Za-z0-9._-]*$)");
  if (t.host.empty()) {
    throw InputError(
        "host: no host given; set `host` (with user, port, identity_file, known_hosts) or "
        "`server`, a name from the config file's plugins.npu-remote-test.settings.servers");
  }
  if (!std::regex_match(t.host, kHost) || t.host.front() == '-') {
    throw InputError("host: '" + t.host + "' is not a host name or address");
  }
  if (!t.user.empty() && !std::regex_match(t.user, kUser)) {
    throw InputError("user: '" + t.user + "' is not a user name");
  }
  if (!t.identity_file.empty() && !fs::is_regular_file(t.identity_file)) {
    throw InputError("identity_file: " + t.identity_file +
                     " does not exist; give the private key whose public half is in the "
                     "host's authorized_keys (for example ~/.ssh/id_ed25519)");
  }
  if (!t.accept_new_host_key && !fs::is_regular_file(t.known_hosts)) {
    const std::string host = t.port == 22 ? t.host : "[" + t.host + "]:" + std::to_string(t.port);
    throw InputError("known_hosts: " + t.known_hosts + " does not exist, so the host key of " +
                     host +
                     " cannot be checked; record it after verifying its fingerprint: "
                     "ssh-keyscan -p " +
                     std::to_string(t.port) + " " + t.host + " >> " + t.known_hosts +
                     " (compare `ssh-keygen -lf " + t.known_hosts +
                     "` with the host's own `ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub`)");
  }
  if (t.ssh_config != "none" && !fs::is_regular_file(t.ssh_config)) {
    throw InputError("ssh_config: " + t.ssh_config + " does not exist; give a file or \"none\"");
  }
}

Job parse_job(const json& j) {
  Job job;
  const std::string kind = j.at("kind").get<std::string>();
  job.setup = strings_of(j, "setup");
  job.args = strings_of(j, "args");
  if (kind == "command") {
    job.kind = JobKind::kCommand;
    job.command = str_or(j, "command", "");
    if (job.command.empty()) throw InputError("job.command: required when job.kind is command");
  } else if (kind == "python") {
    job.kind = JobKind::kPython;
    job.script = str_or(j, "script", "");
    if (job.script.empty()) {
      throw InputError(
          "job.script: required when job.kind is python (a path on the host, "
          "relative to the work dir; list a local file in `upload` to send it)");
    }
  } else if (kind == "pytest") {
    job.kind = JobKind::kPytest;
    job.selection = strings_of(j, "selection");
  } else {
    job.kind = JobKind::kVllmBench;
    job.model = str_or(j, "model", "");
    if (job.model.empty()) {
      throw InputError(
          "job.model: required when job.kind is vllm_bench (a model path on the "
          "host, mounted into the container, or a ModelScope/Hugging Face id)");
    }
    job.served_model_name = str_or(j, "served_model_name", "");
    if (j.contains("port")) job.port = j.at("port").get<int>();
    if (j.contains("ready_timeout_s")) job.ready_timeout_s = j.at("ready_timeout_s").get<int>();
    job.serve_args = strings_of(j, "serve_args");
    job.bench_args = strings_of(j, "bench_args");
    if (job.bench_args.empty()) {
      job.bench_args = {"--dataset-name",      "random", "--random-input-len", "1024",
                        "--random-output-len", "128",    "--num-prompts",      "100"};
    }
  }
  for (const auto* list :
       {&job.setup, &job.args, &job.selection, &job.serve_args, &job.bench_args}) {
    for (const std::string& s : *list) {
      if (has_newline(s))
        throw InputError("job: '" + s +
                         "' contains a line break; pass one "
                         "argument or shell line per list item");
    }
  }
  return job;
}

}  // namespace

std::string expand_home(const std::string& path) {
  if (path.rfind("~/", 0) != 0) return path;
  const char* home = std::getenv("HOME");
  return home == nullptr ? path : std::string(home) + path.substr(1);
}

std::string new_run_id() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dt%H%M%S", &tm);
  std::random_device rd;
  char hex[8];
  std::snprintf(hex, sizeof hex, "%06x", static_cast<unsigned>(rd() & 0xffffffu));
  return std::string(stamp) + "-" + hex;
}

Request parse_request(const json& input, const json& settings) {
  Request r;
  SshTarget& t = r.target;
  t.known_hosts = "~/.ssh/known_hosts";
  json server_entry = json::object();
  if (input.contains("server") && !input.at("server").is_null()) {
    t.server = input.at("server").get<std::string>();
    const json servers = settings.is_object() && settings.contains("servers")
                             ? settings.at("servers")
                             : json::object();
    if (!servers.is_object() || !servers.contains(t.server)) {
      std::string known;
      if (servers.is_object()) {
        for (const auto& [name, _] : servers.items()) known += (known.empty() ? "" : ", ") + name;
      }
      throw InputError("server: '" + t.server + "' is not among the named servers (" +
                       (known.empty() ? "none configured" : known) +
                       "); add it under plugins.npu-remote-test.settings.servers in the config "
                       "file, or give `host` directly");
    }
    server_entry = servers.at(t.server);
    if (!server_entry.is_object()) {
      throw InputError("settings.servers." + t.server +
                       ": must be an object with host, user, "
                       "port, identity_file, known_hosts");
    }
    if (input.contains("host") && !input.at("host").is_null()) {
      throw InputError("host: give either `server` or `host`, not both");
    }
    apply_target_fields(server_entry, t, "settings.servers." + t.server + ".");
    r.runtime = str_or(server_entry, "runtime", r.runtime);
    r.image = str_or(server_entry, "image", r.image);
    r.remote_base = str_or(server_entry, "remote_base", r.remote_base);
  }
  apply_target_fields(input, t, "");
  if (input.contains("connect_timeout_s")) t.connect_timeout_s = input.at("connect_timeout_s");
  t.identity_file = expand_home(t.identity_file);
  t.known_hosts = expand_home(t.known_hosts);
  if (t.ssh_config != "none") t.ssh_config = expand_home(t.ssh_config);

  r.runtime = str_or(input, "runtime", r.runtime);
  if (r.runtime != "docker" && r.runtime != "podman" && r.runtime != "none") {
    throw InputError("runtime: '" + r.runtime + "' is not docker, podman or none");
  }
  r.image = str_or(input, "image", r.image);
  if (input.contains("devices")) r.devices = input.at("devices").get<std::vector<int>>();
  if (std::set<int>(r.devices.begin(), r.devices.end()).size() != r.devices.size()) {
    throw InputError("devices: each device may be listed once");
  }
  if (r.devices.empty() && r.runtime != "none") {
    throw InputError(
        "devices: a container needs at least one NPU (/dev/davinciN); list one, "
        "or use runtime none for a job without NPUs");
  }
  r.require_npu = input.value("require_npu", r.require_npu);
  r.allow_busy_devices = input.value("allow_busy_devices", r.allow_busy_devices);
  r.job = parse_job(input.at("job"));
  r.deadline_s = input.value("deadline_s", r.deadline_s);
  r.artifacts = strings_of(input, "artifacts");
  r.upload = strings_of(input, "upload");
  r.output_dir = expand_home(str_or(input, "output_dir", ""));
  r.remote_base = str_or(input, "remote_base", r.remote_base);
  r.workdir = str_or(input, "workdir", "");
  r.mounts = strings_of(input, "mounts");
  r.shm_size = str_or(input, "shm_size", r.shm_size);
  r.min_free_disk_mb = input.value("min_free_disk_mb", r.min_free_disk_mb);
  r.clean_stale = input.value("clean_stale", r.clean_stale);
  r.keep_run_dir = input.value("keep_run_dir", r.keep_run_dir);
  r.dry_run = input.value("dry_run", r.dry_run);
  r.recorded_log = expand_home(str_or(input, "recorded_log", ""));
  r.tail_lines = input.value("tail_lines", r.tail_lines);
  r.run_id = str_or(input, "run_id", "");
  if (input.contains("env") && input.at("env").is_object()) {
    static const std::regex kName(R"(^[A-Za-z_][A-Za-z0-9_]*$)");
    for (const auto& [k, v] : input.at("env").items()) {
      if (!std::regex_match(k, kName)) throw InputError("env: '" + k + "' is not a variable name");
      const std::string value = v.get<std::string>();
      if (has_newline(value)) throw InputError("env." + k + ": values cannot hold line breaks");
      r.env[k] = value;
    }
  }

  static const std::regex kRunId(R"(^[a-z0-9][a-z0-9-]{0,47}$)");
  if (r.run_id.empty()) r.run_id = new_run_id();
  if (!std::regex_match(r.run_id, kRunId)) {
    throw InputError("run_id: '" + r.run_id + "' must be 1-48 of a-z, 0-9 and '-'");
  }
  static const std::regex kRemotePath(R"(^[A-Za-z0-9._/+@-]+$)");
  if (!std::regex_match(r.remote_base, kRemotePath) ||
      r.remote_base.find("..") != std::string::npos) {
    throw InputError("remote_base: '" + r.remote_base +
                     "' must be a plain path (letters, digits, . _ / + @ -, no ..)");
  }
  if (!r.workdir.empty() && (r.workdir.front() != '/' || has_newline(r.workdir))) {
    throw InputError("workdir: '" + r.workdir + "' must be an absolute path on the host");
  }
  for (const std::string& m : r.mounts) {
    if (m.find(':') == std::string::npos || m.front() != '/' || has_newline(m)) {
      throw InputError("mounts: '" + m +
                       "' must be host_path:container_path[:ro] with an "
                       "absolute host path");
    }
  }
  for (const std::string& a : r.artifacts) {
    if (a.empty() || has_newline(a)) throw InputError("artifacts: empty or multi-line path");
  }
  for (const std::string& u : r.upload) {
    if (!fs::is_regular_file(expand_home(u))) {
      throw InputError("upload: " + u +
                       " is not a local file; give files to copy into the work "
                       "dir before the job starts");
    }
  }
  if (!r.recorded_log.empty()) {
    if (!fs::is_regular_file(r.recorded_log)) {
      throw InputError("recorded_log: " + r.recorded_log +
                       " is not a local file; give the "
                       "output.log of an earlier run (or any saved vLLM or pytest output)");
    }
    return r;  // nothing connects, so the host fields are not needed
  }
  if (!r.dry_run && r.output_dir.empty()) {
    throw InputError(
        "output_dir: required for a run (the run record, output.log and the "
        "artifacts go there); a dry_run needs none");
  }
  if (!r.dry_run) check_target(t);
  if (r.dry_run && t.host.empty()) check_target(t);
  return r;
}

}  // namespace skillrt::npu_remote
