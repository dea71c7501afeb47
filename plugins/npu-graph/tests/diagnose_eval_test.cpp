// Accuracy of npu-graph-diagnose on the labelled logs under data/diagnose/<class>/*.log, and
// checks of the evidence a conclusion carries.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "diagnose.hpp"
#include "diagnose_score.hpp"
#include "embedded_data.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
namespace ng = skillrt::npu_graph;

namespace {

const std::string kData = SKILLRT_NPU_GRAPH_TEST_DATA;

json diagnose_file(const std::string& path) {
  static const ng::RuleSet rules = ng::load_diagnose_rules({});
  return ng::diagnose_text(ng::read_text_file(path), path, rules);
}

}  // namespace

TEST_CASE("diagnose reaches 85% on the labelled logs, at least 6 per class") {
  const auto score = ng::testing::score_diagnose_tree(kData + "/diagnose", "diagnose");
  std::cout << score.report;
  INFO(score.report);
  CHECK(score.total >= 40);
  for (const auto& cls : ng::testing::diagnose_classes()) CHECK(score.per_class.at(cls) >= 6);
  CHECK(static_cast<double>(score.right) / score.total >= 0.85);
}

TEST_CASE("diagnose evidence: codes, operator, layers and rule on an aclnn failure") {
  const json r = diagnose_file(kData + "/diagnose/operator/ez9999_matmul.log");
  CHECK(r["conclusion"] == "operator");
  CHECK(r["rule"]["id"] == "OPR-001");
  CHECK(r["operator"]["name"] == "aclnnMatmul");
  CHECK(r["layer_reached"] == "opplugin-operator");
  std::map<std::string, json> codes;
  for (const json& c : r["codes"]) codes[c["code"].get<std::string>()] = c;
  REQUIRE(codes.count("EZ9999"));
  CHECK(codes["EZ9999"]["kind"] == "cann");
  CHECK(codes["EZ9999"]["layer"] == "opplugin-operator");
  REQUIRE(codes.count("561002"));
  CHECK(codes["561002"]["name"] == "ACLNN_ERR_INNER_TILING_ERROR");
  REQUIRE(codes.count("ERR01100"));
  CHECK(codes["ERR01100"]["name"] == "OPS ACL");
  REQUIRE_FALSE(r["evidence"].empty());
  // Evidence lines are real lines of the file, with their numbers.
  for (const json& e : r["evidence"]) CHECK(e["line"].get<int>() >= 1);
  CHECK(r["first_error"]["line"] == 1);
  CHECK(r["layers"].size() == 4);
}

TEST_CASE("diagnose reports graph breaks and recompilations with reasons") {
  const json r = diagnose_file(kData + "/diagnose/user-code/recompile_limit.log");
  CHECK(r["rule"]["topic"] == "recompilation");
  bool recompile = false, limit = false;
  for (const json& e : r["graph_events"]) {
    if (e["kind"] == "recompilation") {
      recompile = true;
      CHECK(e["reason"].get<std::string>().find("size mismatch at index 1") != std::string::npos);
      CHECK(e["where"].get<std::string>().find("forward") == 0);
    }
    if (e["kind"] == "recompile-limit") limit = true;
  }
  CHECK(recompile);
  CHECK(limit);
  const json b = diagnose_file(kData + "/diagnose/user-code/graph_break_item.log");
  REQUIRE_FALSE(b["graph_events"].empty());
  CHECK(b["graph_events"][0]["reason"] == "Tensor.item");
}

TEST_CASE("diagnose says undetermined when nothing matches, and timeouts name their limit") {
  const ng::RuleSet rules = ng::load_diagnose_rules({});
  const json r = ng::diagnose_text("all good\nstep 10 loss 1.2\n", "<input>", rules);
  CHECK(r["conclusion"] == "undetermined");
  CHECK(r["rule"].is_null());
  CHECK_FALSE(r["undetermined"].empty());
  const json t = diagnose_file(kData + "/diagnose/acl-runtime/hccl_timeout.log");
  CHECK(t["rule"]["id"] == "RT-001");
  CHECK_FALSE(t["undetermined"].empty());
}

