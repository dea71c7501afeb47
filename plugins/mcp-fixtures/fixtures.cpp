// Test-only skills that exercise the MCP server end to end: echo, progress, cancellation,
// failures, output that breaks its schema, a plugin that prints to stdout, report files, and
// enough tools to need paging. Never installed.
#include <skillrt/sdk.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <thread>

#include "skillrt_embedded_schemas.h"

namespace {

using skillrt::Json;

constexpr int kPageTools = 55;  // more than one tools/list page at the default page size of 50

Json echo(const Json& in, skillrt::Context&) { return Json{{"text", in.at("text")}}; }

Json progress(const Json& in, skillrt::Context& ctx) {
  const int steps = in.at("steps").get<int>();
  for (int i = 1; i <= steps; ++i) ctx.progress(i, steps, "step " + std::to_string(i));
  return Json{{"steps", steps}};
}

// Waits until the caller cancels (or max_ms passes), as a long computation would.
Json slow(const Json& in, skillrt::Context& ctx) {
  const auto start = std::chrono::steady_clock::now();
  const auto limit = std::chrono::milliseconds(in.at("max_ms").get<int64_t>());
  bool cancelled = false;
  while (std::chrono::steady_clock::now() - start < limit) {
    if (ctx.cancelled()) {
      cancelled = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  return Json{{"cancelled", cancelled}, {"waited_ms", waited.count()}};
}

Json fail(const Json&, skillrt::Context&) {
  throw skillrt::SkillError(SKILLRT_FAILED_PRECONDITION,
                            "fixture-fail always fails: this is the message an agent should see");
}

Json bad_output(const Json&, skillrt::Context&) { return Json{{"ok", "not a boolean"}}; }

// Writes to fd 1 three ways; over stdio none of it may reach the protocol stream.
Json print(const Json&, skillrt::Context&) {
  std::printf("fixture-print: printf to stdout\n");
  std::fflush(stdout);
  std::cout << "fixture-print: std::cout to stdout" << std::endl;
  [[maybe_unused]] const int rc =
      std::system("echo 'fixture-print: a child process writing to stdout'");
  return Json{{"ok", true}};
}

Json report(const Json& in, skillrt::Context&) {
  const std::string path = in.at("dir").get<std::string>() + "/report.md";
  std::ofstream out(path);
  if (!out) throw skillrt::invalid_argument("cannot write " + path + ": pass a writable dir");
  out << "# Fixture report\n\nWritten by fixture-report.\n";
  return Json{{"report", path}};
}

void register_skills(skillrt::Registrar& r) {
  const auto schema = [](const char* key) { return skillrt_embedded::schema(key); };
  r.skill("fixture-echo")
      .title("Echo")
      .description("Returns its input text unchanged.")
      .input_schema(schema("echo.input"))
      .output_schema(schema("echo.output"))
      .read_only()
      .idempotent()
      .handler(echo);
  // The same as a raw handler: the host's work per call without the SDK's Json on either side
  // (bench/mcp runs both). The input already matched echo.input, so it is a valid echo.output.
  r.skill("fixture-echo-raw")
      .title("Echo (raw text)")
      .description("Returns its input text unchanged, as text.")
      .input_schema(schema("echo.input"))
      .output_schema(schema("echo.output"))
      .read_only()
      .idempotent()
      .raw_handler([](std::string_view in, skillrt::Context&) { return std::string(in); });
  r.skill("fixture-progress")
      .description("Reports progress once per step, then returns the step count.")
      .input_schema(schema("progress.input"))
      .output_schema(schema("progress.output"))
      .read_only()
      .handler(progress);
  r.skill("fixture-slow")
      .description("Waits until cancelled or max_ms passes; says which.")
      .input_schema(schema("slow.input"))
      .output_schema(schema("slow.output"))
      .read_only()
      .handler(slow);
  r.skill("fixture-fail")
      .description("Always fails with FAILED_PRECONDITION.")
      .input_schema(schema("empty.input"))
      .output_schema(schema("ok.output"))
      .handler(fail);
  r.skill("fixture-bad-output")
      .description("Returns a result that breaks its own output schema.")
      .input_schema(schema("empty.input"))
      .output_schema(schema("ok.output"))
      .handler(bad_output);
  r.skill("fixture-print")
      .description("Prints to stdout through printf, std::cout and a child process.")
      .input_schema(schema("empty.input"))
      .output_schema(schema("ok.output"))
      .handler(print);
  r.skill("fixture-report")
      .description("Writes report.md into the given folder and returns its path.")
      .input_schema(schema("report.input"))
      .output_schema(schema("report.output"))
      .destructive()
      .handler(report);
  for (int i = 1; i <= kPageTools; ++i) {
    char name[32];
    std::snprintf(name, sizeof(name), "fixture-page-%02d", i);
    r.skill(name)
        .description("One of many echo tools, so that tools/list needs more than one page.")
        .input_schema(schema("echo.input"))
        .output_schema(schema("echo.output"))
        .read_only()
        .handler(echo);
  }
}

}  // namespace

SKILLRT_PLUGIN("mcp-fixtures", "1.0.0", register_skills)
