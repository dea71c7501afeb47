# ci-fix: ci-static-errors-fix on a copy of its flake8 fixture (dry run, then apply), with a
# planted unsafe fix refused by its proof. Sourced by scripts/demo.sh ($bin, $here, step).
if ! "$bin" list 2>/dev/null | grep -q 'ci-static-errors-fix'; then
  echo
  echo "--- ci-static-errors-fix: not built, skipped ---"
else
  cf_repo=$(mktemp -d)
  cp "$here/plugins/ci-fix/tests/fixtures/py/violations.py" "$cf_repo/"
  cp "$here/plugins/ci-fix/tests/fixtures/cpp/op_api.cpp" "$cf_repo/"
  echo
  echo "--- ci-static-errors-fix: flake8 + clang-format (op-plugin style), dry run: summary and verification ---"
  "$bin" run ci-static-errors-fix -q --input "{\"repo\": \"$cf_repo\", \"run\": [\"flake8\", \"clang-format\"], \"clang_format_style\": \"op-plugin\", \"report_dir\": \"$cf_repo/report\"}" \
    > "$cf_repo/result.json"
  /usr/bin/python3 - "$cf_repo/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["summary"]
print(f"findings {s['findings']}, fixed {s['fixed']} by {s['fixes']} proven fixes, residual {s['residual']}, proofs failed (reverted) {s['proofs_failed']}")
for v in r["verification"]:
    print(f"  re-run {v['tool']}: before {v.get('before')}, after {v.get('after')}, new {len(v.get('new', []))}")
for x in r["residual"][:6]:
    print(f"  residual {x['file']}:{x['line']} {x['rule']} ({x['kind']}): {x['reason'][:110]}")
print("reports:", ", ".join(r["reports"].values()))
PY
  echo
  echo "--- ci-static-errors-fix: apply, then flake8 reports only the residual findings ---"
  step "$bin" run ci-static-errors-fix -q --input "{\"repo\": \"$cf_repo\", \"run\": [\"flake8\"], \"apply\": true, \"report_dir\": \"$cf_repo/report\"}" --output "$cf_repo/applied.json"
  (cd "$cf_repo" && flake8 violations.py) || true
  echo
  echo "--- ci-static-errors-fix: real torch_npu files (continuation lines, escapes, backslashes), by file and class ---"
  tn_repo=$(mktemp -d)
  cp -r "$here/plugins/ci-fix/tests/fixtures/torch_npu_slice/torch_npu" "$tn_repo/"
  cp "$here/plugins/ci-fix/tests/fixtures/torch_npu_slice/dot.flake8" "$tn_repo/.flake8"
  step "$bin" run ci-static-errors-fix -q --input "{\"repo\": \"$tn_repo\", \"run\": [\"flake8\"], \"patch_by_class\": true, \"report_dir\": \"$tn_repo/report\"}" --output "$tn_repo/result.json"
  sed -n '/^## By file/,/^## Verification/p' "$tn_repo/report/ci-fix-report.md" | head -14
  /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); s=r["summary"]; print("fixed", s["fixed"], "of", s["findings"], "| syntax trees", s["syntax_trees"], "| class patches:", ", ".join(sorted(r["reports"]["class_patches"])))' "$tn_repo/result.json"
  rm -rf "$cf_repo" "$tn_repo"
fi
