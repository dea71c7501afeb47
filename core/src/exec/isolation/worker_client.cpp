#include "exec/isolation/worker_client.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <spdlog/spdlog.h>
#include <boost/dll/runtime_symbol_info.hpp>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "exec/detail/call.hpp"
#include "exec/isolation/wire.hpp"

namespace skillrt::exec {

namespace {

// RLIMIT_AS is how a worker's memory is capped, and AddressSanitizer cannot start under it.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSpaceLimit = false;
#else
constexpr bool kAddressSpaceLimit = true;
#endif

bool memory_limited(const WorkerOptions& options) {
  return kAddressSpaceLimit && options.memory_limit_mb > 0;
}

using Clock = std::chrono::steady_clock;

enum class ReadStatus { kLine, kTimeout, kEof, kTooLong };

// Splits the worker's output into lines; waits at most `timeout` for more bytes.
ReadStatus read_line(int fd, std::string& buffer, std::string& line,
                     std::chrono::milliseconds timeout, size_t max_bytes) {
  const auto deadline = Clock::now() + timeout;
  // Only bytes not yet searched are searched: rescanning the whole buffer after every 64 KB
  // read made a 100 MB result line quadratic (20 s instead of 2).
  size_t unscanned = 0;
  for (;;) {
    if (auto nl = buffer.find('\n', unscanned); nl != std::string::npos) {
      line.assign(buffer, 0, nl);
      buffer.erase(0, nl + 1);
      return ReadStatus::kLine;
    }
    unscanned = buffer.size();
    if (buffer.size() > max_bytes) return ReadStatus::kTooLong;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return ReadStatus::kTimeout;
    pollfd p{fd, POLLIN, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ReadStatus::kTimeout;
    char chunk[1 << 16];
    const ssize_t got = ::read(fd, chunk, sizeof(chunk));
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) return ReadStatus::kEof;
    buffer.append(chunk, static_cast<size_t>(got));
  }
}

bool write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

int32_t proxy_invoke(void* state, skillrt_call* call, skillrt_str input) {
  auto* client = static_cast<WorkerClient*>(state);
  return client->invoke(*call->skill, call, input);
}

void set_call_error(skillrt_call* call, int32_t code, const std::string& message) {
  std::lock_guard lock(call->mutex);
  call->error_code = code;
  call->error_message = message;
}

}  // namespace

WorkerClient::WorkerClient(std::filesystem::path plugin_file, nlohmann::json config,
                           WorkerOptions options)
    : plugin_file_(std::move(plugin_file)),
      config_(std::move(config)),
      options_(std::move(options)) {
  if (options_.executable.empty()) {
    std::error_code ec;
    options_.executable = boost::dll::program_location(ec).string();
  }
}

WorkerClient::~WorkerClient() {
  std::lock_guard lock(mutex_);
  kill_worker();
}

bool WorkerClient::start(std::string& error) {
  int in[2];
  int out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
    error = std::string("cannot create pipes: ") + std::strerror(errno);
    return false;
  }
  // Everything the child needs is prepared before fork: only async-signal-safe calls after it.
  const std::string exe = options_.executable.string();
  const std::string file = plugin_file_.string();
  const std::string config = config_.dump();
  std::vector<std::string> args = {exe,        "--log-level", options_.log_level, "__worker",
                                   "--plugin", file,          "--config-json",    config};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  rlimit limit{};
  limit.rlim_cur = limit.rlim_max = static_cast<rlim_t>(options_.memory_limit_mb) << 20;
  const bool limit_memory = memory_limited(options_);
  if (!kAddressSpaceLimit && options_.memory_limit_mb > 0) {
    static std::once_flag warned;
    std::call_once(warned, [] {
      spdlog::warn(
          "worker memory limits are not enforced in this AddressSanitizer build: its shadow "
          "memory needs more address space than any limit allows; use a normal build for them");
    });
  }

