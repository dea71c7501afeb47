"""Scores `op-apidoc check` against the hand labels of labels.jsonl.

usage: score.py <skillrt binary> <split: dev|heldout|all> [--show]

A tool finding matches a label when it names the same schema argument with a compatible kind;
label kinds map to check kinds as below. Prints per page the unmatched findings on both sides
(with --show), then: pages that agree and come back clean, recall and precision of findings.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
YAML = os.path.join(HERE, "..", "..", "..", "..", "..", "tests", "data", "op-plugin",
                    "op_plugin_functions.yaml")
KINDS = {
    "missing-argument": {"missing-parameter"},
    "renamed-argument": {"misnamed-parameter"},
    "default-mismatch": {"wrong-default"},
    "kwonly-marker": {"keyword-only"},
    "param-section": {"missing-parameter", "extra-parameter", "misnamed-parameter"},
    "extra-argument": {"extra-parameter"},
    "order": {"order"},
    "return-mismatch": {"return"},
}


def check(binary, page, op):
    doc = os.path.join(HERE, "pages", page)
    req = {"mode": "check", "doc": doc, "op": op, "source": YAML}
    run = subprocess.run([binary, "run", "op-apidoc", "-q", "--input", json.dumps(req)],
                         capture_output=True, text=True)
    if run.returncode != 0:
        return None, run.stderr.strip()[-300:]
    return json.loads(run.stdout), ""


def main():
    binary, split = sys.argv[1], sys.argv[2]
    show = "--show" in sys.argv
    agree = agree_clean = 0
    labels_total = labels_found = 0
    tool_total = tool_right = 0
    for line in open(os.path.join(HERE, "labels.jsonl"), encoding="utf-8"):
        lab = json.loads(line)
        if split != "all" and lab["split"] != split:
            continue
        out, err = check(binary, lab["page"], lab["op"])
        if out is None:
            print("ERROR", lab["page"], err)
            continue
        found = out["findings"]
        used = [False] * len(found)
        missed = []
        for f in lab["findings"]:
            labels_total += 1
            hit = False
            for i, t in enumerate(found):
                names = {f["argument"], f.get("page_argument")}
                if used[i] or t.get("parameter") not in names:
                    continue
                if t["kind"] in KINDS.get(f["kind"], set()):
                    used[i] = hit = True
                    break
            labels_found += hit
            if not hit:
                missed.append(f)
        tool_total += len(found)
        tool_right += sum(used)
        extra = [t for i, t in enumerate(found) if not used[i]]
        if lab["agree"]:
            agree += 1
            agree_clean += not found
        if show and (missed or extra):
            print("==", lab["page"], lab["op"])
            for f in missed:
                print("   MISSED", f["kind"], f["argument"], "line", f["page_line"])
            for t in extra:
                print("   EXTRA ", t["kind"], t.get("parameter"), "line", t["line"], t["message"])
    print("split %s: agreeing pages clean %d/%d; labelled findings found %d/%d; "
          "tool findings matching a label %d/%d"
          % (split, agree_clean, agree, labels_found, labels_total, tool_right, tool_total))


if __name__ == "__main__":
    main()
