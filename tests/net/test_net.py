"""The net= command channel on a real JVM: this driver is the front end. It
accepts the agent's connection, reads the stream with hproftest's parsers,
sends each command (reference section 5) and checks what comes back."""
import os
import re
import socket
import struct
import threading
import time
import unittest

import hproftest as ht

GC, DUMP_HEAP, ALLOC_SITES, HEAP_SUMMARY, EXIT, DUMP_TRACES, CPU_SAMPLES, CONTROL, EOF = (
    1, 2, 3, 4, 5, 6, 7, 8, 0xFF)
INCREMENTAL, BY_ALLOC, FORCE_GC = 1, 2, 4
PROG = "NetProg"


def f32(x):
    return struct.unpack(">I", struct.pack(">f", x))[0]


class FrontEnd:
    """Accepts one connection; collects the stream in the background."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        self.data = bytearray()
        self.closed = False
        self.cond = threading.Condition()
        self.conn = None
        self.serial = 0

    def accept(self):
        self.sock.settimeout(60)
        self.conn, _ = self.sock.accept()
        self.sock.close()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        while True:
            try:
                chunk = self.conn.recv(1 << 16)
            except OSError:
                chunk = b""
            with self.cond:
                if not chunk:
                    self.closed = True
                else:
                    self.data += chunk
                self.cond.notify_all()
            if not chunk:
                return

    def send(self, tag, body=b""):
        self.serial += 1
        self.conn.sendall(struct.pack(">BII", tag, self.serial, len(body)) + body)

    def send_raw(self, data):
        self.conn.sendall(data)

    def wait(self, ready, what, timeout=120):
        """Waits until ready(bytes so far) returns a true value; returns it."""
        deadline = time.time() + timeout
        with self.cond:
            while True:
                got = ready(bytes(self.data))
                if got or self.closed or time.time() > deadline:
                    break
                self.cond.wait(1)
        if not got:
            got = ready(bytes(self.data))
        if not got:
            raise AssertionError(f"no {what} from the agent (closed={self.closed})")
        return got

    def wait_closed(self, timeout=120):
        deadline = time.time() + timeout
        with self.cond:
            while not self.closed and time.time() < deadline:
                self.cond.wait(1)
        return self.closed

    def close(self):
        if self.conn:
            self.conn.close()


# ---------------------------------------------------------------- binary

def whole_records(data):
    """The prefix of data that holds the header and whole records only."""
    nul = data.find(b"\0")
    if nul < 0 or len(data) < nul + 13:
        return b""
    pos = nul + 13
    while pos + 9 <= len(data):
        length = struct.unpack_from(">I", data, pos + 5)[0]
        if pos + 9 + length > len(data):
            break
        pos += 9 + length
    return data[:pos]


def binary(data):
    return ht.BinaryProfile(whole_records(data))


def alloc_sites(prof, body):
    flags, cutoff = struct.unpack_from(">HI", body, 0)
    lb, lo, ab, ao, n = struct.unpack_from(">IIQQI", body, 6)
    if len(body) != 34 + 25 * n:
        raise AssertionError("ALLOC SITES length")
    rows = []
    for i in range(n):
        arr, cls, trace, rlb, rlo, rab, rao = struct.unpack_from(">BIIIIII", body, 34 + 25 * i)
        if cls not in prof.classes or trace not in prof.traces:
            raise AssertionError(f"ALLOC SITES row cites class {cls} / trace {trace} not written")
        rows.append({"cls": prof.classes[cls][1], "frames": prof.traces[trace][1],
                     "live_bytes": rlb, "live_objs": rlo, "alloc_bytes": rab, "alloc_objs": rao})
    return {"flags": flags, "cutoff": cutoff, "live_bytes": lb, "live_objs": lo,
            "alloc_bytes": ab, "alloc_objs": ao, "rows": rows}


def cpu_samples(prof, body):
    total, n = struct.unpack_from(">II", body, 0)
    if len(body) != 8 + 8 * n:
        raise AssertionError("CPU SAMPLES length")
    rows = [struct.unpack_from(">II", body, 8 + 8 * i) for i in range(n)]
    return total, [(count, prof.traces[trace][1]) for count, trace in rows]


def nth(name, k):
    """ready() for the k-th record (1-based) named `name`: (profile, body)."""
    def ready(data):
        prof = binary(data)
        recs = prof.named(name)
        return (prof, recs[k - 1][2]) if len(recs) >= k else None
    return ready


# ---------------------------------------------------------------- ascii

SITES_TITLE = re.compile(r"SITES BEGIN \(ordered by (live|allocated) bytes\) " + ht.DATE + "$")
SITES_ROW = re.compile(
    r" *(\d+) +(\d+\.\d\d)% +(\d+\.\d\d)% +(\d+) +(\d+) +(\d+) +(\d+) +(\d+) (\S+)$")


def ascii_upto(name, k):
    """ready() for the k-th ascii section `name`: the profile read so far."""
    def ready(data):
        text = data.decode("utf-8", "replace")
        if len(re.findall("^" + re.escape(name) + " END$", text, re.M)) < k:
            return None
        return ht.AsciiProfile(text[:text.rindex("\n") + 1])
    return ready


def ascii_sites(section):
    title, body = section
    m = SITES_TITLE.match(title)
    if not m:
        raise AssertionError(f"bad SITES title {title!r}")
    rows = []
    for line in body[2:]:
        r = SITES_ROW.match(line)
        if not r:
            raise AssertionError(f"bad SITES row {line!r}")
        rows.append({"cls": r.group(9), "live_bytes": int(r.group(4)),
                     "alloc_bytes": int(r.group(6)), "alloc_objs": int(r.group(7))})
    return m.group(1), rows


def make_case(env):
    class NetTest(unittest.TestCase):
        def setUp(self):
            self.dir = os.path.join(env.work, "net", self._testMethodName)
            os.makedirs(self.dir, exist_ok=True)
            self.fe = FrontEnd()
            self.proc = None
            self.n_cpu = self.n_sites = 0

        def tearDown(self):
            if self.proc and self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(30)
            if self.proc:
                for s in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                    s.close()
            self.fe.close()

        def start(self, options):
            self.proc = ht.start_java(env, f"net=127.0.0.1:{self.fe.port},{options}", [PROG],
                                      cwd=self.dir)
            self.fe.accept()
            ht.wait_for_line(self.proc.stdout, "READY")

        def step(self, line):
            """One program step; returns its answer."""
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
            return ht.wait_for_line(self.proc.stdout, "^OK ")[-1].strip()

        def exit_status(self, last_input="exit\n"):
            return ht.finish(self.proc, last_input)

        def listener_alive(self):
            task = f"/proc/{self.proc.pid}/task"
            names = []
            for t in os.listdir(task):
                try:
                    with open(f"{task}/{t}/comm") as f:
                        names.append(f.read().strip())
                except OSError:
                    pass
            return any(n.startswith("HPROF listener") for n in names)

        # Binary: the agent answers in records, counted per kind to find the
        # answer to each request.
        def cpu_request(self, cutoff=0.0):
            """CPU SAMPLES; also a barrier: it always writes one record, and
            commands run in order. Returns (profile, body)."""
            self.n_cpu += 1
            self.fe.send(CPU_SAMPLES, struct.pack(">HI", 0, f32(cutoff)))
            return self.fe.wait(nth("CPU SAMPLES", self.n_cpu), "CPU SAMPLES")

        def sites_request(self, flags=0, cutoff=0.0):
            self.n_sites += 1
            self.fe.send(ALLOC_SITES, struct.pack(">HI", flags, f32(cutoff)))
            prof, body = self.fe.wait(nth("ALLOC SITES", self.n_sites), "ALLOC SITES")
            return prof, alloc_sites(prof, body)

        def test_binary_commands(self):
            # depth > 31: heap=all's JVM TI route, which makes traces as
            # objects are allocated and obeys CONTROL (the exact route does
            # neither, heap_sites/README.md).
            self.start("heap=all,depth=32,cpu=samples,format=b")
            self.step("keep 2000")
            self.step("junk 20000")

            # HEAP SUMMARY and ALLOC SITES count the same heap the same way.
            # Each forces its own GC, and between the two the JVM's own
            # threads may allocate or drop an object: the pair is asked again.
            for _ in range(5):
                self.fe.send(HEAP_SUMMARY)
                prof, sites = self.sites_request()
                summary = prof.named("HEAP SUMMARY")
                self.assertEqual(len(summary), self.n_sites)
                s = struct.unpack(">IIQQ", summary[-1][2])
                if s == (sites["live_bytes"], sites["live_objs"], sites["alloc_bytes"],
                         sites["alloc_objs"]):
                    break
            else:
                self.fail(f"HEAP SUMMARY {s} never matched the ALLOC SITES totals")
            self.assertEqual((sites["flags"], sites["cutoff"]), (0, f32(0.0)))
            kept = [r for r in sites["rows"] if r["cls"] == PROG + "$Kept"]
            junk = [r for r in sites["rows"] if r["cls"] == PROG + "$Junk"]
            self.assertEqual(sum(r["live_objs"] for r in kept), 2000)
            self.assertEqual(sum(r["alloc_objs"] for r in junk), 20000)
            self.assertEqual(sum(r["live_objs"] for r in junk), 1)  # the last, in `sink`
            live = [r["live_bytes"] for r in sites["rows"]]
            self.assertEqual(live, sorted(live, reverse=True))
            self.assertEqual(sites["live_objs"], sum(r["live_objs"] for r in sites["rows"]))

            # Sort by allocated bytes, with the command's cutoff.
            _, by_alloc = self.sites_request(BY_ALLOC)
            self.assertEqual(by_alloc["flags"], BY_ALLOC)
            alloc = [r["alloc_bytes"] for r in by_alloc["rows"]]
            self.assertEqual(alloc, sorted(alloc, reverse=True))
            self.assertNotEqual(alloc, [r["alloc_bytes"] for r in
                                        sorted(by_alloc["rows"], key=lambda r: -r["live_bytes"])])
            _, cut = self.sites_request(BY_ALLOC | FORCE_GC, 0.05)
            self.assertEqual(cut["cutoff"], f32(0.05))
            self.assertEqual(cut["flags"], BY_ALLOC | FORCE_GC)
            self.assertGreater(len(cut["rows"]), 0)
            self.assertLess(len(cut["rows"]), len(by_alloc["rows"]))
            for r in cut["rows"]:
                self.assertGreaterEqual(r["alloc_bytes"] / cut["alloc_bytes"], 0.05)
            self.assertEqual(cut["rows"][0]["cls"], PROG + "$Junk")

            # Incremental: only sites that changed since the last sites report.
            self.step("keep 7")
            for expect in (1, 0):
                _, inc = self.sites_request(INCREMENTAL)
                self.assertEqual(len([r for r in inc["rows"] if r["cls"] == PROG + "$Kept"]),
                                 expect)

            # GC: an object reachable only weakly is collected.
            self.step("weak")
            self.assertEqual(self.step("weak?"), "OK weak? alive")
            self.fe.send(GC)
            self.cpu_request()
            self.assertEqual(self.step("weak?"), "OK weak? cleared")

            # DUMP TRACES: a trace made by an allocation, not yet written.
            self.step("fresh")
            traces = binary(bytes(self.fe.data)).traces.values()
            self.assertFalse(any(f[1] == "fresh" for _, frs in traces for f in frs))
            self.fe.send(DUMP_TRACES)
            self.fe.wait(lambda d: any(fr[1] == "fresh" for _, frs in binary(d).traces.values()
                                       for fr in frs), "TRACE of fresh()")

            # DUMP HEAP: a heap dump and nothing else.
            before = len(binary(bytes(self.fe.data)).records)
            self.fe.send(DUMP_HEAP)
            prof, _ = self.cpu_request()
            names = [ht.TAGS[r[0]] for r in prof.records[before:]]
            self.assertIn("HEAP DUMP SEGMENT", names)
            self.assertEqual(names.count("HEAP DUMP END"), 1)
            self.assertNotIn("ALLOC SITES", names)
            self.assertEqual(names.count("CPU SAMPLES"), 1)

            # CPU SAMPLES with a cutoff; counts are not reset by requests.
            self.step("spin 400")
            prof, body = self.cpu_request()
            total, rows = cpu_samples(prof, body)
            self.assertGreater(total, 0)
            self.assertTrue(any(frs[:1] and frs[0][1] == "spin" for _, frs in rows), rows)
            prof, body = self.cpu_request(0.5)
            total2, rows2 = cpu_samples(prof, body)
            self.assertGreaterEqual(total2, total)
            self.assertTrue(all(c / total2 >= 0.5 for c, _ in rows2), rows2)
            self.assertLessEqual(len(rows2), len(rows))

            # CONTROL 4 (sampling off) and 3 (on), for main or for all
            # threads, each time after 5 (clear CPU): samples in spin().
            main_obj = [t[1] for t in prof.thread_starts if t[3] == "main"][0]

            def spin_samples(control_sub, ident):
                self.fe.send(CONTROL, struct.pack(">HQ", control_sub, ident))
                self.fe.send(CONTROL, struct.pack(">H", 5))
                self.step("spin 400")
                _, rows = cpu_samples(*self.cpu_request())
                return sum(c for c, frs in rows if any(f[1] == "spin" for f in frs))

            self.assertEqual(spin_samples(4, main_obj), 0)
            self.assertGreater(spin_samples(3, 0), 0)
            self.assertEqual(spin_samples(4, 0), 0)
            self.assertGreater(spin_samples(3, main_obj), 0)

            # CONTROL 2/1: allocation tracking off, then on again.
            self.fe.send(CONTROL, struct.pack(">H", 2))
            self.cpu_request()
            self.step("off 300")
            self.fe.send(CONTROL, struct.pack(">H", 1))
            self.cpu_request()
            self.step("keep 11")
            # CONTROL 7: depth 1 for stacks captured from now on.
            self.fe.send(CONTROL, struct.pack(">HH", 7, 1))
            self.cpu_request()
            self.step("fresh")
            _, sites = self.sites_request()
            rows = sites["rows"]
            self.assertEqual([r for r in rows if r["cls"] == PROG + "$Untracked"], [])
            self.assertEqual(sum(r["live_objs"] for r in rows if r["cls"] == PROG + "$Kept"),
                             2000 + 7 + 11)
            fresh = sorted(len(r["frames"]) for r in rows if r["cls"] == PROG + "$Fresh")
            self.assertEqual(fresh[0], 1)
            self.assertGreater(fresh[-1], 1)

            # CONTROL 6: sites cleared; counting starts again.
            self.fe.send(CONTROL, struct.pack(">H", 6))
            _, cleared = self.sites_request()
            self.assertEqual([r for r in cleared["rows"] if r["cls"].startswith(PROG)], [])
            self.step("keep 5")
            _, sites = self.sites_request()
            rows = [r for r in sites["rows"] if r["cls"] == PROG + "$Kept"]
            self.assertEqual([(r["live_objs"], r["alloc_objs"]) for r in rows], [(5, 5)])

            # EXIT: the VM ends with status 0, after its exit dump.
            self.fe.send(EXIT)
            self.assertEqual(self.proc.wait(120), 0)
            self.assertIn("HPROF: received exit event, exiting ...", self.proc.stderr.read())
            self.assertTrue(self.fe.wait_closed())
            prof = ht.BinaryProfile(bytes(self.fe.data))
            self.assertEqual(len(prof.named("ALLOC SITES")), self.n_sites + 1)
            self.assertEqual(len(prof.named("CPU SAMPLES")), self.n_cpu + 1)

        def test_ascii_commands(self):
            self.start("heap=all,cpu=samples")
            self.step("keep 100")
            self.step("junk 5000")
            self.fe.send(ALLOC_SITES, struct.pack(">HI", BY_ALLOC, f32(0.0)))
            prof = self.fe.wait(ascii_upto("SITES", 1), "SITES")
            order, rows = ascii_sites(prof.sections_named("SITES")[0])
            self.assertEqual(order, "allocated")
            alloc = [r["alloc_bytes"] for r in rows]
            self.assertEqual(alloc, sorted(alloc, reverse=True))
            self.assertEqual(sum(r["alloc_objs"] for r in rows if r["cls"] == PROG + "$Junk"),
                             5000)
            self.fe.send(ALLOC_SITES, struct.pack(">HI", 0, f32(0.1)))
            prof = self.fe.wait(ascii_upto("SITES", 2), "SITES")
            order, cut = ascii_sites(prof.sections_named("SITES")[1])
            self.assertEqual(order, "live")
            self.assertLess(len(cut), len(rows))
            # HEAP SUMMARY has no ascii form: nothing but the next answer.
            self.fe.send(HEAP_SUMMARY)
            self.step("spin 200")
            self.fe.send(CPU_SAMPLES, struct.pack(">HI", 0, f32(0.0)))
            prof = self.fe.wait(ascii_upto("CPU SAMPLES", 1), "CPU SAMPLES")
            self.assertEqual([t.split(" BEGIN")[0] for t, _ in prof.sections],
                             ["SITES", "SITES", "CPU SAMPLES"])
            self.fe.send(DUMP_HEAP)
            prof = self.fe.wait(ascii_upto("HEAP DUMP", 1), "HEAP DUMP")
            # EOF ends the listener; the program and its output go on.
            self.fe.send_raw(bytes([EOF]))
            deadline = time.time() + 60
            while self.listener_alive() and time.time() < deadline:
                time.sleep(0.2)
            self.assertFalse(self.listener_alive())
            self.step("keep 1")
            self.assertEqual(self.exit_status(), 0)
            self.assertTrue(self.fe.wait_closed())
            prof = ht.AsciiProfile(self.fe.data.decode())
            self.assertEqual([t.split(" BEGIN")[0] for t, _ in prof.sections],
                             ["SITES", "SITES", "CPU SAMPLES", "HEAP DUMP",
                              "HEAP DUMP", "SITES", "CPU SAMPLES"])

        def test_peer_close_ends_listener_not_output(self):
            self.start("heap=sites,format=b")
            self.fe.conn.shutdown(socket.SHUT_WR)
            deadline = time.time() + 60
            while self.listener_alive() and time.time() < deadline:
                time.sleep(0.2)
            self.assertFalse(self.listener_alive())
            self.step("keep 3")
            self.assertEqual(self.exit_status(), 0)
            self.assertTrue(self.fe.wait_closed())
            prof = ht.BinaryProfile(bytes(self.fe.data))
            self.assertEqual(len(prof.named("ALLOC SITES")), 1)

        def test_exit_at_vm_end_with_listener_waiting(self):
            # The listener is blocked reading; the VM ends on its own.
            self.start("cpu=samples,format=b")
            self.assertTrue(self.listener_alive())
            self.assertEqual(self.exit_status(), 0)
            self.assertTrue(self.fe.wait_closed())
            self.assertEqual(len(ht.BinaryProfile(bytes(self.fe.data)).named("CPU SAMPLES")), 1)

        def test_unknown_command_exits_0(self):
            self.start("heap=sites")
            self.fe.send(0x99)
            self.assertEqual(self.proc.wait(120), 0)
            self.assertIn("HPROF ERROR: failed to recognize cmd 153, exiting..",
                          self.proc.stderr.read())
            self.assertTrue(self.fe.wait_closed())
            ht.AsciiProfile(self.fe.data.decode())

    return NetTest


if __name__ == "__main__":
    ht.main(make_case)
