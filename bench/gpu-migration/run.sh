#!/usr/bin/env bash
# Runs the gpu-migration benchmark by hand: 5,000 generated Python files analysed in-process and
# through `skillrt run`, side by side with ripgrep on the same raw patterns, in one run, medians of
# several runs, wall and CPU time, with the machine's load before and after.
#
#   bench/gpu-migration/run.sh [BUILD_DIR] [RUNS] [FILES]
#
# BUILD_DIR must be configured with -DSKILLRT_BUILD_BENCH=ON and have built `skillrt`,
# `gpu-migration` and `gpu_migration_bench`. ripgrep comes from the Debian package `ripgrep`.
set -euo pipefail

build=${1:-build}
runs=${2:-7}
files=${3:-5000}
bench="$build/bench/gpu-migration/gpu_migration_bench"
cli="$build/bin/skillrt"

for f in "$bench" "$cli"; do
  if [[ ! -x "$f" ]]; then
    echo "run.sh: '$f' is missing: configure $build with -DSKILLRT_BUILD_BENCH=ON and build" \
      "skillrt gpu-migration gpu_migration_bench" >&2
    exit 2
  fi
done
if ! command -v rg > /dev/null; then
  echo "run.sh: ripgrep (rg) is not installed: apt-get install ripgrep" >&2
  exit 2
fi

corpus=$(mktemp -d "${TMPDIR:-/tmp}/gpu-migration-bench.XXXXXX")
trap 'rm -rf "$corpus"' EXIT

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs; $(rg --version | sed -n 1p)"
"$bench" --files "$files" --runs "$runs" --dir "$corpus/repo" --skillrt "$cli"
