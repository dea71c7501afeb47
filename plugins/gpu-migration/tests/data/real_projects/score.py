#!/usr/bin/env python3
"""Score gpu-migration-analyze against a hand-read usages.json.

Usage: score.py SKILLRT_BINARY PROJECT_DIR

PROJECT_DIR is one of the folders next to this script (nanoGPT, Wan2.1) and
holds a usages.json (format in README.md). The project folder is copied to a
temporary directory (without usages.json) and the analyzer runs on the copy,
so no report files land in the repository.

Matching rules:
  * A usage is found when a finding in the same file and the same domain lies
    within +-3 lines of it (the truth is on the line with the CUDA-specific
    part, a scanner may report the first line of the statement).
  * Matching is one-to-one: each finding accounts for at most one usage.
    Exact lines are matched first, then +-1, +-2, +-3 (augmenting paths, so
    the number of matched usages is the largest possible).
  * A finding exactly on a not_code or judged_not_usage line never matches a
    usage through the tolerance (no data line is also a usage line).
Each finding that matches no usage is then put in one class:
  false alarm     exactly on a not_code line;
  judged          exactly on a judged_not_usage line (neither miss nor
                  clear false alarm);
  repeat          same file, line and domain as a matched finding, or on the
                  line of a found usage of its domain (a second report of a
                  usage already counted);
  unmatched       anything else; a hint names a usage of another domain (or an
                  already-found usage) within +-3 lines when there is one.

The score is printed twice: for 'findings' alone and for 'findings' plus
'suggestions' (the NPU-affinity list), since the result keeps them apart.
Standard library only; exits 0 always.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

DOMAINS = ["device", "attention", "custom_ops", "distributed", "precision",
           "third_party", "compile"]
TOL = 3


def say(text=""):
    sys.stdout.write(text + "\n")


def short(text, width=110):
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[:width - 3] + "..."


def pct(num, den):
    return "%5.1f%%" % (100.0 * num / den) if den else "    - "


def run_analyzer(binary, project):
    """Run the analyzer on a temporary copy; return (result, error)."""
    tmp = tempfile.mkdtemp(prefix="skillrt-score-")
    try:
        name = os.path.basename(os.path.normpath(project)) or "repo"
        repo = os.path.join(tmp, name)
        shutil.copytree(project, repo,
                        ignore=shutil.ignore_patterns("usages.json"))
        out = os.path.join(tmp, "out.json")
        cmd = [binary, "run", "gpu-migration-analyze", "--quiet",
               "--input", json.dumps({"repo": repo}), "--output", out]
        try:
            proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE,
                                  universal_newlines=True, timeout=900)
        except (OSError, subprocess.SubprocessError) as exc:
            return None, "could not run the analyzer: %s" % exc
        if proc.returncode != 0 or not os.path.exists(out):
            msg = (proc.stderr or proc.stdout or "").replace(tmp, "<tmp>")
            return None, "analyzer exit %d: %s" % (proc.returncode,
                                                  short(msg, 400))
        try:
            with open(out) as fh:
                return json.load(fh), None
        except ValueError as exc:
            return None, "unreadable analyzer output: %s" % exc
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def where(item):
    cell = item.get("cell")
    if cell is not None:
        return "%s[cell %d]:%d" % (item["file"], cell, item["line"])
    return "%s:%d" % (item["file"], item["line"])


def describe(f):
    return "%s %s %s %s `%s`" % (where(f), f["domain"], f["rule"],
                                 f.get("matched", ""), short(f.get("code", ""), 80))


def match(usages, findings, blocked):
    """One-to-one matching of usages to findings; returns usage->finding."""
    cand = []
    for u in usages:
        lst = []
        for j, f in enumerate(findings):
            if f["file"] != u["file"] or f["domain"] != u["domain"]:
                continue
            if (f["file"], f["line"]) in blocked:
                continue
            d = abs(f["line"] - u["line"])
            if d <= TOL:
                lst.append((d, j))
        lst.sort()
        cand.append(lst)

    u_of_f = {}   # finding index -> usage index
    f_of_u = {}   # usage index -> finding index

    def augment(i, limit, seen):
        for d, j in cand[i]:
            if d > limit or j in seen:
                continue
            seen.add(j)
            if j not in u_of_f or augment(u_of_f[j], limit, seen):
                u_of_f[j] = i
                f_of_u[i] = j
                return True
        return False

    for limit in range(TOL + 1):
        for i in range(len(usages)):
            if i not in f_of_u:
                augment(i, limit, set())
    return f_of_u


def score(label, truth, findings, extra_only=None):
    """Print the score for one list of findings.

    extra_only: indices into findings that came from 'suggestions'; when set,
    only what those add or change is listed in full.
    """
    usages = truth["usages"]
    not_code = {(x["file"], x["line"]): x for x in truth.get("not_code", [])}
    judged = {(x["file"], x["line"]): x for x in truth.get("judged_not_usage", [])}
    blocked = set(not_code) | set(judged)
    f_of_u = match(usages, findings, blocked)
    matched_f = set(f_of_u.values())

    # recall
    say("recall (%s):" % label)
    total = found = 0
    for dom in DOMAINS:
        idx = [i for i, u in enumerate(usages) if u["domain"] == dom]
        hit = sum(1 for i in idx if i in f_of_u)
        total += len(idx)
        found += hit
        say("  %-12s %3d/%-3d %s" % (dom, hit, len(idx), pct(hit, len(idx))))
    say("  %-12s %3d/%-3d %s" % ("overall", found, total, pct(found, total)))
    off = sorted((usages[i]["file"], usages[i]["line"], findings[j]["line"])
                 for i, j in f_of_u.items()
                 if findings[j]["line"] != usages[i]["line"])
    say("  matched within tolerance, not on the line (%d)%s" % (
        len(off), (": " + ", ".join("%s:%d<-%d" % o for o in off)) if off else ""))

    # classify findings that match no usage
    matched_keys = {(findings[j]["file"], findings[j]["line"], findings[j]["domain"])
                    for j in matched_f}
    found_usage_keys = {(usages[i]["file"], usages[i]["line"], usages[i]["domain"])
                        for i in f_of_u}
    false_alarm, judged_hits, repeats, unmatched = [], [], [], []
    for j, f in enumerate(findings):
        if j in matched_f:
            continue
        key = (f["file"], f["line"])
        if key in not_code:
            false_alarm.append((j, not_code[key].get("why", "")))
        elif key in judged:
            judged_hits.append((j, judged[key].get("why", "")))
        elif key + (f["domain"],) in matched_keys or key + (f["domain"],) in found_usage_keys:
            repeats.append(j)
        else:
            near = [u for u in usages if u["file"] == f["file"]
                    and abs(u["line"] - f["line"]) <= TOL]
            near.sort(key=lambda u: abs(u["line"] - f["line"]))
            hint = ""
            if near:
                u = near[0]
                hint = "near %s:%d %s (%s)" % (u["file"], u["line"], u["domain"],
                                               short(u["what"], 60))
            unmatched.append((j, hint))

    misses = [u for i, u in enumerate(usages) if i not in f_of_u]
    counts = (found, total, len(misses), len(false_alarm), len(unmatched),
              len(judged_hits), len(repeats))

    def listed(j):
        return extra_only is None or j in extra_only

    if extra_only is None:
        say("misses (%d):" % len(misses))
        for u in sorted(misses, key=lambda u: (u["file"], u["line"], u["domain"])):
            same = [f for f in findings if f["file"] == u["file"]
                    and f["line"] == u["line"] and f["domain"] != u["domain"]]
            tail = ""
            if same:
                tail = "  [on this line, another domain: %s]" % ", ".join(
                    sorted({"%s %s" % (f["domain"], f["rule"]) for f in same}))
            say("  %s:%d %s %s%s" % (u["file"], u["line"], u["domain"], u["what"], tail))
    else:
        newly = [u for i, u in enumerate(usages) if i in f_of_u and f_of_u[i] in extra_only]
        say("usages found only through suggestions (%d):" % len(newly))
        for u in newly:
            say("  %s:%d %s %s" % (u["file"], u["line"], u["domain"], u["what"]))
        say("misses: %d (the same list as above less the ones just named)" % len(misses))

    head = "" if extra_only is None else " [suggestions listed only]"
    say("false alarms on not_code lines (%d)%s:" % (len(false_alarm), head))
    for j, why in false_alarm:
        if listed(j):
            say("  %s -- %s" % (describe(findings[j]), short(why, 70)))
    say("findings on judged_not_usage lines (%d)%s:" % (len(judged_hits), head))
    for j, why in judged_hits:
        if listed(j):
            say("  %s -- %s" % (describe(findings[j]), short(why, 70)))
    say("repeat reports of a usage already counted (%d)%s" % (len(repeats), head))
    for j in repeats:
        if listed(j) and extra_only is not None:
            say("  %s" % describe(findings[j]))
    say("unmatched findings (%d)%s:" % (len(unmatched), head))
    for j, hint in unmatched:
        if listed(j):
            say("  %s%s" % (describe(findings[j]), ("  [" + hint + "]") if hint else ""))
    return counts


def main(argv):
    if len(argv) != 3:
        say("usage: score.py SKILLRT_BINARY PROJECT_DIR")
        return 0
    binary = os.path.abspath(argv[1])
    project = os.path.abspath(argv[2])
    name = os.path.basename(os.path.normpath(project))
    say("=" * 78)
    say("project: %s" % os.path.relpath(project))
    try:
        with open(os.path.join(project, "usages.json")) as fh:
            truth = json.load(fh)
    except (OSError, ValueError) as exc:
        say("cannot read usages.json: %s" % exc)
        return 0
    say("truth: %s @ %s: %d usages, %d not_code, %d judged_not_usage" % (
        truth.get("project", name), str(truth.get("commit", "?"))[:12],
        len(truth["usages"]), len(truth.get("not_code", [])),
        len(truth.get("judged_not_usage", []))))
    result, err = run_analyzer(binary, project)
    if result is None:
        say("ERROR: %s" % err)
        return 0
    findings = list(result.get("findings", []))
    suggestions = list(result.get("suggestions", []))
    table = result.get("rule_table", {})
    say("analyzer: %s (rule table %s %s, %s rules): %d files scanned, "
        "%d findings, %d suggestions" % (
            os.path.relpath(binary), table.get("name", "?"),
            table.get("version", "?"), table.get("rules", "?"),
            result.get("files_scanned", 0), len(findings), len(suggestions)))
    for note in result.get("notes", []):
        say("  note: %s" % short(note, 150))
    for sk in result.get("skipped", []):
        say("  skipped: %s (%s)" % (sk.get("path"), short(sk.get("reason", ""), 80)))
    say("matching: same file, same domain, +-%d lines, one finding per usage" % TOL)

    say("")
    say("--- findings only ---")
    a = score("findings", truth, findings)
    say("")
    say("--- findings + suggestions ---")
    extra = set(range(len(findings), len(findings) + len(suggestions)))
    b = score("findings+suggestions", truth, findings + suggestions, extra)
    say("")
    for label, c in (("findings", a), ("findings+suggestions", b)):
        say("SUMMARY %s %s: recall %d/%d (%s), misses %d, false alarms on not_code %d, "
            "unmatched %d, judged_not_usage hits %d, repeats %d" % (
                name, label, c[0], c[1], pct(c[0], c[1]).strip(), c[2], c[3], c[4], c[5], c[6]))
    return 0


if __name__ == "__main__":
    try:
        main(sys.argv)
    except Exception as exc:  # keep the promise: exit 0 always
        say("ERROR: %s: %s" % (type(exc).__name__, exc))
    sys.exit(0)
