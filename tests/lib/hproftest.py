"""Shared helpers for the integration tests: running a JVM with the agent and
reading both output formats strictly (any malformed line or record fails).

Only the Python standard library is used."""
import os
import re
import signal
import struct
import subprocess
import sys
import time
import unittest

SKIP = 77  # CTest SKIP_RETURN_CODE


class Env:
    """Paths handed to every driver on its command line:
    <driver> --java-home H --agent LIB --jar JAR [--work DIR] [--cli HPROF]"""

    def __init__(self, argv):
        args = dict(zip(argv[1::2], argv[2::2]))
        self.java_home = args["--java-home"]
        self.java = os.path.join(self.java_home, "bin", "java")
        self.jcmd = os.path.join(self.java_home, "bin", "jcmd")
        self.agent = args["--agent"]
        self.jar = args.get("--jar")
        self.cli = args.get("--cli")
        tag = os.path.basename(self.java_home.rstrip("/"))
        self.work = args.get("--work") or os.path.join(
            os.path.dirname(self.agent), "test-work", tag)
        os.makedirs(self.work, exist_ok=True)

    def java_version(self):
        out = subprocess.run([self.java, "-version"], capture_output=True, text=True).stderr
        m = re.search(r'version "(\d+)', out)
        return int(m.group(1)) if m else 0


def main(test_class_factory):
    """Runs a unittest.TestCase built by test_class_factory(env)."""
    env = Env(sys.argv)
    if not os.path.exists(env.java):
        print(f"JDK not found at {env.java_home}: skipped")
        sys.exit(SKIP)
    case = test_class_factory(env)
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(case)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)


def run_java(env, agent_options, main_args, cwd=None, timeout=180, extra_jvm=(),
             agent_flag=None, env_vars=None, stdin=None):
    """Runs java with the agent; returns CompletedProcess (text)."""
    cwd = cwd or env.work
    flag = agent_flag if agent_flag is not None else f"-agentpath:{env.agent}" + (
        f"={agent_options}" if agent_options is not None else "")
    cmd = [env.java] + ([flag] if flag else []) + list(extra_jvm)
    if env.jar:
        cmd += ["-cp", env.jar]
    cmd += list(main_args)
    e = dict(os.environ)
    if env_vars:
        e.update(env_vars)
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=e, input=stdin)


def start_java(env, agent_options, main_args, cwd=None, extra_jvm=()):
    """Starts java with the agent in the background (stdout/stderr pipes)."""
    cmd = [env.java, f"-agentpath:{env.agent}={agent_options}"] + list(extra_jvm)
    if env.jar:
        cmd += ["-cp", env.jar]
    cmd += list(main_args)
    return subprocess.Popen(cmd, cwd=cwd or env.work, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.PIPE, text=True)


def wait_for_line(stream, pattern, timeout=60):
    """Reads lines until one matches; returns the lines read."""
    seen = []
    deadline = time.time() + timeout
    while time.time() < deadline:
        line = stream.readline()
        if not line:
            break
        seen.append(line)
        if re.search(pattern, line):
            return seen
    raise AssertionError(f"no line matching {pattern!r} in {seen!r}")


# ---------------------------------------------------------------- ascii

DATE = r"\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}"
THREAD_START = re.compile(
    r'THREAD START \(obj=([0-9a-f]+), id = (\d+), name="(.*)", group="(.*)"\)$')
THREAD_END = re.compile(r"THREAD END \(id = (\d+)\)$")
TRACE_HEAD = re.compile(r"TRACE (\d+):( \(thread=(\d+)\))?$")
# class and method may be "<Unknown Class>" / "<Unknown Method>" (unloaded classes)
FRAME = re.compile(r"\t(.+)\.([^.(]+)\((.*):(\d+|Unknown line|Native method)\)$")
MONITOR_EVENT = re.compile(
    r"(WAIT: MONITOR (\S+), timeout=(-?\d+)|WAITED: MONITOR (\S+), time_waited=(-?\d+)),"
    r" thread (\d+)$")
SECTION_BEGIN = re.compile(
    r"(SITES|CPU SAMPLES|CPU TIME \(ms\)|HEAP DUMP|MONITOR DUMP|MONITOR TIME) BEGIN\b")