TEST_CASE("user rule files extend and override the built-in pack") {
  const fs::path dir =
      fs::temp_directory_path() / ("npu_graph_rules_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "mine.yaml").string();
  {
    std::ofstream out(path);
    out << "version: 1\nrules:\n"
           "  - id: TEAM-001\n    class: env-config\n    layer: python-api\n    priority: 1\n"
           "    confidence: 0.9\n    title: our cluster's broken NFS\n    any: ['Stale file "
           "handle']\n"
           "    next_steps: ['remount /data']\n"
           "  - id: USR-006\n    class: operator\n    layer: opplugin-operator\n    priority: 50\n"
           "    title: retuned OOM rule\n    any: ['NPU out of memory']\n";
  }
  const ng::RuleSet rules = ng::load_diagnose_rules({path});
  const json a = ng::diagnose_text("OSError: [Errno 116] Stale file handle", "<input>", rules);
  CHECK(a["rule"]["id"] == "TEAM-001");
  CHECK(a["rule"]["source"] == path);
  const json b = ng::diagnose_text("RuntimeError: NPU out of memory. Tried to allocate 2 GiB",
                                   "<input>", rules);
  CHECK(b["conclusion"] == "operator");
  {
    std::ofstream out(path);
    out << "version: 1\nrules:\n  - id: BAD\n    class: nonsense\n    layer: python-api\n"
           "    any: ['x']\n";
  }
  CHECK_THROWS_WITH(ng::load_diagnose_rules({path}), Catch::Contains("'class' must be one of"));
  {
    std::ofstream out(path);
    out << "version: 1\nrules:\n  - id: BAD2\n    class: operator\n    layer: python-api\n"
           "    any: ['(unclosed']\n";
  }
  CHECK_THROWS_WITH(ng::load_diagnose_rules({path}), Catch::Contains("BAD2"));
  fs::remove_all(dir);
}

// Real posted logs (data/real_logs/dev, labelled by where the fix was made). Before the rule
// families of issue 27 the pack got 16/39 with 14 undetermined; the bar is the measured 34/39,
// so a rule change that loses a real case fails here.
TEST_CASE("diagnose on the real-log dev set keeps 34/39 and cites its evidence") {
  const std::string root = kData + "/real_logs/dev";
  const auto score = ng::testing::score_diagnose_tree(root, "real-log dev diagnose");
  std::cout << score.report;
  INFO(score.report);
  CHECK(score.total == 39);
  CHECK(score.right >= 34);
  CHECK(score.undetermined <= 1);
  // Every conclusion names the lines that decided it, and those lines are the log's own.
  for (const auto& cls : ng::testing::diagnose_classes()) {
    for (const auto& e : fs::directory_iterator(root + "/" + cls)) {
      const std::string text = ng::read_text_file(e.path().string());
      const json r = diagnose_file(e.path().string());
      INFO(e.path().filename().string());
      if (r["conclusion"] == "undetermined") continue;
      REQUIRE_FALSE(r["evidence"].empty());
      for (const json& ev : r["evidence"]) {
        const std::string shown = ev["text"].get<std::string>();
        CHECK(text.find(shown.substr(0, std::min<size_t>(shown.size(), 80))) != std::string::npos);
      }
    }
  }
}

TEST_CASE("an input rejected by an operator is attributed to the frame that passed it") {
  const ng::RuleSet rules = ng::load_diagnose_rules({});
  const auto log = [](const std::string& caller) {
    return "Traceback (most recent call last):\n"
           "  File \"" +
           caller +
           "\", line 40, in forward\n"
           "    out = torch_npu.npu_weight_quant_batchmatmul(x, w, scale)\n"
           "  File \"/usr/lib/python3.10/site-packages/torch/_ops.py\", line 1158, in __call__\n"
           "    return self._op(*args, **(kwargs or {}))\n"
           "RuntimeError: call aclnnWeightQuantBatchMatmulV2 failed, error code is 161002\n"
           "[ERROR] 2026-01-01-00:00:00 (PID:1, Device:0, RankID:-1) ERR00100 PTA call acl api "
           "failed\n"
           "EZ1001: group size should be 32 or 64, but is 48.\n";
  };
  const json user = ng::diagnose_text(log("train.py"), "<input>", rules);
  CHECK(user["conclusion"] == "user-code");
  CHECK(user["rule"]["id"] == "USR-004");
  const json adapted =
      ng::diagnose_text(log("/opt/vllm-ascend/vllm_ascend/quantization/w8a8.py"), "<input>", rules);
  CHECK(adapted["conclusion"] == "framework-bug");
  CHECK(adapted["rule"]["id"] == "USR-004");
  bool cites_caller = false;
  for (const json& ev : adapted["evidence"]) {
    cites_caller |= ev["text"].get<std::string>().find("vllm_ascend") != std::string::npos;
  }
  CHECK(cites_caller);
  // Without any frame of the caller the rule's own class stands, and the missing fact is named.
  const json bare =
      ng::diagnose_text("EZ1001: group size should be 32 or 64, but is 48.\n", "<input>", rules);
  CHECK(bare["conclusion"] == "user-code");
  CHECK_FALSE(bare["undetermined"].empty());
}

// The halves that were scored once and then became development data: the first held-out half
// (31/41 after dd64b96), heldout2 (first score 8/45), heldout3 (6/23) and heldout4 (2/7). The
// bars are the scores measured after the issue 27 rule round on them (HELDOUT5_SCORE.md), so a
// change that loses one of these real cases fails here.
TEST_CASE("diagnose keeps its scores on the real-log halves that became development data") {
  const auto first = ng::testing::score_diagnose_tree(kData + "/real_logs/heldout", "heldout");
  INFO(first.report);
  CHECK(first.total == 41);
  CHECK(first.right >= 33);
  CHECK(first.undetermined <= 1);
  const auto second = ng::testing::score_diagnose_tree(kData + "/real_logs/heldout2", "heldout2");
  INFO(second.report);
  CHECK(second.total == 45);
  CHECK(second.right >= 32);
  CHECK(second.undetermined <= 1);
  const auto third = ng::testing::score_diagnose_tree(kData + "/real_logs/heldout3", "heldout3");
  INFO(third.report);
  CHECK(third.total == 23);
  CHECK(third.right >= 10);
  CHECK(third.undetermined <= 1);
  const auto fourth = ng::testing::score_diagnose_tree(kData + "/real_logs/heldout4", "heldout4");
  INFO(fourth.report);
  CHECK(fourth.total == 7);
  CHECK(fourth.right >= 4);
  CHECK(fourth.undetermined == 0);
}

TEST_CASE("a serving engine's log without frames attributes the rejected input to its adaptation") {
  const ng::RuleSet rules = ng::load_diagnose_rules({});
  const std::string engine =
      "(EngineCore_DP0 pid=17833) ERROR 12-23 07:36:19 [core.py:632] RuntimeError: call "
      "aclnnWeightQuantBatchMatmulV2 failed, error code is 161002\n"
      "(EngineCore_DP0 pid=17833) EZ1001: group size should be 32 or 64, but is 48.\n";
  const json r = ng::diagnose_text(engine, "<input>", rules);
  CHECK(r["conclusion"] == "framework-bug");
  CHECK(r["next_steps"][0].get<std::string>().find("serving engine") != std::string::npos);
  // The same lines from a plain script keep the rule's class and name the missing frame.
  const json plain = ng::diagnose_text(
      "RuntimeError: call aclnnWeightQuantBatchMatmulV2 failed, error code is 161002\n"
      "EZ1001: group size should be 32 or 64, but is 48.\n",
      "<input>", rules);
  CHECK(plain["conclusion"] == "user-code");
  CHECK_FALSE(plain["undetermined"].empty());
}

TEST_CASE("a Python error is attributed by the package that raised it, not by the checkout") {
  const ng::RuleSet rules = ng::load_diagnose_rules({});
  const auto log = [](const std::string& path) {
    return "Traceback (most recent call last):\n  File \"" + path +
           "\", Line 155, in rope_forward\n    cos = cos.view(num_tokens, -1)\n"
           "RuntimeError: shape '[14, -1]' is invalid for input of size 2048\n";
  };
  // The adaptation package raised it: the framework's bug ("Line" as some collectors print it).
  CHECK(ng::diagnose_text(log("/ws/vllm-ascend/vllm_ascend/ops/rope.py"), "<input>",
                          rules)["conclusion"] == "framework-bug");
  // A script kept at the top of a vllm-ascend checkout is still the user's.
  CHECK(ng::diagnose_text(log("/ws/vllm-ascend/run_qwen.py"), "<input>", rules)["conclusion"] ==
        "user-code");
  // Engine prefixes do not hide a message anchored at the start of the line.
  const json prefixed = ng::diagnose_text(
      "(Worker_TP1 pid=5) ERROR 01-29 02:01:11 [multiproc_executor.py:822]   File "
      "\"/ws/vllm_ascend/ops/rope.py\", line 155, in rope_forward\n"
      "(Worker_TP1 pid=5) ERROR 01-29 02:01:11 [multiproc_executor.py:822] RuntimeError: shape "
      "'[14, -1]' is invalid for input of size 2048\n",
      "<input>", rules);
  CHECK(prefixed["conclusion"] == "framework-bug");
  CHECK(prefixed["rule"]["id"] == "USR-005");
}

TEST_CASE("configuration, environment-variable and kernel-internal messages get their layer") {
  const ng::RuleSet rules = ng::load_diagnose_rules({});
  const auto conclude = [&](const std::string& text) {
    return ng::diagnose_text(text, "<input>", rules)["conclusion"].get<std::string>();
  };
  CHECK(conclude("AssertionError: number of layers should be divisible by the pipeline parallel "
                 "size\n") == "user-code");
  CHECK(conclude("Config_Error_Invalid_Environment_Variable(EI0001): Value 9 for environment "
                 "variable HCCL_RDMA_TC is invalid.\n") == "env-config");
  CHECK(conclude("RuntimeError: Do not support TASK_QUEUE_ENABLE = 2 during NPU graph capture, "
                 "please export TASK_QUEUE_ENABLE=1/0.\n") == "env-config");
  CHECK(conclude("RuntimeError: operator name is my_kernel.\nKernelLaunch failed because value "
                 "70000 for parameter coreDim is invalid.\n") == "operator");
  CHECK(conclude("RuntimeError: Unable to pin host memory with error code: -1\n") == "env-config");
}

TEST_CASE("a third-party helper failing on what an adaptation layer passed it is the layer's") {
  const ng::RuleSet rules = ng::load_diagnose_rules({});
  const auto log = [](const std::string& outer) {
    return "Traceback (most recent call last):\n  File \"" + outer +
           "\", line 560, in build\n    input_positions = flatten_2d_lists(input_positions)\n"
           "  File \"/usr/lib/python3.10/site-packages/vllm/utils.py\", line 918, in "
           "flatten_2d_lists\n    return [item for sublist in lists for item in sublist]\n"
           "TypeError: 'NoneType' object is not iterable\n";
  };
  CHECK(ng::diagnose_text(log("/usr/lib/python3.10/site-packages/vllm_ascend/worker/runner.py"),
                          "<input>", rules)["conclusion"] == "framework-bug");
  // Called from a user's script, the helper's failure stays undecided between the script and
  // the framework: the rule's class stands and the missing fact is named.
  const json from_script = ng::diagnose_text(log("train.py"), "<input>", rules);
  CHECK(from_script["conclusion"] == "user-code");
  CHECK_FALSE(from_script["undetermined"].empty());
}

namespace {

std::string conclude(const std::string& text) {
  static const ng::RuleSet rules = ng::load_diagnose_rules({});
  return ng::diagnose_text(text, "<input>", rules)["conclusion"].get<std::string>();
}

std::string rule_of(const std::string& text) {
  static const ng::RuleSet rules = ng::load_diagnose_rules({});
  const json r = ng::diagnose_text(text, "<input>", rules);
  return r["rule"].is_null() ? "none" : r["rule"]["id"].get<std::string>();
}

}  // namespace

TEST_CASE("HCCL return codes are read by their HcclResult meaning") {
  // 19 HCCL_E_NETWORK and 11 HCCL_E_TCP_CONNECT: network setup; 15 HCCL_E_RUNTIME and
  // 16 HCCL_E_DRV: the layer below HCCL; 9 HCCL_E_TIMEOUT: a timeout symptom.
  CHECK(conclude("RuntimeError: register_buffer failed | HCCL Error Code: 19\n") == "env-config");
  CHECK(conclude("RuntimeError: init:x.cpp:10 HCCL function error: HcclCommInitRootInfo(n, &id, r, "
                 "&comm), error code is 11\n") == "env-config");
  CHECK(conclude("RuntimeError: init:x.cpp:10 HCCL function error: HcclCommInitRootInfo(n, &id, r, "
                 "&comm), error code is 16\n") == "acl-runtime");
  CHECK(rule_of("RuntimeError: x.cpp:10 HCCL function error: HcclAllReduce(a, b), error code is "
                "9\n") == "RT-001");
  // Other numbers after "error code is" are not HCCL results.
  CHECK(rule_of("RuntimeError: NPU function error: aclrtMalloc, error code is 19\n") != "ENV-014");
}

TEST_CASE(
    "a kernel package that lacks an op for the SoC is the operator's, a missing package "
    "the environment's") {
  CHECK(conclude("RuntimeError: call aclnnFoo failed, detail:EZ1001: Get regInfo failed, The "
                 "binary_info_config.json of socVersion [ascend310p] does not support opType "
                 "[Foo].\n") == "operator");
  CHECK(conclude("EZ9999: /usr/local/Ascend/latest/opp/built-in/op_impl/ai_core/tbe/kernel/config/"
                 "ascend910b/binary_info_config.json does not exist.\n") == "env-config");
  CHECK(conclude("RuntimeError: aclnnFoo or aclnnFooGetWorkspaceSize not in libopapi.so, or "
                 "libopapi.sonot found.\n") == "env-config");
}

TEST_CASE("package pairing: missing names, unregistered extension ops, vLLM's CUDA namespace") {
  CHECK(conclude("ImportError: cannot import name 'resolve_template' from 'vllm.entrypoints.chat'"
                 "\n") == "env-config");
  // A circular import is a bug of the code base that has it, not a pairing problem.
  CHECK(rule_of("ImportError: cannot import name 'a' from partially initialized module 'pkg' "
                "(most likely due to a circular import)\n") != "ENV-006");
  CHECK(conclude("RuntimeError: operator torchvision::nms does not exist\n") == "env-config");
  CHECK(conclude("AttributeError: '_OpNamespace' '_C' object has no attribute 'rms_norm'\n") ==
        "framework-bug");
  CHECK(conclude("AttributeError: '_OpNamespace' '_C_ascend' object has no attribute 'weak_ref'"
                 "\n") == "env-config");
  CHECK(conclude("ModuleNotFoundError: No module named 'mooncake'\n") == "env-config");
  CHECK(conclude("src/affinity.cpp:3:10: fatal error: 'filesystem' file not found\n") ==
        "env-config");
}

TEST_CASE("an operator's Check* function rejecting its inputs is decided by the caller") {
  const std::string check =
      "EZ9999: [PID: 1] numHeads / numKvHeads = 8, MLA only support {32, 64, 128}."
      "[FUNC:CheckMlaAttrs][FILE:ifa_tiling_check.cc][LINE:1218]\n";
  CHECK(rule_of(check) == "USR-018");
  CHECK(conclude(check) == "user-code");
  const std::string framed =
      "Traceback (most recent call last):\n"
      "  File \"/ws/vllm_ascend/attention/mla_v1.py\", line 88, in forward\n"
      "    out = torch_npu.npu_fused_infer_attention_score(q, k, v)\n"
      "RuntimeError: call aclnnFusedInferAttentionScoreV3 failed, detail:EZ9999: Inner Error!\n" +
      check;
  CHECK(conclude(framed) == "framework-bug");
  // The runtime's own task check is not a parameter check.
  CHECK(rule_of("EE9999: task failed, invalid value [FUNC:PreCheckTaskErr][FILE:task.cc]\n") !=
        "USR-018");
}

TEST_CASE("a programming error raised inside torch_npu is torch_npu's, whoever called it") {
  const auto log = [](const std::string& inner) {
    return "Traceback (most recent call last):\n  File \"train.py\", line 10, in <module>\n"
           "    torch_npu.npu.helper(x)\n  File \"" +
           inner +
           "\", line 91, in helper\n    return state.value\n"
           "AttributeError: 'NoneType' object has no attribute 'value'\n";
  };
  const json r = ng::diagnose_text(log("/usr/lib/python3.10/site-packages/torch_npu/npu/utils.py"),
                                   "<input>", ng::load_diagnose_rules({}));
  CHECK(r["conclusion"] == "framework-bug");
  bool cites_frame = false;
  for (const json& ev : r["evidence"]) {
    cites_frame |=
        ev["text"].get<std::string>().find("torch_npu/npu/utils.py") != std::string::npos;
  }
  CHECK(cites_frame);
  // The same error in the user's own module stays the user's.
  CHECK(conclude(log("/home/me/project/helpers.py")) == "user-code");
}

TEST_CASE("pytest output, worker prefixes and HCCL task timeouts are read like plain logs") {
  // pytest's "E   " lines and its frame notation.
  const json r = ng::diagnose_text(
      "/ws/vllm_ascend/worker/runner.py:210: in load\n    cfg.model_type\n"
      "E   AttributeError: 'dict' object has no attribute 'model_type'\n",
      "<input>", ng::load_diagnose_rules({}));
  CHECK(r["rule"]["id"] == "USR-005");
  CHECK(r["conclusion"] == "framework-bug");
  CHECK(conclude("FAILED test_ops.py::test_case[0] - TypeError: 'NoneType' object is not "
                 "subscriptable\n") == "user-code");
  // vLLM's multiproc workers print "(VllmWorker rank=0 pid=5)".
  CHECK(conclude("(VllmWorker rank=0 pid=5) ERROR 08-04 12:34:15 [multiproc_executor.py:546] "
                 "RuntimeError: call aclnnFoo failed, error code is 161002\n"
                 "(VllmWorker rank=0 pid=5) EZ1001: x should be 2D.\n") == "framework-bug");
  CHECK(rule_of("[ERROR] HCCL(2111,test):2025-10-24-11:18:29.499.235 [handler.cc:908] "
                "[2111][TaskExecStage][Timeout][Host]Task run failed, base information is "
                "streamID:[2]\n") == "RT-001");
}

TEST_CASE("a native crash without a stack names the missing fact and the command for it") {
  const json r = ng::diagnose_text("Segmentation fault\n(core dumped)\n", "<input>",
                                   ng::load_diagnose_rules({}));
  CHECK(r["conclusion"] == "undetermined");
  bool faulthandler = false;
  for (const json& s : r["next_steps"]) {
    faulthandler |= s.get<std::string>().find("faulthandler") != std::string::npos;
  }
  CHECK(faulthandler);
  CHECK(r["undetermined"].size() >= 2);
}
