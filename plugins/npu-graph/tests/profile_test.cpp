// npu-graph-profile on a generated Chrome trace and Ascend CSVs whose contents the test knows.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "profile.hpp"

namespace ng = skillrt::npu_graph;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Two steps; per step: MatMul 300 us, ten 4 us Adds 1 us apart, a 400 us idle gap, Softmax
// 100 us. torch_npu-style string timestamps on the device, numbers on the host.
json make_trace() {
  json ev = json::array();
  ev.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", 1}, {"args", {{"name", "Python"}}}});
  ev.push_back(
      {{"ph", "M"}, {"name", "process_name"}, {"pid", 2}, {"args", {{"name", "Ascend Hardware"}}}});
  auto dev = [&](const std::string& name, double ts, double dur) {
    ev.push_back({{"ph", "X"},
                  {"name", name},
                  {"pid", 2},
                  {"tid", 7},
                  {"ts", std::to_string(ts)},
                  {"dur", dur}});
  };
  auto host = [&](const std::string& name, double ts, double dur, const std::string& cat) {
    ev.push_back({{"ph", "X"},
                  {"name", name},
                  {"pid", 1},
                  {"tid", 1},
                  {"ts", ts},
                  {"dur", dur},
                  {"cat", cat}});
  };
  for (int s = 0; s < 2; ++s) {
    const double b = 1000.0 * s;
    host("ProfilerStep#" + std::to_string(s + 1), b, 1000, "user_annotation");
    dev("MatMul", b + 10, 300);
    for (int k = 0; k < 10; ++k) dev("Add", b + 311 + 5 * k, 4);
    dev("Softmax", b + 760, 100);
  }
  host("Torch-Compiled Region", 0, 900, "cpu_op");
  host("Torch-Compiled Region", 1000, 400, "cpu_op");
  host("aten::mm", 100, 20, "cpu_op");
  host("aten::add", 950, 30, "cpu_op");
  host("torch/_dynamo/convert_frame.py(700): _compile", 1500, 200, "python_function");
  return json{{"traceEvents", ev}};
}

}  // namespace

TEST_CASE("chrome trace: top operators, gaps, small kernels, steps, recompilation, eager ops") {
  const json r = ng::analyze_chrome_trace(make_trace(), "trace.json", {});
  CHECK(r["kernels"] == 24);
  REQUIRE(r["top_ops"].size() == 3);
  CHECK(r["top_ops"][0]["name"] == "MatMul");
  CHECK(r["top_ops"][0]["device_time_us"] == Approx(600));
  CHECK(r["top_ops"][0]["count"] == 2);
  CHECK(r["top_ops"][0]["share"] == Approx(600.0 / 880.0).epsilon(0.001));
  CHECK(r["top_ops"][1]["name"] == "Softmax");
  CHECK(r["top_ops"][2]["name"] == "Add");
  CHECK(r["top_ops"][2]["count"] == 20);
  REQUIRE(r["gaps"].size() == 3);
  CHECK(r["gaps"][0]["length_us"] == Approx(400));
  CHECK(r["gaps"][0]["start_us"] == Approx(360));
  CHECK(r["gaps"][0]["before"] == "Add");
  CHECK(r["gaps"][0]["after"] == "Softmax");
  CHECK(r["gaps"][2]["length_us"] == Approx(150));
  CHECK(r["gaps"][2]["before"] == "Softmax");
  CHECK(r["gaps"][2]["after"] == "MatMul");
  CHECK(r["idle"]["span_us"] == Approx(1850));
  CHECK(r["idle"]["idle_in_gaps_us"] == Approx(950));
  CHECK(r["small_kernels"]["count"] == 20);
  REQUIRE(r["launches_per_step"].size() == 2);
  CHECK(r["launches_per_step"][0]["kernels"] == 12);
  CHECK(r["launches_per_step"][1]["step"] == "2");
  CHECK(r["graph"]["compiled_regions"] == 2);
  CHECK(r["graph"]["recompilations_after_first_step"] == 1);
  REQUIRE(r["graph"]["eager_ops_outside_graph"].size() == 1);
  CHECK(r["graph"]["eager_ops_outside_graph"][0]["name"] == "aten::add");
  std::set<std::string> kinds;
  for (const json& f : r["findings"]) {
    kinds.insert(f["kind"].get<std::string>());
    CHECK_FALSE(f["suggestion"].get<std::string>().empty());
  }
  const std::set<std::string> expected = {"host-bound", "small-kernels", "recompilation",
                                          "eager-fallback", "hotspot"};
  CHECK(kinds == expected);
}