class AsciiProfile:
    """A parsed java.hprof.txt: header, threads, traces and raw sections."""

    def __init__(self, text):
        lines = text.split("\n")
        if not re.match(r"JAVA PROFILE 1\.0\.1, created " + DATE + "$", lines[0]):
            raise AssertionError(f"bad header line {lines[0]!r}")
        if lines[1] != "":
            raise AssertionError("no empty line after the header")
        try:
            sep = lines.index("--------")
        except ValueError:
            raise AssertionError("no -------- separator")
        if lines[sep - 1] != "" or lines[sep + 1] != "":
            raise AssertionError("separator not surrounded by empty lines")
        self.prelude = lines[2:sep - 1]
        self.thread_starts = []  # (obj, serial, name, group)
        self.thread_ends = []
        self.traces = {}  # serial -> (thread or None, [(class, method, source, line)])
        self.sections = []  # (title line, [body lines])
        self.monitor_events = []  # ("WAIT"|"WAITED", signature, value, thread)
        if lines[-1] != "":
            raise AssertionError("file does not end with a newline")
        i = sep + 2
        body = lines[:-1]
        while i < len(body):
            line = body[i]
            m = THREAD_START.match(line)
            if m:
                self.thread_starts.append((m.group(1), int(m.group(2)), m.group(3), m.group(4)))
                i += 1
                continue
            m = THREAD_END.match(line)
            if m:
                self.thread_ends.append(int(m.group(1)))
                i += 1
                continue
            m = MONITOR_EVENT.match(line)
            if m:
                kind = "WAIT" if m.group(2) else "WAITED"
                self.monitor_events.append((kind, m.group(2) or m.group(4),
                                            int(m.group(3) or m.group(5)), int(m.group(6))))
                i += 1
                continue
            m = TRACE_HEAD.match(line)
            if m:
                serial = int(m.group(1))
                if serial in self.traces:
                    raise AssertionError(f"TRACE {serial} written twice")
                frames = []
                i += 1
                if i < len(body) and body[i] == "\t<empty>":
                    i += 1
                else:
                    while i < len(body) and body[i].startswith("\t"):
                        f = FRAME.match(body[i])
                        if not f:
                            raise AssertionError(f"bad frame line {body[i]!r}")
                        frames.append(f.groups())
                        i += 1
                    if not frames:
                        raise AssertionError(f"TRACE {serial} has no frame lines")
                self.traces[serial] = (int(m.group(3)) if m.group(3) else None, frames)
                continue
            m = SECTION_BEGIN.match(line)
            if m:
                end = m.group(1) + " END"
                j = i + 1
                while j < len(body) and not body[j].startswith(end):
                    j += 1
                if j == len(body):
                    raise AssertionError(f"section {line!r} has no {end}")
                self.sections.append((line, body[i + 1:j]))
                i = j + 1
                continue
            raise AssertionError(f"unexpected line {i + 1}: {line!r}")

    def sections_named(self, name):
        return [s for s in self.sections if s[0].startswith(name + " BEGIN")]


def source_markers(paths, kinds):
    """{name: line} of the '// KIND name' comments ending lines of the given
    source files, KIND one of `kinds` (e.g. SITE, CALL)."""
    marker = re.compile(r"// (?:%s) (\w+)$" % "|".join(kinds))
    found = {}
    for path in paths:
        with open(path) as f:
            for no, text in enumerate(f, 1):
                m = marker.search(text.rstrip())
                if m:
                    found[m.group(1)] = no
    return found


