// npu-graph-logs on dynamo / inductor / torchair logs: the 10 real logs of
// tests/data/real_logs/dynamo against their hand-read expected.jsonl, our own logs in the 2.1,
// 2.4 and 2.11 formats (tests/data/dynamo/README.md), bad input, and bounded memory.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "dynamo_log.hpp"
#include "log_scan.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
namespace ng = skillrt::npu_graph;
using nlohmann::json;

namespace {

const std::string kData = SKILLRT_NPU_GRAPH_TEST_DATA;

using npu_graph_test::TempDir;

json scan(const std::string& path) { return ng::scan_logs({path}, {}); }

std::string lower_plain(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '`') continue;
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

// A hand-written reason names the same thing as ours when it is contained in ours, or when
// every identifier-like word of it (one with . _ ( or [ in it, e.g. `Tensor.item()`,
// capture_scalar_outputs) occurs in ours: the hand-read corpus sometimes paraphrases a reason
// whose first line the log lacks.
bool same_reason(const std::string& expected, const std::string& ours) {
  const std::string e = lower_plain(expected), o = lower_plain(ours);
  if (o.find(e) != std::string::npos) return true;
  std::istringstream words(e);
  std::string w;
  int identifiers = 0;
  while (words >> w) {
    if (w.find_first_of("._([") == std::string::npos) continue;
    while (!w.empty() && (w.back() == ',' || w.back() == ':')) w.pop_back();
    ++identifiers;
    if (o.find(w) == std::string::npos) return false;
  }
  return identifiers > 0;
}

size_t line_of(const json& j) { return j.is_null() ? 0 : j.get<size_t>(); }

}  // namespace

TEST_CASE("real dynamo logs: every hand-read graph break and recompile is named") {
  const std::string dir = kData + "/real_logs/dynamo";
  std::ifstream expected_file(dir + "/expected.jsonl");
  REQUIRE(expected_file);
  size_t breaks_expected = 0, breaks_found = 0, recompiles_expected = 0, recompiles_found = 0;
  std::string line;
  while (std::getline(expected_file, line)) {
    if (line.empty()) continue;
    const json expected = json::parse(line);
    const std::string file = expected["file"];
    const json r = scan(kData + "/real_logs/" + file);
    const json& d = r["dynamo"];
    INFO(file << "\n" << d.dump(2));
    for (const json& e : expected["graph_breaks"]) {
      ++breaks_expected;
      bool found = false;
      for (const json& b : d["graph_breaks"]) {
        if (b["file"] == e["file"] && line_of(b["line"]) == e["line"].get<size_t>() &&
            same_reason(e["reason"], b["reason"])) {
          found = true;
        }
      }
      if (found) ++breaks_found;
      UNSCOPED_INFO("graph break " << e.dump() << (found ? " found" : " MISSED"));
    }
    // Recompile events in log order, one per recompile or limit message, as the corpus has it.
    const json& events = d["recompile_events"];
    CHECK(events.size() == expected["recompiles"].size());
    for (size_t i = 0; i < expected["recompiles"].size(); ++i) {
      const json& e = expected["recompiles"][i];
      ++recompiles_expected;
      bool found = false;
      if (i < events.size()) {
        const json& ev = events[i];
        const size_t count = ev["kind"] == "cache-limit" ? line_of(ev["limit"]) : 1;
        found = ev["function"] == e["function"] && ev["guard"] == e["guard"] &&
                count == e["count"].get<size_t>();
      }
      if (found) ++recompiles_found;
      UNSCOPED_INFO("recompile " << e.dump() << (found ? " found" : " MISSED"));
    }
    CHECK(d["detected"] == true);
    CHECK(r["files"][0]["kind"] == "dynamo");
  }
  std::cout << "real dynamo logs: graph breaks named with file, line and reason " << breaks_found
            << "/" << breaks_expected << "; recompiles with function, guard and count "
            << recompiles_found << "/" << recompiles_expected << "\n";
  CHECK(breaks_expected == 4);
  CHECK(recompiles_expected == 8);
  CHECK(breaks_found == breaks_expected);
  CHECK(recompiles_found == recompiles_expected);
}