TEST_CASE("chrome trace with a larger threshold has fewer gaps; bad input is refused") {
  ng::ProfileOptions o;
  o.gap_threshold_us = 200;
  const json r = ng::analyze_chrome_trace(make_trace(), "trace.json", o);
  CHECK(r["gaps"].size() == 2);
  CHECK_THROWS_WITH(ng::analyze_chrome_trace(json{{"x", 1}}, "bad.json", {}),
                    Catch::Contains("traceEvents"));
}

TEST_CASE("Ascend CSVs: kernel_details, op_statistic and operator_details") {
  std::string kd =
      "Step Id,Model ID,Task ID,Stream ID,Name,Type,Accelerator Core,Start Time(us),"
      "Duration(us),Wait Time(us),Block Dim,Input Shapes\n";
  double t = 1000;
  for (int s = 1; s <= 2; ++s) {
    kd += std::to_string(s) + ",4294967295,1,2,aclnnMatmul_MatMulV2,MatMulV2,AI_CORE," +
          std::to_string(t) + ",250,0,20,\"4096,4096;4096,4096\"\n";
    t += 250 + 2;
    for (int k = 0; k < 12; ++k) {
      kd += std::to_string(s) + ",4294967295,1,2,aclnnAdd_AddAiCore_Add,Add,AI_VECTOR_CORE," +
            std::to_string(t) + ",3,1,8,\"4096;4096\"\n";
      t += 4;
    }
    t += 300;  // host-bound gap
  }
  const json k = ng::analyze_ascend_csv(kd, "/p/kernel_details.csv", {});
  CHECK(k["kind"] == "kernel_details");
  CHECK(k["kernels"] == 26);
  CHECK(k["top_ops"][0]["name"] == "MatMulV2");
  CHECK(k["top_ops"][0]["device_time_us"] == Approx(500));
  CHECK(k["top_ops"][1]["count"] == 24);
  REQUIRE(k["gaps"].size() == 1);  // the gap after the last kernel of step 2 is past the span
  CHECK(k["gaps"][0]["length_us"] == Approx(301));
  CHECK(k["gaps"][0]["before"] == "Add");
  CHECK(k["launches_per_step"][0]["kernels"] == 13);
  CHECK(k["small_kernels"]["count"] == 24);

  const std::string os =
      "OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\n"
      "MatMulV2,AI_CORE,100,52000.5,500,520.005,600,61.2\n"
      "FlashAttentionScore,MIX_AIC,40,24000,590,600,610,28.3\n"
      "Add,AI_VECTOR_CORE,900,8800,8,9.78,15,10.4\n";
  const json o = ng::analyze_ascend_csv(os, "/p/op_statistic.csv", {});
  CHECK(o["top_ops"][0]["name"] == "MatMulV2");
  CHECK(o["top_ops"][0]["count"] == 100);
  CHECK(o["top_ops"][1]["name"] == "FlashAttentionScore");
  CHECK(o["top_ops"][2]["share"] == Approx(8800 / 84800.5).margin(0.001));

  const std::string od =
      "Name,Input Shapes,Call Stack,Host Self Duration(us),Host Total Duration(us),"
      "Device Self Duration(us),Device Total Duration(us)\n"
      "aten::index_put_,\"1024,1024\",,300,420,10,12\n"
      "aten::mm,\"4096,4096\",,20,30,510,520\n";
  const json d = ng::analyze_ascend_csv(od, "/p/operator_details.csv", {});
  CHECK(d["top_ops"][0]["name"] == "aten::mm");
  REQUIRE(d["host_bound_ops"].size() == 1);
  CHECK(d["host_bound_ops"][0]["name"] == "aten::index_put_");
  CHECK_THROWS_WITH(ng::analyze_ascend_csv("a,b\n1,2\n", "/p/other.csv", {}),
                    Catch::Contains("unknown CSV"));
}

TEST_CASE("run_profile finds the files of a profile directory") {
  const fs::path dir = fs::temp_directory_path() /
                       ("npu_graph_profile_dir_" + std::to_string(::getpid())) /
                       "ASCEND_PROFILER_OUTPUT";
  fs::create_directories(dir);
  std::ofstream(dir / "trace_view.json") << make_trace().dump();
  std::ofstream(dir / "op_statistic.csv")
      << "OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\n"
         "Conv2D,AI_CORE,3,900,300,300,300,100\n";
  const json r = ng::run_profile(json{{"profile_dir", dir.parent_path().string()}});
  CHECK(r["sources"].size() == 2);
  CHECK(r["top_ops"][0]["name"] == "MatMul");  // the trace is preferred for headline numbers
  CHECK(r["gaps"].size() == 3);
  fs::remove_all(dir.parent_path());
}
