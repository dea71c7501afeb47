"""Scores npu-graph-diagnose on a folder of labelled logs (<root>/<class>/*.log).

usage: score.py <skillrt binary> <root> [--misses]

Prints right/total, the undetermined count and the confusion matrix (rows = label).
"""
import collections
import json
import os
import subprocess
import sys

CLASSES = ["user-code", "framework-bug", "operator", "acl-runtime", "env-config"]


def main():
    binary, root = sys.argv[1], sys.argv[2]
    conf = collections.Counter()
    right = total = undetermined = 0
    misses = []
    for cls in CLASSES:
        folder = os.path.join(root, cls)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            run = subprocess.run([binary, "run", "npu-graph-diagnose", "--quiet", "--input",
                                  json.dumps({"log": path})], capture_output=True, text=True)
            try:
                got = json.loads(run.stdout)["conclusion"]
            except (ValueError, KeyError):
                got = "error"
            total += 1
            right += got == cls
            undetermined += got == "undetermined"
            conf[(cls, got)] += 1
            if got != cls:
                misses.append("%s/%s -> %s" % (cls, name, got))
    print("%s: %d/%d right (%.1f%%), undetermined %d (%.1f%%)"
          % (root, right, total, 100.0 * right / max(total, 1), undetermined,
             100.0 * undetermined / max(total, 1)))
    cols = CLASSES + ["undetermined"]
    print("%16s " % "label \\ got" + " ".join("%14s" % c for c in cols))
    for cls in CLASSES:
        print("%16s " % cls + " ".join("%14d" % conf[(cls, c)] for c in cols))
    if "--misses" in sys.argv:
        for m in misses:
            print("  " + m)


if __name__ == "__main__":
    main()