  const pid_t pid = ::fork();
  if (pid < 0) {
    error = std::string("fork failed: ") + std::strerror(errno);
    ::close(in[0]);
    ::close(in[1]);
    ::close(out[0]);
    ::close(out[1]);
    return false;
  }
  if (pid == 0) {
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    // A worker must never outlive its host: its reader thread exits the worker when its stdin
    // closes, which the host's death does too. Not PR_SET_PDEATHSIG: that fires when the forking
    // *thread* ends, and killed healthy workers started from threads that later ended (the
    // stdio server's reading thread, a call that ran on the caller's thread).
    if (limit_memory) ::setrlimit(RLIMIT_AS, &limit);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  pid_ = pid;
  to_worker_ = in[1];
  from_worker_ = out[0];
  buffer_.clear();
  return true;
}

void WorkerClient::kill_worker() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  pid_ = -1;
  close_pipes();
}

void WorkerClient::close_pipes() {
  if (to_worker_ >= 0) ::close(to_worker_);
  if (from_worker_ >= 0) ::close(from_worker_);
  to_worker_ = from_worker_ = -1;
  buffer_.clear();
}

std::string WorkerClient::reap() {
  std::string what = "ended";
  if (pid_ > 0) {
    int status = 0;
    // EOF came first; the exit status follows within moments.
    pid_t r = 0;
    for (int i = 0; i < 200 && (r = ::waitpid(pid_, &status, WNOHANG)) == 0; ++i) {
      ::usleep(5000);
    }
    if (r == 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      what = "closed its output and was killed";
    } else if (WIFSIGNALED(status)) {
      const int sig = WTERMSIG(status);
      what = "was killed by signal " + std::to_string(sig) + " (SIG" +
             std::string(sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
      // Allocation failure under the address-space limit ends in abort (or the OOM killer).
      if (memory_limited(options_) && (sig == SIGABRT || sig == SIGKILL)) {
        what += ", perhaps the " + std::to_string(options_.memory_limit_mb) + " MB memory limit";
      }
      what += ")";
    } else if (WIFEXITED(status)) {
      what = "exited with code " + std::to_string(WEXITSTATUS(status));
    }
  }
  pid_ = -1;
  close_pipes();
  return what;
}

std::vector<std::shared_ptr<Skill>> WorkerClient::load(plugin::PluginRecord& record) {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<Skill>> skills;
  const std::string who = "plugin " + record.file.string();
  std::string error;
  if (!start(error)) {
    record.errors.push_back(who + ": cannot start a worker process: " + error);
    return skills;
  }
  std::string line;
  const auto status =
      read_line(from_worker_, buffer_, line, options_.start_timeout, options_.max_message_bytes);
  if (status != ReadStatus::kLine) {
    const std::string what =
        status == ReadStatus::kTimeout
            ? "did not report within " + std::to_string(options_.start_timeout.count()) + " ms"
            : reap();
    if (status == ReadStatus::kTimeout) kill_worker();
    record.errors.push_back(who + ": its worker process " + what +
                            " while loading the plugin: run it in-process (--isolation "
                            "in-process) to see why");
    return skills;
  }
  nlohmann::json hello;
  try {
    hello = nlohmann::json::parse(line);
  } catch (const nlohmann::json::parse_error&) {
    kill_worker();
    record.errors.push_back(who + ": its worker process sent something that is not JSON");
    return skills;
  }
  const auto& p = hello.at("plugin");
  record.name = p.value("name", "");
  record.version = p.value("version", "");
  record.abi_major = p.value("abi_major", -1);
  record.abi_minor = p.value("abi_minor", -1);
  record.loaded = p.value("loaded", false);
  for (const auto& e : p.value("errors", nlohmann::json::array())) {
    record.errors.push_back(e.get<std::string>());
  }
  plugin_name_ = record.name;
  for (const auto& s : hello.value("skills", nlohmann::json::array())) {
    auto in = schema::CompiledSchema::compile(s.at("input_schema"));
    auto out = schema::CompiledSchema::compile(s.at("output_schema"));
    if (!in || !out) continue;  // the worker's own loader already rejected bad schemas
    auto skill = std::make_shared<Skill>();
    skill->name = s.at("name").get<std::string>();
    skill->title = s.value("title", "");
    skill->description = s.value("description", "");
    skill->plugin = record.name;
    skill->plugin_file = record.file.string();
    skill->flags = s.value("flags", uint64_t{0});
    skill->default_timeout_ms = s.value("default_timeout_ms", 0u);
    skill->invoke = &proxy_invoke;
    skill->state = this;
    skill->input_schema = *in;
    skill->output_schema = *out;
    skill->owner = shared_from_this();
    skill->isolated = true;
    skills.push_back(std::move(skill));
  }
  return skills;
}

int32_t WorkerClient::invoke(const Skill& skill, skillrt_call* call, skillrt_str input) {
  std::lock_guard lock(mutex_);
  const std::string who = "plugin '" + plugin_name_ + "' (" + plugin_file_.string() + ")";
  if (pid_ < 0) {
    std::string error;
    if (!start(error)) {
      set_call_error(call, SKILLRT_UNAVAILABLE, who + ": cannot start a worker: " + error);
      return SKILLRT_UNAVAILABLE;
    }
    // A restarted worker loads the plugin again; its hello line is not needed here.
    std::string hello;
    if (read_line(from_worker_, buffer_, hello, options_.start_timeout,
                  options_.max_message_bytes) != ReadStatus::kLine) {
      const std::string what = reap();
      set_call_error(call, SKILLRT_UNAVAILABLE,
                     who + ": a new worker " + what + " while loading the plugin");
      return SKILLRT_UNAVAILABLE;
    }
  }
  const uint64_t id = next_id_++;
  if (!write_all(to_worker_,
                 wire::call_line(id, skill.name, std::string_view(input.ptr, input.len)))) {
    const std::string what = reap();
    set_call_error(call, SKILLRT_INTERNAL,
                   who + ": its worker " + what + " before skill '" + skill.name +
                       "' could start; the next call starts a new worker");
    return SKILLRT_INTERNAL;
  }
  bool cancel_sent = false;
  Clock::time_point cancel_at;
  std::string line;
  for (;;) {
    if (!cancel_sent && call->cancelled()) {
      cancel_sent = true;
      cancel_at = Clock::now();
      write_all(to_worker_, wire::cancel_line(id));
    }
    if (cancel_sent && Clock::now() - cancel_at > options_.grace) {
      kill_worker();
      const bool deadline = call->deadline_hit.load();
      const int32_t code = deadline ? SKILLRT_DEADLINE_EXCEEDED : SKILLRT_CANCELLED;
      set_call_error(call, code,
                     who + ": skill '" + skill.name + "' ignored " +
                         (deadline ? "its deadline" : "cancellation") + " for " +
                         std::to_string(options_.grace.count()) +
                         " ms and its worker was killed; the next call starts a new worker");
      return code;
    }
    const auto status = read_line(from_worker_, buffer_, line, std::chrono::milliseconds(20),
                                  options_.max_message_bytes);
    if (status == ReadStatus::kTimeout) continue;
    if (status == ReadStatus::kEof) {
      const std::string what = reap();
      set_call_error(call, SKILLRT_INTERNAL,
                     who + ": its worker " + what + " while running skill '" + skill.name +
                         "'; the next call starts a new worker");
      return SKILLRT_INTERNAL;
    }
    if (status == ReadStatus::kTooLong) {
      kill_worker();
      set_call_error(call, SKILLRT_RESOURCE_EXHAUSTED,
                     who + ": skill '" + skill.name + "' sent a message over " +
                         std::to_string(options_.max_message_bytes >> 20) +
                         " MB; its worker was killed: narrow the input");
      return SKILLRT_RESOURCE_EXHAUSTED;
    }
    nlohmann::json msg;
    try {
      msg = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error&) {
      kill_worker();
      set_call_error(call, SKILLRT_INTERNAL,
                     who +
                         ": its worker broke the protocol (a line that is not JSON); it was "
                         "killed and the next call starts a new worker");
      return SKILLRT_INTERNAL;
    }
    if (msg.value("id", uint64_t{0}) != id) continue;  // late lines of an abandoned call
    const std::string type = msg.value("type", "");
    if (type == wire::kProgress) {
      if (call->on_progress) {
        call->on_progress(
            Progress{msg.value("done", 0.0), msg.value("total", 0.0), msg.value("message", "")});
      }
      continue;
    }
    if (type != wire::kResult) continue;
    // The worker's handle, copied into ours: the executor reads it as it reads any skill's.
    wire::CallResult result = wire::read_result(msg);
    std::lock_guard call_lock(call->mutex);
    call->has_result = result.has_result;
    call->result = std::move(result.result);
    if (result.code != SKILLRT_OK) {
      call->error_code = result.code;
      call->error_message = std::move(result.message);
    }
    return result.code;
  }
}

}  // namespace skillrt::exec
