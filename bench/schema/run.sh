#!/usr/bin/env bash
# Runs the schema benchmark: skillrt (schema_bench) and ajv on the same cases, one table.
# Usage: bench/schema/run.sh [build-dir]   (configure with -DSKILLRT_BUILD_BENCH=ON first)
# BENCH_RUNS (default 7) and BENCH_MIN_TIME (seconds per run, default 0.25) tune both sides.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build}"
bench="$build/bench/schema_bench"
if [[ ! -x "$bench" ]]; then
  echo "run.sh: $bench not found; build it with: cmake -S . -B $build -DSKILLRT_BUILD_BENCH=ON" \
       "&& ninja -C $build schema_bench" >&2
  exit 2
fi
if [[ ! -d "$here/node_modules/ajv" || ! -d "$here/node_modules/ajv-formats" ]]; then
  (cd "$here" && npm install --no-audit --no-fund)
fi
runs="${BENCH_RUNS:-7}"
min_time="${BENCH_MIN_TIME:-0.25}"
ours="$(mktemp)"
trap 'rm -f "$ours"' EXIT
cd "$root"
"$bench" --cases bench/schema/cases --skills schemas/skills --runs "$runs" --min-time "$min_time" \
  > "$ours"
BENCH_RUNS="$runs" BENCH_MIN_TIME="$min_time" node "$here/ajv_bench.mjs" "$ours"
echo
echo "node $(node --version), ajv $(node -p 'require("'"$here"'/node_modules/ajv/package.json").version'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
