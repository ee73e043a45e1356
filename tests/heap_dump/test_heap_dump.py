"""heap=dump integration tests.

  --suite format    structure of binary dumps (several per run: jcmd,
                    SIGQUIT, exit; over net=; the JVM's dumper and the
                    JVM TI walk it falls back to; heap=all allocation traces)
                    and of the ascii dump
  --suite visualvm  VisualVM's own HPROF reader opens our dump and the JVM's
                    (GC.heap_dump at the same quiet point): class counts and
                    values identical. Skipped (exit 77) when the Debian
                    visualvm package cannot be installed.
Other arguments: --java-home --agent --jar (HeapDumpTarget) --reader-src
(HeapReader.java) --deps (scripts/deps.sh) --cli (the hprof CLI, used if built)."""
import glob
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import threading
import unittest

import hproftest
import heapfile

N_LEAVES = 1000
ARGS = dict(zip(sys.argv[1::2], sys.argv[2::2]))
JFLUID = "/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar"
JDK_PACKAGES = ("java.", "javax.", "jdk.", "sun.", "com.sun.")


# The fallback's one message, when the JVM's own dumper cannot be used.
FALLBACK = "the JVM's own heap dumper is not available"
KNOWN_SITES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "java", "KnownSites.java")


def start_target(env, options, extra_jvm=()):
    proc = hproftest.start_java(env, options, ["HeapDumpTarget", str(N_LEAVES)],
                                extra_jvm=extra_jvm)
    line = hproftest.wait_for_line(proc.stdout, r"^READY \d+")[-1]
    return proc, int(line.split()[1])


def jcmd(env, pid, *command):
    r = subprocess.run([env.jcmd, str(pid)] + list(command), capture_output=True, text=True,
                       timeout=120)
    if r.returncode != 0:
        raise AssertionError(f"jcmd {command} failed: {r.stdout}{r.stderr}")


def stop(proc, allowed_error=None):
    out, err = proc.communicate(input="", timeout=120)
    errors = [line for line in err.splitlines() if "HPROF ERROR" in line]
    if proc.returncode != 0 or any(allowed_error is None or allowed_error not in e
                                   for e in errors):
        raise AssertionError(f"target failed ({proc.returncode}): {err}")
    return err


class Listener(threading.Thread):
    """Accepts the agent's net= connection and collects the stream."""

    def __init__(self):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        self.data = bytearray()

    def run(self):
        self.sock.settimeout(120)
        conn, _ = self.sock.accept()
        with conn:
            while chunk := conn.recv(1 << 20):
                self.data += chunk
        self.sock.close()


def fresh(path):
    for p in glob.glob(glob.escape(path) + "*"):
        shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
    return path


