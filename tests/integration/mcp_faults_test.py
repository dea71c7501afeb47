#!/usr/bin/env python3
"""Fault fixtures through the MCP server (`skillrt serve`, stdio).

  mcp_faults_test.py <skillrt> <build-dir> in-process|process [stdio|http]

Starts the server with only the fx-behaviours fixture plugin, calls every fault fixture that the
mode can contain, and after every fault checks that the server still answers: a ping and a call
of a well-behaved tool. Every line on the server's stdout must be one JSON-RPC message; what
plugins print goes to stderr. Exits non-zero with one line per failed check.
"""

import http.client
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time

# Safety net against a hung server, not a speed limit: a healthy run answers in seconds, but
# the 100 MB result through a worker takes half a minute on a loaded two-core machine.
HANG_SECONDS = 600

failures = []
checks = 0


def check(name, ok, detail=""):
    global checks
    checks += 1
    if not ok:
        failures.append(f"{name}: {detail}")
        print(f"FAIL {name}: {detail}", flush=True)


def request_message(rid, method, params=None):
    msg = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


class Server:
    def __init__(self, argv, stderr_path):
        self.stderr = open(stderr_path, "wb")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr)
        self.lines = queue.Queue()
        self.seen = []  # every message the server sent, in order
        self.not_json = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.next_id = 1

    def _read(self):
        for raw in self.proc.stdout:
            try:
                msg = json.loads(raw)
            except ValueError:
                self.not_json.append(raw[:200])
                continue
            self.lines.put(msg)
        self.lines.put(None)

    def send(self, msg):
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method, params=None):
        rid = self.next_id
        self.next_id += 1
        msg = request_message(rid, method, params)
        self.send(msg)
        return rid

    def wait_for(self, rid):
        """The response to `rid`; notifications and other answers seen meanwhile are kept."""
        while True:
            try:
                msg = self.lines.get(timeout=HANG_SECONDS)
            except queue.Empty:
                return None
            if msg is None:
                return None
            self.seen.append(msg)
            if "method" not in msg and msg.get("id") == rid:
                return msg

    def call(self, tool, arguments):
        return self.wait_for(self.request("tools/call", {"name": tool, "arguments": arguments}))

    def close(self):
        self.proc.stdin.close()
        while True:
            try:
                msg = self.lines.get(timeout=HANG_SECONDS)
            except queue.Empty:
                break
            if msg is None:
                break
            self.seen.append(msg)
        try:
            code = self.proc.wait(timeout=HANG_SECONDS)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self.stderr.close()
        return code


class HttpServer:
    """The same interface as Server, over `serve --http 127.0.0.1:0`: one connection per
    request, so a cancellation can be sent while a call waits for its answer."""

    def __init__(self, argv, stderr_path):
        self.stderr = open(stderr_path, "wb")
        self.proc = subprocess.Popen(argv + ["--http", "127.0.0.1:0"], stdin=subprocess.PIPE,
                                     stdout=subprocess.DEVNULL, stderr=self.stderr)
        self.port = None
        for _ in range(HANG_SECONDS * 10):
            text = open(stderr_path, errors="replace").read()
            at = text.find("listening on http://127.0.0.1:")
            if at >= 0 and "/mcp" in text[at:]:
                self.port = int(text[at:].split(":", 2)[2].split("/", 1)[0])
                break
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        self.session = None
        self.seen = []
        self.not_json = []
        self.answers = {}
        self.threads = {}
        self.next_id = 1

    def _post(self, msg):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=HANG_SECONDS)
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        conn.request("POST", "/mcp", body=json.dumps(msg).encode(), headers=headers)
        response = conn.getresponse()
        body = response.read()
        if response.getheader("Mcp-Session-Id"):
            self.session = response.getheader("Mcp-Session-Id")
        conn.close()
        if response.status == 202 and not body:
            return None
        try:
            return json.loads(body)
        except ValueError:
            self.not_json.append(body[:200])
            return None

    def send(self, msg):
        self._post(msg)

    def request(self, method, params=None):
        rid = self.next_id
        self.next_id += 1
        msg = request_message(rid, method, params)

        def run():
            self.answers[rid] = self._post(msg)

        thread = threading.Thread(target=run, daemon=True)
        self.threads[rid] = thread
        thread.start()
        if method == "initialize":
            thread.join(HANG_SECONDS)  # later requests need the session id
        return rid

    def wait_for(self, rid):
        self.threads[rid].join(HANG_SECONDS)
        msg = self.answers.get(rid)
        if msg is not None:
            self.seen.append(msg)
        return msg

    def call(self, tool, arguments):
        return self.wait_for(self.request("tools/call", {"name": tool, "arguments": arguments}))

    def close(self):
        for rid, thread in self.threads.items():
            thread.join(HANG_SECONDS)
            msg = self.answers.get(rid)
            if msg is not None and msg not in self.seen:
                self.seen.append(msg)
        self.proc.terminate()
        try:
            self.proc.wait(timeout=HANG_SECONDS)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.stderr.close()
        return self.proc.returncode


