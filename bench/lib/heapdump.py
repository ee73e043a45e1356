"""Heap-dump benchmark: one JVM builds a ~1 GB heap of mixed objects and waits at a quiet point;
on that same heap we time (a) our agent's on-demand dump (`jcmd <pid> JVMTI.data_dump`, agent
loaded with heap=dump,format=b,doe=n) and (b) `jcmd <pid> GC.heap_dump <file>`, alternating
which goes first. Appends one JSON line per repetition to <raw>/heapdump.jsonl.

Completion of the agent's dump (which may be asynchronous to jcmd) is the latest of: jcmd
exiting, the agent's verbose " done." line on stderr after the request, and the output files'
last size change; with no " done." line, the files must have grown since the request and then
stay unchanged for STABLE_S seconds.
Extra memory is the peak RSS during the dump (VmHWM, reset before it) minus the RSS before it.

Usage: heapdump.py --jdk HOME --feature N --raw DIR --reps N --scale S --agent PATH
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import threading
import time

import conf

DONE = re.compile(r"\bdone\.?\s*$")
STABLE_S = 3.0
POLL_S = 0.02


class Jvm:
    """The HeapDumpBench process, with time-stamped stdout and stderr lines."""

    def __init__(self, cmd, rundir):
        self.proc = subprocess.Popen(cmd, cwd=rundir, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.out, self.err = [], []
        for stream, lines in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            threading.Thread(target=self._read, args=(stream, lines), daemon=True).start()

    @staticmethod
    def _read(stream, lines):
        for line in stream:
            lines.append((time.monotonic(), line.rstrip("\n")))

    def wait_ready(self, timeout=600):
        end = time.monotonic() + timeout
        while time.monotonic() < end and self.proc.poll() is None:
            for _, line in self.out:
                if line.startswith("READY "):
                    return int(line.split()[1])
            time.sleep(0.1)
        return None

    def status(self, field):
        with open(f"/proc/{self.proc.pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        raise KeyError(field)

    def reset_peak(self):
        with open(f"/proc/{self.proc.pid}/clear_refs", "w", encoding="ascii") as f:
            f.write("5")  # resets VmHWM to the current RSS

    def stop(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def files_size(rundir, prefix):
    return sum(os.path.getsize(os.path.join(rundir, f)) for f in os.listdir(rundir) if f.startswith(prefix))


def agent_dump(jvm, jcmd, rundir, timeout=600):
    """Returns (status, seconds, bytes, completion signal)."""
    first_err = len(jvm.err)
    start = time.monotonic()
    req = subprocess.Popen([jcmd, str(jvm.proc.pid), "JVMTI.data_dump"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    size, changed, req_end = files_size(rundir, "prof"), start, None
    while time.monotonic() - start < timeout:
        time.sleep(POLL_S)
        now = time.monotonic()
        if req_end is None and req.poll() is not None:
            req_end = now
        new_size = files_size(rundir, "prof")
        if new_size != size:
            size, changed = new_size, now
        if req_end is None:
            continue
        done = [t for t, line in jvm.err[first_err:] if DONE.search(line)]
        if done and now - changed >= 0.2:
            if size == 0:
                return "'done.' but no output file", None, 0, None
            return "ok", max(req_end, done[0], changed) - start, size, "agent 'done.' line"
        if size == 0:
            continue
        if not done and changed > start and now - changed >= STABLE_S:
            return "ok", max(req_end, changed) - start, size, f"file size stable for {STABLE_S:.0f} s"
    req.kill()
    return "timeout", None, size, None


def measure(jvm, what, jcmd, rundir):
    before = jvm.status("VmRSS")
    jvm.reset_peak()
    if what == "agent":
        status, seconds, size, completion = agent_dump(jvm, jcmd, rundir)
        result = {"agent_status": status, "agent_s": seconds, "agent_bytes": size, "agent_completion": completion}
    else:
        start = time.monotonic()
        subprocess.run([jcmd, str(jvm.proc.pid), "GC.heap_dump", os.path.join(rundir, "jdk.hprof")],
                       stdout=subprocess.DEVNULL, check=True)
        result = {"jcmd_s": time.monotonic() - start, "jcmd_bytes": files_size(rundir, "jdk.hprof")}
    result[f"{what}_rss_delta_kb"] = jvm.status("VmHWM") - before
    if what == "jcmd":  # the agent keeps its own file open: it goes with the run directory
        os.remove(os.path.join(rundir, "jdk.hprof"))
    return result


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--jdk", "--feature", "--raw", "--scale", "--agent"):
        ap.add_argument(opt, required=True)
    ap.add_argument("--reps", type=int, required=True)
    args = ap.parse_args()
    rundir = os.path.join(conf.BENCH, "work", "runs", args.feature, "heapdump")
    classes = os.path.join(conf.BENCH, "work", "classes", args.feature)
    java, jcmd = (os.path.join(args.jdk, "bin", tool) for tool in ("java", "jcmd"))
    agent_opt = [f"-agentpath:{args.agent}=heap=dump,format=b,doe=n,file={rundir}/prof.hprof"]
    program = ["-Xmx3g", "-cp", classes, "HeapDumpBench", args.scale]
    with open(os.path.join(args.raw, "heapdump.jsonl"), "a", encoding="utf-8") as log:
        for rep in range(args.reps):
            shutil.rmtree(rundir, ignore_errors=True)
            os.makedirs(rundir)
            record = {"jdk": args.feature, "rep": rep}
            with_agent = os.path.exists(args.agent)
            jvm = Jvm([java] + (agent_opt if with_agent else []) + program, rundir)
            used = jvm.wait_ready()
            if used is None and with_agent:  # the agent refused the options or crashed
                jvm.stop()
                lines = [line for _, line in jvm.err if "ERROR" in line] or [line for _, line in jvm.err[-1:]]
                record["agent_status"] = "agent failed: " + (lines[0] if lines else f"exit {jvm.proc.returncode}")
                with_agent = False
                jvm = Jvm([java] + program, rundir)
                used = jvm.wait_ready()
            elif not with_agent:
                record["agent_status"] = "agent not built"
            record["heap_used"] = used
            order = ["agent", "jcmd"] if rep % 2 == 0 else ["jcmd", "agent"]
            for what in order:
                if what == "jcmd" or with_agent:
                    record.update(measure(jvm, what, jcmd, rundir))
            record["order"] = order
            jvm.stop()
            log.write(json.dumps(record) + "\n")
            log.flush()
            print(f"heapdump jdk{args.feature} rep{rep}: " + ", ".join(
                f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}" for k, v in record.items()
                if k not in ("jdk", "rep")), flush=True)
            shutil.rmtree(rundir, ignore_errors=True)


if __name__ == "__main__":
    main()
