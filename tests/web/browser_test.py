#!/usr/bin/env python3
"""The web page in a real browser: Debian's headless chromium, driven over the DevTools protocol.

  browser_test.py <skillrt> <source-dir> <fixture-plugin-dir>

Starts `skillrt serve --http 127.0.0.1:0 --token <random>` with the build tree's plugins, checks
that the page refuses a request without the token or from another Origin, then opens the address
the server printed and, as a person would: asks a question (the answer's citations, one opened,
the upstream link, the suggested skill), runs `hello` and `doc-review` on bundled data
through the generated forms while their progress appears, downloads a report, and cancels a
long call (the fixture plugin's fx-sleep, its arguments typed as JSON). Any console error,
uncaught exception or failed load fails the test.

The browser is driven through --remote-debugging-pipe (NUL-separated JSON on fds 3 and 4), so
the test needs nothing but chromium and Python's standard library: no chromedriver, no npm, no
port of its own. Exits non-zero with one line per failed check.
"""

import fcntl
import http.client
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

# Safety nets against a hang, not speed limits: a healthy run takes seconds.
HANG_SECONDS = 120

failures = []


def check(name, ok, detail=""):
    if not ok:
        failures.append(f"{name}: {detail}")
        print(f"FAIL {name}: {detail}", flush=True)
    else:
        print(f"ok   {name}", flush=True)
    return ok


