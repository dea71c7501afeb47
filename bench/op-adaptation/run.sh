#!/bin/sh
# verify of every op of an op-plugin checkout of real size (1514 YAML entries, ~1000 kernel
# files, Meta, baseline, allowlist, tests, pages; see make_tree.py), side by side in one run with
# the target from issue 9 (under 2 s) and two reference points on the same input:
#   - yaml-only: verify of op_plugin_functions.yaml alone (the toolkit's load and the YAML checks)
#   - op-schema: the op-schema skill looking up all ops of the same YAML (the toolkit alone)
# usage: bench/op-adaptation/run.sh [build dir] [runs]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build-opa}
runs=${2:-9}
bin=$build/bin/skillrt
data=$root/plugins/op-adaptation/tests/data
tree=$(mktemp -d /tmp/opa_bench.XXXXXX)
trap 'rm -rf "$tree"' EXIT
/usr/bin/python3 "$here/make_tree.py" "$data" "$tree"

# One measurement: wall seconds, user+sys seconds, peak RSS in KB.
measure() {
  /usr/bin/time -f "%e %U %S %M" -o "$tree/time" "$bin" run "$1" -q --input "$2" > "$tree/out.json"
  awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' "$tree/time"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

full="{\"mode\":\"verify\",\"op_plugin\":\"$tree\",\"all\":true,\"max_findings\":100000}"
yaml="{\"mode\":\"verify\",\"op_plugin\":\"$tree/op_plugin/config/op_plugin_functions.yaml\",\"all\":true,\"max_findings\":100000}"
schema="{\"ops\":\"all\",\"source\":\"$tree/op_plugin/config/op_plugin_functions.yaml\"}"

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)   runs: $runs (interleaved)"
: > "$tree/full"; : > "$tree/yaml"; : > "$tree/schema"
i=0
while [ $i -lt "$runs" ]; do
  measure op-adaptation "$full" >> "$tree/full"
  measure op-adaptation "$yaml" >> "$tree/yaml"
  if "$bin" list 2>/dev/null | grep -q '^op-schema\b\|op-schema'; then
    measure op-schema "$schema" >> "$tree/schema"
  fi
  i=$((i + 1))
done
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin" run op-adaptation -q --input "$full" > "$tree/out.json"
/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('full verify: ops_checked', d['ops_checked'], 'findings', d['findings_total'], 'checks', ','.join(d['checks_run']))" "$tree/out.json"
for k in full yaml schema; do
  [ -s "$tree/$k" ] || continue
  w=$(cut -d' ' -f1 "$tree/$k" | median)
  c=$(cut -d' ' -f2 "$tree/$k" | median)
  m=$(cut -d' ' -f3 "$tree/$k" | median)
  echo "$k: median wall ${w} s, median user+sys ${c} s, median peak RSS ${m} KB, vs 2 s target: $(echo "$w" | awk '{printf "%.3f", $1 / 2}')"
done
