"""Runs each real program of programs.conf with an agent built with patches/callback-cpu.patch
(sampled heap=sites at 512 KiB) and prints a table of its CALLBACK-COST lines: samples, thread
CPU time inside the SampledObjectAlloc callback, process CPU time and the callback's share.

Usage: callback_cost.py --jdk <java home> --feature 17|25 --agent <patched libhprof.so>
                        [--reps N] [--scale S]
"""
import argparse
import os
import re
import shutil
import subprocess
import tempfile

import conf

COST = re.compile(r"CALLBACK-COST samples=(\d+) callback_cpu_s=([\d.]+) process_cpu_s=([\d.]+)")


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--jdk", "--feature", "--agent"):
        ap.add_argument(opt, required=True)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--scale", default="1")
    args = ap.parse_args()
    values = conf.placeholders(args.scale, args.feature)
    print("| program | rep | samples | callback CPU s | process CPU s | share | µs per sample |")
    print("|---|---|---|---|---|---|---|")
    for rep in range(args.reps):
        for name, (kind, template) in conf.programs().items():
            if kind != "program":
                continue
            rundir = tempfile.mkdtemp()
            try:
                cmd = [os.path.join(args.jdk, "bin", "java"),
                       f"-agentpath:{args.agent}=heap=sites,alloc_interval=524288,file={rundir}/prof.txt"]
                run = subprocess.run(cmd + conf.fill(template, values), cwd=rundir, capture_output=True,
                                     text=True, check=False)
            finally:
                shutil.rmtree(rundir, ignore_errors=True)
            m = COST.search(run.stderr)
            if run.returncode != 0 or not m:
                print(f"| {name} | {rep} | failed: exit {run.returncode} | | | | |")
                continue
            samples, callback, process = int(m.group(1)), float(m.group(2)), float(m.group(3))
            per = callback / samples * 1e6 if samples else 0
            print(f"| {name} | {rep} | {samples:,} | {callback:.3f} | {process:.2f} | "
                  f"{100 * callback / process:.2f} % | {per:.1f} |", flush=True)


if __name__ == "__main__":
    main()
