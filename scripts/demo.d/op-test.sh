# op-test and op-apidoc: tests generated from a schema (and run on CPU), failing logs triaged,
# API pages generated and checked. Sourced by scripts/demo.sh ($bin, $here, step).
if ! "$bin" list 2>/dev/null | grep -q '^op-test '; then
  echo
  echo "--- op-test: not built, skipped ---"
else
  ot_data="$here/plugins/op-test/tests/data"
  ot_src="$here/tests/data/op-plugin/op_plugin_functions.yaml"
  ot_tmp=$(mktemp -d)
  echo
  echo "--- op-test generate: abs with its out and in-place siblings from op_plugin_functions.yaml ---"
  step "$bin" run op-test -q -o "$ot_tmp/abs.json" --input "{\"mode\": \"generate\", \"op\": \"abs\", \"source\": \"$ot_src\", \"dtypes\": [\"float32\", \"float16\"], \"reference\": \"torch.abs(self)\"}"
  python3 - "$ot_tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + "/abs.json"))
d = d.get("result", d)
open(sys.argv[1] + "/test_abs.py", "w").write(d["test_file"]["content"])
print("test file:", d["test_file"]["path"], "-", len(d["cases"]), "cases;", "variants:", [v["kind"] for v in d["variants"]])
print("not generated:", [n["category"] for n in d["not_generated"]])
PY
  if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    echo "(the generated file, run on CPU with the torch_npu.testing stand-in; torch.compile skips on torch 1.13)"
    (cd "$ot_tmp" && OP_TEST_DEVICE=cpu PYTHONPATH="$ot_data/standin" /usr/bin/python3 test_abs.py 2>&1 | tail -3)
  fi
  echo
  echo "--- op-test triage: a pytest log with a tolerance mistake and a missing TORCH_CHECK ---"
  step "$bin" run op-test -q --input "{\"mode\": \"triage\", \"log_file\": \"$ot_data/triage/pt_multi.log\"}"
  rm -rf "$ot_tmp"
fi
if ! "$bin" list 2>/dev/null | grep -q '^op-apidoc '; then
  echo
  echo "--- op-apidoc: not built, skipped ---"
else
  echo
  echo "--- op-apidoc generate: the Chinese API page of npu_rms_norm, placeholders marked ---"
  step "$bin" run op-apidoc -q --input "{\"mode\": \"generate\", \"op\": \"npu_rms_norm\", \"source\": \"$here/tests/data/op-plugin/op_plugin_functions.yaml\"}"
  echo
  echo "--- op-apidoc check: a page with a wrong default and a misnamed parameter ---"
  step "$bin" run op-apidoc -q --input '{"mode": "check", "schema": "npu_rms_norm(Tensor self, Tensor gamma, float epsilon=1e-06) -> (Tensor, Tensor)", "doc_text": "# torch_npu.npu_rms_norm\n\n## 产品支持情况\n\n## 功能说明\n\n## 函数原型\n\n```python\ntorch_npu.npu_rms_norm(self, gama, epsilon=1e-05) -> (Tensor, Tensor)\n```\n\n## 参数说明\n\n- **self** (`Tensor`)：必选参数。\n- **gamma** (`Tensor`)：必选参数。\n- **epsilon** (`float`)：可选参数。默认值为1e-06。\n\n## 返回值说明\n\n## 约束说明\n\n## 调用示例\n\n```python\ny, rstd = torch_npu.npu_rms_norm(x, gamma, eps=1e-6)\n```\n"}'
  echo
  echo "--- op-apidoc check: real pages of op-plugin@517f2e7, one that agrees and one that does not ---"
  pages="$here/plugins/op-apidoc/tests/data/real_pages/pages"
  step "$bin" run op-apidoc -q --input "{\"mode\": \"check\", \"op\": \"npu_fusion_attention\", \"doc\": \"$pages/torch_npu-npu_fusion_attention.md\", \"source\": \"$here/tests/data/op-plugin/op_plugin_functions.yaml\"}"
  step "$bin" run op-apidoc -q --input "{\"mode\": \"check\", \"op\": \"npu_mhc_sinkhorn\", \"doc\": \"$pages/torch_npu-npu_mhc_sinkhorn.md\", \"source\": \"$here/tests/data/op-plugin/op_plugin_functions.yaml\"}"
fi
