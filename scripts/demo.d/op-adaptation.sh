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
  echo "--- op-adaptation verify: Meta default 296 where the schema says 291 ---"
  sed -i 's/dst_type=291/dst_type=296/' "$opa_tree/op_plugin/python/meta/_meta_registrations.py"
  step "$bin" run op-adaptation -q --input "{\"mode\": \"verify\", \"op_plugin\": \"$opa_tree\", \"ops\": [\"npu_swiglu_group_quant\"]}"
  sed -i 's/dst_type=296/dst_type=291/' "$opa_tree/op_plugin/python/meta/_meta_registrations.py"
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
