"""Side by side on the same programs: how often cpu=samples cannot walk a Java thread's stack
when its timer fires, and how often JFR's CPU-time sampler (JDK 25, JEP 509: event
jdk.CPUTimeSample) cannot. Both sample Java threads by their CPU time every 10 ms.

Ours: from the agent's verbose summary (samplequality.py), over the Java-thread samples (walked,
taken after agent code, unwalkable; samples of GC, JIT and VM threads are left out, since JFR's
sampler does not take them). JFR: the recording's CPUTimeSample events, `failed` (no stack),
`biased` (the stack walked at the next safepoint instead of where the timer fired: JFR's
counterpart of our samples taken after agent code) and the lostSamples of CPUTimeSamplesLost.

Usage: unwalkable.py --jdk HOME --feature 25 --agent SO --scale S --programs a,b [--out FILE.md]
"""
import argparse
import os
import re
import subprocess
import tempfile

import conf
from samplequality import run as run_agent, write_table

JFR_SETTINGS = ("jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=10ms,"
                "jdk.CPUTimeSamplesLost#enabled=true")


def run_jfr(jdk, program_args, rundir):
    """Runs the program under JFR's CPU-time sampler; returns (exit code, samples, failed,
    biased, lost) counted from the recording."""
    rec = os.path.join(rundir, "rec.jfr")
    cmd = [os.path.join(jdk, "bin", "java"),
           f"-XX:StartFlightRecording:filename={rec},{JFR_SETTINGS}"] + program_args
    code = subprocess.run(cmd, cwd=rundir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode
    if code != 0 or not os.path.exists(rec):
        return code, None
    jfr = os.path.join(jdk, "bin", "jfr")
    text = subprocess.run([jfr, "print", "--events", "jdk.CPUTimeSample,jdk.CPUTimeSamplesLost", rec],
                          capture_output=True, text=True, check=True).stdout
    samples = len(re.findall(r"^jdk\.CPUTimeSample \{", text, re.M))
    failed = len(re.findall(r"^\s*failed = true", text, re.M))
    biased = len(re.findall(r"^\s*biased = true", text, re.M))
    lost = sum(int(n) for n in re.findall(r"^\s*lostSamples = (\d+)", text, re.M))
    return code, (samples, failed, biased, lost)


def pct(n, total):
    return f"{n} ({100.0 * n / total:.1f}%)" if total else str(n)


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--jdk", "--feature", "--agent", "--scale", "--programs"):
        ap.add_argument(opt, required=True)
    ap.add_argument("--out")
    args = ap.parse_args()
    values = conf.placeholders(args.scale, args.feature)
    java = os.path.join(args.jdk, "bin", "java")
    programs = conf.programs()
    lines = [f"Java-thread samples every 10 ms of CPU time, JDK {args.feature}, scale {args.scale}, "
             "one run of each program per profiler, one after the other", "",
             "| program | ours: samples | ours: unwalkable | ours: after agent code | ours: lost | "
             "JFR: samples | JFR: failed | JFR: biased | JFR: lost |", "|---" * 9 + "|"]
    for name in args.programs.split(","):
        argv = conf.fill(programs[name][1], values)
        with tempfile.TemporaryDirectory() as rundir:
            code, _, m = run_agent(java, f"{args.agent}=cpu=samples", argv, rundir)
        with tempfile.TemporaryDirectory() as rundir:
            jcode, jfr = run_jfr(args.jdk, argv, rundir)
        if code != 0 or m is None or jcode != 0 or jfr is None:
            lines.append(f"| {name} | failed (exits {code}, {jcode}) |" + " |" * 7)
            print(lines[-1], flush=True)
            continue
        walked, agent, unwalk, lost = (int(m.group(i)) for i in (2, 3, 4, 6))
        java_samples = walked + agent + unwalk
        attempted = java_samples + lost
        samples, failed, biased, jlost = jfr
        lines.append(f"| {name} | {java_samples} | {pct(unwalk, java_samples)} | "
                     f"{pct(agent, java_samples)} | {pct(lost, attempted)} | {samples} | "
                     f"{pct(failed, samples)} | {pct(biased, samples)} | {pct(jlost, samples + jlost)} |")
        print(lines[-1], flush=True)
    write_table(lines, args.out)


if __name__ == "__main__":
    main()
