"""Runs the compatibility matrix of one JDK: every program without an agent, then each mode
over every program, the whole again per repetition; appends one JSON line per run to
<raw>/cells.jsonl and keeps the working directory of every run that is not ok under <raw>/failed/.

Usage: matrix.py --jdk HOME --feature N --raw DIR --programs a,b --modes a,b --agent SO --cli HPROF
                 --scale S --timeout SEC --max-ratio R [--reps N]
"""
import argparse
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import cells  # noqa: E402
import conf  # noqa: E402

COMPAT = os.path.join(conf.BENCH, "compat")
UNCAUGHT = 'Exception in thread "main"'  # a run without agent that ends so is not a workload


def programs():
    """{name: {kind, jdk, exit, action, rule, template}} from compat/programs.conf."""
    bench = conf.programs()
    table = {}
    for name, kind, jdk, exit_status, action, rule, template in conf.read_table("compat/programs.conf"):
        if template.startswith("@bench:"):
            template = bench[template[len("@bench:"):]][1]
        table[name] = {"kind": kind, "jdk": jdk, "exit": exit_status, "action": action, "rule": rule,
                       "template": template}
    return table


def runs_on(jdk, feature):
    if jdk.startswith(">="):
        return int(feature) >= int(jdk[2:])
    if jdk.startswith("<"):
        return int(feature) < int(jdk[1:])
    return jdk == "all"


def works(result, program):
    """Whether a run without agent is a usable workload: it ended by itself, as expected."""
    expected = program["exit"] == "*" or result["exit"] == int(program["exit"])
    return result["outcome"] == "ok" and expected and UNCAUGHT not in result["stderr_tail"]


def command(java, program, mode_opts, out, values, rundir):
    values = dict(values, rundir=rundir)
    args = conf.fill(program["template"], values)
    if args[0].startswith("exec:"):
        java, args = args[0][len("exec:"):], args[1:]
    jvm = [f"-XX:ErrorFile={rundir}/hs_err_pid%p.log", "-XX:-CreateCoredumpOnCrash"]
    agent = conf.fill(mode_opts, values)
    if agent:
        ext = ".hprof" if "format=b" in agent[0] else ".txt"
        agent[0] += f",file={out}{ext}"
    return [java] + jvm + agent + args


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--jdk", "--feature", "--raw", "--programs", "--modes", "--agent", "--cli", "--scale"):
        ap.add_argument(opt, required=True)
    ap.add_argument("--timeout", type=float, default=300, help="upper limit per run, seconds")
    ap.add_argument("--max-ratio", type=float, default=20, help="a run is stopped at this ratio to no agent")
    ap.add_argument("--reps", type=int, default=1, help="runs per cell, the matrix repeated (rep-major)")
    args = ap.parse_args()

    all_programs, all_modes = programs(), conf.modes("compat/modes.conf")
    names, modes = args.programs.split(","), args.modes.split(",")
    unknown = sorted(set(names) - set(all_programs) | set(modes) - set(all_modes))
    if unknown:
        ap.error(f"unknown program or mode: {', '.join(unknown)}")
    modes = ["none"] + [m for m in modes if m != "none"]
    work = os.path.join(conf.WORK, "compat", args.feature)
    values = dict(conf.placeholders(args.scale, args.feature), agent=args.agent, compat=COMPAT,
                  scripts=os.path.join(COMPAT, "programs", "scripts"), cw=work, cc=os.path.join(work, "classes"),
                  sampledalloc=os.path.join(conf.WORK, "agents", "libsampledalloc.so"),
                  javaagent=os.path.join(work, "retransform.jar"))
    java = os.path.join(args.jdk, "bin", "java")
    jcmd = os.path.join(args.jdk, "bin", "jcmd")
    baselines = {}  # program -> its run without agent, if that run is a usable workload
    with open(os.path.join(args.raw, "cells.jsonl"), "a", encoding="utf-8") as log:
        for name in [n for n in names if not runs_on(all_programs[n]["jdk"], args.feature)]:
            p = all_programs[name]
            log.write(json.dumps({"jdk": args.feature, "program": name, "kind": p["kind"], "mode": "none",
                                  "outcome": "not-run", "details": [f"runs on JDK {p['jdk']}"]}) + "\n")
        names = [n for n in names if runs_on(all_programs[n]["jdk"], args.feature)]
        # Rep-major, then mode-major with every program without agent first: a run cut short
        # still has whole columns, and a change of load spreads over every cell alike. The first
        # repetition's run without agent is each program's baseline (output, time limit).
        for rep in range(args.reps):
            for mode in modes:
                for name in names:
                    if name not in baselines and (mode != "none" or rep):
                        continue
                    record = run_cell(args, rep, name, all_programs[name], mode, all_modes[mode], baselines,
                                      java, jcmd, values)
                    log.write(json.dumps(record) + "\n")
                    log.flush()


def run_cell(args, rep, name, program, mode, mode_opts, baselines, java, jcmd, values):
    """One run of a program under a mode, classified; returns its record for cells.jsonl."""
    baseline = baselines.get(name)
    rundir = os.path.join(conf.WORK, "compat", "runs", args.feature, name, mode)
    cmd = command(java, program, mode_opts, os.path.join(rundir, "prof"), values, rundir)
    limit = args.timeout if baseline is None else min(args.timeout, max(60, args.max_ratio * baseline["wall_s"]))
    result = cells.run(cmd, rundir, program["action"], limit, jcmd)
    cells.classify(rundir, result, baseline, program["rule"], args.cli, mode != "none")
    record = {"jdk": args.feature, "program": name, "kind": program["kind"], "mode": mode, "rep": rep,
              "command": cells.quote(cmd), "action": program["action"], **result}
    if mode == "none" and rep == 0:
        if not works(result, program):
            record["outcome"] = "baseline-failed"
            record["details"].append(f"exit {result['exit']}: {result['stderr_tail'][-300:]}")
        else:
            baselines[name] = result
    record = keep_failed(record, rundir, args.raw)
    base = baselines.get(name)
    wall_ratio, cpu_ratio = (result["wall_s"] / base["wall_s"], result["cpu_s"] / base["cpu_s"]) if base else (1, 1)
    print(f"jdk{args.feature} {name:14} {mode:13} rep {rep} {record['outcome']:9} {result['wall_s']:6.1f}s "
          f"x{wall_ratio:4.2f} {result['cpu_s']:6.1f}s CPU x{cpu_ratio:4.2f} {'; '.join(record['details'])[:200]}",
          flush=True)
    return record


def keep_failed(record, rundir, raw):
    """Moves the working directory of a cell that is not ok under <raw>/failed/ (the profile
    only if it is the problem), deletes it otherwise; returns the record for the log."""
    if record["outcome"] != "ok":
        kept = os.path.join(raw, "failed", record["jdk"], record["program"],
                            record["mode"] + (f".rep{record['rep']}" if record["rep"] else ""))
        shutil.rmtree(kept, ignore_errors=True)
        malformed = record["outcome"] == "malformed"
        shutil.copytree(rundir, kept, ignore=None if malformed else shutil.ignore_patterns("prof*"))
        record["kept"] = kept
    shutil.rmtree(rundir, ignore_errors=True)
    record.pop("stdout", None)
    return record

if __name__ == "__main__":
    main()
