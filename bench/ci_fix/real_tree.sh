#!/usr/bin/env bash
# ci-static-errors-fix against autopep8 on a real repository, side by side in one run (issue 32).
# Both start from the same clean copy of TREE (a git work tree at a pinned commit); both are
# limited to the whitespace and layout classes of pycodestyle (E1, E2, E3, E502, W1, W2, W3, W6).
# Reports per tool: flake8 findings before and after, findings cleared, new findings (a file's
# count for a code that went up), Python files whose syntax tree changed (ast.dump), wall time.
#
# usage: bench/ci_fix/real_tree.sh SKILLRT TREE PATH...   (PATHs relative to TREE, e.g. torch_npu)
set -euo pipefail
skillrt=$(realpath "$1"); tree=$(realpath "$2"); shift 2
paths=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
select="E1,E2,E3,E502,W1,W2,W3,W6"
max=$(awk -F'[=:]' '/^max[-_]line[-_]length/ {gsub(/ /, "", $2); print $2; exit}' \
  "$tree/.flake8" "$tree/setup.cfg" "$tree/tox.ini" 2>/dev/null || true)
max=${max:-79}

lint() { (cd "$1" && flake8 "${paths[@]}" 2>/dev/null || true) | sort > "$2"; }
cp -a "$tree" "$work/orig"
lint "$work/orig" "$work/before.txt"
cp -a "$work/orig" "$work/skill"
cp -a "$work/orig" "$work/autopep8"

scope=$(printf '"%s",' "${paths[@]}"); scope="[${scope%,}]"
t0=$(date +%s.%N)
"$skillrt" run ci-static-errors-fix --quiet --output "$work/skill.json" --input \
  "{\"repo\": \"$work/skill\", \"run\": [\"flake8\"], \"scope\": {\"files\": $scope}, \"apply\": true}"
t1=$(date +%s.%N)
(cd "$work/autopep8" && autopep8 --in-place --recursive --max-line-length "$max" \
  --select="$select" "${paths[@]}")
t2=$(date +%s.%N)
lint "$work/skill" "$work/after_skill.txt"
lint "$work/autopep8" "$work/after_autopep8.txt"

/usr/bin/python3 - "$work" "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)" "$select" <<'PY'
import ast, collections, json, os, re, sys
work, t_skill, t_pep, select = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
prefixes = select.split(",")

def read(name):
    out = []
    for line in open(os.path.join(work, name), encoding="utf-8", errors="replace"):
        m = re.match(r"(.+?):(\d+):(\d+): (\w+) ", line)
        if m:
            out.append((m.group(1), m.group(4)))
    return out

def layout(code):
    return any(code.startswith(p) for p in prefixes)

before = read("before.txt")
b_count = collections.Counter(before)
print("flake8 findings before: %d (%d in the layout classes)" %
      (len(before), sum(1 for _, c in before if layout(c))))
print("| tool | after | cleared | cleared in layout classes | new findings | files changed | syntax tree changed | wall s |")
print("|---|---|---|---|---|---|---|---|")
for tool, t in (("skill", t_skill), ("autopep8", t_pep)):
    after = read("after_%s.txt" % tool)
    a_count = collections.Counter(after)
    new = sum(max(0, a_count[k] - b_count[k]) for k in a_count)
    cleared_layout = sum(1 for _, c in before if layout(c)) - sum(1 for _, c in after if layout(c))
    changed, tree_changed = 0, []
    for root, _, files in os.walk(os.path.join(work, "orig")):
        for f in files:
            if not f.endswith(".py"):
                continue
            a = os.path.join(root, f)
            rel = os.path.relpath(a, os.path.join(work, "orig"))
            b = os.path.join(work, tool, rel)
            x, y = open(a, "rb").read(), open(b, "rb").read()
            if x == y:
                continue
            changed += 1
            try:
                same = ast.dump(ast.parse(x)) == ast.dump(ast.parse(y))
            except (SyntaxError, ValueError) as e:
                same = False
            if not same:
                tree_changed.append(rel)
    print("| %s | %d | %d | %d | %d | %d | %d | %.2f |" % (
        tool, len(after), len(before) - len(after), cleared_layout, new, changed,
        len(tree_changed), t))
    for rel in tree_changed:
        print("  syntax tree changed (%s): %s" % (tool, rel))
r = json.load(open(os.path.join(work, "skill.json")))
no_reason = [x for x in r["residual"] if not x.get("reason")]
kinds = collections.Counter(x["kind"] for x in r["residual"])
print("skill: %d fixed, %d residual (%s), %d without a reason; syntax trees %s" % (
    r["summary"]["fixed"], len(r["residual"]), dict(kinds), len(no_reason),
    r["summary"].get("syntax_trees")))
PY