TEST_CASE("real dynamo logs: suggestions follow the reason's category") {
  const json bart = scan(kData + "/real_logs/dynamo/pytorch-pr97884-bart-graph-breaks.log");
  const json& b = bart["dynamo"]["graph_breaks"];
  REQUIRE(b.size() == 2);
  CHECK(b[0]["category"] == "unsupported-builtin-or-c-function");
  CHECK(b[0]["suggestion"].get<std::string>().find("`iadd`") != std::string::npos);
  CHECK(b[0]["code"] == "next_decoder_cache += (layer_outputs[3 if output_attentions else 1],)");
  CHECK(b[0]["function"] == "forward");
  const json item =
      scan(kData + "/real_logs/dynamo/pytorch-scatter-457-graph-break-tensor-item.log");
  CHECK(item["dynamo"]["graph_breaks"][0]["category"] == "tensor-item");
  const json limit = scan(kData + "/real_logs/dynamo/dion-23-recompile-limit-size-mismatch.log");
  const json& f = limit["dynamo"]["recompiles"][0];
  CHECK(f["function"] == "dion2_post_orthogonalize");
  CHECK(f["limit_hits"] == 1);
  CHECK(f["limit"] == 8);
  CHECK(f["fatal"] == true);  // FailOnRecompileLimitHit under fullgraph=True
  CHECK(f["guards"][0]["kind"] == "shape");
  CHECK(limit["dynamo"]["recompile_events"][0]["guard_hint"].get<std::string>().find(
            "force_parameter_static_shapes") != std::string::npos);
  // The function of a recompile whose header line is cut off comes from the same frame.
  const json mode = scan(kData + "/real_logs/dynamo/pytorch-127483-recompiles-mode-guard.log");
  REQUIRE(mode["dynamo"]["recompiles"].size() == 1);
  CHECK(mode["dynamo"]["recompiles"][0]["recompiles"] == 2);
  CHECK(mode["dynamo"]["recompiles"][0]["line"] == 37);
}

TEST_CASE("torch 2.1 format: per-rank graph breaks, recompiles, cache limit, perf hint") {
  const json r = scan(kData + "/dynamo/torch21_graph_breaks.log");
  const json& d = r["dynamo"];
  INFO(d.dump(2));
  CHECK(d["graph_break_total"] == 3);
  REQUIRE(d["graph_breaks"].size() == 2);
  const json& top = d["graph_breaks"][0];  // twice, once per rank: ranked first
  CHECK(top["file"] == "/home/user/proj/model.py");
  CHECK(top["line"] == 41);
  CHECK(top["count"] == 2);
  CHECK(top["ranks"] == json::array({0, 1}));
  CHECK(top["category"] == "print-logging");
  CHECK(top["code"] == "print(\"loss scale\", self.scale)");
  CHECK(d["graph_breaks"][1]["line"] == 57);
  CHECK(d["graph_breaks"][1]["category"] == "unsupported-builtin-or-c-function");
  CHECK(d["recompile_total"] == 2);
  CHECK(d["cache_limit_hits"] == 1);
  REQUIRE(d["recompiles"].size() == 1);
  const json& f = d["recompiles"][0];
  CHECK(f["function"] == "forward");
  CHECK(f["recompiles"] == 2);
  CHECK(f["limit_hits"] == 1);
  CHECK(f["limit"] == 8);
  // Three guards that differ only in sizes are one guard pattern, counted three times.
  REQUIRE(f["guards"].size() == 1);
  CHECK(f["guards"][0]["count"] == 3);
  CHECK(d["fallbacks"][0]["op"] == "aten.cumsum");
  CHECK_FALSE(d["actions"].empty());
}

TEST_CASE("torch 2.4 format in an NPU log: plog and torch_npu reading stays, dynamo is added") {
  const json r = scan(kData + "/dynamo/torch24_mixed_npu.log");
  const json& d = r["dynamo"];
  INFO(d.dump(2));
  CHECK(r["files"][0]["kind"] == "mixed");
  // The first error is the runtime's, not the traceback dynamo prints with a graph break.
  REQUIRE(r["first_error"].is_object());
  CHECK(r["first_error"]["text"].get<std::string>().find("507015") != std::string::npos);
  CHECK(r["files"][0]["errors"] == 2);
  REQUIRE(r["timeline"].size() == 2);
  REQUIRE(d["graph_breaks"].size() == 2);
  // print() broke three times at moe.py:71: once logged in full, twice suppressed as duplicates.
  const json& print = d["graph_breaks"][0];
  CHECK(print["line"] == 71);
  CHECK(print["count"] == 3);
  CHECK(print["suppressed_duplicates"] == 2);
  CHECK(print["reason"].get<std::string>().find("builtin: print") != std::string::npos);
  CHECK(print["category"] == "print-logging");
  const json& item = d["graph_breaks"][1];
  CHECK(item["line"] == 64);
  CHECK(item["reason"] == "Graph break from `Tensor.item()`");
  CHECK(item["category"] == "tensor-item");
  REQUIRE(d["fallbacks"].size() == 1);
  CHECK(d["fallbacks"][0]["op"] == "npu.npu_moe_gating_top_k_softmax.default");
  CHECK(d["fallbacks"][0]["kind"] == "implicit fallback (no inductor lowering)");
  REQUIRE(d["perf_hints"].size() == 1);
  CHECK(d["perf_hints"][0]["hint"] == "skipping cudagraphs due to mutated inputs (1 instances)");
  CHECK(d["recompile_total"] == 1);
  CHECK(d["cache_limit_hits"] == 1);
  CHECK(d["recompiles"][0]["function"] == "forward");
  CHECK(d["recompiles"][0]["line"] == 55);
}

