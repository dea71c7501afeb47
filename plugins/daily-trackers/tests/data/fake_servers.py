#!/usr/bin/env python3
"""Local stand-ins for the GitHub REST issues listing and an InferenceX data server, for the
daily-trackers tests. Binds 127.0.0.1 on a port the OS picks and prints it on the first line.

The first path segment picks a scenario for /<scenario>/repos/<owner>/<repo>/issues (pages of 2):
  ok         the items below
  ratelimit  the first page-1 request of each repo gets 429 with Retry-After: 1
  flaky      the first request of every page gets 500
  slow       page 2 of vllm-ascend answers after 30 s the first time (the kill test)
  bad        vllm-project/vllm answers with an entry that has no number
  v2         a day later: #102 closed with more comments, #105 merged, #106 new
Benchmark data: /bench/latest.json serves data/inferencex/sample_2026-11-02.json until
/_advance is requested, then sample_2026-11-03.json; /bench/bad.json is malformed.
/_stats: requests per path and page so far.
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, "..", "..", "data", "inferencex")
PAGE = 2


def item(number, title, body, updated, state="open", user="dev", labels=(), comments=0,
         pr=False, merged=None):
    j = {"number": number, "title": title, "body": body, "state": state,
         "user": {"login": user}, "labels": [{"name": n} for n in labels],
         "comments": comments, "created_at": "2026-11-01T08:00:00Z", "updated_at": updated,
         "closed_at": merged if state == "closed" else None,
         "html_url": "https://github.com/x/y/%s/%d" % ("pull" if pr else "issues", number)}
    if pr:
        j["pull_request"] = {"merged_at": merged}
    return j


def ascend(version):
    items = [
        item(101, "[Feat] Support MTP for DeepSeek V3 in graph mode",
             "Enables multi-token prediction with aclgraph capture. Fixes #99", "2026-11-02T09:00:00Z",
             state="closed", pr=True, merged="2026-11-02T09:00:00Z"),
        item(102, "Qwen3 W8A8 accuracy drops on 910B", "After upgrading CANN the W8A8 model loses 3 points.",
             "2026-11-02T12:00:00Z" if version == 1 else "2026-11-03T12:00:00Z",
             comments=3 if version == 1 else 5, state="open" if version == 1 else "closed"),
        item(103, "Bump foo from 1 to 2", "deps", "2026-11-02T13:00:00Z", user="dependabot[bot]", pr=True),
        item(104, "Fix typo in docs", "spelling", "2026-11-02T15:00:00Z", pr=True),
        item(105, "[Perf] Mooncake KV connector for PD disaggregation", "Layerwise transfer.",
             "2026-11-02T18:00:00Z" if version == 1 else "2026-11-03T18:00:00Z", pr=True,
             state="open" if version == 1 else "closed",
             merged=None if version == 1 else "2026-11-03T18:00:00Z"),
    ]
    if version == 2:
        items.append(item(106, "Qwen3-Next MTP support", "Adds the MTP layer.",
                          "2026-11-03T20:00:00Z", pr=True))
    items.append(item(107, "After the window", "Qwen3 again", "2026-11-09T00:00:00Z", pr=True))
    return sorted(items, key=lambda i: i["updated_at"])


def upstream():
    return [
        item(201, "[Kimi] Add Kimi K2 tool parser", "Parser for Kimi K2 tool calls.",
             "2026-11-02T10:00:00Z", state="closed", pr=True, merged="2026-11-02T10:00:00Z"),
        item(202, "GLM-4.5 fails with fp8 on H100", "Traceback ...", "2026-11-03T10:00:00Z",
             labels=["bug"], comments=2),
        item(203, "Refactor scheduler", "no model", "2026-11-10T10:00:00Z", pr=True),
    ]


lock = threading.Lock()
counts = {}
bench_version = [1]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, headers=None, ctype="application/json"):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
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
        query = parse_qs(url.query)
        page = int(query.get("page", ["1"])[0])
        key = "%s?page=%d" % (url.path, page)
        with lock:
            counts[key] = counts.get(key, 0) + 1
            n = counts[key]
        if url.path == "/_stats":
            with lock:
                return self.send(200, counts)
        if url.path == "/_advance":
            bench_version[0] += 1
            return self.send(200, {"version": bench_version[0]})
        if url.path == "/bench/latest.json":
            name = "sample_2026-11-02.json" if bench_version[0] == 1 else "sample_2026-11-03.json"
            with open(os.path.join(SAMPLES, name), "rb") as f:
                return self.send(200, f.read())
        if url.path == "/bench/bad.json":
            return self.send(200, b'[{"hw": "h200", "isl": 8192}]')
        parts = url.path.strip("/").split("/")
        if len(parts) != 5 or parts[1] != "repos" or parts[4] != "issues":
            return self.send(404, {"message": "Not Found", "path": self.path})
        scenario, repo = parts[0], parts[2] + "/" + parts[3]
        if scenario == "flaky" and n == 1:
            return self.send(500, {"message": "Server Error"})
        if scenario == "ratelimit" and page == 1 and n == 1:
            return self.send(429, {"message": "slow down"}, {"Retry-After": "1"})
        if scenario == "bad" and repo == "vllm-project/vllm":
            return self.send(200, [{"title": "no number here"}])
        if scenario == "slow" and repo == "vllm-project/vllm-ascend" and page == 2 and n == 1:
            time.sleep(30)
        data = upstream() if repo == "vllm-project/vllm" else ascend(2 if scenario == "v2" else 1)
        since = query.get("since", [""])[0]
        data = [d for d in data if d["updated_at"] >= since]
        items = data[(page - 1) * PAGE:page * PAGE]
        headers = {}
        if page * PAGE < len(data):
            base = "http://127.0.0.1:%d%s" % (self.server.server_address[1], url.path)
            headers["Link"] = '<%s?state=all&since=%s&per_page=2&page=%d>; rel="next"' % (
                base, since, page + 1)
        return self.send(200, items, headers)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
