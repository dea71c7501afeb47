#!/usr/bin/env bash
# The skillrt CLI end to end: results on stdout, errors as one line (or JSON), exit codes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
binary_test_args "$@"

out=$("$bin" run hello --input '{"name":"Ada"}' 2>/dev/null); rc=$?
check "run hello exit" 0 "$rc"
check "run hello greeting" '"Hello, Ada!"' "$(printf '%s' "$out" | sed -n 's/.*"greeting": \(".*"\).*/\1/p')"

err=$("$bin" run hello --input '{"name": "Ada",, }' 2>&1 >/dev/null); rc=$?
check "bad JSON exit" 3 "$rc"
check_contains "bad JSON says where" "--input (inline JSON) is not valid JSON: line 1, column 16" "$err"

err=$("$bin" run hello --input '{"name": 3, "extra": 1}' 2>&1 >/dev/null); rc=$?
check "schema violation exit" 3 "$rc"
check_contains "violation pointer /name" "/name" "$err"
check_contains "violation pointer /extra" "/extra" "$err"

out=$("$bin" run hello --input '{"nam": "x"}' --json 2>/dev/null); rc=$?
check "json error exit" 3 "$rc"
check_contains "json error code" '"code": "INVALID_ARGUMENT"' "$out"
check_contains "json error violations" '"violations"' "$out"

out=$("$bin" run hello --input '{"name": "Ada"}' --check-only 2>/dev/null); rc=$?
check "check-only exit" 0 "$rc"
check_contains "check-only result" '"valid": true' "$out"

err=$("$bin" run helo --input '{}' 2>&1 >/dev/null); rc=$?
check "unknown skill exit" 5 "$rc"
check "unknown skill message" "skillrt: error: unknown skill 'helo'; did you mean 'hello'? Run \`skillrt list\` to see every skill." "$err"

"$bin" run hello 2>/dev/null; rc=$?
check "missing --input is a usage error" 2 "$rc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '{"name": "Lin", "language": "zh"}' > "$tmp/in.json"
"$bin" run hello --input "$tmp/in.json" --output "$tmp/out.json" 2>/dev/null; rc=$?
check "input file, output file exit" 0 "$rc"
check_contains "output file written" '你好，Lin！' "$(cat "$tmp/out.json")"
check "no temp files left" "out.json" "$(ls "$tmp" | grep -v in.json)"
out=$(printf '{"name": "Bo"}' | "$bin" run hello --input - 2>/dev/null)
check_contains "stdin input" 'Hello, Bo!' "$out"

out=$("$bin" list --json 2>/dev/null); rc=$?
check "list exit" 0 "$rc"
check_contains "list has hello" '"name": "hello"' "$out"
out=$("$bin" describe hello --json 2>/dev/null)
check_contains "describe has input schema" '"input_schema"' "$out"
check_contains "describe has annotations" '"readOnlyHint": true' "$out"
out=$("$bin" schema hello --output 2>/dev/null)
check_contains "schema --output" '"hello output"' "$out"
out=$("$bin" plugins --json 2>/dev/null)
check_contains "plugins lists hello" '"name": "hello"' "$out"
out=$("$bin" version)
check_contains "version" "plugin ABI 1.0" "$out"

# Skill failures through the CLI.
err=$("$bin" --plugin-path "$fx" run fx-fail --input '{}' 2>&1 >/dev/null); rc=$?
check "skill failure exit" 4 "$rc"
check "skill failure message" "skillrt: error: skill 'fx-fail' failed: checkout /nowhere not found: pass an existing path" "$err"
"$bin" --plugin-path "$fx" run fx-bad-output --input '{}' >/dev/null 2>&1; rc=$?
check "output schema violation is a plugin bug" 8 "$rc"
"$bin" --plugin-path "$fx" run fx-stuck --input '{"ms": 20000}' --timeout 50 >/dev/null 2>&1; rc=$?
check "deadline exit" 6 "$rc"
out=$("$bin" --plugin-path "$fx" run fx-progress --input '{"steps": 3}' 2>"$tmp/err")
check_contains "progress lines on stderr when not a terminal" "progress: 3/3 step 3" "$(cat "$tmp/err")"
"$bin" --plugin-path "$fx" run fx-progress --input '{"steps": 3}' --quiet 2>"$tmp/err" >/dev/null
check "--quiet prints no progress" "" "$(cat "$tmp/err")"

