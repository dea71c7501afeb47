#!/usr/bin/env bash
# Cold start of `skillrt list --json`: median and p90 of RUNS runs (default 20), wall time and the
# process's own CPU time (user + sys, from wait4: the figure a busy neighbour disturbs least), for
#   (a) the built plugins only (the issue's figure),
#   (b) ten more synthetic plugins loaded in-process (--isolation in-process),
#   (c) the same ten as third-party plugins run by default: isolated, each described by a worker,
#   (d) the floor: `skillrt version`, which loads no plugin.
# Build first with
#   cmake -S . -B build -G Ninja -DSKILLRT_BUILD_BENCH=ON && ninja -C build
set -euo pipefail
build=${1:-build}
runs=${2:-20}
bin="$build/bin/skillrt"
extra="$build/bench/cold_start/plugins"
[[ -x "$bin" ]] || { echo "no $bin: build first" >&2; exit 1; }
[[ -d "$extra" ]] || { echo "no $extra: configure with -DSKILLRT_BUILD_BENCH=ON" >&2; exit 1; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "$bin" "$extra" "$runs" <<'PY'
import json, os, statistics, subprocess, sys, time

binary, extra, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
null = os.open(os.devnull, os.O_WRONLY)


def once(args):
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.execv(args[0], args)
    _, status, usage = os.wait4(pid, 0)
    wall = (time.perf_counter() - start) * 1000
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(args)} failed")
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def measure(label, args):
    once(args)  # warm the page cache
    samples = [once(args) for _ in range(runs)]
    wall = sorted(s[0] for s in samples)
    cpu = sorted(s[1] for s in samples)
    p90 = int(0.9 * (runs - 1))
    print(f"{label}: wall median {statistics.median(wall):.2f} ms (p90 {wall[p90]:.2f}), "
          f"CPU median {statistics.median(cpu):.2f} ms (p90 {cpu[p90]:.2f}), {runs} runs")


def count(args):
    skills = json.loads(subprocess.run(args + ["list", "--json"], capture_output=True,
                                       check=True).stdout)
    plugins = json.loads(subprocess.run(args + ["plugins", "--json"], capture_output=True,
                                        check=True).stdout)["plugins"]
    loaded = [p for p in plugins if p["loaded"]]
    return f"{len(loaded)} plugins, {len(skills)} listed skills"


base = [binary]
print(f"(a) built plugins only ({count(base)})")
measure("    list --json", base + ["list", "--json"])
local = [binary, "--isolation", "in-process", "--plugin-path", extra]
print(f"(b) plus 10 synthetic plugins in-process ({count(local)})")
measure("    list --json", local + ["list", "--json"])
isolated = [binary, "--plugin-path", extra]
print(f"(c) plus the same 10 as isolated third-party plugins ({count(isolated)})")
measure("    list --json", isolated + ["list", "--json"])
print("(d) floor")
measure("    version", [binary, "version"])
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
