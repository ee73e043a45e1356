#!/usr/bin/env python3
"""Exit codes and messages of the hprof binary itself (no JVM needed).
usage: cli_exit_test.py HPROF_BINARY CORPUS_DIR WORK_DIR"""
import os
import re
import subprocess
import sys

hprof, corpus, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
good = os.path.join(corpus, "fixture-id8-seg1-two1.bin")
failures = []


def check(args, code, out_re=None, err_re=None):
    r = subprocess.run([hprof] + args, capture_output=True, text=True, errors="replace", timeout=60)
    ok = r.returncode == code
    ok = ok and (out_re is None or re.search(out_re, r.stdout, re.M | re.S))
    ok = ok and (err_re is None or re.search(err_re, r.stderr, re.M | re.S))
    if not ok:
        failures.append(f"{args}: exit {r.returncode}\nstdout: {r.stdout[-500:]}\nstderr: {r.stderr[-500:]}")


check(["--help"], 0, r"^usage: hprof <command>.*exit status: 0 ok; 1 malformed")
check([], 2, err_re=r"^hprof: missing command")
check(["frobnicate", good], 2, err_re=r"unknown command 'frobnicate'")
check(["histo", "--dump", "0", good], 2, err_re=r"value out of range: 0")
check(["histo", "--dump"], 2, err_re=r"option --dump needs a value")
check(["verify", "--bogus", good], 2, err_re=r"unknown option '--bogus'")
check(["verify"], 2, err_re=r"missing FILE")
check(["verify", os.path.join(work, "absent.hprof")], 3,
      err_re=r"^hprof: error: .*absent\.hprof: cannot open: No such file or directory\n$")
check(["verify", work], 3, err_re=r"not a regular file")
check(["verify", "--strict", good], 0, out_re=r": OK: JAVA PROFILE 1\.0\.2, ID size 8, 31 records, 2 heap dumps")
check(["histo", "--dump", "3", good], 4, err_re=r"no heap dump 3 \(the file has 2\)")
for cmd in ("records", "summary", "histo", "sites", "samples", "threads", "text"):
    check([cmd, good], 0)

with open(good, "rb") as f:
    data = f.read()
bad = os.path.join(work, "bad.hprof")
with open(bad, "wb") as f:
    f.write(data[:300])
check(["verify", bad], 1, err_re=r"^hprof: error: .*bad\.hprof: file cut short: (record length \d+ runs past end of file \(\d+ bytes left\)|truncated record header \(\d+ bytes left, need 9\)) at offset \d+\nhprof: .*FAILED: 1 error\n$")
check(["records", bad], 1, out_re=r"UTF8", err_re=r"at offset \d+\n$")
with open(bad, "wb") as f:
    f.write(b"JAVA PROFILE 1.0.2\0\0\0\0\x05" + bytes(8))
check(["summary", bad], 1, err_re=r"^hprof: error: .*: bad ID size 5 \(must be 4 or 8\) at offset 19\n$")
with open(bad, "wb") as f:
    f.write(data[:31] + b"\x99\0\0\0\0\0\0\0\0" + data[31:])
check(["records", bad], 1, out_re=r"^ +31 tag 0x99 +0 +0 \(malformed\)$",
      err_re=r"unknown record tag 0x99 at offset 31")

if failures:
    print("\n\n".join(failures))
    sys.exit(1)
print("PASS")
