"""How completely cpu=samples accounts for a program's CPU: runs each program once per
option set and reads the agent's verbose summary (Java stacks walked, taken after agent
code, unwalkable, outside Java threads, lost) and the process CPU (user + sys).

Usage: samplequality.py --jdk HOME --feature N --agent SO --scale S --programs a,b
                        [--options cpu=samples,heap=all;cpu=samples] [--out FILE.md]
"""
import argparse
import os
import re
import subprocess
import tempfile

import conf

SUMMARY = re.compile(
    r"cpu=samples: (\d+) samples: (\d+) Java stacks walked, (\d+) taken after agent code, "
    r"(\d+) unwalkable.*?, (\d+) outside Java threads; (\d+) lost .*?; ([\d.]+) s of CPU in "
    r"samples of the process's ([\d.]+) s")


def run(java, options, program_args, rundir):
    cmd = [java, f"-agentpath:{options},verbose=y,file={rundir}/prof.txt"] + program_args
    with open(os.path.join(rundir, "stderr"), "wb") as err:
        proc = subprocess.Popen(cmd, cwd=rundir, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
    with open(os.path.join(rundir, "stderr"), encoding="utf-8", errors="replace") as f:
        m = SUMMARY.search(f.read())
    cpu = usage.ru_utime + usage.ru_stime
    return os.waitstatus_to_exitcode(status), cpu, m


def write_table(lines, out):
    """Prints the report's lines and, with --out, writes them to that file."""
    text = "\n".join(lines) + "\n"
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)
    print(text)


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--jdk", "--feature", "--agent", "--scale", "--programs"):
        ap.add_argument(opt, required=True)
    ap.add_argument("--options", default="cpu=samples;cpu=samples,heap=all")
    ap.add_argument("--out")
    args = ap.parse_args()
    values = conf.placeholders(args.scale, args.feature)
    java = os.path.join(args.jdk, "bin", "java")
    programs = conf.programs()
    lines = [f"cpu=samples sample accounting, JDK {args.feature}, scale {args.scale}, one run each",
             "", "| program | options | samples | walked | after agent code | unwalkable | "
             "outside Java | lost | samples x 10 ms / process CPU |", "|---" * 9 + "|"]
    for name in args.programs.split(","):
        for options in args.options.split(";"):
            with tempfile.TemporaryDirectory() as rundir:
                code, cpu, m = run(java, f"{args.agent}={options}",
                                   conf.fill(programs[name][1], values), rundir)
            if code != 0 or m is None:
                lines.append(f"| {name} | {options} | failed (exit {code}) |" + " |" * 6)
                continue
            total, walked, agent, unwalk, outside, lost = (int(m.group(i)) for i in range(1, 7))
            share = lambda n: f"{n} ({100.0 * n / total:.1f}%)" if total else str(n)  # noqa: E731
            lines.append(f"| {name} | {options} | {total} | {share(walked)} | {share(agent)} | "
                         f"{share(unwalk)} | {share(outside)} | {share(lost)} | "
                         f"{float(m.group(7)):.2f} / {cpu:.2f} s ({100 * float(m.group(7)) / cpu:.1f}%) |")
            print(lines[-1], flush=True)
    write_table(lines, args.out)


if __name__ == "__main__":
    main()