class FormatTests(unittest.TestCase):
    env = None

    def dump_binary(self, name, options, dumps, extra_jvm=(), allowed_error=None):
        out = fresh(os.path.join(self.env.work, name))
        proc, pid = start_target(self.env, f"{options},format=b,doe=n,file={out}", extra_jvm)
        for _ in range(dumps):
            jcmd(self.env, pid, "JVMTI.data_dump")
        err = stop(proc, allowed_error)
        return self.check_file(out, dumps), err

    def check_file(self, out, dumps):
        profile = hproftest.read_binary(out)
        found = heapfile.dumps(profile)
        self.assertEqual(len(found), dumps)
        # The JVM's dumper writes its temporary file next to the output.
        self.assertEqual([f for f in os.listdir(os.path.dirname(out)) if ".hprof-dump-" in f], [])
        # Second opinion from the project's CLI, when it is built: every
        # reference resolves.
        if self.env.cli and os.path.exists(self.env.cli):
            r = subprocess.run([self.env.cli, "verify", "--strict", out], capture_output=True,
                               text=True)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn(f"{dumps} heap dump", r.stdout)
            self.assertIn(" 0 dangling references", r.stdout)
        return profile, found

    def check_target_dump(self, profile, d):
        leaf = heapfile.class_named(profile, d, "HeapDumpTarget$Leaf")
        leaves = [o for o, (c, _, _) in d.instances.items() if c == leaf]
        self.assertEqual(len(leaves), N_LEAVES)
        by_i = {}
        for o in leaves:
            f = heapfile.instance_fields(profile, d, o)
            by_i[struct.unpack(">i", f["i"])[0]] = f
        f = by_i[42]
        self.assertEqual(struct.unpack(">q", f["baseLong"])[0], 0x1122334455667788)
        self.assertEqual(struct.unpack(">H", f["c"])[0], ord("Q"))
        self.assertEqual(struct.unpack(">h", f["s"])[0], -2)
        self.assertEqual(struct.unpack(">d", f["d"])[0], -2.25)
        self.assertEqual(struct.unpack(">f", f["f"])[0], 1.5)
        self.assertEqual(f["z"], b"\x01")
        ref = struct.unpack(">Q", f["ref"])[0]
        self.assertEqual(heapfile.instance_fields(profile, d, ref)["i"], by_i[41]["i"])
        # Object arrays keep their full length, trailing nulls included.
        lengths = sorted(len(e) for c, _, e in d.obj_arrays.values()
                         if profile.strings and c == heapfile.class_named(
                             profile, d, "java.lang.Object[]"))
        self.assertIn(16, lengths)
        self.assertIn(600000, lengths)  # a segment of its own (> 4 MiB)
        big = [a for a in d.prim_arrays.values() if a[2] == 1000000]
        self.assertEqual(len(big), 1)
        self.assertEqual(struct.unpack(">q", big[0][3][-8:])[0], 77)
        roots = {t for t, _ in d.roots}
        self.assertTrue({0x08, 0x03, 0x05} <= roots, roots)

    def test_two_dumps_each_complete(self):
        (profile, ds), err = self.dump_binary("two.hprof", "heap=dump", 2)
        for d in ds:
            self.check_target_dump(profile, d)
        # The JVM's dumper was used: its class dumps cite its dummy trace 1.
        self.assertEqual({c["trace"] for c in ds[0].classes.values()}, {1})

    def test_sigquit_jcmd_and_exit_dumps(self):
        out = fresh(os.path.join(self.env.work, "three.hprof"))
        proc, _ = start_target(self.env, f"heap=dump,format=b,file={out}")
        hproftest.request_dump(self.env, proc, "sigquit")
        hproftest.request_dump(self.env, proc, "jcmd")
        stop(proc)
        profile, ds = self.check_file(out, 3)
        for d in ds:
            self.check_target_dump(profile, d)

    def test_net_output(self):
        listener = Listener()
        listener.start()
        proc, pid = start_target(self.env, f"heap=dump,format=b,net=127.0.0.1:{listener.port}")
        jcmd(self.env, pid, "JVMTI.data_dump")
        stop(proc)
        listener.join(120)
        out = fresh(os.path.join(self.env.work, "net.hprof"))
        with open(out, "wb") as f:
            f.write(listener.data)
        profile, ds = self.check_file(out, 2)
        for d in ds:
            self.check_target_dump(profile, d)

    def test_fallback_to_the_jvmti_walk(self):
        # Without the jdk.management module there is no HotSpotDiagnosticMXBean.
        (profile, ds), err = self.dump_binary("fallback.hprof", "heap=dump", 2,
                                              ["--limit-modules", "java.base"])
        self.assertEqual(err.count("HPROF: heap dump: " + FALLBACK), 1, err)
        for d in ds:
            self.check_target_dump(profile, d)
            self.assertNotIn(1, {c["trace"] for c in d.classes.values()})
        # The walk's object IDs are tags: the same objects keep them.
        self.assertTrue(set(ds[0].instances) & set(ds[1].instances))

    def test_heap_all_cites_allocation_traces(self):
        (profile, ds), _ = self.dump_binary("all.hprof", "heap=all", 2)
        self.assertTrue(set(ds[0].instances) & set(ds[1].instances))
        d = ds[0]
        leaf = heapfile.class_named(profile, d, "HeapDumpTarget$Leaf")
        traces = {t for c, t, _ in d.instances.values() if c == leaf}
        self.assertNotIn(300000, traces)
        for t in traces:
            frames = profile.traces[t][1]
            self.assertTrue(any(f[0] == "HeapDumpTarget" and f[1] == "main" for f in frames),
                            frames)

    def test_ascii(self):
        self.check_ascii("heap=dump")

    def test_ascii_heap_all(self):
        text, body = self.check_ascii("heap=all")
        traces = set(re.findall(r"^OBJ [0-9a-f]+ \(sz=\d+, trace=(\d+), class=HeapDumpTarget\$Leaf@",
                                body, re.M))
        self.assertNotIn("300000", traces)
        for t in traces:
            self.assertRegex(text, rf"\nTRACE {t}:\n(\t.*\n)*\tHeapDumpTarget\.main\(")
        self.assertIn("\nSITES BEGIN", text)

    def test_heap_all_objects_cite_the_line_of_their_new(self):
        # heap=all on the rewriter's route tags every object it counts: each
        # object of KnownSites, whatever made it (new, a method's new, a
        # primitive or object array, multianewarray's inner arrays, clone,
        # boxing), cites a trace whose top frame is the line that made it.
        n = 300
        out = fresh(os.path.join(self.env.work, "known.hprof"))
        res = hproftest.run_java(self.env, f"heap=all,format=b,file={out}",
                                 ["KnownSites", str(n)])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertNotIn("HPROF ERROR", res.stderr)
        profile = hproftest.read_binary(out)
        d = heapfile.dumps(profile)[-1]
        line = hproftest.source_markers([KNOWN_SITES], ["SITE", "CALL"])

        def frames(oid):
            for table in (d.instances, d.obj_arrays, d.prim_arrays):
                if oid in table:
                    trace = table[oid][1]
                    self.assertIn(trace, profile.traces, f"object {oid:#x}")
                    return [(f[0], f[1], f[4]) for f in profile.traces[trace][1]]
            raise AssertionError(f"object {oid:#x} not in the dump")

        def at(site, method="main"):
            return ("KnownSites", method, line[site])

        holder = heapfile.class_named(profile, d, "KnownSites$Holder")
        names = [profile.strings[f] for f, _ in d.classes[holder]["fields"]]
        holders = [(oid, data) for oid, (c, _, data) in d.instances.items() if c == holder]
        self.assertEqual(len(holders), n)
        for oid, data in holders:
            self.assertEqual(frames(oid)[0], at("holder"))
            ref = dict(zip(names, struct.unpack(f">{len(names)}Q", data)))
            for field in ("item", "ints", "copy", "items", "grid", "boxed"):
                self.assertEqual(frames(ref[field])[0], at(field), field)
            self.assertEqual(frames(ref["made"])[:2], [at("make", "make"), at("made")])
            for inner in d.obj_arrays[ref["grid"]][2]:
                self.assertEqual(frames(inner)[0], at("grid"))
        item = heapfile.class_named(profile, d, "KnownSites$Item")
        tops = [frames(oid)[0] for oid, (c, _, _) in d.instances.items() if c == item]
        self.assertEqual(sorted(tops), sorted([at("item")] * n + [at("make", "make")] * n))

    def check_ascii(self, options):
        out = fresh(os.path.join(self.env.work, "dump.txt"))
        proc, _ = start_target(self.env, f"{options},file={out}")
        stop(proc)
        with open(out, encoding="utf-8") as f:
            text = f.read()
        m = re.search(r"^HEAP DUMP BEGIN \((\d+) objects, (\d+) bytes\) " + hproftest.DATE +
                      r"\n(.*?)^HEAP DUMP END\n", text, re.S | re.M)
        self.assertTrue(m, "no HEAP DUMP section")
        body = m.group(3)
        records = re.findall(r"^(?:OBJ|ARR) [0-9a-f]+ \(sz=(\d+),", body, re.M)
        self.assertEqual(int(m.group(1)), len(records))
        self.assertEqual(int(m.group(2)), sum(int(s) for s in records))
        line_res = [r"ROOT [0-9a-f]+ \(kind=<[a-zA-Z ]+>.*\)", r"(OBJ|ARR|CLS) [0-9a-f]+ \(.*\)",
                    r"\t\S+\t\t?[0-9a-f]+", r"\t\[\d+\]\t\t[0-9a-f]+",
                    r"\t(static \S+|constant pool entry \d+)\t[0-9a-f]+"]
        for line in body.splitlines():
            self.assertTrue(any(re.fullmatch(r, line) for r in line_res), repr(line))
        self.assertEqual(len(re.findall(r"^OBJ .*class=HeapDumpTarget\$Leaf@", body, re.M)),
                         N_LEAVES)
        self.assertRegex(body, r"\nARR [0-9a-f]+ \(sz=\d+, trace=\d+, nelems=16, "
                               r"elem type=java\.lang\.Object\[\]@[0-9a-f]+\)\n\t\[3\]\t\t")
        self.assertRegex(body, r"\nCLS [0-9a-f]+ \(name=HeapDumpTarget\$Leaf, trace=\d+\)\n"
                               r"\tsuper\t\t[0-9a-f]+\n(\t.*\n)*\tstatic kind\t")
        self.assertTrue(body.startswith("ROOT 0 (kind=<thread>, id=200000, trace=300000)\n"))
        return text, body


