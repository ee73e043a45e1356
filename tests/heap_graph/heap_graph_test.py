#!/usr/bin/env python3
"""Integration test: dominators and retained sizes of JVM heap dumps.

  1. HeapGraphTarget "known" builds graphs with known retained sizes (chain,
     diamond, shared object, cycle, a weakly referenced object also held
     strongly, a 200000-deep list, an array of leaves); `hprof dominators`
     must report exactly those sizes (compressed oops, as on JDK 17 and 25).
  2. VisualVM's heap library (Instance.getRetainedSize) must agree on every
     HeapGraphTarget$* object and on the 20 largest retainers of a real
     program's dump (javac compiling three files in-process), and its own list
     of the largest retainers must be hprof's.
  `hprof path` must name the fields along the known chain, reach the softly
     held byte[] through `referent`, and not with --exclude-weak; `hprof
     waste` and `hprof suspects` must find the waste and the leak planted.
     The on-disk index must be written, reused, and rebuilt when damaged
     (its graph or its findings) or when the dump changes; --no-index must
     not write it; path, waste, suspects and histo --retained must print the
     same through the index as with --no-index.
  3. A gzipped dump from `jcmd GC.heap_dump -gz=1` gives the same dominators as
     the plain one from the same process; `histo --retained` runs on both.
  4. The hprof agent's own heap=dump,format=b dump of the same program passes
     the checks of 1 (known sizes, path, waste, suspects).
  5. Every heap command writes the same bytes with -o FILE as to stdout, and
     valid JSON with --json; a failing command leaves no FILE.
usage: heap_graph_test.py JAVA_HOME HPROF SOURCE_DIR WORK_DIR AGENT
Skips (77) when VisualVM's heap library is not installed.
"""
import json
import os
import shutil
import subprocess
import sys

