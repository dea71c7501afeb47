# pr-analysis: upstream PyTorch PRs labelled by NPU impact, with evidence, on a planted
# synthetic repository. Sourced by scripts/demo.sh ($bin, $here, step).
if ! "$bin" list 2>/dev/null | grep -q 'pr-analysis'; then
  echo
  echo "--- pr-analysis: not built, skipped ---"
else
  pra_dir=$(mktemp -d /tmp/pr_analysis_demo.XXXXXX)
  /usr/bin/python3 "$here/plugins/pr-analysis/tests/data/make_demo_repo.py" "$pra_dir" > /dev/null
  echo
  echo "--- pr-analysis: a month of a (synthetic) PyTorch clone, with the NPU side, four reports ---"
  step "$bin" run pr-analysis -q --input "{\"repo\": \"$pra_dir/pytorch\", \"since\": \"2026-11-01\", \"until\": \"2026-11-30\", \"torch_npu\": \"$pra_dir/torch_npu\", \"op_plugin\": \"$pra_dir/op-plugin\", \"output_dir\": \"$pra_dir/reports\"}"
  echo "(the Markdown report, first lines of the high-impact group)"
  sed -n '/^## high/,$p' "$pra_dir/reports/pr-analysis.md" | sed -n '1,12p'
  echo
  echo "--- pr-analysis: two PRs by number, dry run (nothing written, analysis inline) ---"
  step "$bin" run pr-analysis -q --input "{\"repo\": \"$pra_dir/pytorch\", \"prs\": [90003, 90040], \"op_plugin\": \"$pra_dir/op-plugin\"}"
  echo
  echo "--- pr-analysis: a window with no commits says why ---"
  step "$bin" run pr-analysis -q --input "{\"repo\": \"$pra_dir/pytorch\", \"since\": \"2025-01-01\", \"until\": \"2025-01-31\"}"
  rm -rf "$pra_dir"
fi
