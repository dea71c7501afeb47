#!/usr/bin/python3
"""Reads a pr-analysis workbook back with openpyxl and checks it against expect.json:
sheets, header, one row per PR with its PR and commit hyperlinks, impact fill, autofilter,
frozen header, summary counts. Exit status 0 when all hold; every failure is printed."""
import json
import sys

import openpyxl

path, expect_path = sys.argv[1], sys.argv[2]
expect = json.load(open(expect_path))
wb = openpyxl.load_workbook(path)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


check(wb.sheetnames == ["PRs", "Summary", "Evidence"], "sheets: %r" % wb.sheetnames)
ws = wb["PRs"]
header = [c.value for c in ws[1]]
check(header[:3] == ["PR", "Title", "Impact"], "header: %r" % header)
check(ws.freeze_panes == "A2", "freeze panes: %r" % ws.freeze_panes)
check(ws.auto_filter.ref is not None and ws.auto_filter.ref.startswith("A1:L"),
      "autofilter: %r" % ws.auto_filter.ref)
rows = expect["rows"]
check(ws.max_row == len(rows) + 1, "rows: %d, expected %d" % (ws.max_row - 1, len(rows)))
fills = {}
for i, want in enumerate(rows, start=2):
    pr, title, impact, commit = ws.cell(i, 1), ws.cell(i, 2), ws.cell(i, 3), ws.cell(i, 9)
    check(title.value == want["title"], "row %d title %r" % (i, title.value))
    check(impact.value == want["impact"], "row %d impact %r" % (i, impact.value))
    if want["url"] is not None:
        check(pr.hyperlink is not None and pr.hyperlink.target == want["url"],
              "row %d PR link %r" % (i, pr.hyperlink and pr.hyperlink.target))
    check(commit.hyperlink is not None and commit.hyperlink.target == want["commit_url"],
          "row %d commit link %r" % (i, commit.hyperlink and commit.hyperlink.target))
    fills.setdefault(impact.value, set()).add(impact.fill.fgColor.rgb)
check(all(len(v) == 1 for v in fills.values()), "one fill per impact: %r" % fills)
check(len({next(iter(v)) for v in fills.values()}) == len(fills), "distinct fills: %r" % fills)
summary = {r[0]: r[1] for r in wb["Summary"].iter_rows(min_row=2, values_only=True) if r[0]}
for impact, n in expect["summary"]["by_impact"].items():
    check(summary.get(impact) == n, "summary %s: %r, expected %d" % (impact, summary.get(impact), n))
for cat, n in expect["summary"]["by_category"].items():
    check(summary.get(cat) == n, "summary %s: %r, expected %d" % (cat, summary.get(cat), n))
check(wb["Evidence"].max_row > len(rows) // 2, "evidence rows: %d" % wb["Evidence"].max_row)
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
