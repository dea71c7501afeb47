# npu-graph: graph-mode Q&A, layered diagnosis, profile and log reading, capture diagnosis,
# behind one entry. Sourced by scripts/demo.sh ($bin, $here, step).
if ! "$bin" list 2>/dev/null | grep -q 'npu-graph'; then
  echo
  echo "--- npu-graph: not built, skipped ---"
else
  ng_data="$here/plugins/npu-graph/tests/data"
  echo
  echo "--- npu-graph: the entry routes by intent and calls the sub-skill ---"
  step "$bin" run npu-graph -q --input '{"text": "torchair 的 reduce-overhead 模式是什么意思"}'
  step "$bin" run npu-graph -q --input "{\"text\": \"torch.compile 后报错，帮我定位\", \"log\": \"$ng_data/diagnose/operator/aicore_exception.log\"}"
  echo
  echo "--- npu-graph-diagnose: layers, decoded codes, rule and next steps ---"
  step "$bin" run npu-graph-diagnose -q --input "{\"log\": \"$ng_data/diagnose/env-config/cannot_find_bin.log\"}"
  echo
  echo "--- npu-graph-qa: cited answer, and I don't know ---"
  step "$bin" run npu-graph-qa -q --input '{"question": "Why does my model recompile when guards fail?", "top_k": 1}'
  step "$bin" run npu-graph-qa -q --input '{"question": "How do I bake sourdough bread?", "top_k": 1}'
  echo
  echo "--- npu-graph-logs: two ranks, first error and per-rank differences ---"
  step "$bin" run npu-graph-logs -q --input "{\"paths\": [\"$ng_data/logs\"], \"top_patterns\": 3}"
  echo
  echo "--- npu-graph-logs: a dynamo log - graph breaks ranked with what to change, recompiles ---"
  step "$bin" run npu-graph-logs -q --input "{\"paths\": [\"$ng_data/dynamo/torch211_graph_breaks.log\"], \"top_dynamo\": 3, \"top_patterns\": 1}"
  echo
  echo "--- npu-graph-profile: trace and op_statistic ---"
  step "$bin" run npu-graph-profile -q --input "{\"profile_dir\": \"$ng_data/profile\", \"top_k\": 3}"
  echo
  echo "--- npu-graph-capture: synchronisation on the capturing stream ---"
  step "$bin" run npu-graph-capture -q --input "{\"log\": \"$ng_data/capture/sync_in_capture.log\"}"
fi
