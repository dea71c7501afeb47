#!/usr/bin/env python3
"""Writes a large log made of the real dynamo excerpts, for bench/npu-graph-logs/run.sh.

    gen_log.py OUT SIZE_MB REPO_ROOT

The real excerpts (plugins/npu-graph/tests/data/real_logs/dynamo/*.log, 10 public logs) are
written round robin, each followed by plog INFO lines taken from the bundled plog samples
(plugins/npu-graph/tests/data/logs), so that about half the lines are dynamo records and half
ordinary runtime chatter, as in a training log run with TORCH_LOGS=graph_breaks,recompiles.
Each copy gets a new compile id and its user-code line numbers shifted by one of 500 offsets,
so the log has many distinct graph-break sites and recompiled functions, not one repeated.
The output is deterministic.
"""
import pathlib
import re
import sys


def main():
    out, size_mb, root = sys.argv[1], int(sys.argv[2]), pathlib.Path(sys.argv[3])
    data = root / "plugins/npu-graph/tests/data"
    excerpts = [p.read_text() for p in sorted((data / "real_logs/dynamo").glob("*.log"))]
    filler = []
    for p in sorted((data / "logs").rglob("*.log")):
        filler += [line for line in p.read_text().splitlines(True) if line.startswith("[INFO]")]
    if not excerpts or not filler:
        sys.exit("gen_log.py: no excerpts or plog samples under " + str(data))
    # Line numbers of user code ("line 343", "model.py:381") and compile ids ("[1/8]").
    line_no = re.compile(r"(line |\.py:)(\d+)")
    compile_id = re.compile(r"\[(\d+)/(\d+)\]")
    target = size_mb << 20
    written = 0
    copy = 0
    with open(out, "w") as f:
        while written < target:
            text = excerpts[copy % len(excerpts)]
            shift = copy % 500
            text = line_no.sub(lambda m: m.group(1) + str(int(m.group(2)) + shift), text)
            text = compile_id.sub(lambda m: "[%d/%s]" % (copy % 97, m.group(2)), text)
            if not text.endswith("\n"):
                text += "\n"
            chunk = text + "".join(filler[(copy + k) % len(filler)] for k in range(text.count("\n")))
            f.write(chunk)
            written += len(chunk)
            copy += 1


if __name__ == "__main__":
    main()
