// The npu-graph entry's router on 25+ labelled requests.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "router.hpp"

namespace ng = skillrt::npu_graph;
using nlohmann::json;

TEST_CASE("the router sends labelled requests to the right sub-skill") {
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"text", "what is a graph break in torch.compile?"}}, "npu-graph-qa"},
      {{{"text", "explain the difference between max-autotune and reduce-overhead"}},
       "npu-graph-qa"},
      {{{"text", "torchair 的 reduce-overhead 模式是什么意思"}}, "npu-graph-qa"},
      {{{"text", "GE 图引擎的作用是什么"}}, "npu-graph-qa"},
      {{{"text", "how does the GE graph engine fuse operators"}}, "npu-graph-qa"},
      {{{"text", "which option turns on dynamic shapes in torchair?"}}, "npu-graph-qa"},
      {{{"text", "图模式有哪些配置项"}}, "npu-graph-qa"},
      {{{"text", "diagnose this traceback"},
        {"traceback", "Traceback (most recent call last):\nRuntimeError: x"}},
       "npu-graph-diagnose"},
      {{{"text", "my compiled model fails with aclnn error 561002, which layer is at fault"}},
       "npu-graph-diagnose"},
      {{{"text", "这个报错 EZ9999 帮我定位到哪一层"}}, "npu-graph-diagnose"},
      {{{"text", "torch.compile 报错了"}, {"log", "RuntimeError: call aclnnMatmul failed"}},
       "npu-graph-diagnose"},
      {{{"text", "root cause of ERR01002 please"}}, "npu-graph-diagnose"},
      {{{"text", "training crashed with an exception after the graph break"}},
       "npu-graph-diagnose"},
      {{{"text", "analyze this trace_view.json and tell me why the step is slow"},
        {"trace", "/tmp/trace_view.json"}},
       "npu-graph-profile"},
      {{{"text", "find host-bound gaps and the top kernels"}, {"profile_dir", "/tmp/prof"}},
       "npu-graph-profile"},
      {{{"text", "模型图模式下比 eager 还慢，性能数据在这个目录"}, {"profile_dir", "/tmp/p"}},
       "npu-graph-profile"},
      {{{"text", "帮我看下 profiling 数据，哪些算子最耗时"}}, "npu-graph-profile"},
      {{{"text", "my throughput dropped, where is the bottleneck"}}, "npu-graph-profile"},
      {{{"text", "summarize this 300 MB plog and find the first error"},
        {"paths", json::array({"/tmp/plog"})}},
       "npu-graph-logs"},
      {{{"text", "compare TORCH_NPU_LOGS across ranks to see which one diverged"}},
       "npu-graph-logs"},
      {{{"text", "八卡训练只有 rank 3 挂了，对比一下各卡日志"},
        {"paths", json::array({"/tmp/logs"})}},
       "npu-graph-logs"},
      {{{"text", "这几百兆的 plog 里第一条报错在哪"}}, "npu-graph-logs"},
      {{{"text", "my aclgraph capture fails with an operation not permitted"}},
       "npu-graph-capture"},
      {{{"text", "graph replay returns stale results after I update the static input"}},
       "npu-graph-capture"},
      {{{"text", "NPUGraph 捕获的时候报错，说操作不允许"}}, "npu-graph-capture"},
      {{{"text", "please look at this"},
        {"log",
         "[INFO] capture_begin\nEE9999: Not allow to synchronize captured-stream, stream_id=2."}},
       "npu-graph-capture"},
  };
  REQUIRE(cases.size() >= 25);
  int right = 0;
  for (const auto& [input, expected] : cases) {
    const ng::RouteDecision d = ng::route_request(input, ng::RouteTable::builtin());
    const bool ok = d.skill == expected;
    if (ok) ++right;
    UNSCOPED_INFO(input["text"].get<std::string>()
                  << " -> " << d.skill << (ok ? "" : "   <-- expected " + expected));
    CHECK_FALSE(d.reasons.empty());
  }
  CHECK(right == static_cast<int>(cases.size()));
}