# A broken plugin on the path: one error line on stderr, the other plugins keep working.
err=$("$bin" --plugin-path "$build/tests/fixtures/abi/fx-no-entry.so" run hello --input '{"name":"A"}' 2>&1 >/dev/null); rc=$?
check "broken plugin does not stop the host" 0 "$rc"
check "one error line" 1 "$(printf '%s\n' "$err" | grep -c "fx-no-entry.so")"

err=$("$bin" --log-level loud list 2>&1); rc=$?
check "bad log level is a usage error" 2 "$rc"

# Routing, ask and export (issue 6) through the CLI.
out=$("$bin" route "say hello to Ada" 2>/dev/null); rc=$?
check "route exit" 0 "$rc"
check_contains "route finds hello" "1. hello" "$out"
out=$("$bin" route --json "what is the weather in Paris tomorrow" 2>/dev/null)
check_contains "out of scope routes to none" '"none": true' "$out"
out=$("$bin" run find-skill --input '{"text": "用中文向李雷问好", "top_k": 1}' -q 2>/dev/null)
check_contains "find-skill is a skill" '"skill": "hello"' "$out"
err=$("$bin" ask "say hello to Ada" 2>&1 >/dev/null); rc=$?
check "ask without required input exit" 3 "$rc"
check_contains "ask names the missing input" "name: The name of the person to greet." "$err"
out=$("$bin" ask "say hello to Ada" --input '{"name": "Ada"}' -q 2>/dev/null); rc=$?
check "ask runs the routed skill" 0 "$rc"
check_contains "ask result" 'Hello, Ada!' "$out"
err=$("$bin" ask "what is the weather in Paris tomorrow" 2>&1 >/dev/null); rc=$?
check "ask with no fitting skill" 5 "$rc"
# A request with two tasks: the first is routed (and stops for its missing input here); the second
# is named with the command that runs it.
err=$("$bin" ask "write unit tests for npu_add_rms_norm, then review the tutorial pages" 2>&1 >/dev/null)
check_contains "ask routes the first of two tasks" "routed to op-test" "$err"
check_contains "ask names the second task and how to run it" "task 2: doc-review" "$err"
check_contains "ask gives the command of the second task" "skillrt run doc-review --input" "$err"
HOME="$tmp/home" "$bin" skills export --target claude --scope user >/dev/null 2>&1; rc=$?
check "export to claude user scope" 0 "$rc"
check_contains "exported SKILL.md front matter" "name: hello" "$(head -5 "$tmp/home/.claude/skills/hello/SKILL.md" 2>/dev/null)"
check_contains "exported how to call" "mcp__skillrt__hello" "$(cat "$tmp/home/.claude/skills/hello/SKILL.md" 2>/dev/null)"
"$bin" skills export --target claude --scope everywhere >/dev/null 2>&1; rc=$?
check "bad export scope" 2 "$rc"
out=$("$bin" plugins --json 2>/dev/null)
check_contains "plugins reports skill documents" '"skill_docs"' "$out"

# `skillrt serve` over stdio: stdout carries protocol lines only, even with a plugin that prints.
out=$(printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cli-test","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fx-stdout","arguments":{}}}' \
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"hello","arguments":{"name":"Ada"}}}' \
  | timeout 30 "$bin" --isolation in-process --plugin-path "$fx" serve 2>/dev/null)
check "serve answers every request, one line each" 3 "$(printf '%s\n' "$out" | grep -c '^{"jsonrpc":"2.0","id":[123],')"
check "serve stdout has nothing else" 3 "$(printf '%s\n' "$out" | grep -c .)"
check_contains "serve runs a skill" 'Hello, Ada!' "$out"
"$bin" serve --http nonsense >/dev/null 2>&1 </dev/null; rc=$?
check "serve --http with a bad address" 2 "$rc"
err=$(timeout 20 "$bin" serve --http 0.0.0.0:0 2>&1 >/dev/null </dev/null); rc=$?
check "serve --http beyond loopback without a token is refused" 2 "$rc"
check_contains "the refusal says how to add a token" "add --token <secret>" "$err"
check_contains "and names the way out" "--insecure-no-token" "$err"

finish
