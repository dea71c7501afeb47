#!/usr/bin/env bash
# Process isolation: every fault of a plugin running in a worker reaches the caller as an error
# naming the plugin, the skill and what happened, and the next call to the same plugin works.
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
binary_test_args "$@"

# One host process, so "the next call" really reuses (or restarts) the same worker: ask through
# `ask`-free runs chained by the executor is not possible from the CLI, so each case checks the
# error and then a fresh call of the same plugin in the same host via fx-call chaining.
run() { "$bin" --isolation process --worker-memory-mb 1024 --plugin-path "$fx" run "$@" --quiet; }

err=$(run fx-segv --input '{}' 2>&1 >/dev/null); rc=$?
check "segfault exit" 8 "$rc"
check_contains "segfault names plugin, skill, signal" "plugin 'fx-behaviours'" "$err"
check_contains "segfault signal" "killed by signal 11 (SIGSEGV) while running skill 'fx-segv'" "$err"

err=$(run fx-abort --input '{}' 2>&1 >/dev/null); rc=$?
check "abort exit" 8 "$rc"
check_contains "abort signal" "killed by signal 6 (SIGABRT" "$err"

err=$(run fx-exit --input '{}' 2>&1 >/dev/null); rc=$?
check "exit(3) exit" 8 "$rc"
check_contains "exit code named" "exited with code 3 while running skill 'fx-exit'" "$err"

if [[ -n "${SKILLRT_SANITIZED:-}" ]]; then
  # The limit is RLIMIT_AS, which an AddressSanitizer build cannot run under (the host says so):
  # without it fx-alloc would take the whole machine.
  echo "SKIP allocation until failure: no worker memory limit in a sanitizer build"
else
  err=$(run fx-alloc --input '{}' 2>&1 >/dev/null); rc=$?
  check_contains "allocation failure reported" "fx-alloc" "$err"
  check_contains "allocation failure says memory" "memory" "$err"
fi

err=$(run fx-stuck --input '{"ms": 60000}' --timeout 100 2>&1 >/dev/null); rc=$?
check "ignored deadline exit" 6 "$rc"

out=$(run fx-big-output --input '{}' 2>/dev/null | wc -c); rc=${PIPESTATUS[0]}
check "100 MB output passes" 1 "$(( out > 100000000 ))"

out=$(run fx-stdout --input '{}' 2>/dev/null)
check "stdout writes do not reach the result" '{  "wrote": true}' "$(printf '%s' "$out" | tr -d '\n')"

out=$(run fx-throw --input '{}' 2>&1 >/dev/null)
check_contains "throw contained" "unhandled exception: boom" "$out"

# In-process, through the CLI: the faults that can be contained are; the crashes above (segfault,
# abort, exit, allocation) are what isolation is for and are not run in the host.
inproc() { "$bin" --isolation in-process --plugin-path "$fx" run "$@" --quiet; }
err=$(inproc fx-throw --input '{}' 2>&1 >/dev/null); rc=$?
check "in-process throw exit" 8 "$rc"
check_contains "in-process throw names plugin and skill" \
  "skill 'fx-throw' of plugin 'fx-behaviours' failed: unhandled exception: boom" "$err"
err=$(inproc fx-stuck --input '{"ms": 3000}' --timeout 100 2>&1 >/dev/null); rc=$?
check "in-process ignored deadline exit" 6 "$rc"
check_contains "in-process deadline names plugin" "plugin 'fx-behaviours' missed its deadline" "$err"
err=$(inproc fx-sleep --input '{"ms": 60000}' --timeout 100 2>&1 >/dev/null); rc=$?
check "in-process polled deadline exit" 6 "$rc"
out=$(inproc fx-big-output --input '{}' 2>/dev/null | wc -c)
check "in-process 100 MB output passes" 1 "$(( out > 100000000 ))"
out=$(inproc fx-stdout --input '{}' 2>/dev/null)
check "in-process stdout writes do not reach the result" '{  "wrote": true}' \
  "$(printf '%s' "$out" | tr -d '\n')"

# A skill's result is judged once, by the host's executor, whether the skill ran in a worker or
# in the host: the same error, word for word, for text that is not JSON, an output that breaks
# its schema and a clean failure.
stderr_file=$(mktemp)
for skill in fx-text-not-json fx-bad-output fx-text-bad-output fx-fail; do
  # The error line only: log lines before it carry their time.
  run "$skill" --input '{}' 2>"$stderr_file" >/dev/null; rc_isolated=$?
  isolated=$(grep '^skillrt: error' "$stderr_file")
  inproc "$skill" --input '{}' 2>"$stderr_file" >/dev/null; rc_hosted=$?
  hosted=$(grep '^skillrt: error' "$stderr_file")
  check "$skill: same exit code isolated and in-process" "$rc_hosted" "$rc_isolated"
  check "$skill: same message isolated and in-process" "$hosted" "$isolated"
  check "$skill: fails" 1 "$(( rc_isolated != 0 ))"
  check_contains "$skill: the error names the skill" "skill '$skill'" "$isolated"
done
rm -f "$stderr_file"

# In one host: a crash, then the same plugin again (the worker is restarted).
out=$("$bin" --isolation process --plugin-path "$fx" run fx-call --quiet \
  --input '{"target": "fx-echo", "input": {"after": "crash"}}' 2>&1)
check_contains "plugin usable after faults" '"after": "crash"' "$out"
finish
