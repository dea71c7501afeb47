// Differential fuzz target: the tools/call scanner of the MCP hot path against nlohmann's DOM.
// Whatever the scanner accepts must parse, be a tools/call, and read the same through the spans
// as through the DOM (id as dump() writes it, tool name, arguments, _meta). The scanner may
// decline anything (the general path answers it); it must never accept what the DOM reads
// differently. Built as a libFuzzer target by `make fuzz`, and run over its corpus by ctest.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "mcp/detail/call_scan.hpp"

namespace {

[[noreturn]] void mismatch(const char* what, std::string_view text) {
  std::fprintf(stderr, "call_scan differs from the DOM (%s) on: %.*s\n", what,
               static_cast<int>(text.size() > 2000 ? 2000 : text.size()), text.data());
  std::abort();
}

nlohmann::json parse_span(std::string_view span, const char* what, std::string_view text) {
  const auto parsed = nlohmann::json::parse(span, nullptr, false);
  if (parsed.is_discarded()) mismatch(what, text);
  return parsed;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto scanned = skillrt::mcp::detail::scan_tools_call(text);
  if (!scanned) return 0;
  const auto dom = nlohmann::json::parse(text, nullptr, false);
  if (dom.is_discarded() || !dom.is_object()) mismatch("accepted text the DOM rejects", text);
  if (dom.value("method", nlohmann::json()) != "tools/call") mismatch("method", text);
  if (!dom.contains("id") || dom["id"].dump() != scanned->id) mismatch("id", text);
  const auto params = dom.value("params", nlohmann::json());
  if (!params.is_object() || params.value("name", nlohmann::json()) != scanned->name) {
    mismatch("name", text);
  }
  const auto arguments = params.value("arguments", nlohmann::json());
  if (scanned->arguments.empty()) {
    if (!arguments.is_null()) mismatch("arguments present but not scanned", text);
  } else if (parse_span(scanned->arguments, "arguments span", text) != arguments) {
    mismatch("arguments", text);
  }
  const auto meta = params.value("_meta", nlohmann::json());
  if (scanned->meta.empty()) {
    if (!meta.is_null()) mismatch("_meta present but not scanned", text);
  } else if (parse_span(scanned->meta, "_meta span", text) != meta) {
    mismatch("_meta", text);
  }
  return 0;
}
