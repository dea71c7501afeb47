#include "exec/isolation/worker.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <mutex>
#include <thread>

#include "common/stdout_aside.hpp"
#include "exec/detail/call.hpp"
#include "exec/executor.hpp"
#include "exec/isolation/wire.hpp"
#include "plugin/loader.hpp"

namespace skillrt::exec {

namespace {

// Protocol lines go to a private copy of the original stdout; fd 1 itself now points at
// stderr, so whatever the plugin prints cannot corrupt the stream.
class Channel {
 public:
  explicit Channel(StdoutAside aside) : aside_(std::move(aside)), fd_(aside_.fd()) {}
  // `data` is one protocol line, newline included.
  void send(const std::string& data) {
    std::lock_guard lock(mutex_);
    size_t done = 0;
    while (done < data.size()) {
      const ssize_t n = ::write(fd_, data.data() + done, data.size() - done);
      if (n <= 0) ::_exit(0);  // the host is gone
      done += static_cast<size_t>(n);
    }
  }

 private:
  StdoutAside aside_;
  int fd_;
  std::mutex mutex_;
};

// Runs one call and sends back its handle's final state; the host's executor judges it.
void serve_call(Channel& channel, Executor& executor, uint64_t id,
                std::shared_ptr<const Skill> skill, std::string input, CancelFlag cancel) {
  skillrt_call call;
  call.executor = &executor;
  call.skill = skill;
  call.cancel = cancel;
  call.deadline = std::chrono::steady_clock::time_point::max();
  call.on_progress = [&channel, id](const Progress& p) {
    channel.send(wire::progress_line(id, p.done, p.total, p.message));
  };
  const int32_t rc = skill->invoke(skill->state, &call, skillrt_str{input.data(), input.size()});
  std::lock_guard lock(call.mutex);
  wire::CallResult result;
  result.code = call.error_code != SKILLRT_OK ? call.error_code : rc;
  result.message = std::move(call.error_message);
  result.has_result = call.has_result;
  result.result = std::move(call.result);
  channel.send(wire::result_line(id, result));
}

}  // namespace

void run_worker(const std::string& plugin_file, const std::string& config_json,
                const skillrt_host_api* api) {
  auto aside = StdoutAside::divert();
  if (!aside) {
    // Nothing can reach the host without the channel; it reports the worker's exit.
    spdlog::error("worker: {}", aside.error().message);
    ::_exit(1);
  }
  Channel channel(std::move(*aside));
  Registry registry;
  plugin::LoaderOptions options;
  options.log_errors = false;
  try {
    options.plugin_config["*"] = nlohmann::json::parse(config_json);
  } catch (const nlohmann::json::parse_error&) {
    options.plugin_config["*"] = nlohmann::json::object();
  }
  plugin::Loader loader(registry, api, options);
  loader.load_file(plugin_file, false);
  registry.freeze();
  Executor executor(registry, {});

  nlohmann::json hello = {{"type", wire::kHello}};
  const auto& records = loader.records();
  if (!records.empty()) {
    const auto& r = records.front();
    hello["plugin"] = {{"name", r.name},           {"version", r.version},
                       {"abi_major", r.abi_major}, {"abi_minor", r.abi_minor},
                       {"loaded", r.loaded},       {"errors", r.errors}};
  } else {
    hello["plugin"] = {{"loaded", false}, {"errors", {"plugin " + plugin_file + ": not loaded"}}};
  }
  nlohmann::json skills = nlohmann::json::array();
  for (const auto& s : registry.all()) {
    skills.push_back({{"name", s->name},
                      {"title", s->title},
                      {"description", s->description},
                      {"flags", s->flags},
                      {"default_timeout_ms", s->default_timeout_ms},
                      {"input_schema", s->input_schema->source()},
                      {"output_schema", s->output_schema->source()}});
  }
  hello["skills"] = skills;
  channel.send(hello.dump() + "\n");

  // One call at a time (the host serialises them); the reader stays free to take a cancel.
  std::thread running;
  CancelFlag cancel;
  uint64_t running_id = 0;
  std::string line;
  while (std::getline(std::cin, line)) {
    nlohmann::json msg;
    try {
      msg = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error&) {
      continue;
    }
    const std::string type = msg.value("type", "");
    if (type == wire::kCancel) {
      if (cancel && msg.value("id", uint64_t{0}) == running_id) cancel->store(true);
      continue;
    }
    if (type != wire::kCall) continue;
    if (running.joinable()) running.join();
    const uint64_t id = msg.value("id", uint64_t{0});
    auto skill = registry.find(msg.value("skill", ""));
    if (!skill) {
      wire::CallResult missing;
      missing.code = SKILLRT_NOT_FOUND;
      missing.message = "this worker has no skill '" + msg.value("skill", "") + "'";
      channel.send(wire::result_line(id, missing));
      continue;
    }
    cancel = make_cancel_flag();
    running_id = id;
    running = std::thread(serve_call, std::ref(channel), std::ref(executor), id, skill,
                          msg["input"].dump(), cancel);
  }
  // The host closed our stdin: it is done with us. Plugin threads may still run; do not wait.
  std::fflush(nullptr);
  ::_exit(0);
}

}  // namespace skillrt::exec
