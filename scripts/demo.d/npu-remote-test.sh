# npu-remote-test: a dry run (the host checks and the exact commands, nothing connected) and the
# parsing of a recorded vLLM Ascend benchmark run. Sourced by scripts/demo.sh ($bin, $here, step).
if ! "$bin" list 2>/dev/null | grep -q '^npu-remote-test '; then
  echo
  echo "--- npu-remote-test: not built, skipped ---"
else
  nrt_tmp=$(mktemp -d)
  echo
  echo "--- npu-remote-test: dry run of a Qwen3-8B benchmark on NPU 0 of a 910B host (connects to nothing) ---"
  step "$bin" run npu-remote-test -q -o "$nrt_tmp/dry.json" --input '{"host": "192.0.2.10", "user": "ci", "devices": [0], "dry_run": true, "run_id": "demo", "mounts": ["/models:/models:ro"], "job": {"kind": "vllm_bench", "model": "/models/Qwen3-8B", "served_model_name": "qwen3"}}'
  python3 - "$nrt_tmp/dry.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("outcome:", d["outcome"])
print("host checks it would do:")
for c in d["checks"]:
    print(f"  {c['name']:12} {c['detail']}")
print("container it would start:")
print("  " + d["job"]["start_command"])
print("job.sh inside the container:")
for line in d["job"]["script"].splitlines():
    print("  | " + line)
print("commands, in order:", ", ".join(c["step"] for c in d["commands"]))
PY
  echo
  echo "--- npu-remote-test: a recorded vllm bench serve run on Ascend (vllm-ascend issue 11751) parsed into metrics ---"
  step "$bin" run npu-remote-test -q -o "$nrt_tmp/parsed.json" --input "{\"recorded_log\": \"$here/plugins/npu-remote-test/tests/data/vllm_bench_ascend_qwen3_vl_8b.txt\", \"output_dir\": \"$nrt_tmp/record\", \"job\": {\"kind\": \"vllm_bench\", \"model\": \"Qwen3-VL-8B-Instruct\"}}"
  python3 - "$nrt_tmp/parsed.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = d["metrics"]
print("outcome:", d["outcome"], "| requests:", m["successful_requests"], "ok,", m["failed_requests"], "failed in", m["duration_s"], "s")
print(f"throughput: {m['request_throughput']} req/s, output {m['output_throughput']} tok/s, total {m['total_token_throughput']} tok/s")
for k in ("ttft", "tpot", "itl"):
    v = m[k]
    print(f"  {k.upper():5} mean {v['mean_ms']} ms  median {v['median_ms']} ms  p99 {v['p99_ms']} ms")
print("run record:", d["record"]["markdown"])
PY
  rm -rf "$nrt_tmp"
fi
