# op-adaptation: verify an op-plugin checkout, plant a default mismatch and find it, generate a
# new operator as a patch (and see what op-test/op-apidoc gave), modify an op's versions.
# Sourced by scripts/demo.sh ($bin, $here, step).
if ! "$bin" list 2>/dev/null | grep -q 'op-adaptation'; then
  echo
  echo "--- op-adaptation: not built, skipped ---"
else
  opa_tree=$(mktemp -d /tmp/opa_demo.XXXXXX)
  cp -r "$here/plugins/op-adaptation/tests/data/op-plugin-mini/." "$opa_tree/"
  echo
  echo "--- op-adaptation verify: the mini op-plugin checkout, all ops ---"
  step "$bin" run op-adaptation -q --input "{\"mode\": \"verify\", \"op_plugin\": \"$opa_tree\", \"all\": true}"
  echo
  echo "--- op-adaptation verify: a Meta parameter without the schema's default (limit=7.0 -> limit) ---"
  echo "(the dispatcher leaves out an argument at its default, so the Meta call fails: an error)"
  sed -i 's/limit=7.0/limit/' "$opa_tree/op_plugin/python/meta/_meta_registrations.py"
  step "$bin" run op-adaptation -q --input "{\"mode\": \"verify\", \"op_plugin\": \"$opa_tree\", \"ops\": [\"npu_clipped_swiglu\"]}"
  sed -i 's/limit,/limit=7.0,/' "$opa_tree/op_plugin/python/meta/_meta_registrations.py"
  echo
  echo "--- op-adaptation verify: the real op-plugin@517f2e7 (Meta registrations, schema baseline), errors only ---"
  opa_real=$(mktemp -d /tmp/opa_real.XXXXXX)
  cp -r "$here/plugins/op-adaptation/tests/data/real_tree/op-plugin/." "$opa_real/"
  mkdir -p "$opa_real/op_plugin/config"
  cp "$here/plugins/op-adaptation/tests/data/op_plugin_functions.yaml" \
    "$here/plugins/op-adaptation/tests/data/derivatives.yaml" "$opa_real/op_plugin/config/"
  step "$bin" run op-adaptation -q --input "{\"mode\": \"verify\", \"op_plugin\": \"$opa_real\", \"all\": true, \"min_severity\": \"error\", \"max_findings\": 6}"
  rm -rf "$opa_real"
  echo
  echo "--- op-adaptation generate: a new op with backward, dry run (patch + verify of the result) ---"
  step "$bin" run op-adaptation -q --input "{\"mode\": \"generate\", \"op_plugin\": \"$opa_tree\", \"spec\": {\"schema\": \"npu_demo_gate(Tensor x, *, int dim=-1, float alpha=1.0) -> Tensor\", \"aclnn\": \"aclnnDemoGate\", \"versions\": [\"v2.6\", \"newest\"], \"exposed\": true, \"backward\": {}}}"
  echo
  echo "--- op-adaptation modify: npu_rms_norm from v2.3 on, public from v2.5 ---"
  step "$bin" run op-adaptation -q --input "{\"mode\": \"modify\", \"op_plugin\": \"$opa_tree\", \"op\": \"npu_rms_norm\", \"changes\": {\"op_api\": [\"v2.3\", \"newest\"], \"exposed\": [\"v2.5\", \"newest\"]}}"
  echo
  echo "--- op-adaptation verify: every op of the real op_plugin_functions.yaml (YAML checks) ---"
  step "$bin" run op-adaptation -q --input "{\"mode\": \"verify\", \"op_plugin\": \"$here/plugins/op-adaptation/tests/data/op_plugin_functions.yaml\", \"all\": true, \"max_findings\": 3}"
  rm -rf "$opa_tree"
fi