TEST_CASE("reasons name what matched; sub-skill inputs carry the attachments") {
  const json in{{"text", "why is it slow"}, {"profile_dir", "/tmp/prof"}};
  const ng::RouteDecision d = ng::route_request(in, ng::RouteTable::builtin());
  REQUIRE(d.skill == "npu-graph-profile");
  bool attachment = false;
  for (const json& r : d.reasons) {
    if (r["because"] == "a profile_dir is attached") attachment = true;
  }
  CHECK(attachment);
  std::string missing;
  CHECK(ng::sub_skill_input("npu-graph-profile", in, &missing) ==
        json{{"profile_dir", "/tmp/prof"}});
  CHECK(ng::sub_skill_input("npu-graph-profile", json{{"text", "slow"}}, &missing).is_null());
  CHECK(missing.find("profile_dir") != std::string::npos);
  CHECK(ng::sub_skill_input("npu-graph-qa", json{{"text", "what is GE"}}, &missing) ==
        json{{"question", "what is GE"}});
  const ng::RouteDecision none =
      ng::route_request(json{{"text", "hmm"}}, ng::RouteTable::builtin());
  CHECK(none.skill == "npu-graph-qa");
  CHECK(none.reasons.back()["because"].get<std::string>().find("no intent") == 0);
}

TEST_CASE("a pasted dynamo log goes to npu-graph-logs, a traceback to npu-graph-diagnose") {
  const std::string dynamo_log =
      "V0702 10:11:20.877000 20817 torch/_dynamo/guards.py:2598] [1/1] [__recompiles] "
      "Recompiling function forward in /app/moe.py:55\n"
      "V0702 10:11:20.877000 20817 torch/_dynamo/guards.py:2598] [1/1] [__recompiles]     "
      "triggered by the following guard failure(s):\n"
      "V0702 10:11:20.877000 20817 torch/_dynamo/guards.py:2598] [1/1] [__recompiles]     - "
      "tensor 'L['x']' size mismatch at index 0. expected 4096, actual 3968\n";
  const std::string traceback =
      "Traceback (most recent call last):\n"
      "  File \"/app/train.py\", line 10, in <module>\n"
      "    out = model(x)\n"
      "torch._dynamo.exc.Unsupported: Tensor.item\n";
  std::string missing;
  // In `log`, with a request that would otherwise go to diagnose ("报错", "定位").
  const json in{{"text", "torch.compile 报错了，帮我定位"}, {"log", dynamo_log}};
  const ng::RouteDecision d = ng::route_request(in, ng::RouteTable::builtin());
  CHECK(d.skill == "npu-graph-logs");
  CHECK(ng::sub_skill_input(d.skill, in, &missing) == json{{"text", dynamo_log}});
  // Pasted as the request itself.
  const json pasted{{"text", dynamo_log}};
  const ng::RouteDecision p = ng::route_request(pasted, ng::RouteTable::builtin());
  CHECK(p.skill == "npu-graph-logs");
  CHECK(ng::sub_skill_input(p.skill, pasted, &missing) == json{{"text", dynamo_log}});
  // A traceback: attached, pasted in `log`, or pasted after dynamo records.
  CHECK(ng::route_request(json{{"text", "what failed?"}, {"traceback", traceback}},
                          ng::RouteTable::builtin())
            .skill == "npu-graph-diagnose");
  CHECK(ng::route_request(json{{"text", "看看"}, {"log", traceback}}, ng::RouteTable::builtin())
            .skill == "npu-graph-diagnose");
  const ng::RouteDecision both = ng::route_request(
      json{{"text", "please look"}, {"log", dynamo_log + traceback}}, ng::RouteTable::builtin());
  CHECK(both.skill == "npu-graph-diagnose");
  CHECK(ng::route_request(json{{"text", traceback}}, ng::RouteTable::builtin()).skill ==
        "npu-graph-diagnose");
}
