#!/usr/bin/env bash
# npu-graph-logs on a large dynamo log, by hand: median wall time and peak RSS of the skill
# through `skillrt run`, side by side with `grep -c "Graph break"` on the same file, both under
# /usr/bin/time, in one run. Sizes default to 20 and 200 MB so that flat memory shows as the
# same peak RSS for both. Results go in RESULTS.md next to this script.
#
#   bench/npu-graph-logs/run.sh [BUILD_DIR] [RUNS] [SIZES_MB...]
#
# BUILD_DIR must have built `skillrt` and `npu-graph` (no bench option needed).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-build}
runs=${2:-5}
shift $(( $# > 2 ? 2 : $# ))
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(20 200)
cli="$build/bin/skillrt"

if [[ ! -x "$cli" ]]; then
  echo "run.sh: '$cli' is missing: build skillrt and npu-graph in $build first" >&2
  exit 2
fi
if [[ ! -x /usr/bin/time ]]; then
  echo "run.sh: /usr/bin/time is missing: apt-get install time" >&2
  exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/npu-graph-logs-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Runs "$@" $runs times; prints "median_wall_s median_peak_rss_MB".
measure() {
  : > "$work/times"
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %M" -o "$work/t" "$@" > "$work/out" 2> /dev/null
    cat "$work/t" >> "$work/times"
  done
  printf "%s %s\n" "$(cut -d' ' -f1 "$work/times" | median)" \
    "$(cut -d' ' -f2 "$work/times" | median | awk '{ printf "%.1f", $1 / 1024 }')"
}

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "runs per cell: $runs (median)"
printf "%-8s %-10s | %-12s %-12s | %-12s %-12s | %s\n" size_MB lines skill_s skill_RSS_MB \
  grep_s grep_RSS_MB "found"
for mb in "${sizes[@]}"; do
  log="$work/dynamo_${mb}.log"
  python3 "$here/gen_log.py" "$log" "$mb" "$root"
  cat "$log" > /dev/null  # both contenders read from the page cache
  lines=$(wc -l < "$log")
  printf '{"paths": ["%s"], "top_dynamo": 5, "top_patterns": 3}' "$log" > "$work/in.json"
  read -r skill_s skill_mb < <(measure "$cli" run npu-graph-logs -q --input "$work/in.json")
  found=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["dynamo"]; print(
      "%d graph breaks at %d sites, %d recompiles, %d limit hits" % (d["graph_break_total"],
      d["graph_break_sites"], d["recompile_total"], d["cache_limit_hits"]))' "$work/out")
  read -r grep_s grep_mb < <(measure grep -c "Graph break" "$log")
  printf "%-8s %-10s | %-12s %-12s | %-12s %-12s | skill: %s; grep: %s lines\n" "$mb" "$lines" \
    "$skill_s" "$skill_mb" "$grep_s" "$grep_mb" "$found" "$(cat "$work/out")"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
