"""Writes <raw>/meta.json describing a benchmark run (commit, agent, JDKs, machine, options), or
with --finish adds the load average at the end.

Usage: meta.py <raw> --quick 0|1 --reps N --scale S --modes a,b --programs a,b --command CMD --jdks HOME,HOME
               --agent SO [--before SO]
       meta.py <raw> --finish
"""
import argparse
import datetime
import hashlib
import json
import os
import platform
import subprocess

import conf

ROOT = os.path.dirname(conf.BENCH)


def git(*args, at=ROOT):
    done = subprocess.run(["git", "-C", at, *args], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def agent(snapshot, origin):
    """Describes the run's snapshot of the agent at origin, with the commit checked out where origin
    was built (a build is not tied to a commit, so this names the checkout, not a proof)."""
    if not os.path.exists(snapshot):
        return "not built"
    with open(snapshot, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:12]
    built = datetime.datetime.fromtimestamp(os.path.getmtime(snapshot), datetime.timezone.utc)
    commit = git("rev-parse", "--short=12", "HEAD", at=os.path.dirname(os.path.abspath(origin)))
    return (f"{origin} sha256 {digest}, built {built:%Y-%m-%d %H:%M} UTC" +
            (f", from a checkout of {commit}" if commit else ""))


def jdk_version(home):
    out = subprocess.run([os.path.join(home, "bin", "java"), "-version"], capture_output=True, text=True).stderr
    return out.splitlines()[1] if len(out.splitlines()) > 1 else out.strip()


def machine():
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo", encoding="ascii")
                  if line.startswith("model name")), platform.processor())
    mem_kb = next(int(line.split()[1]) for line in open("/proc/meminfo", encoding="ascii")
                  if line.startswith("MemTotal"))
    return (f"{os.cpu_count()} CPUs ({model}), {mem_kb / 1024 / 1024:.0f} GB RAM, Linux {platform.release()}; "
            "shared with other jobs")


def loadavg():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw")
    ap.add_argument("--finish", action="store_true")
    for opt in ("--quick", "--reps", "--scale", "--modes", "--programs", "--command", "--jdks", "--agent", "--before"):
        ap.add_argument(opt)
    args = ap.parse_args()
    path = os.path.join(args.raw, "meta.json")
    if args.finish:
        with open(path, encoding="utf-8") as f:
            meta = json.load(f)
        meta["load_end"] = loadavg()
    else:
        meta = {"commit": git("rev-parse", "--short=12", "HEAD") or "unknown (not a git checkout)", "dirty": bool(git("status", "--porcelain", "--", ".")),
                "date": f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC", "agent": agent(os.path.join(args.raw, "libhprof.so"), args.agent),
                "before_agent": agent(os.path.join(args.raw, "libhprof-before.so"), args.before) if args.before else None,
                "jdks": [jdk_version(h) for h in args.jdks.split(",")], "machine": machine(), "load_start": loadavg(),
                "quick": args.quick == "1", "reps": int(args.reps), "scale": args.scale,
                "modes": args.modes.split(","), "programs": args.programs.split(","), "command": args.command}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1)


if __name__ == "__main__":
    main()
