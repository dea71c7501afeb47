#!/bin/sh
# Runs both sides of the op_schema benchmark on the same input, one after the other in one run.
#   bench/op_schema/run.sh <op_schema_bench binary> [native_functions.yaml] [runs]
# Default input: the native_functions.yaml packaged with Debian's python3-torch (1.13), the
# one file both parsers can read in full (torchgen 1.13 predates some 2.11 types).
set -eu
bench=$1
input=${2:-/usr/lib/python3/dist-packages/torchgen/packaged/ATen/native/native_functions.yaml}
runs=${3:-20}
here=$(dirname "$0")
echo "input: $input"
"$bench" "$input" "$runs"
/usr/bin/python3 "$here/torchgen_bench.py" "$input" "$runs"
