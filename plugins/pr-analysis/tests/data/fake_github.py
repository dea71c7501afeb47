#!/usr/bin/env python3
"""A local stand-in for the GitHub REST API, for pr-analysis's GitHub source tests.

Binds 127.0.0.1 on a port the OS picks and prints it on the first line of stdout. The first path
segment picks a scenario; the rest is shaped like api.github.com:

  /ok/...          3 pages of closed PRs (2 per page), files in pages of 2
  /ratelimit/...   the first PR list request gets 429 with Retry-After: 1
  /reset/...       the first PR list request gets 403 with X-RateLimit-Remaining: 0 and a
                   X-RateLimit-Reset two seconds ahead
  /flaky/...       the first request of every path gets 500
  /slow/...        the PR list answers after 3 seconds
  /badjson/...     files of PR 502 are not JSON
  /_stats          JSON: requests per path so far
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

PATCH_NATIVE = (
    "@@ -338,5 +338,5 @@\n"
    "   tags: [core, pointwise]\n"
    " \n"
    "-- func: abs(Tensor self) -> Tensor\n"
    "+- func: abs(Tensor self, *, bool fast=False) -> Tensor\n"
    "   device_check: NoCheck   # TensorIterator\n"
    "   variants: function, method\n")
PATCH_DISPATCH = ("@@ -1546,3 +1546,4 @@\n     QuantizedCPU: clamp_quantized_cpu\n"
                  "+    CompositeExplicitAutograd: clamp_composite\n   tags: [core, pointwise]\n \n")
PATCH_AUTOGRAD = "@@ -10,0 +11,1 @@\n+  using NodePtr = c10::intrusive_ptr<Node>;\n"
PATCH_INDUCTOR = ("@@ -20,3 +20,4 @@ class Scheduler:\n     def __init__(self):\n"
                  "         self.nodes = []\n+        self.fuse_across_streams = False\n"
                  "         self.done = set()\n")
PATCH_DOCS = "@@ -1,0 +2 @@\n+Fusion across streams is off by default.\n"


def pr(number, title, merged_at, updated_at, labels=(), merged=True):
    return {"number": number, "title": title, "body": "Body of %d" % number, "state": "closed",
            "user": {"login": "dev%d" % number}, "labels": [{"name": n} for n in labels],
            "merged_at": merged_at if merged else None, "closed_at": merged_at,
            "updated_at": updated_at, "merge_commit_sha": "%040x" % number,
            "base": {"ref": "main"}}


PRS = [
    pr(501, "Inductor: no fusion across streams", "2026-11-04T10:00:00Z", "2026-11-06T00:00:00Z",
       ["merged", "module: inductor"]),
    pr(502, "Add fast flag to abs", "2026-11-03T09:00:00Z", "2026-11-05T00:00:00Z",
       ["merged", "topic: bc breaking"]),
    pr(503, "Closed without merging", "2026-11-03T08:00:00Z", "2026-11-04T00:00:00Z",
       [], merged=False),
    pr(507, "Give clamp a composite kernel", "2026-11-02T09:00:00Z", "2026-11-02T10:00:00Z",
       ["merged"]),
    pr(505, "Merged before the window", "2026-10-20T08:00:00Z", "2026-11-02T00:00:00Z",
       ["merged"]),
    pr(504, "Updated before the window", "2026-10-01T00:00:00Z", "2026-10-02T00:00:00Z",
       ["merged"]),
    pr(506, "Never reached", "2026-09-01T00:00:00Z", "2026-09-02T00:00:00Z", ["merged"]),
]
FILES = {
    501: [{"filename": "torch/_inductor/scheduler.py", "status": "modified", "additions": 1,
           "deletions": 0, "patch": PATCH_INDUCTOR},
          {"filename": "docs/source/torch.compiler.md", "status": "modified", "additions": 1,
           "deletions": 0, "patch": PATCH_DOCS}],
    502: [{"filename": "aten/src/ATen/native/native_functions.yaml", "status": "modified",
           "additions": 1, "deletions": 1, "patch": PATCH_NATIVE},
          {"filename": "torch/csrc/autograd/function.h", "status": "modified", "additions": 1,
           "deletions": 0, "patch": PATCH_AUTOGRAD},
          {"filename": "torch/_C/libtorch.so", "status": "modified", "additions": 0,
           "deletions": 0}],
    507: [{"filename": "aten/src/ATen/native/native_functions.yaml", "status": "modified",
           "additions": 1, "deletions": 0, "patch": PATCH_DISPATCH}],
}
PAGE = 2
lock = threading.Lock()
counts = {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, headers=None):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):
        url = urlparse(self.path)
        parts = url.path.strip("/").split("/")
        with lock:
            key = url.path + ("?page=" + parse_qs(url.query).get("page", ["1"])[0])
            counts[key] = counts.get(key, 0) + 1
            n = counts[key]
        if parts == ["_stats"]:
            with lock:
                return self.send(200, counts)
        scenario, rest = parts[0], parts[1:]
        page = int(parse_qs(url.query).get("page", ["1"])[0])
        base = "http://%s:%d/%s/%s" % (self.server.server_address[0],
                                        self.server.server_address[1], scenario, "/".join(rest))
        if scenario == "flaky" and n == 1:
            return self.send(500, {"message": "Server Error"})
        if len(rest) == 4 and rest[3] == "pulls":
            if scenario == "ratelimit" and page == 1 and n == 1:
                return self.send(429, {"message": "slow down"}, {"Retry-After": "1"})
            if scenario == "reset" and page == 1 and n == 1:
                return self.send(403, {"message": "API rate limit exceeded"},
                                 {"X-RateLimit-Remaining": "0",
                                  "X-RateLimit-Reset": str(int(time.time()) + 2)})
            if scenario == "slow":
                time.sleep(3)
            items = PRS[(page - 1) * PAGE:page * PAGE]
            headers = {}
            if page * PAGE < len(PRS):
                headers["Link"] = '<%s?state=closed&page=%d>; rel="next", <%s?page=%d>; rel="last"' % (
                    base, page + 1, base, (len(PRS) + PAGE - 1) // PAGE)
            return self.send(200, items, headers)
        if len(rest) == 5 and rest[3] == "pulls":
            number = int(rest[4])
            for p in PRS:
                if p["number"] == number:
                    return self.send(200, p)
            return self.send(404, {"message": "Not Found"})
        if len(rest) == 6 and rest[3] == "pulls" and rest[5] == "files":
            number = int(rest[4])
            if scenario == "badjson" and number == 502:
                return self.send(200, b"{not json")
            files = FILES.get(number, [])
            items = files[(page - 1) * PAGE:page * PAGE]
            headers = {}
            if page * PAGE < len(files):
                headers["Link"] = '<%s?per_page=2&page=%d>; rel="next"' % (base, page + 1)
            return self.send(200, items, headers)
        return self.send(404, {"message": "Not Found", "path": self.path})


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