JFLUID = "/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar"


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=600, **kw)
    if r.returncode != 0:
        sys.exit(f"FAIL: {cmd} exited {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    return r.stdout


def tree(hprof, dump):
    """Every object of the dominator tree down to 64 levels: id -> node."""
    t = json.loads(run([hprof, "dominators", dump, "--top", "0", "--depth", "64", "--json"]))
    nodes, stack = {}, list(t["dominators"])
    while stack:
        n = stack.pop()
        nodes[int(n["id"], 16)] = n
        stack.extend(n["children"])
    return t, nodes


def expect(cond, msg):
    if not cond:
        sys.exit("FAIL: " + msg)


def check_known(nodes):
    by_class = {}
    for n in nodes.values():
        by_class.setdefault(n["class"], []).append(n["retained"])
    want = {  # coops: 12-byte headers, 4-byte references, 16-byte array headers
        "HeapGraphTarget$Chain": [3 * 24 + 1016 + 2016 + 3016, 2 * 24 + 2016 + 3016, 24 + 3016],
        "HeapGraphTarget$Diamond": [4 * 24 + 816, 24 + 816, 24, 24],
        "HeapGraphTarget$Shared": [16 + 5016, 16, 16],  # the shared one is held by neither holder
        "HeapGraphTarget$Cyc": [2 * 24 + 120 + 216, 24 + 216],
        "HeapGraphTarget$Holder": [16],  # a WeakReference also points at its byte[]
    }
    for cls, sizes in want.items():
        got = sorted(by_class.get(cls, []), reverse=True)
        expect(got == sorted(sizes, reverse=True), f"{cls}: retained {got}, expected {sizes}")
    expect(max(by_class["HeapGraphTarget$Deep"]) == 200000 * 16, "Deep list head")
    expect(1000 * 16 + 4016 in by_class["java.lang.Object[]"], "Object[1000] of leaves")
    print("known graph: retained sizes as expected")


def paths(hprof, dump, target, *opts):
    return json.loads(run([hprof, "path", dump, target, "--json"] + list(opts)))["paths"]


def check_paths(hprof, dump):
    chains = paths(hprof, dump, "HeapGraphTarget$Chain")
    expect([p["retained"] for p in chains] == [6120, 5080, 3040], "path: Chain targets")
    vias = [step.get("via") for step in chains[2]["path"]]
    expect(vias[-3:] == ["static chain", "next", "next"] and "roots" in chains[2]["path"][0],
           f"path to the third Chain: {chains[2]['path']}")
    arrays = {p["shallow"]: p for p in paths(hprof, dump, "byte[]", "--top", "100000")}
    soft, held = arrays[16 + 9000], arrays[16 + 7000]  # SoftReference only; also strongly held
    expect(soft["path"][-1]["via"] == "referent", f"path to the softly held byte[]: {soft}")
    expect(held["path"][-1]["via"] in ("held", "referent"), f"path to the held byte[]: {held}")
    strong = {p["shallow"]: p for p in paths(hprof, dump, "byte[]", "--top", "100000",
                                            "--exclude-weak")}
    expect(strong[16 + 9000]["path"] == [], "--exclude-weak still reaches the soft referent")
    expect(strong[16 + 7000]["path"][-1]["via"] == "held", "--exclude-weak: strongly held byte[]")
    print("path: shortest paths with field names and root kinds; --exclude-weak")


def check_waste(hprof, dump):
    w = json.loads(run([hprof, "waste", dump, "--json", "--top", "1000"]))
    kinds = {k["kind"].split(" (")[0].split(" of ")[0]: k for k in w["kinds"]}
    dup = [d for d in w["duplicate_strings"] if d["value"] == "duplicated value 0123456789"]
    # 100 copies with their own byte[27], and the literal they were made from
    expect(dup == [{"bytes": 100 * (24 + 48), "copies": 101, "value": dup[0]["value"]}] if dup else
           False, f"duplicate strings: {dup}")
    sparse = kinds["over-sized backing arrays"]
    expect(sparse["bytes"] >= 9999 * 4 + 4080 * 4 and sparse["sample"]["bytes"] == 9999 * 4,
           f"over-sized backing arrays: {sparse['bytes']}, sample {sparse['sample']['bytes']}")
    expect(sparse["sample"]["path"][-1]["via"] == "elementData" or
           sparse["sample"]["path"][-1]["via"] == "static oversized", "sample path")
    empty = kinds["empty collections"]
    expect(empty["objects"] >= 50 and empty["bytes"] >= 50 * 24, f"empty collections: {empty}")
    expect(kinds["Object[]"]["bytes"] >= 999 * 4, "mostly-null Object[]")
    expect(kinds["boxed primitives"]["objects"] >= 3000 and
           kinds["boxed primitives"]["bytes"] >= 1000 * 16 + 2000 * 12, "boxed primitives")
    expect(w["bytes"] == sum(k["bytes"] for k in w["kinds"]), "waste total")
    print("waste: duplicate strings, sparse and empty collections, arrays, boxes as expected")


def check_suspects(hprof, dump):
    s = json.loads(run([hprof, "suspects", dump, "--json"]))["suspects"]
    maps = [x for x in s if x["kind"] == "object" and x["class"] == "java.util.HashMap"]
    expect(len(maps) == 1 and maps[0]["retained"] >= 2000 * 1016, f"the cache suspect: {s}")
    m = maps[0]
    expect(m["accumulation"]["class"] == "java.util.HashMap$Node[]", f"accumulation: {m}")
    expect(m["accumulates"][0]["class"] == "java.util.HashMap$Node" and
           m["accumulates"][0]["objects"] == 2000, f"accumulates: {m['accumulates']}")
    expect(m["path"][-1]["via"] == "static cache", f"suspect path: {m['path']}")
    print("suspects: the 2000-entry cache, its table and nodes, its path")


def check_index(hprof, known, work):
    dump = os.path.join(work, "index", "copy.hprof")
    os.makedirs(os.path.dirname(dump))
    shutil.copy(known, dump)
    index = dump + ".index"
    args = [hprof, "dominators", dump, "--depth", "3"]
    run(args[:3] + ["--no-index"])
    expect(not os.path.exists(index), "--no-index wrote an index")
    first = run(args)
    expect(os.path.exists(index), "no index next to the dump")
    stamp = os.stat(index).st_mtime_ns
    expect(run(args) == first and os.stat(index).st_mtime_ns == stamp, "index not reused")
    with open(index, "r+b") as f:  # damage the arrays: the index must be refused and rebuilt
        f.seek(os.path.getsize(index) // 2)
        f.write(b"\xff" * 4096)
    expect(run(args) == first and os.stat(index).st_mtime_ns != stamp, "damaged index used")
    stamp = os.stat(index).st_mtime_ns
    with open(index, "r+b") as f:  # damage the findings at the end: refused and rebuilt too
        f.seek(os.path.getsize(index) - 64)
        f.write(b"\xff" * 64)
    expect(run(args) == first and os.stat(index).st_mtime_ns != stamp, "damaged findings used")
    stamp = os.stat(index).st_mtime_ns
    os.utime(dump)  # a changed dump invalidates its index
    expect(run(args) == first and os.stat(index).st_mtime_ns != stamp, "stale index used")
    stamp = os.stat(index).st_mtime_ns
    for cmd in (["path", dump, "HeapGraphTarget$Chain"], ["path", dump, "byte[]", "--top", "5"],
                ["path", dump, "HeapGraphTarget$Leaf", "--exclude-weak"], ["waste", dump],
                ["suspects", dump], ["histo", "--retained", dump]):
        indexed = run([hprof] + cmd + ["--json"])
        expect(indexed == run([hprof] + cmd + ["--json", "--no-index"]),
               f"{cmd[0]} differs through the index and with --no-index")
    expect(os.stat(index).st_mtime_ns == stamp, "the commands did not reuse the index")
    print("index: written next to the dump, reused, rebuilt when damaged or stale; "
          "path, waste, suspects, histo --retained the same with --no-index")


def oracle(java, classes, dump, prefix, ids):
    out = run([java, "-cp", f"{JFLUID}:{classes}", "RetainedOracle", dump, "20", prefix] + ids)
    rows = {"TOP": {}, "OBJ": {}, "ID": {}}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 5 and f[0] in rows:
            rows[f[0]][int(f[1], 16)] = int(f[2])
    return rows


def compare(what, theirs, nodes):
    expect(theirs, f"{what}: VisualVM listed nothing")
    for oid, retained in theirs.items():
        if oid in nodes:
            expect(nodes[oid]["retained"] == retained,
                   f"{what} 0x{oid:x} ({nodes[oid]['class']}): hprof {nodes[oid]['retained']}, "
                   f"VisualVM {retained}")
    print(f"{what}: {sum(o in nodes for o in theirs)} objects equal to VisualVM's")


def main():
    java_home, hprof, src, work, agent = sys.argv[1:6]
    work = os.path.join(work, os.path.basename(os.path.normpath(java_home)))
    java, javac = (os.path.join(java_home, "bin", x) for x in ("java", "javac"))
    if not os.path.exists(java):
        sys.exit(77)
    if not os.path.exists(JFLUID):
        print("VisualVM's heap library is not installed")
        sys.exit(77)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    classes = os.path.join(work, "classes")
    run([javac, "-d", classes, "-cp", JFLUID, os.path.join(src, "java", "HeapGraphTarget.java"),
         os.path.join(src, "java", "RetainedOracle.java")])

    known = os.path.join(work, "known.hprof")
    run([java, "-Xmx256m", "-cp", classes, "HeapGraphTarget", known, "known"])
    _, nodes = tree(hprof, known)
    check_known(nodes)
    check_paths(hprof, known)
    check_waste(hprof, known)
    check_suspects(hprof, known)
    check_index(hprof, known, work)
    check_output(hprof, known, work)
    compare("HeapGraphTarget objects", oracle(java, classes, known, "HeapGraphTarget", [])["OBJ"],
            nodes)

    real = os.path.join(work, "javac.hprof")
    sources = [os.path.join(src, "java", "HeapGraphTarget.java"),
               os.path.join(src, "..", "cli", "CliDumpTest.java"),
               os.path.join(src, "..", "heap_dump", "java", "HeapDumpTarget.java")]
    run([java, "-Xmx512m", "-cp", classes, "HeapGraphTarget", real, "javac",
         os.path.join(work, "out")] + sources)
    _, nodes = tree(hprof, real)
    top = sorted(nodes.values(), key=lambda n: -n["retained"])[:20]
    rows = oracle(java, classes, real, "-", [n["id"] for n in top])
    expect(len(rows["ID"]) == 20, f"VisualVM found {len(rows['ID'])} of hprof's top 20")
    compare("javac: hprof's top 20", rows["ID"], nodes)
    compare("javac: VisualVM's top 20", rows["TOP"], nodes)
    expect(all(oid in nodes and nodes[oid]["retained"] >= top[-1]["retained"] for oid in rows["TOP"]),
           "VisualVM's largest retainers are not hprof's")

    check_gzip(java, classes, hprof, work)
    check_agent(java, classes, hprof, agent, work)


def check_output(hprof, dump, work):
    commands = [["dominators", "--depth", "2"], ["histo", "--retained", "--top", "5"],
                ["path", "HeapGraphTarget$Chain"], ["waste"], ["suspects"]]
    for i, cmd in enumerate(commands):
        args = [hprof, cmd[0], dump] + cmd[1:]
        out = os.path.join(work, f"out{i}.txt")
        shown = run(args)
        expect(run(args + ["-o", out]) == "", f"{cmd[0]} -o wrote to stdout")
        with open(out) as f:
            expect(f.read() == shown, f"{cmd[0]} -o {out} differs from its stdout")
        json.loads(run(args + ["--json"]))
    missing = os.path.join(work, "missing.txt")
    r = subprocess.run([hprof, "path", dump, "0x1", "-o", missing], capture_output=True)
    expect(r.returncode == 4 and not os.path.exists(missing) and not os.path.exists(missing + ".tmp"),
           f"a failed path -o left a file or exited {r.returncode}")
    print("output: -o FILE equals stdout and --json parses for every heap command")


def check_agent(java, classes, hprof, agent, work):
    dump = os.path.join(work, "agent.hprof")
    subprocess.run([java, f"-agentpath:{agent}=heap=dump,format=b,file={dump}", "-Xmx256m", "-cp",
                    classes, "HeapGraphTarget", "-", "known-wait"], input="", text=True,
                   capture_output=True, timeout=300, check=True)
    _, nodes = tree(hprof, dump)
    check_known(nodes)
    check_paths(hprof, dump)
    check_waste(hprof, dump)
    check_suspects(hprof, dump)
    print("agent: heap=dump,format=b dump gives the known sizes, paths, waste and suspects")


def check_gzip(java, classes, hprof, work):
    jcmd = os.path.join(os.path.dirname(java), "jcmd")
    proc = subprocess.Popen([java, "-Xmx256m", "-cp", classes, "HeapGraphTarget", "-", "known-wait"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        pid = proc.stdout.readline().split()[1]
        plain, gz = os.path.join(work, "jcmd.hprof"), os.path.join(work, "jcmd.hprof.gz")
        run([jcmd, pid, "GC.heap_dump", plain])
        run([jcmd, pid, "GC.heap_dump", "-gz=1", gz])
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    with open(gz, "rb") as f:
        expect(f.read(2) == b"\x1f\x8b", "jcmd -gz=1 did not write gzip")
    # Same quiet process, but jcmd's own objects differ between the dumps and a full GC may
    # move objects: compare ours, without their addresses.
    a, b = (sorted(line.split()[:2] + line.split()[3:]
                   for line in run([hprof, "dominators", d, "--depth", "3"]).splitlines()
                   if "HeapGraphTarget" in line) for d in (plain, gz))
    expect(len(a) >= 20 and a == b, f"gzipped dump differs from the plain one:\n{a[:1500]}\n---\n{b[:1500]}")
    run([hprof, "histo", "--retained", gz, "--top", "5"])
    print("gzip: jcmd -gz=1 dump read through zlib, dominators equal to the plain dump's")


if __name__ == "__main__":
    main()
