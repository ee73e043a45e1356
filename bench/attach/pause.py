#!/usr/bin/env python3
"""The cost of attaching: a real program from programs.conf is started, and
`hprof record` attaches to it once its classes are loaded. Per repetition:
the attach request's round trip (hprof record), the time the agent spent in
Agent_OnAttach and the classes loaded then (its verbose note); for the
exact modes (cpu=times, cpu=old) the classes rewritten at the attach and
restored at the stop, with the time and the CPU time the attaching thread
spent on each (the JVM's VM thread does the redefinitions themselves, at
the RedefineClasses safepoints); the JVM's safepoints during
the attach (-Xlog:safepoint): the pauses every application thread saw. The
program must exit with 0 and no HPROF ERROR.

Usage: bench/attach/pause.py [--jdk 17|25] [--program fop] [--scale 1]
       [--after 6] [--reps 3] [--options cpu=samples] [--prepared]
Runs bench/deps.sh and bench/prepare.sh first (as bench/run.sh does) unless
--prepared says bench/work is ready (prepare.sh rebuilds what looks older
than the sources, so it must not run on a bench/work shared with another
checkout); needs build/hprof and build/libhprof.so."""
import argparse
import datetime
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import conf  # noqa: E402

ROOT = os.path.dirname(conf.BENCH)
HOMES = {"17": "/usr/lib/jvm/java-17-openjdk-amd64", "25": "/usr/lib/jvm/temurin-25-jdk-amd64"}
SAFEPOINT = re.compile(r'^\[([^\]]+)\].*Safepoint "([^"]+)".*Total: (\d+) ns')


def safepoints(log, start, end):
    """The safepoints logged between two wall-clock datetimes, per operation
    ("operation count x total ms (longest)"); a GC that happens to fall into
    the window is listed too."""
    found = {}
    with open(log) as f:
        for line in f:
            m = SAFEPOINT.match(line)
            if not m:
                continue
            when = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f%z")
            if start <= when <= end:
                ms = int(m.group(3)) / 1e6
                n, total, longest = found.get(m.group(2), (0, 0.0, 0.0))
                found[m.group(2)] = (n + 1, total + ms, max(longest, ms))
    return ", ".join(f"{op} {n}x {total:.0f} ({longest:.0f})"
                     for op, (n, total, longest) in found.items()) or "none"


def one_run(args, cmd, rundir):
    """One attach: a dict of the figures the table prints."""
    log = os.path.join(rundir, "safepoint.log")
    java = [cmd[0], f"-Xlog:safepoint:file={log}:utctime"] + cmd[1:]
    with open(os.path.join(rundir, "stderr"), "w+") as err:
        prog = subprocess.Popen(java, cwd=rundir, stdout=subprocess.DEVNULL, stderr=err)
        time.sleep(args.after)
        if prog.poll() is not None:
            sys.exit(f"{args.program} ended before the attach; lower --after")
        start = datetime.datetime.now(datetime.timezone.utc)
        rec = subprocess.run([os.path.join(ROOT, "build", "hprof"), "record", str(prog.pid),
                              "-d", "2s", "-o", os.path.join(rundir, "profile.txt"), args.options],
                             capture_output=True, text=True, timeout=600)
        status = prog.wait(timeout=600)
        err.seek(0)
        text = err.read()
    note = re.search(r"HPROF: attached, .*\(([\d.]+) ms, (\d+) classes loaded, (\d+) "
                     r"rewritten in ([\d.]+) ms, ([\d.]+) ms of CPU\)", text)
    restore = re.search(r"HPROF: (\d+) of \d+ loaded classes restored in ([\d.]+) ms "
                        r"\(([\d.]+) ms of CPU\)", text)
    round_trip = re.search(r"attached in (\d+) ms", rec.stderr)
    if rec.returncode != 0 or not note or not round_trip:
        sys.exit(f"hprof record failed ({rec.returncode}): {rec.stderr}")
    if status != 0 or "HPROF ERROR" in text:
        sys.exit(f"{args.program} exited with {status}: {text}")
    attach_end = start + datetime.timedelta(milliseconds=int(round_trip.group(1)))
    return {"trip": int(round_trip.group(1)), "agent": float(note.group(1)),
            "loaded": int(note.group(2)),
            "rewrite": f"{note.group(3)}: {float(note.group(4)):.0f}, {float(note.group(5)):.0f}",
            "restore": f"{restore.group(1)}: {float(restore.group(2)):.0f}, "
                       f"{float(restore.group(3)):.0f}" if restore else "-",
            "safepoints": safepoints(log, start, attach_end)}

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jdk", default="17", choices=sorted(HOMES))
    ap.add_argument("--program", default="fop")
    ap.add_argument("--scale", default="1")
    ap.add_argument("--after", type=float, default=6, help="seconds before the attach")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--options", default="cpu=samples")
    ap.add_argument("--prepared", action="store_true", help="skip deps.sh and prepare.sh")
    args = ap.parse_args()
    home = os.environ.get(f"JDK{args.jdk}_HOME", HOMES[args.jdk])
    if not args.prepared:
        subprocess.run([os.path.join(conf.BENCH, "deps.sh")], check=True)
        subprocess.run([os.path.join(conf.BENCH, "prepare.sh"), args.scale, args.jdk, home],
                       check=True, stdout=subprocess.DEVNULL)
    kind, template = conf.programs()[args.program]
    cmd = [os.path.join(home, "bin", "java")] + conf.fill(
        template, conf.placeholders(args.scale, args.jdk))
    print(f"| JDK | program | options | attach round trip ms | in Agent_OnAttach ms "
          f"| classes loaded | rewritten: classes: ms, ms of CPU "
          f"| restored at stop: classes: ms, ms of CPU "
          f"| safepoints during the attach (operation count x total ms (longest)) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for _ in range(args.reps):
        with tempfile.TemporaryDirectory(prefix="hprof-attach-") as rundir:
            r = one_run(args, cmd, rundir)
        print(f"| {args.jdk} | {args.program} | {args.options} | {r['trip']} | {r['agent']:.1f} "
              f"| {r['loaded']} | {r['rewrite']} | {r['restore']} "
              f"| {r['safepoints']} |", flush=True)

if __name__ == "__main__":
    main()
