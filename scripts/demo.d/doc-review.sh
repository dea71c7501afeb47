# doc-review: real op-plugin and torch_npu pages reviewed against a slice of op-plugin's code,
# on the five axes. Sourced by scripts/demo.sh ($bin, $here, step).
if ! "$bin" list 2>/dev/null | grep -q '^doc-review '; then
  echo
  echo "--- doc-review: not built, skipped ---"
else
  dr_data="$here/plugins/doc-review/tests/data"
  dr_tmp=$(mktemp -d)
  echo
  echo "--- doc-review: op-plugin API pages against op_plugin_functions.yaml (reports in a temp folder) ---"
  step "$bin" run doc-review -q -o "$dr_tmp/result.json" --input "{\"docs\": \"$dr_data/op-plugin/docs\", \"code\": \"$dr_data/op-plugin\", \"output_dir\": \"$dr_tmp/report\"}"
  python3 - "$dr_tmp/result.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("pages:", d["pages"], "| code:", d["code_kind"], "| findings:", d["summary"]["findings"])
for axis in d["axes"]:
    c = d["counts"][axis]
    print(f"  {axis:12} error {c['error']}  warning {c['warning']}  info {c['info']}")
for f in d["findings"][:4]:
    print(f"  [{f['severity']}] {f['page']}:{f['line']} {f['message']}")
print("reports:", ", ".join(d["reports"].values()))
PY
  echo
  echo "--- doc-review: torch_npu install pages, learnable axis only (学得会) ---"
  step "$bin" run doc-review -q --input "{\"docs\": \"$dr_data/torch_npu/docs\", \"axes\": [\"学得会\"]}"
  echo "(output_dir inside the docs is refused; exit code 3)"
  "$bin" run doc-review -q --input "{\"docs\": \"$dr_data/torch_npu/docs\", \"output_dir\": \"$dr_data/torch_npu/docs/out\"}" || echo "exit code $?"
  rm -rf "$dr_tmp"
fi
