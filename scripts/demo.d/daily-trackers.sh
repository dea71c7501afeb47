# daily-trackers: inferencex-report over two bundled days of InferenceX-format data (the second run
# detects the changes), and vllm-tracker over a clone made here from a few planted commits (no
# network). Sourced by scripts/demo.sh ($bin, $here, step).
if ! "$bin" list 2>/dev/null | grep -q '^vllm-tracker '; then
  echo
  echo "--- daily-trackers: not built, skipped ---"
else
  dtr_tmp=$(mktemp -d)
  dtr_data="$here/plugins/daily-trackers/data/inferencex"
  echo
  echo "--- inferencex-report: day 1 then day 2 of the bundled sample, one history (InferenceX's row format; the numbers are illustrative, not measured: see docs/daily-trackers.md) ---"
  for day in 2026-11-02 2026-11-03; do
    step "$bin" run inferencex-report -q -o "$dtr_tmp/ix-$day.json" --input "{\"sources\": [{\"name\": \"inferencex\", \"file\": \"$dtr_data/sample_$day.json\"}], \"as_of\": \"$day\", \"output_dir\": \"$dtr_tmp/ix\"}"
  done
  python3 - "$dtr_tmp/ix-2026-11-03.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("points:", d["counts"]["points"], "| new hardware:", d["new_hardware"], "| changes:", len(d["changes"]))
for c in d["changes"][:4]:
    p = c["point"]
    extra = f' {c["metric"]} {c["before"]:.4g} -> {c["after"]:.4g} ({c["pct"]:+.1f}%)' if c["kind"] == "moved" else ""
    print(f'  {c["kind"]:8} {p["model"]} on {p["hardware"]} conc {p["conc"]} {p["isl"]}/{p["osl"]}{extra}')
print("8k/1k best per hardware:")
for r in d["setting"]["best_per_hardware"]:
    print(f'  {r["model"]:7} {r["hardware"]:7} {r["best"]["metrics"]["tput_per_gpu"]:8.1f} tok/s/GPU  {r["ratio_to_leader"]*100:5.1f}% of leader')
print("reports:", ", ".join(sorted(d["reports"])))
PY
  echo
  echo "--- vllm-tracker: a local clone with planted vllm-ascend-style commits (local-clone mode) ---"
  repo="$dtr_tmp/vllm-ascend"
  git init -q "$repo"
  for msg in "[Feat] Support MTP for DeepSeek V3 in aclgraph mode (#4101)" \
             "[Quant] W8A8 dynamic quantization for Qwen3 MoE (#4102)" \
             "[Doc] Fix typo in README (#4103)" \
             "[Perf] Mooncake layerwise KV connector for PD disaggregation (#4104)"; do
    echo "$msg" >> "$repo/CHANGES"
    git -C "$repo" add CHANGES
    GIT_AUTHOR_DATE="2026-11-02T10:00:00Z" GIT_COMMITTER_DATE="2026-11-02T10:00:00Z" \
      git -C "$repo" -c user.name=demo -c user.email=demo@example.com commit -q -m "$msg"
  done
  step "$bin" run vllm-tracker -q -o "$dtr_tmp/vt.json" --input "{\"repos\": [{\"name\": \"vllm-project/vllm-ascend\", \"local_path\": \"$repo\"}], \"since\": \"2026-11-02\", \"until\": \"2026-11-02\", \"output_dir\": \"$dtr_tmp/vt\"}"
  python3 - "$dtr_tmp/vt.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("fetched:", d["counts"]["fetched"], "| reported:", d["counts"]["reported"], "| by rating:", d["counts"]["by_rating"])
for i in d["items"]:
    c = i["citations"][0]
    print(f'  {i["key"]:6} {i["rating"]:6} {i["title"][:60]:60}  <- {c["rule"]} matched "{c["matched"][:30]}"')
print(d["llm_analysis"][:80] + "...")
PY
  rm -rf "$dtr_tmp"
fi