TEST_CASE("torch 2.11 format: gb ids and links, duplicates, user frame, skipped frame, torchair") {
  const json r = scan(kData + "/dynamo/torch211_graph_breaks.log");
  const json& d = r["dynamo"];
  INFO(d.dump(2));
  REQUIRE(d["graph_breaks"].size() == 3);
  const json& item = d["graph_breaks"][0];
  CHECK(item["file"] == "/home/user/proj/llm.py");
  CHECK(item["line"] == 133);
  CHECK(item["function"] == "step");
  CHECK(item["count"] == 3);
  CHECK(item["suppressed_duplicates"] == 2);
  CHECK(item["reason"] == "Unsupported Tensor.item() call with capture_scalar_outputs=False");
  CHECK(item["gb_type"] == item["reason"]);
  CHECK(item["gb_id"] == "gb0124");
  CHECK(item["doc_url"] ==
        "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0124.html");
  CHECK(item["hints"].size() == 1);
  CHECK(item["category"] == "tensor-item");
  CHECK(d["graph_breaks"][1]["category"] == "data-dependent-control-flow");
  CHECK(d["graph_breaks"][1]["code"] == "if (probs > top_p).any():");
  // Reported inside torch's polyfills: charged to the user frame that called it.
  const json& skipped = d["graph_breaks"][2];
  CHECK(skipped["file"] == "/home/user/proj/quant.py");
  CHECK(skipped["line"] == 22);
  CHECK(skipped["reason"] == "Attempted to call function marked as skipped");
  CHECK(skipped["category"] == "unsupported-builtin-or-c-function");
  REQUIRE(d["skipped_frames"].size() == 1);
  CHECK(d["skipped_frames"][0]["function"] == "generate");
  CHECK(d["skipped_frames"][0]["line"] == 150);
  REQUIRE(d["recompiles"].size() == 1);
  const json& f = d["recompiles"][0];
  CHECK(f["function"] == "step");
  CHECK(f["recompiles"] == 2);
  CHECK(f["limit_hits"] == 1);
  CHECK(f["limit"] == 8);
  // The first failing guard of each message: size twice (two sizes, one pattern), dtype once.
  CHECK(f["guards"][0]["guard"] == "tensor 'ids' size mismatch at index 1. expected 17, actual 18");
  CHECK(f["guards"][0]["count"] == 2);
  CHECK(f["guards"][1]["kind"] == "dtype-device");
  CHECK(d["recompile_events"][2]["limit_name"] == "recompile_limit");
  REQUIRE(d["torchair"].size() == 1);
  CHECK(d["torchair"][0]["kind"] == "converter");
  CHECK(d["torchair"][0]["source"] == "torchair");
  CHECK(d["ge_graph_compiles"] == 2);
  bool converter_action = false;
  for (const json& a : d["actions"]) {
    if (a.get<std::string>().find("npu_moe_gating_top_k") != std::string::npos) {
      converter_action = true;
    }
  }
  CHECK(converter_action);
}

TEST_CASE("older and other shapes: explain() output, fullgraph errors, WON'T CONVERT, inline") {
  const std::string text =
      "Graph Count: 2\n"
      "Graph Break Count: 1\n"
      "Break Reasons:\n"
      "  Break Reason 1:\n"
      "    Reason: builtin: print [<class 'torch._dynamo.variables.constant.ConstantVariable'>] "
      "False\n"
      "    User Stack:\n"
      "      <FrameSummary file /app/net.py, line 9 in forward>\n"
      "Ops per Graph:\n"
      "torch._dynamo.exc.Unsupported: Tensor.item\n"
      "\n"
      "from user code:\n"
      "   File \"/app/net.py\", line 30, in head\n"
      "    return x.sum().item()\n"
      "\n"
      "[2024-01-02 10:00:00,000] torch._dynamo.convert_frame: [WARNING] WON'T CONVERT forward "
      "/app/net.py line 5 \n"
      "due to: \n"
      "Traceback (most recent call last):\n"
      "  File \"/x/torch/_dynamo/convert_frame.py\", line 1, in f\n"
      "torch._dynamo.exc.TorchRuntimeError: Failed running call_function\n"
      "INFO:torch_npu._inductor.lowering:[npu|inductor|lowering|fallback] User specified "
      "fallback: aten.sort\n";
  const json r = ng::run_logs({{"text", text}}, {});
  const json& d = r["dynamo"];
  INFO(d.dump(2));
  CHECK(r["files"][0]["path"] == ng::kInlineName);
  REQUIRE(d["graph_breaks"].size() == 2);
  bool explain = false, fatal = false;
  for (const json& b : d["graph_breaks"]) {
    if (b["line"] == 9 && b["category"] == "print-logging") explain = true;
    if (b["line"] == 30 && b["fatal"] == true && b["category"] == "tensor-item") fatal = true;
  }
  CHECK(explain);
  CHECK(fatal);
  REQUIRE(d["skipped_frames"].size() == 1);
  CHECK(d["skipped_frames"][0]["function"] == "forward");
  CHECK(d["skipped_frames"][0]["reason"] ==
        "torch._dynamo.exc.TorchRuntimeError: Failed running call_function");
  REQUIRE(d["fallbacks"].size() == 1);
  CHECK(d["fallbacks"][0]["op"] == "aten.sort");
  CHECK(d["fallbacks"][0]["kind"] == "NPU_INDUCTOR_FALLBACK_LIST");
}

