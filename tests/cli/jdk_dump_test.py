#!/usr/bin/env python3
"""Integration test: a JVM's own heap dump through the hprof front end.

Runs CliDumpTest on the given JDK (it keeps exactly 12345 CliTestObj
instances, prints the JVM's class-histogram row for them and dumps its heap
with HotSpotDiagnosticMXBean.dumpHeap), then checks that
  - `hprof verify` accepts the dump (exit 0, "OK" summary line),
  - `hprof histo` reports exactly 12345 CliTestObj instances and one
    CliTestObj[], with the same byte totals as the JVM's own class
    histogram (JDK 24+: also with compact object headers, --model compact),
  - `hprof summary`, `records`, `threads` and `text` succeed, and the main
    thread's stack names CliDumpTest.main,
  - a truncated copy of the dump is rejected with exit 1 and the documented
    "hprof: error: <file>: <what> at offset <n>" message,
  - a dump taken from outside with `jcmd <pid> GC.heap_dump` passes verify
    and has the same CliTestObj count.
usage: jdk_dump_test.py JAVA_HOME HPROF_BINARY SOURCE_DIR WORK_DIR (a per-JDK subfolder is used)
"""
import os
import re
import shutil
import subprocess
import sys

COUNT = 12345


def run(cmd, **kw):
    # JVM strings are modified UTF-8; decode leniently.
    return subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=120, **kw)


def fail(msg, res=None):
    print("FAIL:", msg)
    if res is not None:
        print("exit", res.returncode, "\nstdout:", res.stdout[-3000:], "\nstderr:", res.stderr[-3000:])
    sys.exit(1)


def main():
    java_home, hprof, src, work = sys.argv[1:5]
    work = os.path.join(work, os.path.basename(os.path.normpath(java_home)))
    if not os.path.exists(os.path.join(java_home, "bin", "java")):
        print("no JDK at", java_home)
        sys.exit(77)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    res = run([os.path.join(java_home, "bin", "javac"), "-d", work,
               os.path.join(src, "CliDumpTest.java")])
    if res.returncode:
        fail("javac", res)
    dump = dump_and_compare_histo(java_home, hprof, work, "dump", [], [])
    # JDK 24+: compact object headers, the `compact` shallow-size model.
    if jdk_feature(java_home) >= 24:
        dump_and_compare_histo(java_home, hprof, work, "compact", ["-XX:+UseCompactObjectHeaders"],
                               ["--model", "compact"])

    for sub in ("summary", "records", "text"):
        res = run([hprof, sub, dump])
        if res.returncode or res.stderr:
            fail("hprof " + sub, res)
    res = run([hprof, "threads", dump])
    if (res.returncode or "\tCliDumpTest.main(CliDumpTest.java:" not in res.stdout
            or not re.search(r'^THREAD OBJ [0-9a-f]+ \(id = \d+, trace = \d+, name="main", heap dump 1\)$',
                             res.stdout, re.M)):
        fail("hprof threads: main thread name and stack", res)

    with open(dump, "rb") as f:
        data = f.read()
    cut = os.path.join(work, "cut.hprof")
    with open(cut, "wb") as f:
        f.write(data[: len(data) // 2])
    res = run([hprof, "verify", cut])
    if res.returncode != 1 or not re.match(
            r"hprof: error: .*cut\.hprof: .* at offset \d+\n", res.stderr):
        fail("truncated dump not rejected as documented", res)
    print("truncated copy:", res.stderr.splitlines()[0])
    jcmd_dump(java_home, hprof, work)
    shutil.rmtree(work, ignore_errors=True)
    print("PASS")


def jdk_feature(java_home):
    with open(os.path.join(java_home, "release")) as f:
        m = re.search(r'^JAVA_VERSION="(\d+)', f.read(), re.M)
    return int(m.group(1)) if m else 0


def dump_and_compare_histo(java_home, hprof, work, name, jvm_flags, model):
    """Dumps CliDumpTest's heap, checks `hprof verify`, then that `hprof histo`
    (with the model options given) has the JVM's own counts and bytes for
    CliTestObj and its array. Returns the dump's path."""
    dump = os.path.join(work, name + ".hprof")
    res = run([os.path.join(java_home, "bin", "java"), "-Xmx256m"] + jvm_flags +
              ["-cp", work, "CliDumpTest", dump])
    if res.returncode:
        fail("java", res)
    jvm = {}
    for cls, label in (("CliTestObj", "CliTestObj"), (r"\[LCliTestObj;", "CliTestObj[]")):
        m = re.search(r"^JVMHISTO\s+\d+:\s+(\d+)\s+(\d+)\s+" + cls + "$", res.stdout, re.M)
        if not m:
            fail(f"JVM histogram line for {label} missing", res)
        jvm[label] = (int(m.group(1)), int(m.group(2)))
    if jvm["CliTestObj"][0] != COUNT or jvm["CliTestObj[]"][0] != 1:
        fail("JVM histogram counts wrong", res)

    res = run([hprof, "verify", dump])
    if res.returncode or not re.match(r".*: OK: JAVA PROFILE 1\.0\.2, ID size 8, ", res.stdout):
        fail("hprof verify", res)
    print(res.stdout.strip())

    res = run([hprof, "histo"] + model + [dump])
    if res.returncode:
        fail("hprof histo", res)
    for label, (count, nbytes) in jvm.items():
        row = re.search(r"^\s*\d+:\s+(\d+)\s+(\d+)\s+" + re.escape(label) + "$", res.stdout, re.M)
        if not row:
            fail(f"no {label} row in histo", res)
        got = (int(row.group(1)), int(row.group(2)))
        print(f"{name}: histo {' '.join(model) or '(coops)'}: {label} {got[0]} instances, "
              f"{got[1]} bytes; JVM: {count} instances, {nbytes} bytes")
        if got != (count, nbytes):
            fail(f"histo has {got} for {label}, the JVM's histogram {(count, nbytes)}")
    return dump


def histo_count(hprof, dump):
    res = run([hprof, "histo", dump])
    row = re.search(r"^\s*\d+:\s+(\d+)\s+\d+\s+CliTestObj$", res.stdout, re.M)
    if res.returncode or not row:
        fail("hprof histo " + dump, res)
    return int(row.group(1))


def jcmd_dump(java_home, hprof, work):
    dump = os.path.join(work, "jcmd.hprof")
    proc = subprocess.Popen([os.path.join(java_home, "bin", "java"), "-Xmx256m", "-cp", work,
                             "CliDumpTest", "--wait"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        while proc.stdout.readline().strip() != "READY":
            if proc.poll() is not None:
                fail("CliDumpTest --wait exited early")
        res = run([os.path.join(java_home, "bin", "jcmd"), str(proc.pid), "GC.heap_dump", dump])
        if res.returncode or not os.path.exists(dump):
            fail("jcmd GC.heap_dump", res)
    finally:
        proc.communicate("\n", timeout=60)
    res = run([hprof, "verify", dump])
    if res.returncode:
        fail("hprof verify (jcmd dump)", res)
    count = histo_count(hprof, dump)
    print(f"jcmd dump: {res.stdout.strip()}; CliTestObj {count} instances")
    if count != COUNT:
        fail(f"jcmd dump: histo counted {count} CliTestObj, expected {COUNT}")


main()
