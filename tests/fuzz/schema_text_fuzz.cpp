// Differential fuzz target: the JSON-Schema check on text (no DOM, the MCP hot path) against
// the check on nlohmann's DOM, over the host's own skill schemas. The first byte of an input
// picks the schema, the rest is the JSON text. The text check must say kMalformed exactly when
// nlohmann cannot parse the text, and otherwise give the DOM check's verdict (or kUnsupported,
// which sends the caller to the DOM path). Built as a libFuzzer target by `make fuzz`, and run
// over its corpus by ctest.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "schema/compiled_schema.hpp"

namespace {

using skillrt::schema::CompiledSchema;
using skillrt::schema::TextVerdict;

// Every schema under schemas/skills, compiled once, in a stable order.
const std::vector<std::shared_ptr<const CompiledSchema>>& schemas() {
  static const auto all = [] {
    std::vector<std::filesystem::path> files;
    for (const auto& e :
         std::filesystem::directory_iterator(std::string(SKILLRT_SOURCE_DIR) + "/schemas/skills")) {
      if (e.path().extension() == ".json") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    std::vector<std::shared_ptr<const CompiledSchema>> out;
    for (const auto& file : files) {
      std::ifstream in(file);
      auto compiled = CompiledSchema::compile(nlohmann::json::parse(in));
      if (!compiled) {
        std::fprintf(stderr, "schema %s does not compile: %s\n", file.c_str(),
                     compiled.error().message.c_str());
        std::abort();
      }
      out.push_back(*compiled);
    }
    return out;
  }();
  return all;
}

[[noreturn]] void mismatch(const char* what, size_t index, std::string_view text) {
  std::fprintf(stderr, "schema %zu: text check differs from the DOM check (%s) on: %.*s\n", index,
               what, static_cast<int>(text.size() > 2000 ? 2000 : text.size()), text.data());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& all = schemas();
  const size_t index = data[0] % all.size();
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const TextVerdict verdict = all[index]->check_text(text);
  const auto dom = nlohmann::json::parse(text, nullptr, false);
  if (dom.is_discarded()) {
    if (verdict != TextVerdict::kMalformed) mismatch("the DOM cannot parse it", index, text);
    return 0;
  }
  if (verdict == TextVerdict::kMalformed) mismatch("the DOM parses it", index, text);
  if (verdict == TextVerdict::kUnsupported) return 0;
  const bool valid = all[index]->is_valid(dom);
  if (valid != (verdict == TextVerdict::kValid)) mismatch("verdict", index, text);
  return 0;
}
