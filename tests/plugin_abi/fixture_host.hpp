// A registry holding the fx-behaviours fixture plugin and an executor over it, for the executor
// tests.
#pragma once

#include <catch2/catch.hpp>

#include "exec/executor.hpp"
#include "host/host_api.hpp"
#include "plugin/loader.hpp"

namespace skillrt::testing {

struct FixtureHost {
  Registry registry;
  plugin::Loader loader{registry, host::host_api()};
  exec::Executor executor;
  explicit FixtureHost(exec::Executor::Options o = {}) : executor(registry, o) {
    loader.load_directory(SKILLRT_BINARY_DIR "/tests/fixtures/behaviours", false);
    REQUIRE(loader.errors().empty());
    registry.freeze();
  }
};

}  // namespace skillrt::testing
