#!/usr/bin/env bash
# Runs the ci-fix benchmark three times (the corpus is regenerated each time) and checks the
# synthetic report against flake8 on the first run. Usage: bench/ci_fix/run.sh <ci_fix_bench>
set -euo pipefail
bin=${1:-build-bench-ci-fix/ci_fix_bench}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
"$bin" --flake8
for i in 2 3; do "$bin"; done
