// A plugin of realistic size for the cold-start benchmark: three skills with schemas the size of
// our domain skills'. Built ten times with different SKILLRT_BENCH_INDEX values.
#include <skillrt/sdk.hpp>

#include <string>

#include "skillrt_embedded_schemas.h"

#ifndef SKILLRT_BENCH_INDEX
#error "define SKILLRT_BENCH_INDEX"
#endif
#define SKILLRT_BENCH_STR2(x) #x
#define SKILLRT_BENCH_STR(x) SKILLRT_BENCH_STR2(x)

namespace {
void register_skills(skillrt::Registrar& r) {
  const std::string prefix = "bench" SKILLRT_BENCH_STR(SKILLRT_BENCH_INDEX) "-";
  for (const char* suffix : {"scan", "verify", "report"}) {
    r.skill(prefix + suffix)
        .description("Synthetic skill for the cold-start benchmark.")
        .input_schema(skillrt_embedded::schema("bench.input"))
        .output_schema(skillrt_embedded::schema("bench.output"))
        .read_only()
        .handler([](const skillrt::Json& in, skillrt::Context&) { return in; });
  }
}
}  // namespace

SKILLRT_PLUGIN("bench-" SKILLRT_BENCH_STR(SKILLRT_BENCH_INDEX), "0.0.1", register_skills)
