#!/usr/bin/env python3
"""Two skillrt HTTP servers behind one round-robin proxy serve a 2026-07-28 client.

  mcp_stateless_proxy_test.py <skillrt>

Starts two `skillrt serve --http 127.0.0.1:0` (hello plugin and its SKILL.md, from the build's
default plugins), puts a plain round-robin HTTP proxy in front of them (every POST goes to the
next backend; no session affinity, as an ordinary load balancer), and sends a stateless client's
mixed requests through it from several threads: discovery, tools/list, tools/call with progress
(SSE), resources/read, skills/get, and requests that must fail. Every request must get its own
right answer, and both backends must have served some. Exits non-zero with one line per failed
check.
"""

import http.client
import http.server
import itertools
import json
import re
import subprocess
import sys
import threading

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}
failures = []
lock = threading.Lock()


def check(name, ok, detail=""):
    if not ok:
        with lock:
            failures.append(f"{name}: {detail}")
        print(f"FAIL {name}: {detail}", flush=True)


def start_backend(skillrt):
    proc = subprocess.Popen([skillrt, "serve", "--http", "127.0.0.1:0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in proc.stderr:
        match = re.search(r"listening on http://127\.0\.0\.1:(\d+)/mcp", line)
        if match:
            # Keep draining stderr so the server never blocks on a full pipe.
            threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
            return proc, int(match.group(1))
    raise RuntimeError("backend exited before listening")


def make_proxy(ports):
    turn = itertools.cycle(range(len(ports)))
    served = [0] * len(ports)

    class Proxy(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with lock:
                index = next(turn)
                served[index] += 1
            conn = http.client.HTTPConnection("127.0.0.1", ports[index], timeout=60)
            headers = {k: v for k, v in self.headers.items()
                       if k.lower() not in ("host", "content-length", "connection")}
            headers["Host"] = f"127.0.0.1:{ports[index]}"
            conn.request("POST", self.path, body=body, headers=headers)
            answer = conn.getresponse()
            data = answer.read()  # SSE or JSON, whole: the proxy does not stream
            self.send_response(answer.status)
            for key, value in answer.getheaders():
                if key.lower() not in ("transfer-encoding", "content-length", "connection"):
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            conn.close()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    return server, served


def post(port, rid, method, params, name=""):
    body = json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
    headers = {"Content-Type": "application/json",
               "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
    if name:
        headers["Mcp-Name"] = name
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("POST", "/mcp", body=body, headers=headers)
    answer = conn.getresponse()
    text = answer.read().decode()
    conn.close()
    messages = []
    if answer.getheader("Content-Type", "").startswith("text/event-stream"):
        for line in text.splitlines():
            if line.startswith("data:"):
                messages.append(json.loads(line[5:]))
    elif text:
        messages.append(json.loads(text))
    return answer.status, messages


def client(port, worker):
    for i in range(10):
        rid = worker * 1000 + i * 10
        status, msgs = post(port, rid, "server/discover", {"_meta": META})
        check(f"w{worker} discover {i}", status == 200 and msgs[-1]["id"] == rid and
              msgs[-1]["result"]["supportedVersions"][0] == "2026-07-28", str(msgs)[:200])
        status, msgs = post(port, rid + 1, "tools/list", {"_meta": META})
        names = [t["name"] for t in msgs[-1].get("result", {}).get("tools", [])]
        check(f"w{worker} tools/list {i}", status == 200 and "hello" in names, str(msgs)[:200])
        who = f"w{worker}-{i}"
        status, msgs = post(port, rid + 2, "tools/call",
                            {"name": "hello", "arguments": {"name": who, "times": 2},
                             "_meta": {**META, "progressToken": f"p{rid}"}}, name="hello")
        final = msgs[-1] if msgs else {}
        text = json.dumps(final.get("result", {}).get("structuredContent", {}))
        check(f"w{worker} tools/call {i}", status == 200 and final.get("id") == rid + 2 and
              who in text, str(msgs)[:300])
        status, msgs = post(port, rid + 3, "skills/get",
                            {"uri": "skill://hello/SKILL.md", "_meta": META})
        check(f"w{worker} skills/get {i}", status == 200 and
              msgs[-1]["result"]["skill"]["frontmatter"]["name"] == "hello", str(msgs)[:200])
        status, msgs = post(port, rid + 4, "resources/read",
                            {"uri": "skill://hello/SKILL.md", "_meta": META})
        check(f"w{worker} resources/read {i}", status == 200 and
              "hello" in msgs[-1]["result"]["contents"][0]["text"], str(msgs)[:200])
        status, msgs = post(port, rid + 5, "ping", {"_meta": META})
        check(f"w{worker} removed method {i}", status == 404 and
              msgs[-1]["error"]["code"] == -32601 and msgs[-1]["id"] == rid + 5, str(msgs)[:200])
        status, msgs = post(port, rid + 6, "tools/call",
                            {"name": "hello", "arguments": {"name": "x"}, "_meta": META},
                            name="not-hello")
        check(f"w{worker} header mismatch {i}", status == 400 and
              msgs[-1]["error"]["code"] == -32020, str(msgs)[:200])


def main():
    skillrt = sys.argv[1]
    backends = [start_backend(skillrt) for _ in range(2)]
    proxy, served = make_proxy([port for _, port in backends])
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    port = proxy.server_address[1]
    try:
        workers = [threading.Thread(target=client, args=(port, w)) for w in range(4)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    finally:
        proxy.shutdown()
        for proc, _ in backends:
            proc.terminate()
            proc.wait(timeout=30)
    check("both backends served", all(n > 0 for n in served), f"requests per backend {served}")
    print(f"{sum(served)} requests through the proxy, per backend {served}")
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all stateless requests answered right through the round-robin proxy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
