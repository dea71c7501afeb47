# torchnpu-helper: cited answers from the bundled torch_npu / op-plugin docs, a decline, and a
# handover. Sourced by scripts/demo.sh ($bin, $here, step).
if ! "$bin" list 2>/dev/null | grep -q '^torchnpu-helper '; then
  echo
  echo "--- torchnpu-helper: not built, skipped ---"
else
  tnh_tmp=$(mktemp -d)
  show_answer() {
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("status:", d["status"], "| language:", d["language"], "| %.1f ms" % d["elapsed_ms"])
if "answer" in d:
    print("answer:", d["answer"]["text"][:200])
    print("   from", d["answer"]["citation"])
for p in d["passages"][:2]:
    print("  [%d] %s" % (p["rank"], p["citation"]))
    for line in p["quote"].splitlines()[:4]:
        print("      | " + line[:160])
if "unknown" in d:
    print("unknown:", d["unknown"]["message"])
    for n in d["unknown"]["next"]:
        print("  next:", n.get("skill") or n.get("command"), "-", n["why"])
for h in d["handover"]:
    print("handover:", h["skill"], "(task)" if h["task"] else "(related)", "-", h["reason"])
PY
  }
  for q in "TASK_QUEUE_ENABLE 有什么用？" \
           "What does sparse_mode mean in torch_npu.npu_fusion_attention?" \
           "TorchNPU 2.9.0.post6 配套哪个 CANN version？" \
           "What is the signature of torch_npu.npu_quantum_entangle?" \
           "帮我适配一个新的 npu_foo 算子"; do
    echo
    echo "--- torchnpu-helper: $q ---"
    step "$bin" run torchnpu-helper -q -o "$tnh_tmp/a.json" \
      --input "$(python3 -c 'import json,sys; print(json.dumps({"question": sys.argv[1], "cache_dir": sys.argv[2]}))' "$q" "$tnh_tmp/cache")"
    show_answer "$tnh_tmp/a.json"
  done
  rm -rf "$tnh_tmp"
fi
