#!/usr/bin/env bash
# `make demo`: shows every working skill on bundled data. Each step prints the command it runs.
set -euo pipefail
build=${1:-build}
bin="$build/bin/skillrt"
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

step() {
  printf '\n\033[1m$ %s\033[0m\n' "$*"
  "$@"
}

echo "skillrt demo: the host, its plugins, and each skill on bundled data"
step "$bin" version
step "$bin" plugins
step "$bin" list

echo
echo "--- hello: the SDK end to end ---"
step "$bin" run hello --input '{"name": "Ada", "language": "zh"}'
echo "(an input that breaks the schema is refused before the skill runs; exit code 3)"
"$bin" run hello --input '{"name": "", "times": 0}' || echo "exit code $?"

# Each domain skill joins here once its plugin builds; a skill that is absent is skipped.
for demo in scripts/demo.d/*.sh; do
  [[ -e "$demo" ]] || continue
  # shellcheck source=/dev/null
  source "$demo"
done
