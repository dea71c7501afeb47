// npu-graph-capture on capture, replay and update logs of each failure kind.
#include <catch2/catch.hpp>

#include "capture.hpp"

namespace ng = skillrt::npu_graph;
using nlohmann::json;

namespace {

json capture(const std::string& text) {
  static const ng::RuleSet rules = ng::load_capture_rules({});
  return ng::analyze_capture(text, "<input>", rules);
}

}  // namespace

TEST_CASE("capture: synchronisation inside the captured region") {
  const json r = capture(
      "[INFO] warmup done\n"
      "[INFO] capture_begin on stream 3\n"
      "RuntimeError: NPU function error: c10_npu::acl::AclrtSynchronizeStreamWithTimeout(stream), "
      "error code is 107027\n"
      "EE9999: Not allow to synchronize captured-stream, stream_id=3.\n");
  CHECK(r["kind"] == "capture-unsafe-op");
  REQUIRE_FALSE(r["findings"].empty());
  CHECK(r["findings"][0]["rule"] == "CAP-001");
  CHECK(r["findings"][0]["phase"] == "capture");
  CHECK(r["findings"][0]["evidence"][0]["line"] == 3);
  CHECK(r["phases"].size() == 2);
}

TEST_CASE("capture: aclop during capture, replay during capture, pool, static inputs, end") {
  CHECK(capture("RuntimeError: Cannot run aclop operators during NPU graph capture. Current "
                "working aclop is TransData.")["findings"][0]["rule"] == "CAP-002");
  CHECK(capture("graph capture begin\nRuntimeError: replay() called while the stream is still "
                "capturing graph 1")["kind"] == "replay-during-capture");
  CHECK(capture("RuntimeError: private memory pool (1, 2) is already in use by another "
                "capture")["kind"] == "memory-pool-misuse");
  CHECK(capture("graph.replay() step 1\nWARNING: outputs did not change after replay, "
                "stale results returned")["kind"] == "static-input-update");
  const json end = capture("NPU function error: aclmdlRICaptureEnd, error code is 107033");
  CHECK(end["kind"] == "capture-end-failure");
  // torch_npu's and CANN's own phrasings (not CUDA's).
  CHECK(capture("RuntimeError: Cannot prepare for replay during capturing stage.")["kind"] ==
        "replay-during-capture");
  CHECK(capture("rtMemcpy execution failed, reason=the current capture mode does not support "
                "this operation")["kind"] == "capture-unsafe-op");
  CHECK(capture("EE9999: rtStreamEndCapture execution failed, reason=capture model contains a "
                "stream that was not joined to the original stream")["kind"] ==
        "capture-end-failure");
  CHECK(capture("operation not permitted when stream is capturing")["kind"] == "undetermined");
}

TEST_CASE("capture: an unrelated log is undetermined") {
  const json r = capture("step 1 loss 0.5\nstep 2 loss 0.4\n");
  CHECK(r["kind"] == "undetermined");
  CHECK(r["findings"].empty());
  CHECK_FALSE(r["undetermined"].empty());
}
