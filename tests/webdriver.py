"""A minimal W3C WebDriver client (stdlib only) for browser tests: starts Debian's
`chromedriver`, opens headless Chromium, and offers the few commands the tests use
(navigate, find, click, execute script, screenshot).

Chromium is started with the flags this machine's closed network needs (no background
networking, no component updates) and a fresh profile directory.
"""
from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def available() -> bool:
    """True when both Debian packages (chromium, chromium-driver) are installed."""
    return os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    """One chromedriver process and one headless Chromium session."""

    def __init__(self, width=1600, height=900):
        self.port = _free_port()
        self.profile = tempfile.mkdtemp(prefix="astjax-chromium-")
        self.proc = subprocess.Popen([CHROMEDRIVER, f"--port={self.port}"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.time() + 20
        while True:
            try:
                if self._call("GET", "/status")["ready"]:
                    break
            except (urllib.error.URLError, ConnectionError):
                pass
            if time.time() > deadline:
                self.proc.kill()
                raise RuntimeError("chromedriver did not start")
            time.sleep(0.1)
        args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                f"--user-data-dir={self.profile}", f"--window-size={width},{height}"]
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM, "args": args}}}}
        self.session = self._call("POST", "/session", caps)["sessionId"]

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.loads(r.read() or b"{}")["value"]
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"webdriver {method} {path}: {e.read().decode()[:500]}") from None

    def _s(self, method, path, body=None):
        return self._call(method, f"/session/{self.session}{path}", body)

    def open(self, url):
        self._s("POST", "/url", {"url": url})

    def find(self, css):
        """The element id of the first match of the CSS selector."""
        return self._s("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def click(self, element):
        self._s("POST", f"/element/{element}/click", {})

    def run(self, script, *args):
        """Run JavaScript in the page (`return ...` gives the value)."""
        return self._s("POST", "/execute/sync", {"script": script, "args": list(args)})

    def screenshot(self, path):
        with open(path, "wb") as fh:
            fh.write(base64.b64decode(self._s("GET", "/screenshot")))

    def close(self):
        try:
            self._s("DELETE", "")
        finally:
            self.proc.kill()
            self.proc.wait()
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
