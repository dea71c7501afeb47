#!/usr/bin/python3
"""Writes torchgen's reading of each schema in a case file as JSON lines.

Used to produce plugins/common/tests/data/kind_reference.jsonl, the expected values of the
optoolkit kind/write/out/returns test, from the reference implementation itself (Debian's
python3-torch ships torchgen). Run by hand:

  /usr/bin/python3 bench/op_schema/torchgen_reference.py \
      plugins/common/tests/data/kind_cases.txt > plugins/common/tests/data/kind_reference.jsonl
"""
import json
import sys

from torchgen.model import FunctionSchema


def annotation(a):
    return None if a is None else str(a)


def describe(text):
    s = FunctionSchema.parse(text)
    kwarg = {id(a) for a in s.arguments.flat_kwarg_only}
    out = {id(a) for a in s.arguments.out}
    args = []
    for a in s.arguments.flat_all:
        args.append({
            "name": a.name,
            "type": str(a.type),
            "default": a.default,
            "kwarg_only": id(a) in kwarg or id(a) in out,
            "out": id(a) in out,
            "annotation": annotation(a.annotation),
            "is_write": a.is_write,
        })
    rets = [{"name": r.name, "type": str(r.type), "annotation": annotation(r.annotation)}
            for r in s.returns]
    return {"schema": text, "kind": s.kind().name, "arguments": args, "returns": rets}


def main():
    skipped = 0
    for line in open(sys.argv[1], encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        try:
            print(json.dumps(describe(line), sort_keys=True))
        except Exception as e:  # a schema this torchgen version cannot read is reported, not kept
            skipped += 1
            print(f"skipped: {line}: {type(e).__name__}: {e}", file=sys.stderr)
    print(f"skipped {skipped}", file=sys.stderr)


if __name__ == "__main__":
    main()
