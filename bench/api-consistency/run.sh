#!/usr/bin/env bash
# api-consistency benchmark: the compare engine (apic_compare, full metrics and every standard in
# one streaming pass) against the seed document's compare_outputs logic in numpy, side by side in
# one run, on two float32 .npy files of 10M and 100M elements. Reports median wall time, CPU time
# (user+sys), peak RSS (/usr/bin/time -v style %M) and the load average.
#
# usage: bench/api-consistency/run.sh [BUILD_DIR] [RUNS]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build-apic}"
runs="${2:-5}"
tool="$build/plugins/api-consistency/apic_compare"
[ -x "$tool" ] || { echo "build apic_compare first: ninja -C $build apic_compare" >&2; exit 1; }
data="${APIC_BENCH_DATA:-/tmp/apic_bench}"

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for size in 10000000 100000000; do
  dir="$data/$size"
  if [ ! -f "$dir/actual.npy" ]; then
    mkdir -p "$dir"
    /usr/bin/python3 "$here/make_data.py" "$size" "$dir"
  fi
  : > "$data/cpp.$size" && : > "$data/np.$size"
  for _ in $(seq "$runs"); do
    # Alternate the tools so both see the same page cache and machine load.
    /usr/bin/time -f "%e %U %S %M" -o "$data/t" "$tool" "$dir/expected.npy" "$dir/actual.npy" \
      > "$data/cpp.json" || true
    cat "$data/t" >> "$data/cpp.$size"
    /usr/bin/time -f "%e %U %S %M" -o "$data/t" /usr/bin/python3 "$here/baseline_compare.py" \
      "$dir/expected.npy" "$dir/actual.npy" > "$data/np.json"
    cat "$data/t" >> "$data/np.$size"
  done
  cw=$(awk '{print $1}' "$data/cpp.$size" | median); nw=$(awk '{print $1}' "$data/np.$size" | median)
  cc=$(awk '{print $2+$3}' "$data/cpp.$size" | median); nc=$(awk '{print $2+$3}' "$data/np.$size" | median)
  cm=$(awk '{print $4}' "$data/cpp.$size" | sort -g | tail -1); nm=$(awk '{print $4}' "$data/np.$size" | sort -g | tail -1)
  # Both tools must agree on the numbers the baseline computes.
  ca=$(/usr/bin/python3 -c "import json;print(json.load(open('$data/cpp.json'))['metrics']['max_abs_error'])")
  na=$(/usr/bin/python3 -c "import json;print(json.load(open('$data/np.json'))['max_abs'])")
  printf "%s elements: engine median %ss (cpu %ss, peak RSS %s KiB) | numpy median %ss (cpu %ss, peak RSS %s KiB) | wall ratio %.2fx, cpu ratio %.2fx | max_abs %s vs %s\n" \
    "$size" "$cw" "$cc" "$cm" "$nw" "$nc" "$nm" \
    "$(echo "$nw / $cw" | bc -l)" "$(echo "$nc / $cc" | bc -l)" "$ca" "$na"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
