#!/usr/bin/env bash
# Runs the MCP benchmark side by side: the do-nothing responder (the floor), skillrt, and
# @modelcontextprotocol/server-everything, over stdio (sequential, 16 in flight) and HTTP
# keep-alive (1 connection, 16 connections). Prints one JSON line per run.
#   bench/mcp/run.sh <build-dir> [calls]   (16 in flight over stdio: four times as many)
# <build-dir> must have been configured with -DSKILLRT_BUILD_BENCH=ON and built (mcp_load,
# mcp_null_responder, skillrt, mcp-fixtures). skillrt is the real `skillrt serve` with only the
# test plugins, run in-process as installed plugins are (--isolation in-process); "skillrt
# isolated" is the same with the fixtures plugin in a worker process, as a third-party plugin
# runs by default. server-everything is installed from npm into <build-dir>/bench/mcp/node on
# first use. "floor polling" is the responder polling for up to 50 us before each read, and
# "skillrt no-poll" is skillrt with its adaptive idle polling off: together they show what
# polling does on each side. "skillrt raw" calls fixture-echo-raw, the same echo written with the
# SDK's raw_handler (no Json built in the plugin), where "skillrt" calls fixture-echo, written with
# the SDK's Json handler: the two show the host's own cost per call and what the SDK's Json adds.
# Every line carries the server's CPU time per call (server_cpu_us). The "pinned" lines repeat 16
# in flight over stdio with the client and the server each on a core of its own.
set -euo pipefail
build=$(cd "$1" && pwd)
# 100,000 calls: at 300,000 calls/s a shorter run is mostly warm-up (pipes, caches, the first
# thread hand-offs) and swings by tens of percent from run to run.
calls=${2:-100000}
slow_calls=$(( calls / 4 ))  # server-everything is slow; fewer calls keep the run short
# 16 in flight over stdio runs four times as long: at 600,000 calls/s, 100,000 calls take a
# sixth of a second, and throughput comes in spells of a tenth of a second or more that differ
# by up to a third (how the client's two threads and the server's share the two cores; see
# bench/mcp/RESULTS.md, eighth round). A longer run averages over them, as sustained load would.
calls16=$(( calls * 4 ))
load=$build/bench/mcp/mcp_load
null=$build/bench/mcp/mcp_null_responder
plugins=$build/tests/plugins
export SKILLRT_PLUGIN_PATH="" SKILLRT_SKILLS_PATH="" XDG_CONFIG_HOME=$build/bench/mcp/no-config
skillrt=("$build/bin/skillrt" --no-default-plugins --plugin-path "$plugins")
server=("${skillrt[@]}" --isolation in-process serve)
# The same with idle polling off (--idle-poll-us 0): what the adaptive polling buys and costs.
no_poll=("${skillrt[@]}" --isolation in-process serve --idle-poll-us 0)
isolated=("${skillrt[@]}" --isolation process serve)
node_dir=$build/bench/mcp/node
if [[ ! -d $node_dir/node_modules/@modelcontextprotocol/server-everything ]]; then
  mkdir -p "$node_dir"
  npm install --prefix "$node_dir" --no-audit --no-fund --loglevel=error \
    @modelcontextprotocol/server-everything@2026.8.31 >&2
fi
everything="node $node_dir/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

pin_client=()  # set below for the pinned runs: what the load client runs under
run() {  # label, then mcp_load arguments
  local label=$1
  shift
  printf '%-34s %s\n' "$label" "$("${pin_client[@]}" "$load" "$@" 2>/dev/null)"
}
run_http() {  # label, server pid, then mcp_load arguments (the server's CPU is read from /proc)
  local label=$1 pid=$2
  shift 2
  printf '%-34s %s\n' "$label" "$(MCP_LOAD_SERVER_PID=$pid "$load" "$@" 2>/dev/null)"
}

for inflight in 1 16; do
  n=$calls
  (( inflight == 16 )) && n=$calls16
  run "stdio floor x$inflight" stdio "$n" "$inflight" echo '{}' -- "$null"
  run "stdio floor polling x$inflight" stdio "$n" "$inflight" echo '{}' -- "$null" --poll
  run "stdio skillrt x$inflight" stdio "$n" "$inflight" fixture-echo '{"text":"hello"}' \
    -- "${server[@]}"
  run "stdio skillrt raw x$inflight" stdio "$n" "$inflight" fixture-echo-raw \
    '{"text":"hello"}' -- "${server[@]}"
  run "stdio skillrt no-poll x$inflight" stdio "$n" "$inflight" fixture-echo \
    '{"text":"hello"}' -- "${no_poll[@]}"
  run "stdio skillrt isolated x$inflight" stdio "$n" "$inflight" fixture-echo \
    '{"text":"hello"}' -- "${isolated[@]}"
  run "stdio server-everything x$inflight" stdio "$(( n / 4 ))" "$inflight" echo \
    '{"message":"hello"}' -- $everything stdio
done

# 16 in flight again with the client on one core and the server on another (taskset): with
# nothing sharing its core, a server's own cost per call is what bounds it, where above the two
# share both cores with the client. Needs two cores and taskset (util-linux).
if command -v taskset >/dev/null && (( $(nproc) >= 2 )); then
  pin_client=(taskset -c 0)
  pin_server=(taskset -c 1)
  run "stdio floor x16 pinned" stdio "$calls16" 16 echo '{}' -- "${pin_server[@]}" "$null"
  run "stdio skillrt x16 pinned" stdio "$calls16" 16 fixture-echo '{"text":"hello"}' -- \
    "${pin_server[@]}" "${server[@]}"
  run "stdio skillrt raw x16 pinned" stdio "$calls16" 16 fixture-echo-raw '{"text":"hello"}' -- \
    "${pin_server[@]}" "${server[@]}"
  pin_client=()
fi

port_base=$(( 20000 + RANDOM % 20000 ))
"$null" --http $port_base 2>/dev/null & pids+=($!)
"${server[@]}" --http 127.0.0.1:$((port_base + 1)) 2>/dev/null & pids+=($!)
PORT=$((port_base + 2)) $everything streamableHttp >/dev/null 2>&1 & pids+=($!)
"${no_poll[@]}" --http 127.0.0.1:$((port_base + 3)) 2>/dev/null & pids+=($!)
"$null" --poll --http $((port_base + 4)) 2>/dev/null & pids+=($!)
sleep 2
for conns in 1 16; do
  run_http "http floor x$conns" "${pids[0]}" http "$calls" "$conns" echo '{}' \
    127.0.0.1:$port_base
  run_http "http floor polling x$conns" "${pids[4]}" http "$calls" "$conns" echo '{}' \
    127.0.0.1:$((port_base + 4))
  run_http "http skillrt x$conns" "${pids[1]}" http "$calls" "$conns" fixture-echo \
    '{"text":"hello"}' 127.0.0.1:$((port_base + 1))
  run_http "http skillrt raw x$conns" "${pids[1]}" http "$calls" "$conns" fixture-echo-raw \
    '{"text":"hello"}' 127.0.0.1:$((port_base + 1))
  run_http "http skillrt no-poll x$conns" "${pids[3]}" http "$calls" "$conns" fixture-echo \
    '{"text":"hello"}' 127.0.0.1:$((port_base + 3))
  run_http "http server-everything x$conns" "${pids[2]}" http "$slow_calls" "$conns" echo \
    '{"message":"hello"}' 127.0.0.1:$((port_base + 2))
done
