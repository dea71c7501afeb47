# api-consistency: compare CPU and NPU outputs, triage the difference, write the reports; generate
# a reproduction and run it on the CPU. Sourced by scripts/demo.sh ($bin, $here, step).
if ! "$bin" list 2>/dev/null | grep '^api-consistency' > /dev/null; then
  echo
  echo "--- api-consistency: plugin not built, skipped ---"
else
  echo
  echo "--- api-consistency: scenarios through one batch manifest, reports and Excel summary ---"
  ac_tmp=$(mktemp -d)
  /usr/bin/python3 "$here/plugins/api-consistency/tests/data/make_scenarios.py" "$ac_tmp"
  /usr/bin/python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); json.dump({"cases": [x["case"] for x in s]}, open(sys.argv[2], "w"))' \
    "$ac_tmp/scenarios.json" "$ac_tmp/manifest.json"
  step "$bin" run api-consistency --quiet --input "{\"manifest\": \"$ac_tmp/manifest.json\", \"output_dir\": \"$ac_tmp/reports\"}" --output "$ac_tmp/out.json"
  /usr/bin/python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
for c in r["cases"]:
    t = c.get("triage", {})
    op = t.get("operator") or {}
    print("%-38s %-12s %-28s %s" % (c["id"], t.get("exit"), t.get("decided_by"), op.get("operator") or ""))
print("summary:", r["summary"]["exits"])' "$ac_tmp/out.json"
  sed -n '1,14p' "$ac_tmp/reports/fp16_overflow_intermediate/分析结论.md"
  echo
  echo "--- api-consistency: real output pairs (held-out set): defaults, ties, residuals, formulas, planted faults ---"
  pairs="$here/plugins/api-consistency/tests/data/real_pairs/heldout/manifest.json"
  step "$bin" run api-consistency --quiet --input "{\"manifest\": \"$pairs\"}" --output "$ac_tmp/pairs.json"
  /usr/bin/python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
want = {c["id"]: c["expect"] for c in json.load(open(sys.argv[2]))["cases"]}
right = 0
for c in r["cases"]:
    t = c["triage"]
    w = want[c["id"]]
    right += t["exit"] == w["exit"]
    print("%-40s %-11s %-18s %-28s expected %s" % (c["id"], t["exit"], t["cause"], t["decided_by"], w["exit"]))
print("exit as expected: %d of %d" % (right, len(r["cases"])))' "$ac_tmp/pairs.json" "$pairs"
  echo
  echo "--- api-consistency: reproduction script, run with device cpu, then compared ---"
  step "$bin" run api-consistency --quiet --input "{\"reproduce\": {\"api\": \"torch.add\", \"args\": [{\"shape\": [4, 8], \"dtype\": \"bfloat16\"}, {\"shape\": [4, 8], \"dtype\": \"bfloat16\"}], \"seed\": 1}, \"output_dir\": \"$ac_tmp/repro\"}" --output "$ac_tmp/repro.json"
  step /usr/bin/python3 "$ac_tmp/repro/repro_torch.add.py" --device cpu --out "$ac_tmp/repro/out"
  step "$bin" run api-consistency --quiet --input "{\"case\": \"$ac_tmp/repro/out/case.json\"}" --output "$ac_tmp/case.json"
  /usr/bin/python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["cases"][0]; print(c["verdict"], c["tensors"][0]["dtype"], c["triage"]["exit"], c["triage"]["decided_by"])' "$ac_tmp/case.json"
  rm -rf "$ac_tmp"
fi
