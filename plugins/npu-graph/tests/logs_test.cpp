// npu-graph-logs on generated multi-rank logs whose contents the test controls.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "log_scan.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
namespace ng = skillrt::npu_graph;
using nlohmann::json;

namespace {

using npu_graph_test::TempDir;

std::string plog(const std::string& level, const std::string& module, int pid,
                 const std::string& time, const std::string& msg) {
  return "[" + level + "] " + module + "(" + std::to_string(pid) + ",python3):" + time +
         " [file.cc:10]" + std::to_string(pid) + " " + msg + "\n";
}

}  // namespace

TEST_CASE("timestamps and ranks are read from the usual formats") {
  CHECK(ng::extract_timestamp("[ERROR] GE(1,python3):2024-05-01-10:20:30.123.456 [a.cc:1]") ==
        "2024-05-01 10:20:30.123456");
  CHECK(ng::extract_timestamp("[ERROR] 2024-05-01-10:20:30 (PID:1, Device:0, RankID:3) ERR01100") ==
        "2024-05-01 10:20:30.000000");
  CHECK(ng::extract_timestamp("[2024-07-16 08:41:02,118] torch._dynamo") ==
        "2024-07-16 08:41:02.118000");
  CHECK(ng::extract_timestamp("no time here 2024-05") == "");
  CHECK(ng::rank_from_path("/logs/rank_3/plog-1.log") == 3);
  CHECK(ng::rank_from_path("/logs/device-7/x.log") == 7);
  CHECK(ng::rank_from_path("/logs/plog-12345_2024.log") == -1);
}

TEST_CASE("first error across ranks, timeline, collapsed patterns and rank differences") {
  TempDir dir("npu_graph_logs_test");
  const int kRepeats = 250;
  {
    std::ofstream r0(dir.path / "rank_0.log");
    for (int i = 0; i < kRepeats; ++i) {
      r0 << plog("INFO", "RUNTIME", 100, "2024-05-01-10:00:00.000.000",
                 "launch kernel id " + std::to_string(i));
      r0 << plog("WARNING", "HCCL", 100, "2024-05-01-10:00:01.000.000",
                 "retry link " + std::to_string(i) + " to 0x7f" + std::to_string(1000 + i));
    }
    r0 << plog("ERROR", "HCCL", 100, "2024-05-01-10:00:09.000.000",
               "EI0002: The wait execution of the Notify register times out.");
    r0 << "[ERROR] 2024-05-01-10:00:09 (PID:100, Device:0, RankID:0) ERR00100 PTA call acl api "
          "failed\n";
  }
  {
    std::ofstream r1(dir.path / "rank_1.log");
    r1 << plog("INFO", "RUNTIME", 200, "2024-05-01-09:59:59.000.000", "start");
    r1 << plog("ERROR", "RUNTIME", 200, "2024-05-01-10:00:03.500.000",
               "NPU function error: aclrtSynchronizeDevice, error code is 507014");
    r1 << "RuntimeError: call aclnnSoftmax failed, detail:EZ9999: Inner Error!\n";
  }
  const json r = ng::scan_logs(ng::expand_log_paths({dir.path.string()}, 100), {});
  REQUIRE(r["files"].size() == 2);
  CHECK(r["total_lines"] == 2 * kRepeats + 2 + 3);
  // rank 1 failed first (10:00:03.5) even though rank 0's file is read first.
  CHECK(r["first_error"]["rank"] == 1);
  CHECK(r["first_error"]["line"] == 2);
  REQUIRE(r["timeline"].size() == 4);
  CHECK(r["timeline"][0]["code"] == "507014");
  CHECK(r["timeline"][0]["layer"] == "acl-runtime");
  // EZ9999's line has no time of its own: it inherits 10:00:03.5 from the line before.
  CHECK(r["timeline"][1]["code"] == "EZ9999");
  CHECK(r["timeline"][2]["code"] == "EI0002");
  CHECK(r["timeline"][3]["code"] == "ERR00100");
  CHECK(r["timeline"][2]["ranks"] == json::array({0}));
  // The 250 warnings differ only in numbers and hex ids: one pattern.
  REQUIRE_FALSE(r["patterns"].empty());
  CHECK(r["patterns"][0]["count"] == kRepeats);
  CHECK(r["patterns"][0]["level"] == "warning");
  CHECK(r["patterns"][0]["first"]["line"] == 2);
  REQUIRE(r["per_rank"].is_object());
  CHECK(r["per_rank"]["earliest_failing_rank"] == 1);
  bool ei_only_rank0 = false;
  for (const json& d : r["per_rank"]["differences"]) {
    if (d.value("code", "") == "EI0002") ei_only_rank0 = d["ranks"] == json::array({0});
  }
  CHECK(ei_only_rank0);
}

TEST_CASE("lines that straddle the 1 MiB read buffer are read whole") {
  TempDir dir("npu_graph_logs_chunk");
  const fs::path file = dir.path / "plog-1.log";
  size_t lines = 0;
  {
    std::ofstream out(file);
    const std::string filler(99, 'x');
    size_t bytes = 0;
    while (bytes < (1u << 20) - 300) {
      out << filler << "\n";
      bytes += 100;
      ++lines;
    }
    // Padding so that the error line starts before the 1 MiB boundary and ends after it.
    out << std::string((1u << 20) - bytes - 20, 'y') << "\n";
    ++lines;
    out << "[ERROR] 2024-01-01-00:00:00 (PID:1, Device:0, RankID:5) ERR01100 OPS call acl api "
           "failed\n";
    ++lines;
  }
  const json r = ng::scan_logs({file.string()}, {});
  CHECK(r["total_lines"] == lines);
  REQUIRE(r["first_error"].is_object());
  CHECK(r["first_error"]["line"] == lines);
  CHECK(r["first_error"]["rank"] == 5);  // from RankID, the file name has none
  REQUIRE(r["timeline"].size() == 1);
  CHECK(r["timeline"][0]["code"] == "ERR01100");
}

TEST_CASE("missing paths are refused with the path named") {
  CHECK_THROWS_WITH(ng::expand_log_paths({"/nonexistent/npu.log"}, 10),
                    Catch::Contains("/nonexistent/npu.log"));
}