def normalise(name):
    # JVM TI spells a hidden class Foo$$Lambda$1.0x..., HotSpot's dump Foo$$Lambda$1+0x...
    return re.sub(r"[.+/]0x[0-9a-f]+$", "", name)


def read_with_visualvm(env, classes, path, which=None):
    cmd = [env.java, "-cp", f"{JFLUID}:{classes}", "HeapReader", path]
    r = subprocess.run(cmd + ([str(which)] if which is not None else []),
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise AssertionError(f"VisualVM reader failed on {path}: {r.stderr}")
    counts, values = {}, []
    for line in r.stdout.splitlines():
        if line.startswith("COUNT "):
            name, n = line[6:].rsplit(" ", 1)
            counts[normalise(name)] = counts.get(normalise(name), 0) + int(n)
        elif line.startswith("VALUE ") and " <" not in line and ".<" not in line:
            values.append(line)
    return counts, sorted(values)


class VisualVmTests(unittest.TestCase):
    env = None
    classes = None

    def test_same_counts_and_values_as_the_jvm(self):
        ours = fresh(os.path.join(self.env.work, "ours.hprof"))
        jvm = fresh(os.path.join(self.env.work, "jvm.hprof"))
        proc, pid = start_target(self.env, f"heap=dump,format=b,doe=n,file={ours}")
        jcmd(self.env, pid, "JVMTI.data_dump")
        jcmd(self.env, pid, "GC.heap_dump", jvm)
        jcmd(self.env, pid, "JVMTI.data_dump")
        stop(proc)
        jvm_counts, jvm_values = read_with_visualvm(self.env, self.classes, jvm)
        for which in (0, 1):
            counts, values = read_with_visualvm(self.env, self.classes, ours, which)
            app = {c: n for c, n in counts.items() if c.startswith("HeapDumpTarget")}
            jvm_app = {c: n for c, n in jvm_counts.items() if c.startswith("HeapDumpTarget")}
            self.assertEqual(app, jvm_app)
            self.assertEqual(app["HeapDumpTarget$Leaf"], N_LEAVES)
            self.assertEqual(app["HeapDumpTarget$Node"], 500)
            self.assertEqual(values, jvm_values)
            for expected in ('VALUE Leaf42.text = "leaf-42"',
                             'VALUE HeapDumpTarget.unicode = "grüße 世界"',
                             "VALUE Leaf42.baseLong = 1234605616436508552",
                             "VALUE Marked.MARK = 7"):
                self.assertIn(expected, values)
            self.assertTrue(any("HeapDumpTarget.sparse = java.lang.Object[](16)" in v
                                for v in values))
            self.assertIn('VALUE HeapDumpTarget.bigRefs = java.lang.Object[](600000) '
                          '[599998] "last"', values)
            self.assertIn("VALUE HeapDumpTarget.bigLongs = long[](1000000) last 77", values)
            # The JVM's own dumper wrote ours too. Dump 1, taken after the
            # JVM's at the same quiet point, holds exactly its objects plus the
            # temporary file's name (a String and its byte[]) that we hand to
            # the dumper. Dump 0 also holds the leftovers of setting up the
            # MXBean (pending cleaners, call site contexts), JDK classes all.
            total, jvm_total = sum(counts.values()), sum(jvm_counts.values())
            diff = {c: counts.get(c, 0) - jvm_counts.get(c, 0)
                    for c in set(counts) | set(jvm_counts)
                    if counts.get(c, 0) != jvm_counts.get(c, 0)}
            if which == 1:
                self.assertEqual(diff, {"java.lang.String": 1, "byte[]": 1})
            for c in diff:
                self.assertTrue(c.rstrip("[]").startswith(JDK_PACKAGES) or c == "byte[]",
                                f"{c}: ours {counts.get(c, 0)}, JVM {jvm_counts.get(c, 0)}")
            print(f"dump {which}: {total} instances, JVM {jvm_total}")

    def test_walk_route_same_counts_and_values_as_the_jvm(self):
        # heap=dump together with heap=sites walks the heap with JVM TI; the
        # same objects must carry the same values as in the JVM's own dump
        # (the walk once wrote the statics of classes it linked as zero).
        for options in ("heap=dump,heap=sites", "heap=all"):
            with self.subTest(options):
                ours = fresh(os.path.join(self.env.work, "walk.hprof"))
                jvm = fresh(os.path.join(self.env.work, "walk-jvm.hprof"))
                proc, pid = start_target(self.env, f"{options},format=b,doe=n,file={ours}")
                jcmd(self.env, pid, "GC.heap_dump", jvm)
                jcmd(self.env, pid, "JVMTI.data_dump")
                stop(proc)  # fails on any HPROF ERROR line
                jvm_counts, jvm_values = read_with_visualvm(self.env, self.classes, jvm)
                counts, values = read_with_visualvm(self.env, self.classes, ours)
                app = {c: n for c, n in counts.items() if c.startswith("HeapDumpTarget")}
                self.assertEqual(app, {c: n for c, n in jvm_counts.items()
                                       if c.startswith("HeapDumpTarget")})
                self.assertEqual(values, jvm_values)
                self.assertIn("VALUE java.lang.Long.MAX_VALUE = 9223372036854775807", values)
                self.assertIn("VALUE java.lang.Short.MIN_VALUE = -32768", values)


def visualvm_ready(env):
    if not os.path.exists(JFLUID):
        subprocess.run(["bash", ARGS["--deps"], "visualvm"], capture_output=True, timeout=900)
    if not os.path.exists(JFLUID):
        return None
    classes = os.path.join(env.work, "reader-classes")
    os.makedirs(classes, exist_ok=True)
    r = subprocess.run([os.path.join(env.java_home, "bin", "javac"), "--release", "17", "-cp",
                        JFLUID, "-d", classes, ARGS["--reader-src"]], capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise SystemExit(f"cannot compile HeapReader: {r.stderr}")
    return classes


def factory(env):
    env.work = os.path.join(env.work, "heap_dump")
    os.makedirs(env.work, exist_ok=True)
    if ARGS.get("--suite") == "visualvm":
        classes = visualvm_ready(env)
        if classes is None:
            print("SKIPPED: the Debian visualvm package (VisualVM's HPROF reader "
                  f"{JFLUID}) is not installed and could not be installed")
            sys.exit(hproftest.SKIP)
        VisualVmTests.env, VisualVmTests.classes = env, classes
        return VisualVmTests
    FormatTests.env = env
    return FormatTests


if __name__ == "__main__":
    hproftest.main(factory)
