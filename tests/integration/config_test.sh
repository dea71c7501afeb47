#!/usr/bin/env bash
# The host config file: precedence against the command line, per-plugin isolation and settings,
# per-skill deadlines, and an error that names the file and line for every kind of mistake.
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
binary_test_args "$@"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# No user config leaks in: the default file is looked up under this HOME.
export HOME="$tmp/home" XDG_CONFIG_HOME=""
mkdir -p "$tmp/home" "$tmp/conf/plugins"
ln -s "$fx/fx-behaviours.so" "$tmp/conf/plugins/fx-behaviours.so"

cat > "$tmp/conf/skillrt.yaml" <<'YAML'
# relative paths are relative to this file
plugin_paths: [plugins]
threads: 3
isolation: in-process
max_call_depth: 4
deadlines:
  default_ms: 60000
  grace_ms: 100
  skills:
    fx-sleep: 150
plugins:
  fx-behaviours:
    settings: {region: "cn-east", retries: 2, quoted: "042"}
YAML

out=$("$bin" --config "$tmp/conf/skillrt.yaml" config --json 2>&1); rc=$?
check "config show exit" 0 "$rc"
check_contains "config names its file" "\"config_file\": \"$tmp/conf/skillrt.yaml\"" "$out"
check_contains "config threads" '"threads": 3' "$out"
check_contains "config relative plugin path" "\"$tmp/conf/plugins\"" "$out"
check_contains "config per-skill deadline" '"fx-sleep": 150' "$out"
out=$("$bin" --config "$tmp/conf/skillrt.yaml" --threads 5 --isolation process config --json 2>&1)
check_contains "command line beats the file (threads)" '"threads": 5' "$out"
check_contains "command line beats the file (isolation)" '"isolation": "process"' "$out"

out=$("$bin" --config "$tmp/conf/skillrt.yaml" run fx-config --input '{}' 2>&1); rc=$?
check "settings reach load() exit" 0 "$rc"
check_contains "settings reach load()" '"region": "cn-east"' "$out"
check_contains "quoted YAML stays a string" '"quoted": "042"' "$out"
check_contains "plain YAML number is a number" '"retries": 2' "$out"

# The same settings reach a plugin running in a worker process.
out=$("$bin" --config "$tmp/conf/skillrt.yaml" --isolation process run fx-config --input '{}' 2>&1)
check_contains "settings reach an isolated plugin" '"region": "cn-east"' "$out"

err=$("$bin" --config "$tmp/conf/skillrt.yaml" run fx-sleep --input '{"ms": 3000}' 2>&1 >/dev/null); rc=$?
check "per-skill deadline from the file" 6 "$rc"
out=$("$bin" --config "$tmp/conf/skillrt.yaml" run fx-sleep --timeout 5000 --input '{"ms": 300}' 2>&1); rc=$?
check "--timeout beats the file's per-skill deadline" 0 "$rc"

out=$("$bin" --config "$tmp/conf/skillrt.yaml" run fx-recurse --input '{}' 2>&1); rc=$?
check_contains "max_call_depth from the file" "skill call depth limit 4 reached" "$out"

# Per-plugin isolation.
cat > "$tmp/conf/isolated.yaml" <<'YAML'
plugin_paths: [plugins]
plugins:
  fx-behaviours: {isolation: process}
YAML
out=$("$bin" --config "$tmp/conf/isolated.yaml" --isolation in-process plugins --json 2>&1)
check_contains "per-plugin isolation wins over the global mode" '"isolated": true' "$out"
out=$("$bin" --config "$tmp/conf/isolated.yaml" run fx-segv --input '{}' 2>&1); rc=$?
check "an isolated plugin's crash is contained" 8 "$rc"
check_contains "crash names the signal" "signal" "$out"

# The default file is read when present, and only then.
out=$("$bin" config --json 2>&1)
check_contains "no default file" '"config_file": null' "$out"
mkdir -p "$tmp/home/.config/skillrt"
printf 'threads: 7\n' > "$tmp/home/.config/skillrt/config.yaml"
out=$("$bin" config --json 2>&1)
check_contains "default file under HOME" '"threads": 7' "$out"
rm "$tmp/home/.config/skillrt/config.yaml"

# Mistakes: each names the file, the line and the field.
printf 'threads: 3\nisolation: sometimes\n' > "$tmp/bad_enum.yaml"
err=$("$bin" --config "$tmp/bad_enum.yaml" list 2>&1 >/dev/null); rc=$?
check "bad enum is a usage error" 2 "$rc"
check_contains "bad enum names file" "config file '$tmp/bad_enum.yaml'" "$err"
check_contains "bad enum names line and field" "line 2: /isolation" "$err"
printf 'threads: 3\nthread: 4\n' > "$tmp/typo.yaml"
err=$("$bin" --config "$tmp/typo.yaml" list 2>&1 >/dev/null); rc=$?
check "unknown key exit" 2 "$rc"
check_contains "unknown key named" "thread" "$err"
printf 'deadlines:\n  skills:\n    fx-sleep: -5\n' > "$tmp/negative.yaml"
err=$("$bin" --config "$tmp/negative.yaml" list 2>&1 >/dev/null); rc=$?
check "negative deadline exit" 2 "$rc"
check_contains "negative deadline line" "line 3: /deadlines/skills/fx-sleep" "$err"
printf 'plugins:\n  a: {isolation: process\n' > "$tmp/syntax.yaml"
err=$("$bin" --config "$tmp/syntax.yaml" list 2>&1 >/dev/null); rc=$?
check "YAML syntax error exit" 2 "$rc"
check_contains "YAML syntax error says where" "not valid YAML" "$err"
printf 'threads: 1\nthreads: 2\n' > "$tmp/dup.yaml"
err=$("$bin" --config "$tmp/dup.yaml" list 2>&1 >/dev/null); rc=$?
check "duplicate key exit" 2 "$rc"
check_contains "duplicate key line" "line 2: key 'threads' appears twice" "$err"
err=$("$bin" --config "$tmp/missing.yaml" list 2>&1 >/dev/null); rc=$?
check "missing file exit" 2 "$rc"
check_contains "missing file named" "missing.yaml' does not exist" "$err"
printf '' > "$tmp/empty.yaml"
"$bin" --config "$tmp/empty.yaml" list >/dev/null 2>&1; rc=$?
check "an empty file is an empty configuration" 0 "$rc"

finish