TEST_CASE("bad input gets a clear answer: binary, empty, a pip log, no dynamo at all") {
  TempDir dir("npu_graph_dynamo_bad");
  {
    std::ofstream bin(dir.path / "model.log", std::ios::binary);
    const char elf[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, '\n', 'x'};
    bin.write(elf, sizeof elf);
    for (int i = 0; i < 1000; ++i) bin << "Graph break: junk\n";
  }
  std::ofstream(dir.path / "empty.log").close();
  {
    std::ofstream pip(dir.path / "pip.log");
    pip << "Looking in indexes: https://pypi.org/simple\n"
           "Collecting torch_npu==2.1.0\n"
           "  Downloading torch_npu-2.1.0-cp310-cp310-manylinux_2_17_aarch64.whl (12.1 MB)\n"
           "Requirement already satisfied: numpy in ./venv/lib/python3.10/site-packages\n"
           "Installing collected packages: torch_npu\n"
           "ERROR: pip's dependency resolver does not currently take into account all the "
           "packages that are installed.\n"
           "Successfully installed torch_npu-2.1.0\n";
  }
  json r;
  REQUIRE_NOTHROW(r = ng::scan_logs(ng::expand_log_paths({dir.path.string()}, 10), {}));
  INFO(r.dump(2));
  std::map<std::string, std::string> kinds;
  for (const json& f : r["files"]) {
    kinds[fs::path(f["path"].get<std::string>()).filename().string()] = f["kind"];
  }
  CHECK(kinds["model.log"] == "binary");
  CHECK(kinds["empty.log"] == "empty");
  CHECK(kinds["pip.log"] == "pip");
  CHECK(r["dynamo"]["detected"] == false);
  CHECK(r["dynamo"]["graph_breaks"].empty());  // the binary file's text was not read
  const std::string notes = r["notes"].dump();
  CHECK(notes.find("binary") != std::string::npos);
  CHECK(notes.find("is empty") != std::string::npos);
  CHECK(notes.find("pip install log") != std::string::npos);
  CHECK(notes.find("nothing recognised") != std::string::npos);

  // No input at all is refused with what to give instead.
  CHECK_THROWS_WITH(ng::run_logs(json::object(), {}), Catch::Contains("'text'"));
  // A long line of arbitrary bytes without a NUL does not trip the reader.
  std::string noise(200000, '\xff');
  noise += "\nGraph break in user code at :\n\n";
  REQUIRE_NOTHROW(ng::run_logs({{"text", noise}}, {}));
}

TEST_CASE("memory stays bounded: counters grow, tables stop at their caps") {
  ng::DynamoLimits limits;
  limits.max_sites = 50;
  limits.max_events = 10;
  ng::DynamoLogReader reader(limits);
  reader.begin_file("big.log", -1);
  const std::string ts;
  size_t line = 0;
  for (int i = 0; i < 5000; ++i) {
    const std::string at = "/app/m" + std::to_string(i % 200) + ".py";
    reader.on_line("Graph break in user code at " + at + ":7", ++line, ts);
    reader.on_line("Graph Break Reason: Data-dependent branching", ++line, ts);
    reader.on_line("Recompiling function f" + std::to_string(i % 100) + " in /app/x.py:3", ++line,
                   ts);
    reader.on_line("    - 0/0: tensor 'x' size mismatch at index 0. expected " + std::to_string(i) +
                       ", actual " + std::to_string(i + 1),
                   ++line, ts);
  }
  reader.end_file();
  const json d = reader.result(1000);
  CHECK(d["graph_break_total"] == 5000);
  CHECK(d["graph_break_sites"] == 50);
  CHECK(d["recompile_total"] == 5000);
  CHECK(d["recompiles"].size() == 50);
  CHECK(d["recompile_events"].size() == 10);
  CHECK_FALSE(reader.notes().empty());
}