def result_text(response):
    result = response.get("result", {})
    return "\n".join(c.get("text", "") for c in result.get("content", []) if isinstance(c, dict))


def expect_error(server, mode, label, tool, arguments, needles):
    response = server.call(tool, arguments)
    name = f"{mode} {label}"
    if response is None:
        check(name, False, "no response")
        return
    check(f"{name} is a tools/call result", "result" in response, json.dumps(response)[:300])
    result = response.get("result", {})
    check(f"{name} isError", result.get("isError") is True, json.dumps(result)[:300])
    text = result_text(response)
    for needle in needles:
        check(f"{name} message names {needle!r}", needle in text, text[:400])
    print(f"{mode:10} {label:28} -> {text.splitlines()[0] if text else '(no text)'}", flush=True)


def expect_alive(server, mode, after):
    name = f"{mode} after {after}"
    pong = server.wait_for(server.request("ping"))
    check(f"{name}: ping answered", pong is not None and pong.get("result") == {},
          json.dumps(pong)[:200])
    echo = server.call("fx-echo", {"after": after})
    ok = (echo is not None and echo.get("result", {}).get("isError") is False and
          echo["result"].get("structuredContent") == {"after": after})
    check(f"{name}: fx-echo answered", ok, json.dumps(echo)[:300])


