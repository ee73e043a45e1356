#!/usr/bin/env python3
"""`hprof serve` in a real browser, and against hostile requests.

Serves a HeapGraphTarget "known" dump, then drives headless Chromium through
chromedriver's WebDriver HTTP API (standard library only): overview ->
histogram -> class HeapGraphTarget$Chain -> its largest instance (retained
6120 bytes, fields `data` and `next`) -> path from the roots (`static chain`)
-> the class object -> the String `marker`, whose markup must show as text
(the page title stays, no script runs); then the Waste and Suspects pages,
whose figures and the accumulation point's retained size must equal `hprof
waste --json` and `hprof suspects --json`. Then hostile requests: a 100 KB URL,
unknown IDs and pages, path traversal, bad query values, POST, 300 connections
at once; each gets an error page and the server keeps serving; SIGTERM ends it
with exit 0. A second server (the on-disk index the first one wrote) and a
third (--no-index) must serve the same pages, byte for byte: overview,
histograms, waste, suspects, dominator tree, and the object, class and
dominator pages they link to.
usage: serve_test.py JAVA_HOME HPROF SOURCE_DIR WORK_DIR
Skips (77) without chromium and chromedriver.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
MARKER = "<b>bold</b> & \"quoted\" <script>document.title='pwned'</script>"


def fail(msg):
    sys.exit("FAIL: " + msg)


def expect(cond, msg):
    if not cond:
        fail(msg)


def http(method, url, body=None, timeout=60):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


class Browser:
    """The few WebDriver commands the test needs."""

    def __init__(self, driver_url, profile):
        args = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", f"--user-data-dir={profile}"]
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome", "goog:chromeOptions": {"binary": CHROMIUM, "args": args}}}}
        status, body = http("POST", driver_url + "/session", caps)
        expect(status == 200, f"new session: {status} {body[:500]}")
        self.base = driver_url + "/session/" + json.loads(body)["value"]["sessionId"]

    def cmd(self, method, path, body=None):
        status, raw = http(method, self.base + path, body)
        value = json.loads(raw)["value"]
        expect(status == 200, f"{method} {path}: {status} {value}")
        return value

    def go(self, url):
        self.cmd("POST", "/url", {"url": url})

    def find(self, using, value):
        return self.cmd("POST", "/element", {"using": using, "value": value})[ELEMENT]

    def text(self, using, value):
        return self.cmd("GET", f"/element/{self.find(using, value)}/text")

    def click(self, using, value):
        self.cmd("POST", f"/element/{self.find(using, value)}/click", {})

    def title(self):
        return self.cmd("GET", "/title")

    def quit(self):
        http("DELETE", self.base)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cell(b, label):
    return b.text("xpath", f"//tr[td[1][normalize-space()='{label}']]/td[2]")


def browse(b, base):
    b.go(base + "/")
    expect(b.title() == "Heap dump overview - hprof", f"overview title {b.title()!r}")
    b.click("link text", "Histogram")
    expect(b.text("css selector", "h1") == "Class histogram", "histogram page")
    b.click("link text", "HeapGraphTarget$Chain")
    expect(b.text("css selector", "h1") == "HeapGraphTarget$Chain", "class page")
    expect("3 instances" in b.text("xpath", "//p[contains(., 'instances,')]"), "class totals")
    # The largest instance heads the table of largest instances.
    b.click("xpath", "//h2[.='Largest instances']/following::table[1]//a[1]")
    expect(cell(b, "Retained bytes") == "6120", f"retained {cell(b, 'Retained bytes')}")
    expect(cell(b, "Shallow bytes") == "24", "shallow")
    expect("byte[]" in cell(b, "data") and "HeapGraphTarget$Chain" in cell(b, "next"), "fields")
    path = b.text("css selector", "ol.path")
    expect("static chain" in path and "ROOT" in path, f"path to the roots: {path}")
    b.click("xpath", "//ol[@class='path']/li[contains(., 'class HeapGraphTarget')]/a")
    expect("class HeapGraphTarget" in b.text("css selector", "h1"), "class object page")
    b.click("xpath", "//tr[td[1]='marker']//a")
    expect(cell(b, "Value") == '"' + MARKER + '"', f"String value: {cell(b, 'Value')!r}")
    expect(b.title().endswith("java.lang.String - hprof"), f"title after markup: {b.title()!r}")
    b.click("link text", "Dominator tree")
    expect("class HeapGraphTarget" in b.text("xpath", "//table//tr[2]"), "dominator tree top")
    b.click("xpath", "//table//tr[2]//a[.='expand']")
    expect(b.text("css selector", "h1") == "Dominated objects", "dominator level page")
    print("browser: overview -> histogram -> class -> object -> path -> String, values checked")


def findings(b, base, hprof, dump):
    """The waste and suspects pages show what `hprof waste/suspects --json` compute."""
    waste = json.loads(subprocess.run([hprof, "waste", dump, "--json"], check=True,
                                      capture_output=True, text=True).stdout)
    suspects = json.loads(subprocess.run([hprof, "suspects", dump, "--json"], check=True,
                                         capture_output=True, text=True).stdout)["suspects"]
    b.go(base + "/")
    b.click("link text", "Waste")
    expect(b.text("css selector", "h1") == "Waste", "waste page")
    dup = waste["kinds"][0]
    row = b.text("xpath", f"//tr[td[3]='{dup['kind']}']")
    expect(row.startswith(f"{dup['bytes']} {dup['objects']} "), f"waste row {row!r}, want {dup}")
    expect(str(waste["bytes"]) in b.text("css selector", "p"), "waste total")
    b.click("link text", "Suspects")
    first = suspects[0]
    text = b.text("xpath", "//h2[.='Suspect 1']/following::p[1]")
    expect(f"{first['retained']} bytes" in text and first["id"] in text,
           f"suspect 1: {text!r}, want {first['id']} retaining {first['retained']}")
    b.click("xpath", "//h2[.='Suspect 1']/following::p[2]/a")
    want = first["accumulation"]
    expect(cell(b, "Retained bytes") == str(want["retained"]),
           f"accumulation point retains {cell(b, 'Retained bytes')}, want {want['retained']}")
    print("browser: waste and suspects pages equal `hprof waste/suspects --json`")


def hostile(base, proc):
    cases = [("/" + "a" * 100000, (414, 431)), ("/object?id=0x1", (404,)),
             ("/object?id=zzz", (404,)), ("/class?id=-1", (404,)), ("/../../etc/passwd", (404,)),
             ("/histo?sort=%3Cscript%3E", (400,)), ("/object?id=%zz", (404,)),
             ("/nope", (404,)), ("/dominators?id=99999999999999999999999", (404,))]
    for path, want in cases:
        status, body = http("GET", base + path)
        expect(status in want, f"{path[:60]}: status {status}, expected {want}")
        expect(b"<script" not in body, f"{path[:60]}: unescaped markup")
    status, _ = http("POST", base + "/", {"x": 1})
    expect(status == 405, f"POST: {status}")
    socks = [socket.create_connection(("127.0.0.1", int(base.rsplit(":", 1)[1])), timeout=5)
             for _ in range(300)]
    for s in socks[:100]:
        s.sendall(b"GET / HTTP/1.0\r\n")  # never finished
    for s in socks:
        s.close()
    # The server may still hold the closed connections against its per-client
    # limit for a moment (it resets new ones meanwhile): it must serve again
    # within a few seconds, and never stop.
    status = None
    for _ in range(100):
        try:
            status, _ = http("GET", base + "/histo")
            break
        except OSError:
            expect(proc.poll() is None, "server stopped")
            time.sleep(0.1)
    expect(status == 200 and proc.poll() is None, "server stopped serving")
    print("hostile requests: error pages, server alive")


def start(hprof, dump, *extra):
    """`hprof serve DUMP` on a free port: the process and its base URL."""
    server = subprocess.Popen([hprof, "serve", dump, "--port", "0", *extra],
                              stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    expect("http://127.0.0.1:" in line, f"serve printed {line!r}")
    return server, line.split()[-1].rstrip("/")


def same_pages(hprof, dump):
    """Through the index and without it, every page reads the same."""
    expect(os.path.exists(dump + ".index"), "the first serve wrote no index")
    servers = [start(hprof, dump), start(hprof, dump, "--no-index")]
    try:
        pages = ["/", "/histo", "/histo?sort=count", "/histo?sort=shallow", "/waste", "/suspects",
                 "/dominators"]
        links = set()
        for page in list(pages):
            body = http("GET", servers[0][1] + page)[1].decode()
            links.update(re.findall(r'href="(/(?:object|class|dominators)\?[^"]+)"', body))
        pages += sorted(links)[:150]
        for page in pages:
            mine, theirs = (http("GET", base + page) for _, base in servers)
            expect(mine == theirs, f"{page}: differs through the index and without it")
        print(f"index: {len(pages)} pages the same through the index and with --no-index")
    finally:
        for server, _ in servers:
            server.kill()
            server.wait()


def main():
    java_home, hprof, src, work = sys.argv[1:5]
    work = os.path.join(work, os.path.basename(os.path.normpath(java_home)))
    java = os.path.join(java_home, "bin", "java")
    if not all(os.path.exists(p) for p in (java, CHROMIUM, CHROMEDRIVER)):
        print("needs the JDK, chromium and chromedriver")
        sys.exit(77)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    classes = os.path.join(work, "classes")
    subprocess.run([os.path.join(java_home, "bin", "javac"), "-d", classes,
                    os.path.join(src, "java", "HeapGraphTarget.java")], check=True)
    dump = os.path.join(work, "known.hprof")
    subprocess.run([java, "-Xmx256m", "-cp", classes, "HeapGraphTarget", dump, "known"],
                   check=True, capture_output=True)
    server, driver = None, None
    try:
        server, base = start(hprof, dump)
        port = free_port()
        driver = subprocess.Popen([CHROMEDRIVER, f"--port={port}"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        driver_url = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                if http("GET", driver_url + "/status", timeout=5)[0] == 200:
                    break
            except urllib.error.URLError:
                pass  # not listening yet
            time.sleep(0.1)
        b = Browser(driver_url, os.path.join(work, "profile"))
        try:
            browse(b, base)
            findings(b, base, hprof, dump)
        finally:
            b.quit()
        hostile(base, server)
        server.send_signal(signal.SIGTERM)
        expect(server.wait(timeout=30) == 0, f"serve exited {server.returncode} on SIGTERM")
        same_pages(hprof, dump)
    finally:
        for p in (server, driver):
            if p and p.poll() is None:
                p.kill()


if __name__ == "__main__":
    main()
