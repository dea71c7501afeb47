#!/usr/bin/env bash
# Cold start of `skillrt list --json`: median and p90 of 20 runs, (a) with the built plugins
# only and (b) with ten more synthetic plugins on the path. Build first with
#   cmake -S . -B build -G Ninja -DSKILLRT_BUILD_BENCH=ON && ninja -C build
set -euo pipefail
build=${1:-build}
bin="$build/bin/skillrt"
extra="$build/bench/cold_start/plugins"
[[ -x "$bin" ]] || { echo "no $bin: build first" >&2; exit 1; }
[[ -d "$extra" ]] || { echo "no $extra: configure with -DSKILLRT_BUILD_BENCH=ON" >&2; exit 1; }
/usr/bin/python3 - "$bin" "$extra" <<'PY'
import json, statistics, subprocess, sys, time
binary, extra = sys.argv[1], sys.argv[2]
def measure(args, runs=20):
    out = subprocess.run(args, capture_output=True, check=True)  # warm the page cache once
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(args, capture_output=True, check=True)
        samples.append((time.perf_counter() - t) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(0.9 * (runs - 1))], json.loads(out.stdout)
plugins = json.loads(subprocess.run([binary, "plugins", "--json"], capture_output=True).stdout)
builtin = [p for p in plugins["plugins"] if p["loaded"]]
med, p90, skills = measure([binary, "list", "--json"])
print(f"builtin plugins only: {len(builtin)} plugins, {len(skills)} skills: "
      f"median {med:.2f} ms, p90 {p90:.2f} ms (20 runs)")
med, p90, skills = measure([binary, "--plugin-path", extra, "list", "--json"])
print(f"plus 10 synthetic plugins: {len(builtin) + 10} plugins, {len(skills)} skills: "
      f"median {med:.2f} ms, p90 {p90:.2f} ms (20 runs)")
med, p90, _ = measure([binary, "version"])
print(f"floor (`skillrt version`, no plugins loaded): median {med:.2f} ms, p90 {p90:.2f} ms")
PY