def main():
    skillrt, build, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    transport = sys.argv[4] if len(sys.argv) > 4 else "stdio"
    fixtures = os.path.join(build, "tests", "fixtures", "behaviours")
    work = tempfile.mkdtemp(prefix="skillrt-mcp-faults-")
    config = os.path.join(work, "config.yaml")
    # Short deadlines for the skills that overrun, a short grace, and a small pool so that a
    # thread held by an overrunning skill shows whether the server still answers.
    with open(config, "w") as f:
        f.write("threads: 4\n"
                "deadlines:\n"
                "  grace_ms: 300\n"
                "  skills:\n"
                "    fx-stuck: 500\n"
                "    fx-sleep: 500\n")
    argv = [skillrt, "--config", config, "--isolation", mode, "--plugin-path", fixtures]
    if mode == "process":
        argv += ["--worker-memory-mb", "1024"]
    argv.append("serve")
    env_path = os.environ.pop("SKILLRT_PLUGIN_PATH", None)
    os.environ["SKILLRT_PLUGIN_PATH"] = ""
    stderr_path = os.path.join(work, "stderr.log")
    server = (Server if transport == "stdio" else HttpServer)(argv, stderr_path)
    if env_path is not None:
        os.environ["SKILLRT_PLUGIN_PATH"] = env_path

    init = server.wait_for(server.request("initialize", {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "mcp_faults_test", "version": "1"}}))
    check("initialize answered", init is not None and "result" in init, json.dumps(init)[:300])
    if init is None:
        server.close()
        sys.stdout.write(open(stderr_path, errors="replace").read()[-3000:])
        print(f"server config and full stderr kept in {work}")
        return 1
    server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    tools = server.wait_for(server.request("tools/list"))
    names = {t["name"] for t in tools.get("result", {}).get("tools", [])} if tools else set()
    check("fixture tools listed", {"fx-echo", "fx-throw", "fx-stuck"} <= names, sorted(names))

    plugin = "plugin 'fx-behaviours'"
    deadline_needles = [plugin, "fx-stuck", "deadline"]
    if mode == "process":
        crashes = [
            ("segfault", "fx-segv", {}, [plugin, "fx-segv", "signal 11 (SIGSEGV)"]),
            ("abort", "fx-abort", {}, [plugin, "fx-abort", "signal 6 (SIGABRT"]),
            ("exit(3)", "fx-exit", {}, [plugin, "fx-exit", "exited with code 3"]),
        ]
        # The memory limit is RLIMIT_AS, which an AddressSanitizer build cannot run under: there
        # fx-alloc would take the whole machine.
        if os.environ.get("SKILLRT_SANITIZED"):
            print("SKIP allocation until failure: no worker memory limit in a sanitizer build")
        else:
            crashes.append(("allocation until failure", "fx-alloc", {},
                            [plugin, "fx-alloc", "memory"]))
        for label, tool, args, needles in crashes:
            expect_error(server, mode, label, tool, args, needles)
            expect_alive(server, mode, label)
    # The containable faults, in both modes.
    expect_error(server, mode, "throw", "fx-throw", {}, [plugin, "fx-throw", "boom"])
    expect_alive(server, mode, "throw")
    # A loop that ignores its deadline and cancellation: in-process it holds a pool thread for
    # its length (bounded here so the server can exit); a worker is killed after the grace.
    stuck_ms = 3000 if mode == "in-process" else 600000
    expect_error(server, mode, "loop past deadline", "fx-stuck", {"ms": stuck_ms},
                 deadline_needles)
    expect_alive(server, mode, "loop past deadline")
    expect_error(server, mode, "slow past deadline (polls)", "fx-sleep", {"ms": 600000},
                 [plugin, "fx-sleep", "deadline"])
    expect_alive(server, mode, "slow past deadline")

    # Writes to stdout: the result is intact and the protocol stream stays pure.
    response = server.call("fx-stdout", {})
    ok = response is not None and response.get("result", {}).get("structuredContent") == {
        "wrote": True}
    check(f"{mode} stdout writes: result intact", ok, json.dumps(response)[:300])
    print(f"{mode:10} {'stdout writes':28} -> result {json.dumps(response.get('result', {}).get('structuredContent') if response else None)}", flush=True)
    expect_alive(server, mode, "stdout writes")

    # 100 MB of output reaches the client whole (or as an error that says why).
    response = server.call("fx-big-output", {})
    result = response.get("result", {}) if response else {}
    blob = (result.get("structuredContent") or {}).get("blob", "")
    ok = (result.get("isError") is False and len(blob) == 100 << 20) or (
        result.get("isError") is True and "fx-big-output" in result_text(response))
    check(f"{mode} 100 MB output", ok, f"isError={result.get('isError')} blob={len(blob)}")
    print(f"{mode:10} {'100 MB output':28} -> isError={result.get('isError')}, "
          f"{len(blob)} bytes of blob", flush=True)
    response = None
    result = None
    blob = None
    expect_alive(server, mode, "100 MB output")

    # Cancelled while ignoring cancellation: no response for it, and the server goes on.
    cancelled_ms = 1500 if mode == "in-process" else 600000
    cancelled_id = server.request("tools/call", {"name": "fx-stuck",
                                                 "arguments": {"ms": cancelled_ms}})
    server.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                 "params": {"requestId": cancelled_id, "reason": "test"}})
    expect_alive(server, mode, "cancel ignored")
    print(f"{mode:10} {'ignoring cancellation':28} -> no response; next requests answered",
          flush=True)

    # A cancellation that overtakes its request (over HTTP it travels on another connection):
    # the call stops at once and gets no response, not the deadline error it would otherwise.
    early_id = server.next_id
    server.next_id += 1
    server.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                 "params": {"requestId": early_id, "reason": "test"}})
    server.send({"jsonrpc": "2.0", "id": early_id, "method": "tools/call",
                 "params": {"name": "fx-sleep", "arguments": {"ms": 600000}}})
    expect_alive(server, mode, "cancel before its request")

    code = server.close()
    check("server exits 0 on EOF (stdio) or SIGTERM (HTTP)", code == 0, f"exit code {code}")
    answered = [m for m in server.seen if "method" not in m and m.get("id") == cancelled_id]
    check(f"{mode} cancelled request gets no response", not answered, json.dumps(answered)[:300])
    answered = [m for m in server.seen if "method" not in m and m.get("id") == early_id]
    check(f"{mode} request cancelled before it came gets no response", not answered,
          json.dumps(answered)[:300])
    ids = [m.get("id") for m in server.seen if "method" not in m]
    check("no request answered twice", len(ids) == len(set(ids)), ids)
    check("every answer is one JSON-RPC message", not server.not_json, server.not_json[:3])
    stderr_text = open(stderr_path, errors="replace").read()
    if transport == "stdio":
        check("plugin stdout went to stderr", "fixture noise on stdout" in stderr_text,
              stderr_text[-500:])
    print(f"{checks - len(failures)}/{checks} checks passed ({mode}, {transport})")
    if failures:
        print(stderr_text[-3000:])
        print(f"server config and full stderr kept in {work}")
        return 1
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