class Browser:
    """Headless chromium over its DevTools pipe: one page, its console, its downloads."""

    def __init__(self, chromium, profile, downloads):
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire_pipes():
            # Copied above 3 and 4 first, so that neither dup2 can overwrite the other's source.
            read_end = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
            write_end = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self.log = open(profile + ".log", "wb")  # chromium's own log, kept for a failed run
        self.proc = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--user-data-dir=" + profile, "--no-first-run", "--no-default-browser-check",
             # Nothing but the page's own requests: no update checks, sync or field trials.
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-default-apps", "--disable-domain-reliability", "--no-pings",
             "about:blank"],
            pass_fds=(3, 4), preexec_fn=wire_pipes, stdout=self.log, stderr=self.log)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next_id = 1
        self._answers = {}
        self._lock = threading.Condition()
        self.events = []  # every event, in order: (method, params)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.session = None
        self.downloads = downloads

    def _read(self):
        buffer = b""
        while True:
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                break
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                with self._lock:
                    if "id" in message:
                        self._answers[message["id"]] = message
                    else:
                        self.events.append((message["method"], message.get("params", {})))
                    self._lock.notify_all()
        with self._lock:
            self._answers[None] = {"error": {"message": "chromium closed its pipe"}}
            self._lock.notify_all()

    def send(self, method, params=None, session=True):
        with self._lock:
            rid = self._next_id
            self._next_id += 1
        message = {"id": rid, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + HANG_SECONDS
        with self._lock:
            while rid not in self._answers and None not in self._answers:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RuntimeError(f"chromium did not answer {method}")
                self._lock.wait(left)
            answer = self._answers.pop(rid, None) or self._answers[None]
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error'].get('message')}")
        return answer["result"]

    def open(self):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        attached = self.send("Target.attachToTarget",
                             {"targetId": target["targetId"], "flatten": True}, session=False)
        self.session = attached["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            self.send(f"{domain}.enable")
        self.send("Browser.setDownloadBehavior",
                  {"behavior": "allow", "downloadPath": self.downloads, "eventsEnabled": True},
                  session=False)

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def wait_for(self, expression, seconds=HANG_SECONDS):
        """The first truthy value of `expression`, polled; None when it never comes."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.1)
        return None

    def key(self, key, code, keycode, modifiers=0, text=None):
        """A key press as a person makes it: down (with its text, if it types one), then up."""
        down = {"type": "keyDown", "key": key, "code": code, "modifiers": modifiers,
                "windowsVirtualKeyCode": keycode}
        if text:
            down["text"] = text
        self.send("Input.dispatchKeyEvent", down)
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code,
                                             "modifiers": modifiers,
                                             "windowsVirtualKeyCode": keycode})

    def type_into(self, selector, text):
        """Focuses the control and types text into it (after clearing it)."""
        self.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
                      " e.focus(); e.value = ''; return true; })()")
        self.send("Input.insertText", {"text": text})

    def console_errors(self):
        errors = []
        with self._lock:
            events = list(self.events)
        for method, params in events:
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                errors.append("console." + params["type"] + ": " + " ".join(
                    str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                errors.append("exception: " + details.get("exception", {}).get(
                    "description", details.get("text", "")))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                entry = params["entry"]
                errors.append(f"log ({entry.get('source')}): {entry.get('text')} "
                              f"{entry.get('url', '')}")
        return errors

    def completed_downloads(self):
        with self._lock:
            return [p for m, p in self.events
                    if m == "Browser.downloadProgress" and p.get("state") == "completed"]

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except RuntimeError:
            pass
        try:
            self.proc.wait(timeout=HANG_SECONDS)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def start_server(skillrt, token, work, fixtures):
    env = dict(os.environ, SKILLRT_PLUGIN_PATH="", SKILLRT_SKILLS_PATH="",
               XDG_CONFIG_HOME=os.path.join(work, "config"),
               XDG_CACHE_HOME=os.path.join(work, "cache"))
    stderr_path = os.path.join(work, "server.log")
    stderr = open(stderr_path, "wb")
    proc = subprocess.Popen([skillrt, "--plugin-path", fixtures, "serve", "--http", "127.0.0.1:0",
                             "--token", token],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
                            env=env)
    deadline = time.monotonic() + HANG_SECONDS
    while time.monotonic() < deadline and proc.poll() is None:
        with open(stderr_path, errors="replace") as f:
            found = re.search(r"skillrt web page: (http://\S+)", f.read())
        if found:
            return proc, stderr, found.group(1)
        time.sleep(0.1)
    with open(stderr_path, errors="replace") as f:
        sys.exit(f"the server printed no page address:\n{f.read()}")


def get(port, target, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG_SECONDS)
    conn.request("GET", target, headers=headers or {})
    response = conn.getresponse()
    body = response.read().decode("utf-8", "replace")
    conn.close()
    return response.status, body


def check_refusals(url, token):
    parsed = urllib.parse.urlsplit(url)
    port = parsed.port
    check("the printed address carries the token",
          urllib.parse.parse_qs(parsed.query).get("token") == [token], url)
    status, body = get(port, "/")
    check("GET / without the token is refused", status == 401, f"{status} {body}")
    status, body = get(port, "/?token=" + urllib.parse.quote("x" + token, safe=""))
    check("GET / with a wrong token is refused", status == 401, f"{status} {body}")
    status, body = get(port, f"/?{parsed.query}", {"Origin": "http://evil.example"})
    check("GET / from another Origin is refused", status == 403, f"{status} {body}")
    status, body = get(port, f"/?{parsed.query}")
    check("GET / with the token is the page", status == 200 and "<script nonce=" in body,
          f"{status} {body[:200]}")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    skillrt, source, fixtures = sys.argv[1:]
    chromium = shutil.which("chromium")
    if not chromium:
        sys.exit("chromium is not installed, so the page cannot be checked in a browser; run "
                 "scripts/install-deps.sh (it installs Debian's chromium) and run the test again")
    work = tempfile.mkdtemp(prefix="skillrt-web-")
    downloads = os.path.join(work, "downloads")
    os.makedirs(downloads)
    # '+' and '/' must survive the printed address: the page reads the token back from it.
    token = secrets.token_urlsafe(12) + "+/"
    server, server_log, url = start_server(skillrt, token, work, fixtures)
    browser = None
    try:
        check_refusals(url, token)
        browser = Browser(chromium, os.path.join(work, "profile"), downloads)
        browser.open()
        drive(browser, url, source, work, downloads)
        cancel(browser)
        errors = browser.console_errors()
        check("no console errors, exceptions or failed loads", not errors, "\n  ".join(errors))
    finally:
        if browser:
            browser.close()
        server.terminate()
        code = server.wait(timeout=HANG_SECONDS)
        server_log.close()
        check("the server stops cleanly on SIGTERM", code == 0, f"exit code {code}")
    if failures:
        with open(os.path.join(work, "server.log"), errors="replace") as f:
            print("--- server log ---\n" + f.read()[-4000:])
        print(f"{len(failures)} check(s) failed; files kept in {work}")
        sys.exit(1)
    shutil.rmtree(work, ignore_errors=True)
    print("all checks passed")


def drive(browser, url, source, work, downloads):
    browser.send("Page.navigate", {"url": url})
    ready = browser.wait_for("document.body && document.body.dataset.ready === 'true'")
    status = browser.evaluate("document.getElementById('status').textContent")
    if not check("the page connects to /mcp and lists the skills", ready, status):
        return
    skills = browser.evaluate("[...document.querySelectorAll('#skill option')].map(o => o.value)")
    for needed in ("hello", "torchnpu-helper", "doc-review", "find-skill"):
        check(f"the skill list has {needed}", needed in skills, skills)

    # Ask, from the keyboard: type the question, then Ctrl+Enter.
    browser.type_into("#question", "TASK_QUEUE_ENABLE 有什么用？")
    browser.key("Enter", "Enter", 13, modifiers=2)
    passages = browser.wait_for(
        "document.querySelectorAll('#answer .passage').length")
    answer = browser.evaluate("document.getElementById('answer').innerText")
    if check("the question is answered with cited passages", passages, answer[:500]):
        citation = browser.evaluate("document.querySelector('#answer .passage code').textContent")
        check("a citation names repository, commit, path and lines",
              re.match(r"^Ascend/[\w-]+@[0-9a-f]{12}:\S+#L\d+(-L\d+)?$", citation), citation)
        link = browser.evaluate("document.querySelector('#answer a.upstream').href")
        check("the citation links to the upstream file at its lines",
              re.match(r"^https://github\.com/Ascend/[\w-]+/blob/[0-9a-f]{40}/\S+#L\d+", link),
              link)
        # Open the first citation from the keyboard: focus its button, press Enter.
        browser.evaluate("document.querySelector('#answer .open-citation').focus()")
        browser.key("Enter", "Enter", 13, text="\r")
        shown = browser.wait_for(
            "(() => { const f = document.querySelector('#answer figure.quote');"
            " return f && !f.hidden && f.innerText; })()", seconds=10)
        first_line = int(re.search(r"#L(\d+)", citation).group(1))
        numbers = browser.evaluate(
            "[...document.querySelectorAll('#answer figure.quote .number')]"
            ".map(n => n.textContent)")
        check("opening a citation shows the quoted lines, numbered from the cited line",
              shown and numbers and numbers[0] == str(first_line) and "TASK_QUEUE_ENABLE" in shown,
              f"{numbers[:3]} {(shown or '')[:300]}")
        check("the open citation says so to assistive technology",
              browser.evaluate("document.querySelector('#answer .open-citation')"
                               ".getAttribute('aria-expanded')") == "true")
    suggested = browser.evaluate(
        "[...document.querySelectorAll('#suggested .candidate strong')].map(s => s.textContent)")
    check("a skill is suggested for the question", bool(suggested),
          browser.evaluate("document.getElementById('suggestion').innerText"))

    # hello, through its generated form: markup in the name must come back as text.
    browser.evaluate("(() => { const s = document.getElementById('skill'); s.value = 'hello';"
                     " s.dispatchEvent(new Event('change')); return true; })()")
    browser.type_into("#field-name", "李雷 <b>&amp;</b>")
    browser.evaluate("document.getElementById('field-language').value = '\"zh\"'")
    browser.type_into("#field-times", "5")
    browser.evaluate("document.getElementById('run-button').click()")
    text = browser.wait_for("document.getElementById('result-json')?.textContent")
    if check("hello runs from its form", text,
             browser.evaluate("document.getElementById('result').innerText")):
        result = json.loads(text)
        check("hello's result is shown as JSON", result.get("greeting") == "你好，李雷 <b>&amp;</b>！",
              result)
        check("markup in a result is shown as text, never parsed",
              browser.evaluate("document.querySelectorAll('#result b').length") == 0)
    steps = browser.evaluate("[...document.querySelectorAll('#progress-log li')]"
                             ".map(li => li.textContent)")
    check("hello's progress appears, step by step",
          len(steps) == 5 and steps[0].startswith("1 / 5") and steps[-1].startswith("5 / 5"),
          steps)
    check("the progress bar reaches the end",
          browser.evaluate("(() => { const b = document.getElementById('progress-bar');"
                           " return b.value === 5 && b.max === 5; })()"))

    # A domain skill on bundled data: doc-review of op-plugin's API pages against its code,
    # with reports to download.
    data = os.path.join(source, "plugins", "doc-review", "tests", "data", "op-plugin")
    report_dir = os.path.join(work, "review")
    browser.evaluate("(() => { const s = document.getElementById('skill');"
                     " s.value = 'doc-review'; s.dispatchEvent(new Event('change'));"
                     " return true; })()")
    browser.type_into("#field-docs", os.path.join(data, "docs"))
    browser.type_into("#field-code", data)
    browser.type_into("#field-output_dir", report_dir)
    # Two axes, one named in Chinese, through the checkbox group the enum array becomes.
    picked = browser.evaluate(
        "[...document.querySelectorAll('input[id^=\"field-axes-\"]')].filter(b =>"
        " ['\"trustworthy\"', '\"读得懂\"'].includes(b.value)).map(b => { b.checked = true;"
        " return JSON.parse(b.value); })")
    check("an enum array becomes checkboxes", picked == ["trustworthy", "读得懂"], picked)
    browser.evaluate("document.getElementById('run-button').click()")
    text = browser.wait_for("document.getElementById('result-json')?.textContent")
    if not check("doc-review runs from its form", text,
                 browser.evaluate("document.getElementById('result').innerText")):
        return
    result = json.loads(text)
    check("the checked axes reach the skill", result.get("axes") == ["trustworthy", "readable"],
          result.get("axes"))
    steps = browser.evaluate("[...document.querySelectorAll('#progress-log li')]"
                             ".map(li => li.textContent)")
    check("doc-review's progress appears, page by page",
          len(steps) >= 3 and any("read " in s for s in steps) and
          re.match(r"^(\d+) / \1\b", steps[-1] if steps else ""), steps)
    reports = result.get("reports", {})
    check("the skill wrote its reports",
          sorted(reports) == ["html", "markdown"] and all(map(os.path.isfile, reports.values())),
          reports)
    offered = browser.wait_for("[...document.querySelectorAll('#files button.download')]"
                               ".map(b => b.dataset.path)", seconds=10)
    check("the reports are offered for download, and nothing else",
          sorted(offered or []) == sorted(reports.values()), offered)
    html = reports.get("html", "")
    if html in (offered or []):
        browser.evaluate("document.querySelector("
                         f"'#files button.download[data-path={json.dumps(html)}]').click()")
        deadline = time.monotonic() + HANG_SECONDS
        while time.monotonic() < deadline and not browser.completed_downloads():
            time.sleep(0.1)
        saved = os.path.join(downloads, os.path.basename(html))
        with open(html, "rb") as f:
            expected = f.read()
        got = open(saved, "rb").read() if os.path.isfile(saved) else None
        check("the downloaded report is the file the skill wrote", got == expected,
              f"{len(got or b'')} bytes downloaded, {len(expected)} written")


def cancel(browser):
    browser.evaluate("(() => { const s = document.getElementById('skill'); s.value = 'fx-sleep';"
                     " s.dispatchEvent(new Event('change')); return true; })()")
    browser.evaluate("document.getElementById('raw-box').open = true")
    browser.type_into("#raw", '{"ms": 600000}')
    browser.evaluate("document.getElementById('run-button').click()")
    started = browser.wait_for("!document.getElementById('cancel-button').disabled", seconds=10)
    if not check("a running call can be cancelled", started,
                 browser.evaluate("document.getElementById('result').innerText")):
        return
    browser.evaluate("document.getElementById('cancel-button').focus()")
    browser.key("Enter", "Enter", 13, text="\r")
    error = browser.wait_for("document.getElementById('result-error')?.textContent")
    check("a cancelled call says so", error and "cancelled" in error, error)
    check("the form is ready for the next call",
          browser.evaluate("!document.getElementById('run-button').disabled &&"
                           " document.getElementById('cancel-button').disabled"))


if __name__ == "__main__":
    main()