def read_ascii(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return AsciiProfile(f.read())


# ---------------------------------------------------------------- binary

TAGS = {0x01: "UTF8", 0x02: "LOAD CLASS", 0x03: "UNLOAD CLASS", 0x04: "FRAME", 0x05: "TRACE",
        0x06: "ALLOC SITES", 0x07: "HEAP SUMMARY", 0x0A: "START THREAD", 0x0B: "END THREAD",
        0x0C: "HEAP DUMP", 0x0D: "CPU SAMPLES", 0x0E: "CONTROL SETTINGS",
        0x1C: "HEAP DUMP SEGMENT", 0x2C: "HEAP DUMP END"}


class BinaryProfile:
    """A parsed java.hprof: header and records. The core records are decoded
    and cross-checked: every ID a record cites was defined before it."""

    def __init__(self, data):
        nul = data.index(b"\0")
        self.magic = data[:nul].decode()
        if self.magic not in ("JAVA PROFILE 1.0.1", "JAVA PROFILE 1.0.2"):
            raise AssertionError(f"bad magic {self.magic!r}")
        self.id_size, hi, lo = struct.unpack_from(">III", data, nul + 1)
        if self.id_size not in (4, 8):
            raise AssertionError(f"bad id size {self.id_size}")
        self.timestamp_ms = hi << 32 | lo
        self.records = []  # (tag, time, body)
        pos = nul + 13
        while pos < len(data):
            if pos + 9 > len(data):
                raise AssertionError(f"truncated record header at {pos}")
            tag, t, length = struct.unpack_from(">BII", data, pos)
            if tag not in TAGS:
                raise AssertionError(f"unknown tag {tag:#x} at {pos}")
            if pos + 9 + length > len(data):
                raise AssertionError(f"record {TAGS[tag]} at {pos} runs past the end")
            self.records.append((tag, t, data[pos + 9:pos + 9 + length]))
            pos += 9 + length
        self._decode()

    def _id(self, body, off):
        fmt = ">Q" if self.id_size == 8 else ">I"
        return struct.unpack_from(fmt, body, off)[0]

    def _decode(self):
        n = self.id_size
        self.strings, self.classes, self.frames, self.traces = {}, {}, {}, {}
        self.thread_starts, self.thread_ends, self.unloads = [], [], []
        self.control = None

        def need(table, key, what):
            if key and key not in table:
                raise AssertionError(f"{what} {key:#x} used before it was defined")

        for tag, _, b in self.records:
            name = TAGS[tag]
            if name == "UTF8":
                sid = self._id(b, 0)
                if sid in self.strings:
                    raise AssertionError(f"string id {sid} defined twice")
                self.strings[sid] = b[n:].decode("utf-8", "replace")
            elif name == "LOAD CLASS":
                if len(b) != 8 + 2 * n:
                    raise AssertionError("LOAD CLASS length")
                serial, = struct.unpack_from(">I", b, 0)
                obj = self._id(b, 4)
                trace, = struct.unpack_from(">I", b, 4 + n)
                name_id = self._id(b, 8 + n)
                need(self.strings, name_id, "string")
                self.classes[serial] = (obj, self.strings[name_id], trace)
            elif name == "UNLOAD CLASS":
                if len(b) != 4:
                    raise AssertionError("UNLOAD CLASS length")
                self.unloads.append(struct.unpack(">I", b)[0])
            elif name == "FRAME":
                if len(b) != 4 * n + 8:
                    raise AssertionError("FRAME length")
                fid, mname, msig, src = (self._id(b, i * n) for i in range(4))
                cserial, line = struct.unpack_from(">Ii", b, 4 * n)
                for s in (mname, msig, src):
                    need(self.strings, s, "string")
                if cserial not in self.classes:
                    raise AssertionError(f"FRAME cites class {cserial} before LOAD CLASS")
                self.frames[fid] = (self.classes[cserial][1], self.strings[mname],
                                    self.strings[msig], self.strings.get(src), line)
            elif name == "TRACE":
                serial, thread, count = struct.unpack_from(">III", b, 0)
                if len(b) != 12 + count * n:
                    raise AssertionError("TRACE length")
                ids = [self._id(b, 12 + i * n) for i in range(count)]
                for f in ids:
                    if f not in self.frames:
                        raise AssertionError(f"TRACE {serial} cites frame {f} before FRAME")
                if serial in self.traces:
                    raise AssertionError(f"TRACE {serial} written twice")
                self.traces[serial] = (thread, [self.frames[f] for f in ids])
            elif name == "START THREAD":
                if len(b) != 8 + 4 * n:
                    raise AssertionError("START THREAD length")
                serial, = struct.unpack_from(">I", b, 0)
                obj = self._id(b, 4)
                trace, = struct.unpack_from(">I", b, 4 + n)
                names = [self._id(b, 8 + n + i * n) for i in range(3)]
                for s in names:
                    need(self.strings, s, "string")
                self.thread_starts.append(
                    (serial, obj, trace) + tuple(self.strings.get(s) for s in names))
            elif name == "END THREAD":
                if len(b) != 4:
                    raise AssertionError("END THREAD length")
                self.thread_ends.append(struct.unpack(">I", b)[0])
            elif name == "CONTROL SETTINGS":
                if len(b) != 6:
                    raise AssertionError("CONTROL SETTINGS length")
                self.control = struct.unpack(">IH", b)

    def named(self, name):
        return [r for r in self.records if TAGS[r[0]] == name]


def read_binary(path):
    with open(path, "rb") as f:
        return BinaryProfile(f.read())


def send_sigquit(proc):
    os.kill(proc.pid, signal.SIGQUIT)


def request_dump(env, proc, how="jcmd"):
    """Asks a running JVM for a dump, by SIGQUIT or `jcmd JVMTI.data_dump`,
    and waits for the agent's verbose "... done." line."""
    if how == "sigquit":
        send_sigquit(proc)
    else:
        j = subprocess.run([env.jcmd, str(proc.pid), "JVMTI.data_dump"],
                           capture_output=True, text=True, timeout=60)
        if j.returncode != 0:
            raise AssertionError(f"jcmd failed: {j.stdout}{j.stderr}")
    wait_for_line(proc.stderr, r"Dumping.* done\.")


def finish(proc, last_input, timeout=120):
    """Sends the last input line, waits for the exit and closes the pipes;
    kills the JVM if it is still running. Returns the exit status."""
    try:
        proc.stdin.write(last_input)
        proc.stdin.flush()
        proc.wait(timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
        for s in (proc.stdin, proc.stdout, proc.stderr):
            s.close()
    return proc.returncode
