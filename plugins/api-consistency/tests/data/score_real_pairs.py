#!/usr/bin/python3
"""Scores the triage on a set of make_real_pairs.py: exit and cause per case against `expect`.

    score_real_pairs.py SKILLRT_BINARY MANIFEST [--json]

Prints one line per case (ok/MISS, expected and got) and the totals; exit status 0 always, so a
first score can be recorded whatever it is.
"""
import json
import subprocess
import sys

binary, manifest = sys.argv[1], sys.argv[2]
req = json.dumps({"manifest": manifest})
run = subprocess.run([binary, "run", "api-consistency", "--input", req], capture_output=True,
                     text=True, check=False)
if run.returncode != 0:
    print("skillrt failed:", run.stderr.strip()[:2000])
    sys.exit(1)
result = json.loads(run.stdout)
result = result.get("result", result)
with open(manifest, encoding="utf-8") as f:
    cases = {c["id"]: c for c in json.load(f)["cases"]}
right_exit = right_both = 0
rows = []
for c in result["cases"]:
    want = cases[c["id"].split("-", 1)[-1]]["expect"]
    t = c.get("triage", {})
    got = (t.get("exit"), t.get("cause"))
    ok_exit = got[0] == want["exit"]
    ok_both = ok_exit and got[1] == want["cause"]
    right_exit += ok_exit
    right_both += ok_both
    rows.append({"id": c["id"], "want": want, "got": {"exit": got[0], "cause": got[1],
                 "rule": t.get("decided_by"), "error": c.get("error")}, "ok": ok_both})
    print(("ok  " if ok_both else "MISS") + " %-40s want %s/%s got %s/%s (%s)%s" % (
        c["id"], want["exit"], want["cause"], got[0], got[1], t.get("decided_by"),
        " error: " + c["error"][:120] if c.get("error") else ""))
n = len(result["cases"])
print("exit right: %d/%d, exit and cause right: %d/%d" % (right_exit, n, right_both, n))
if "--json" in sys.argv:
    print(json.dumps(rows))
