// The worker protocol, both ends: one JSON object per line between the host (WorkerClient) and
// `skillrt __worker --plugin FILE` (run_worker). Host to worker: call, cancel. Worker to host:
// hello (once, after loading), progress, result.
//
//   {"type":"hello","plugin":{...},"skills":[{name,title,description,flags,...}]}
//   {"type":"call","id":7,"skill":"name","input":<the input JSON, as the host got it>}
//   {"type":"cancel","id":7}
//   {"type":"progress","id":7,"done":1,"total":3,"message":"..."}
//   {"type":"result","id":7,"code":0,"message":"","has_result":true,"result":"<JSON text>"}
//
// A result carries the skill's call handle as it was when invoke returned (its return code or
// reported error, whether it wrote a result and the text it wrote, unparsed), so the host's
// executor judges a skill in a worker exactly as one in-process: one error mapping, in
// Executor::run_skill. The text travels as a JSON string so that a skill writing invalid JSON
// cannot break the protocol (bytes that are not UTF-8 arrive replaced by U+FFFD).
#pragma once

#include <skillrt/abi.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace skillrt::exec::wire {

inline constexpr std::string_view kHello = "hello";
inline constexpr std::string_view kCall = "call";
inline constexpr std::string_view kCancel = "cancel";
inline constexpr std::string_view kProgress = "progress";
inline constexpr std::string_view kResult = "result";

// The final state of a call handle, as the worker saw it.
struct CallResult {
  int32_t code = 0;  // the reported error code, else invoke's return code
  std::string message;
  bool has_result = false;
  std::string result;  // the text the skill wrote
};

// Built by hand around the input so that a large input is copied once, not parsed and dumped.
inline std::string call_line(uint64_t id, std::string_view skill, std::string_view input_json) {
  std::string line = "{\"type\":\"call\",\"id\":" + std::to_string(id) +
                     ",\"skill\":" + nlohmann::json(skill).dump() + ",\"input\":";
  line.append(input_json);
  line += "}\n";
  return line;
}

inline std::string cancel_line(uint64_t id) {
  return nlohmann::json{{"type", kCancel}, {"id", id}}.dump() + "\n";
}

inline std::string progress_line(uint64_t id, double done, double total,
                                 const std::string& message) {
  return nlohmann::json{{"type", kProgress},
                        {"id", id},
                        {"done", done},
                        {"total", total},
                        {"message", message}}
             .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n";
}

inline std::string result_line(uint64_t id, const CallResult& r) {
  return nlohmann::json{{"type", kResult},
                        {"id", id},
                        {"code", r.code},
                        {"message", r.message},
                        {"has_result", r.has_result},
                        {"result", r.result}}
             .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n";
}

inline CallResult read_result(const nlohmann::json& line) {
  CallResult r;
  r.code = line.value("code", int32_t{SKILLRT_INTERNAL});
  r.message = line.value("message", "");
  r.has_result = line.value("has_result", false);
  if (const auto it = line.find("result"); it != line.end() && it->is_string()) {
    r.result = it->get<std::string>();
  }
  return r;
}

}  // namespace skillrt::exec::wire
