// abi.h is the one contract we promise: any change to it must come with a version bump.
#include <skillrt/abi.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace {

uint64_t fnv1a(const std::string& bytes) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("abi.h changes only together with a version bump", "[abi]") {
  const std::string header = read(SKILLRT_SOURCE_DIR "/core/include/skillrt/abi.h");
  std::ostringstream hash;
  hash << std::hex << fnv1a(header);
  const std::string version =
      std::to_string(SKILLRT_ABI_MAJOR) + "." + std::to_string(SKILLRT_ABI_MINOR);

  // Format: one line "<major>.<minor> <fnv1a-64 hex of abi.h>".
  std::istringstream recorded(read(SKILLRT_SOURCE_DIR "/tests/plugin_abi/abi_h.hash"));
  std::string recorded_version;
  std::string recorded_hash;
  recorded >> recorded_version >> recorded_hash;

  INFO("abi.h now hashes to " << hash.str() << " at version " << version
                              << "; tests/plugin_abi/abi_h.hash records " << recorded_hash
                              << " at " << recorded_version
                              << ". If you changed abi.h, bump SKILLRT_ABI_MINOR (additions at "
                                 "the end of a struct) or SKILLRT_ABI_MAJOR (anything else), "
                                 "then record the new line.");
  if (recorded_version == version) {
    CHECK(recorded_hash == hash.str());
  } else {
    // A bump without recording the new hash is caught as well.
    FAIL("version changed from " << recorded_version << " to " << version
                                 << ": record the new hash");
  }
}

TEST_CASE("ABI structs only grow at the end", "[abi]") {
  // Offsets of the first fields are part of the promise: a host reads struct_size first.
  CHECK(offsetof(skillrt_plugin, struct_size) == 0);
  CHECK(offsetof(skillrt_skill_def, struct_size) == 0);
  CHECK(offsetof(skillrt_host_api, struct_size) == 0);
  CHECK(offsetof(skillrt_host_api, add_skill) < offsetof(skillrt_host_api, route));
}
