#!/bin/sh
# pr-analysis end to end on a synthetic repository, side by side with `git log -p` over the same
# commits (the floor: reading the diffs), alternating in one run so both see the same load.
#   bench/pr-analysis/run.sh [build dir] [commits] [runs]
# Defaults: build-pra, 2000 commits, 7 runs. Needs skillrt and the pr-analysis plugin built there.
# Reports per side: median wall, median CPU (user+sys), peak RSS (/usr/bin/time -v's maximum
# resident set size), and the load average before and after.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build-pra}
commits=${2:-2000}
runs=${3:-7}
bin=$build/bin/skillrt
work=$(mktemp -d /tmp/pra_bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

/usr/bin/python3 "$root/plugins/pr-analysis/tests/data/make_demo_repo.py" "$work" --commits "$commits"
repo=$work/pytorch
first=$(git -C "$repo" rev-list --max-parents=0 HEAD)
range="$first..HEAD"
echo "repository: $commits commits, $(du -sh "$repo/.git" | cut -f1) in .git; range $range"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
input="{\"repo\":\"$repo\",\"rev_range\":\"$range\",\"output_dir\":\"$work/out\"}"

# Warm the page cache for both sides.
git -C "$repo" log -p --first-parent "$range" > /dev/null
"$bin" run pr-analysis -q --input "$input" > /dev/null

: > "$work/times"
i=0
while [ "$i" -lt "$runs" ]; do
  # To a file, not /dev/null: some git versions skip work whose output goes nowhere.
  /usr/bin/time -v -o "$work/t" git -C "$repo" log -p --first-parent "$range" > "$work/log.txt"
  printf 'git ' >> "$work/times"
  awk -F': ' '/Elapsed \(wall/ {w=$2} /User time/ {u=$2} /System time/ {s=$2}
              /Maximum resident/ {m=$2} END {print w, u, s, m}' "$work/t" >> "$work/times"
  /usr/bin/time -v -o "$work/t" "$bin" run pr-analysis -q --input "$input" > "$work/result.json"
  printf 'pra ' >> "$work/times"
  awk -F': ' '/Elapsed \(wall/ {w=$2} /User time/ {u=$2} /System time/ {s=$2}
              /Maximum resident/ {m=$2} END {print w, u, s, m}' "$work/t" >> "$work/times"
  i=$((i + 1))
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "$work/times" "$work/result.json" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    side, wall, user, sys_, rss = line.split()
    m, s = wall.split(":")[-2:]
    rows.setdefault(side, []).append((float(m) * 60 + float(s), float(user) + float(sys_), int(rss)))
med = {k: (statistics.median(r[0] for r in v), statistics.median(r[1] for r in v),
           max(r[2] for r in v)) for k, v in rows.items()}
res = json.load(open(sys.argv[2]))
print("pr-analysis analysed %d change sets into %d PR rows" % (res["summary"]["change_sets"], res["summary"]["prs"]))
print("| side | runs | median wall s | median CPU s (user+sys) | peak RSS MB |")
print("|---|---|---|---|---|")
for k, name in (("git", "git log -p --first-parent"), ("pra", "skillrt run pr-analysis (4 reports)")):
    w, c, r = med[k]
    print("| %s | %d | %.2f | %.2f | %.0f |" % (name, len(rows[k]), w, c, r / 1024))
print("ratio pr-analysis / git log -p: wall %.2fx, CPU %.2fx" % (med["pra"][0] / med["git"][0], med["pra"][1] / med["git"][1]))
PY
