#!/usr/bin/env python3
"""Every tool that `skillrt serve` lists, plugins' included, against what MCP clients accept.

  tool_definitions_test.py <skillrt> <repo-root>

Checks the whole tools/list (all pages) over stdio:
  - no oneOf/anyOf/allOf/not/if at the root of an input schema (the Anthropic API and the
    clouds that serve its models answer 400 to the whole request otherwise);
  - root "type": "object" on every input and output schema;
  - name + description + input schema: at most 3,000 characters per tool and 30,000 for all;
  - every SKILL.md `input_example` passes the host's full schema (`run --check-only`) and the
    published one (a relaxation of the full one must accept what the host accepts);
  - `skillrt plugins --json` reports no tool-definition problem for the bundled skills.
Exits non-zero with one line per failed check.
"""

import json
import os
import re
import subprocess
import sys

TOOL_BUDGET = 3000
ALL_TOOLS_BUDGET = 30000
ROOT_RULES = ("oneOf", "anyOf", "allOf", "not", "if", "then", "else")

failures = []


def check(name, ok, detail=""):
    if not ok:
        failures.append(f"{name}: {detail}")
        print(f"FAIL {name}: {detail}", flush=True)


def list_tools(skillrt):
    proc = subprocess.Popen([skillrt, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    def send(message):
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
    send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                     "clientInfo": {"name": "tool-definitions-test", "version": "1"}}})
    json.loads(proc.stdout.readline())
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    tools, cursor, rid = [], None, 1
    while True:
        params = {"cursor": cursor} if cursor else {}
        send({"jsonrpc": "2.0", "id": rid, "method": "tools/list", "params": params})
        result = json.loads(proc.stdout.readline())["result"]
        tools.extend(result["tools"])
        cursor = result.get("nextCursor")
        rid += 1
        if not cursor:
            break
    proc.stdin.close()
    proc.wait(timeout=30)
    return tools


def type_matches(value, expected):
    names = expected if isinstance(expected, list) else [expected]
    for name in names:
        if name == "object" and isinstance(value, dict):
            return True
        if name == "array" and isinstance(value, list):
            return True
        if name == "string" and isinstance(value, str):
            return True
        if name == "boolean" and isinstance(value, bool):
            return True
        if name == "null" and value is None:
            return True
        if name == "integer" and isinstance(value, int) and not isinstance(value, bool):
            return True
        if name == "number" and isinstance(value, (int, float)) and not isinstance(value, bool):
            return True
    return False


def violations(schema, value, where="$"):
    """The keywords a published schema uses (it is derived mechanically and uses no others)."""
    out = []
    known = {"type", "description", "enum", "const", "default", "properties", "required",
             "additionalProperties", "items", "examples", "title"}
    for key in schema:
        if key not in known:
            out.append(f"{where}: published schema uses '{key}', which this check does not read")
    if "type" in schema and not type_matches(value, schema["type"]):
        out.append(f"{where}: {json.dumps(value)[:60]} is not {schema['type']}")
        return out
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{where}: {value!r} not in enum")
    if "const" in schema and value != schema["const"]:
        out.append(f"{where}: {value!r} is not the const")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                out.append(f"{where}: missing required '{name}'")
        for name, sub in value.items():
            if name in props:
                out.extend(violations(props[name], sub, f"{where}.{name}"))
            elif schema.get("additionalProperties") is False:
                out.append(f"{where}: '{name}' not allowed")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            out.extend(violations(schema["items"], item, f"{where}[{i}]"))
    return out


def skill_examples(repo):
    """(skill, example JSON text) for every SKILL.md with an input_example."""
    out = []
    skills_dir = os.path.join(repo, "skills")
    for name in sorted(os.listdir(skills_dir)):
        path = os.path.join(skills_dir, name, "SKILL.md")
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        match = re.search(r"^\s*input_example:\s*'(.*)'\s*$", text, re.MULTILINE)
        if match:
            out.append((name, match.group(1).replace("''", "'")))
    return out


def main():
    skillrt, repo = sys.argv[1], sys.argv[2]
    tools = list_tools(skillrt)
    check("tools listed", len(tools) >= 20, f"only {len(tools)} tools")
    total = 0
    by_name = {}
    for tool in tools:
        name = tool["name"]
        by_name[name] = tool
        schema = tool.get("inputSchema", {})
        for key in ROOT_RULES:
            check(f"{name} root {key}", key not in schema, "input schema has it at the root")
        check(f"{name} input type", schema.get("type") == "object", "no root type object")
        if "outputSchema" in tool:
            check(f"{name} output type", tool["outputSchema"].get("type") == "object",
                  "no root type object")
        size = len(name) + len(tool.get("description", "")) + len(
            json.dumps(schema, separators=(",", ":"), ensure_ascii=False))
        check(f"{name} size", size <= TOOL_BUDGET, f"{size} characters > {TOOL_BUDGET}")
        total += size
    check("all tools size", total <= ALL_TOOLS_BUDGET, f"{total} characters > {ALL_TOOLS_BUDGET}")
    print(f"{len(tools)} tools, {total} characters of name, description and input schema")

    examples = skill_examples(repo)
    check("SKILL.md examples found", len(examples) >= 20, f"only {len(examples)}")
    for name, text in examples:
        if name not in by_name:
            continue
        run = subprocess.run([skillrt, "run", name, "--check-only", "--input", text],
                             capture_output=True, text=True, timeout=60)
        check(f"{name} example (full schema)", run.returncode == 0,
              (run.stderr or run.stdout).strip()[:300])
        problems = violations(by_name[name]["inputSchema"], json.loads(text))
        check(f"{name} example (published schema)", not problems, "; ".join(problems)[:300])

    plugins = subprocess.run([skillrt, "plugins", "--json"], capture_output=True, text=True,
                             timeout=60)
    report = json.loads(plugins.stdout)
    check("plugins --json reports tool definitions", "tool_definitions" in report,
          "no tool_definitions key in `skillrt plugins --json`")
    for entry in report.get("tool_definitions", []):
        check(f"{entry['skill']} definition", False, entry["problem"])

    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all tool definitions pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
