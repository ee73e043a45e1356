"""Runs every (program, mode) pair of one JDK for N repetitions, rep-major, and appends one JSON
line per run to <raw>/runs.jsonl.

Usage: runmatrix.py --jdk HOME --feature N --raw DIR --programs a,b --modes a,b --agent SO
                    [--before SO] --reps N --scale S [--warmup] [--timeout SEC] [--slowdown R]
"""
import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time

import conf

REJECTED = re.compile(r"HPROF ERROR.*")


def run_once(cmd, rundir, timeout):
    """Runs cmd in a fresh rundir; returns wall seconds, CPU seconds (user + system of the java
    process: what the run cost, whatever else the shared machine was doing), peak RSS, exit status,
    output tails."""
    shutil.rmtree(rundir, ignore_errors=True)
    os.makedirs(rundir)
    with open(os.path.join(rundir, "stdout"), "wb") as out, open(os.path.join(rundir, "stderr"), "wb") as err:
        start = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=rundir, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        timer = threading.Timer(timeout, os.kill, (proc.pid, signal.SIGKILL))
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
        timer.cancel()
    code = os.waitstatus_to_exitcode(status)
    return {
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "maxrss_kb": usage.ru_maxrss,
        "exit": code,
        "timed_out": wall >= timeout and code == -signal.SIGKILL,
        "stdout_tail": tail(os.path.join(rundir, "stdout")),
        "stderr_tail": tail(os.path.join(rundir, "stderr")),
        "output_bytes": sum(os.path.getsize(os.path.join(rundir, f))
                            for f in os.listdir(rundir) if f.startswith("prof")),
    }


def tail(path, limit=2000):
    with open(path, "rb") as f:
        f.seek(max(0, os.path.getsize(path) - limit))
        return f.read().decode("utf-8", "replace")


def status_of(result):
    """'ok', 'rejected', 'timeout' or 'failed' for one run."""
    if result["exit"] == 0:
        return "ok"
    if result["timed_out"]:
        return "timeout"
    return "rejected" if REJECTED.search(result["stderr_tail"]) else "failed"


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--jdk", "--feature", "--raw", "--programs", "--modes", "--agent"):
        ap.add_argument(opt, required=True)
    ap.add_argument("--before", default="", help="an older libhprof.so, the {before} placeholder")
    ap.add_argument("--reps", type=int, required=True)
    ap.add_argument("--scale", required=True)
    ap.add_argument("--warmup", action="store_true")
    ap.add_argument("--timeout", type=float, default=600, help="upper limit per run, seconds")
    ap.add_argument("--slowdown", type=float, default=40, help="runs are stopped at this ratio to the baseline")
    args = ap.parse_args()

    work = conf.WORK
    values = dict(conf.placeholders(args.scale, args.feature), agent=args.agent, before=args.before)
    # The minimal comparison agents, agents/<name>.c, built by prepare.sh; a mode names one as {<name>}.
    minimal = sorted(os.path.basename(c)[:-2] for c in glob.glob(os.path.join(conf.BENCH, "agents", "*.c")))
    values.update({a: os.path.join(work, "agents", f"lib{a}.so") for a in minimal})
    agents = ["agent", "before"] + minimal
    all_modes, all_programs = conf.modes(), conf.programs()
    modes = args.modes.split(",")
    programs = args.programs.split(",")
    unknown = sorted(set(modes) - set(all_modes) | set(programs) - set(all_programs))
    if unknown:
        ap.error(f"unknown mode or program: {', '.join(unknown)}")
    java = os.path.join(args.jdk, "bin", "java")
    skip = set()  # modes rejected by the agent (skipped for all programs) and failed (program, mode)
    baseline = {}  # program -> first baseline wall time; later runs of it are stopped at --slowdown times it

    def command(program, mode, rundir):
        opts = conf.fill(all_modes[mode], dict(values, out=os.path.join(rundir, "prof")))
        return [java] + opts + conf.fill(all_programs[program][1], values)

    if args.warmup:  # fills the page cache with jars and inputs; not recorded
        rundir = os.path.join(work, "runs", "warmup")
        for program in programs:
            run_once(command(program, "baseline", rundir), rundir, args.timeout)
    with open(os.path.join(args.raw, "runs.jsonl"), "a", encoding="utf-8") as log:
        for rep in range(args.reps):
            for program in programs:
                shift = rep % len(modes)  # rotate the mode order from rep to rep
                for mode in modes[shift:] + modes[:shift]:
                    if mode in skip or (program, mode) in skip:
                        continue
                    missing = [p for p in agents
                               if "{%s}" % p in all_modes[mode] and not os.path.exists(values[p])]
                    rundir = os.path.join(work, "runs", args.feature, program, mode)
                    if missing:
                        result = {"status": "missing", "message": "no before-agent (set HPROF_AGENT_BEFORE)"
                                  if missing[0] == "before" else f"{missing[0]} not built"}
                    else:
                        limit = min(args.timeout, max(60, args.slowdown * baseline.get(program, args.timeout)))
                        result = run_once(command(program, mode, rundir), rundir, limit)
                        result["status"] = status_of(result)
                        shutil.rmtree(rundir, ignore_errors=True)
                        if result["status"] == "ok" and mode == "baseline":
                            baseline.setdefault(program, result["wall_s"])
                        if result["status"] == "timeout":
                            result["message"] = f"stopped after {limit:.0f} s" + (
                                f", ratio > {limit / baseline[program]:.0f}" if program in baseline else "")
                    record = {"jdk": args.feature, "program": program, "kind": all_programs[program][0],
                              "mode": mode, "rep": rep, **result}
                    if result["status"] == "rejected":
                        record["message"] = REJECTED.search(result["stderr_tail"]).group(0)
                    if result["status"] in ("rejected", "missing"):
                        skip.add(mode)
                    elif result["status"] != "ok":
                        skip.add((program, mode))
                    log.write(json.dumps(record) + "\n")
                    log.flush()
                    print(f"jdk{args.feature} rep{rep} {program:8} {mode:14} {result['status']:8} "
                          f"{result.get('wall_s', 0):7.2f}s {result.get('cpu_s', 0):7.2f}s CPU {result.get('maxrss_kb', 0) // 1024:6d}MB"
                          + (f" ({record['message']})" if "message" in record else ""), flush=True)


if __name__ == "__main__":
    main()
