// The host function table: load-time services from the plugin seam, call-time services here.
#include "host/host_api.hpp"

#include <spdlog/spdlog.h>

#include "exec/detail/call.hpp"
#include "exec/executor.hpp"
#include "plugin/loader.hpp"

namespace skillrt::host {

using exec::CallOptions;
using exec::Outcome;
using exec::Progress;

namespace {

std::string to_string(skillrt_str s) {
  return s.ptr == nullptr ? std::string() : std::string(s.ptr, s.len);
}

int32_t write_result(skillrt_call* call, skillrt_str json) {
  if (call == nullptr) return SKILLRT_INVALID_ARGUMENT;
  std::lock_guard lock(call->mutex);
  // Into the handle's own buffer, which it keeps from call to call (see Executor::run_skill).
  if (json.ptr == nullptr) {
    call->result.clear();
  } else {
    call->result.assign(json.ptr, json.len);
  }
  call->has_result = true;
  return SKILLRT_OK;
}

void set_error(skillrt_call* call, int32_t code, skillrt_str message) {
  if (call == nullptr) return;
  std::lock_guard lock(call->mutex);
  call->error_code = code == SKILLRT_OK ? SKILLRT_UNKNOWN : code;
  call->error_message = to_string(message);
}

void report_progress(skillrt_call* call, double done, double total, skillrt_str message) {
  if (call == nullptr || !call->on_progress) return;
  call->on_progress(Progress{done, total, to_string(message)});
}

int32_t is_cancelled(skillrt_call* call) { return call != nullptr && call->cancelled() ? 1 : 0; }

int32_t call_skill(skillrt_call* call, skillrt_str skill, skillrt_str input,
                   skillrt_result_fn on_result, void* user) {
  auto reply = [&](int32_t code, const std::string& payload) {
    if (on_result != nullptr) on_result(user, code, skillrt_str{payload.data(), payload.size()});
    return code;
  };
  if (call == nullptr) return reply(SKILLRT_INVALID_ARGUMENT, "call_skill() needs a call handle");
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(to_string(input));
  } catch (const nlohmann::json::parse_error& e) {
    return reply(SKILLRT_INVALID_ARGUMENT,
                 "call_skill('" + to_string(skill) + "'): input is not JSON: " + e.what());
  }
  CallOptions options;
  options.cancel = call->cancel;
  options.deadline = call->deadline;
  options.chain.reserve(call->callers.size() + 1);
  options.chain = call->callers;
  options.chain.push_back(call->skill->name);
  // The callee shares the caller's cancellation, including a missed deadline.
  if (call->deadline_hit.load()) options.cancel->store(true);
  Outcome out = call->executor->call_inline(to_string(skill), parsed, options);
  if (out.ok()) return reply(SKILLRT_OK, out.result.dump());
  return reply(static_cast<int32_t>(out.code), out.message);
}

int32_t route(skillrt_call* call, skillrt_str text, skillrt_result_fn on_result, void* user) {
  auto reply = [&](int32_t code, const std::string& payload) {
    if (on_result != nullptr) on_result(user, code, skillrt_str{payload.data(), payload.size()});
    return code;
  };
  if (call == nullptr) return reply(SKILLRT_INVALID_ARGUMENT, "route() needs a call handle");
  auto ranked = call->executor->route_text(to_string(text));
  if (!ranked) return reply(static_cast<int32_t>(ranked.error().code), ranked.error().message);
  return reply(SKILLRT_OK, ranked->dump());
}

const skillrt_host_api kHostApi = {
    sizeof(skillrt_host_api),
    SKILLRT_ABI_MAJOR,
    SKILLRT_ABI_MINOR,
    &plugin::host_add_skill,
    &plugin::host_set_load_error,
    &plugin::host_plugin_config,
    &plugin::host_log,
    &write_result,
    &set_error,
    &report_progress,
    &is_cancelled,
    &call_skill,
    &route,
};

}  // namespace

const skillrt_host_api* host_api() { return &kHostApi; }

}  // namespace skillrt::host
