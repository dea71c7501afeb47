#!/usr/bin/env bash
# Installs skillrt into a temporary prefix, builds the out-of-tree C++ and C example plugins
# against it with find_package(skillrt), and runs their skills through the installed host.
set -u
src=$1
build=$2
cmake=$3
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$cmake" --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1
check "cmake --install" 0 "$?"
for ex in hello-plugin hello-plugin-c; do
  "$cmake" -S "$src/examples/$ex" -B "$tmp/$ex" -G Ninja -DCMAKE_PREFIX_PATH="$tmp/prefix" \
    >"$tmp/$ex.configure.log" 2>&1
  rc=$?
  check "$ex configures" 0 "$rc"
  [[ $rc -eq 0 ]] || cat "$tmp/$ex.configure.log" >&2
  "$cmake" --build "$tmp/$ex" >"$tmp/$ex.build.log" 2>&1
  rc=$?
  check "$ex builds" 0 "$rc"
  [[ $rc -eq 0 ]] || cat "$tmp/$ex.build.log" >&2
  check "$ex builds without warnings" 0 "$(grep -c 'warning:' "$tmp/$ex.build.log")"
done

skillrt="$tmp/prefix/bin/skillrt"
out=$("$skillrt" --plugin-path "$tmp/hello-plugin/plugins" run greet-team \
  --input '{"members": ["Ada", "Lin"]}' 2>&1)
check_contains "C++ example runs" '"Welcome aboard, Lin."' "$out"
out=$("$skillrt" --plugin-path "$tmp/hello-plugin-c/plugins" run word-count \
  --input '{"text": "to be or not\tto be"}' 2>&1)
check_contains "C example runs" '"words": 6' "$out"
out=$("$skillrt" list --json 2>&1)
check_contains "installed host finds its own plugins" '"name": "hello"' "$out"
finish
