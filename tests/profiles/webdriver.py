"""A minimal W3C WebDriver client (Python standard library only) driving
headless Chromium through chromedriver."""
import json
import os
import socket
import subprocess
import time
import urllib.request

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1200,800"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    def __init__(self, profile_dir, chromium="/usr/bin/chromium", driver="/usr/bin/chromedriver"):
        self.port = free_port()
        self.proc = subprocess.Popen([driver, f"--port={self.port}", "--allowed-ips=127.0.0.1"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        for _ in range(100):
            try:
                if self._call("GET", "/status")["ready"]:
                    break
            except OSError:
                time.sleep(0.1)
        os.makedirs(profile_dir, exist_ok=True)
        caps = {"browserName": "chrome", "goog:chromeOptions": {
            "binary": chromium, "args": FLAGS + [f"--user-data-dir={profile_dir}"]}}
        self.session = self._call("POST", "/session",
                                  {"capabilities": {"alwaysMatch": caps}})["sessionId"]

    def _call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.loads(r.read())["value"]
        except urllib.error.HTTPError as e:
            raise AssertionError(f"WebDriver {method} {path}: {e.read().decode()[:500]}")

    def cmd(self, method, path, body=None):
        return self._call(method, f"/session/{self.session}{path}", body)

    def open(self, path):
        self.cmd("POST", "/url", {"url": "file://" + os.path.abspath(path)})

    def js(self, script, *args):
        return self.cmd("POST", "/execute/sync", {"script": script, "args": list(args)})

    def find(self, css):
        """Element references for a CSS selector."""
        return [list(e.values())[0] for e in
                self.cmd("POST", "/elements", {"using": "css selector", "value": css})]

    def click(self, element):
        self.cmd("POST", f"/element/{element}/click", {})

    def type(self, element, text):
        self.cmd("POST", f"/element/{element}/value", {"text": text})

    def close(self):
        try:
            self.cmd("DELETE", "")
        finally:
            self.proc.terminate()
            self.proc.wait(timeout=30)
