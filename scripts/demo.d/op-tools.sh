# op-schema: PyTorch function schemas parsed, looked up with evidence, and diffed.
# Sourced by scripts/demo.sh ($bin, $here, step).
if ! "$bin" list 2>/dev/null | grep -q '^op-schema '; then
  echo
  echo "--- op-schema: not built, skipped ---"
else
  echo
  echo "--- op-schema: parse a schema into its typed model (kind, write flags, round trip) ---"
  step "$bin" run op-schema -q --input '{"schema": "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"}'
  echo
  echo "--- op-schema: look up an op in the embedded PyTorch 2.11 native_functions.yaml ---"
  step "$bin" run op-schema -q --input "$here/skills/op-schema/examples/lookup-upstream-op.json"
  echo "(a malformed schema names the column; exit code 3 or 4)"
  "$bin" run op-schema -q --input '{"schema": "add(Tensor self Tensor other) -> Tensor"}' || echo "exit code $?"
fi
