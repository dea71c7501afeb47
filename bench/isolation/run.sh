#!/usr/bin/env bash
# Per-call overhead of `--isolation process` against in-process for a no-op skill (fx-echo with
# empty arguments) through `skillrt serve` over stdio, side by side in one run.
#   bench/isolation/run.sh <build-dir> [calls] [warmup]
# <build-dir> must be configured with -DSKILLRT_BUILD_BENCH=ON and have isolation_bench built.
set -euo pipefail
build=$(cd "$1" && pwd)
calls=${2:-5000}
warmup=${3:-200}
export SKILLRT_PLUGIN_PATH="" XDG_CONFIG_HOME=$build/bench/isolation/no-config
echo "# $(date -u +%FT%TZ) $(nproc) cores; uptime: $(uptime)"
"$build/bench/isolation/isolation_bench" "$build/bin/skillrt" "$build/tests/fixtures/behaviours" \
  "$calls" "$warmup"
echo "# after: $(uptime)"
