#!/usr/bin/python3
"""Reads the summary workbook back with openpyxl and prints its rows as JSON."""
import json
import sys

import openpyxl

wb = openpyxl.load_workbook(sys.argv[1])
ws = wb["summary"]
rows = [[c.value for c in row] for row in ws.iter_rows()]
with open(sys.argv[2], "w", encoding="utf-8") as f:
    json.dump(rows, f, ensure_ascii=False)
