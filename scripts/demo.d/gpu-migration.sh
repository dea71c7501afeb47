# gpu-migration: judge a CUDA project for Ascend NPU, rewrite it module by module, verify.
# Sourced by scripts/demo.sh, which defines $bin, $here and step().
if ! "$bin" list 2>/dev/null | grep '^gpu-migration-analyze' > /dev/null; then
  echo
  echo "--- gpu-migration: plugin not built, skipped ---"
else
  echo
  echo "--- gpu-migration: feasibility, rewrite, verification on bundled fixture repositories ---"
  gm_data="$here/plugins/gpu-migration/tests/data"
  gm_tmp=$(mktemp -d)
  cp -r "$gm_data/ddp_amp" "$gm_tmp/ddp_amp"
  echo "(a model with flash-attn, a CUDA extension and grouped_gemm: blocked, with evidence)"
  step "$bin" run gpu-migration-analyze --quiet --input "{\"repo\": \"$gm_data/flash_ext\", \"report_dir\": \"$gm_tmp/report\"}" --output "$gm_tmp/flash.json"
  sed -n '1,16p' "$gm_tmp/report/gpu-migration-report.md"
  echo "(a DDP + amp training script: dry run patch for one module)"
  step "$bin" run gpu-migration-apply --quiet --input "{\"repo\": \"$gm_tmp/ddp_amp\", \"scope\": [\"train.py\"]}" --output "$gm_tmp/patch.json"
  /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["patch"][:1500]); print("equivalence notes:", [n["id"] for n in r["equivalence_notes"]])' "$gm_tmp/patch.json"
  step "$bin" run gpu-migration-apply --quiet --input "{\"repo\": \"$gm_tmp/ddp_amp\", \"scope\": [\"train.py\"], \"apply\": true}" --output "$gm_tmp/applied.json"
  step /usr/bin/python3 -m py_compile "$gm_tmp/ddp_amp/train.py"
  echo "(second apply: nothing left to change)"
  "$bin" run gpu-migration-apply --quiet --input "{\"repo\": \"$gm_tmp/ddp_amp\", \"scope\": [\"train.py\"], \"apply\": true}" | /usr/bin/python3 -c 'import json,sys; r=json.load(sys.stdin); print("changes:", len(r["changes"]), "notes:", r["notes"])'
  echo "(a notebook: only the changed cells' sources change, outputs and metadata stay)"
  cp -r "$gm_data/notebook" "$gm_tmp/notebook"
  step "$bin" run gpu-migration-apply --quiet --input "{\"repo\": \"$gm_tmp/notebook\", \"scope\": [\"finetune.ipynb\"], \"apply\": true}" --output "$gm_tmp/nb.json"
  /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["patch"][:1200]); print("changes:", [(c["cell"], c["line"], c["rule"]) for c in r["changes"]])' "$gm_tmp/nb.json"
  step "$bin" run gpu-migration-verify --quiet --input "{\"repo\": \"$gm_tmp/ddp_amp\"}" --output "$gm_tmp/verify.json"
  /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); [print("  [%11s] %s" % (c["status"], c["item"])) for c in r["checklist"]]' "$gm_tmp/verify.json"
  echo
  echo "--- gpu-migration: a real video-diffusion model (Wan2.1 slice): aliases, wrappers, dependencies ---"
  cp -r "$gm_data/real_projects/Wan2.1" "$gm_tmp/wan"
  step "$bin" run gpu-migration-analyze --quiet --input "{\"repo\": \"$gm_tmp/wan\"}" --output "$gm_tmp/wan.json"
  /usr/bin/python3 -c 'import json,sys,collections
r = json.load(open(sys.argv[1]))
print("findings by domain:", dict(collections.Counter(f["domain"] for f in r["findings"])))
for f in r["findings"]:
    if f["rule"] in ("ATTN-WRAPPER-CALL",) or f.get("note", "").startswith("through the alias"):
        print("  %s:%d %s %s" % (f["file"], f["line"], f["rule"], f.get("note", "")[:90])); break
print("dependencies:", dict(collections.Counter(d["status"] for d in r["dependencies"])))' "$gm_tmp/wan.json"
  /usr/bin/python3 "$gm_data/real_projects/score.py" "$bin" "$gm_data/real_projects/Wan2.1" | grep "^SUMMARY" | head -1
  rm -rf "$gm_tmp"
fi
