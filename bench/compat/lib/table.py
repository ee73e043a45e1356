"""Renders compatibility runs (<raw>/cells.jsonl and meta.json) as Markdown: per JDK a table
of programs by modes, the number of cells per outcome, and every cell that is not ok with its
findings and the command that reproduces it. With several runs (say a full one and a re-run of a
few programs), a later run's cells replace the earlier ones'. Writes <first raw>/matrix.md (or
--out) and prints it.

Usage: table.py <raw>... [--out FILE]
"""
import argparse
import collections
import json
import os
import re
import statistics

import cells as cell_rules

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SNAPSHOT = re.compile(r"bench/compat/results/raw/[^/ ]+/(libhprof\.so|hprof)\b")


def portable(command):
    """A cell's command as run from the repository root, with build/ in place of the run's
    snapshot of the agent."""
    return SNAPSHOT.sub(lambda m: "build/" + m.group(1), command.replace(ROOT + "/", ""))

OUTCOMES = ["ok", "crash", "hang", "slow", "malformed", "error", "changed"]


def load(raws):
    """The runs' metadata and their cells, later runs replacing earlier cells. A cell merges its
    run's repetitions (merge()) and keeps the medians without agent of its own run ("base_wall",
    "base_cpu"), its ratios' denominators; a run without agent is replaced by a later one only if
    it was not usable or the program is no longer run on that JDK."""
    metas, cells = [], {}
    for raw in raws:
        with open(os.path.join(raw, "meta.json"), encoding="utf-8") as f:
            metas.append(json.load(f))
        reps = {}
        with open(os.path.join(raw, "cells.jsonl"), encoding="utf-8") as f:
            for line in filter(str.strip, f):
                c = json.loads(line)
                reps.setdefault((c["jdk"], c["program"], c["mode"]), []).append(c)
        merged = {key: merge(runs) for key, runs in reps.items()}
        for key, c in merged.items():
            if c["mode"] == "none" and key in cells and cells[key]["outcome"] == "ok" and c["outcome"] != "not-run":
                continue
            base = merged.get(key[:2] + ("none",), {})
            c["base_wall"], c["base_cpu"], c["base_cpus"] = base.get("wall_s"), base.get("cpu_s"), base.get("cpus")
            cells[key] = reclassify_timeout(c)
    return metas, list(cells.values())


SEVERITY = ["crash", "hang", "slow", "malformed", "error", "changed", "baseline-failed", "not-run", "ok"]


def merge(runs):
    """One cell from its repetitions in a run: the worst run's record (outcome, findings, command)
    with the median wall and CPU seconds of all of them."""
    cell = dict(min(runs, key=lambda r: SEVERITY.index(r["outcome"])))
    timed = [r for r in runs if "wall_s" in r]
    if timed:
        cell["reps"] = len(timed)
        cell["wall_s"] = statistics.median(r["wall_s"] for r in timed)
        if all("cpu_s" in r for r in timed):  # runs recorded before CPU time was have none
            cell["cpus"] = [r["cpu_s"] for r in timed]
            cell["cpu_s"] = statistics.median(cell["cpus"])
    return cell


def reclassify_timeout(c):
    """Applies the current hang/slow rule to a cell stopped at its time limit, from its saved
    thread dump and CPU share, so runs recorded under an older rule render alike."""
    if not c.get("timed_out") or "kept" not in c or not os.path.isdir(c["kept"]):
        return c
    finding = cell_rules.timeout_finding(c["kept"], c)
    c["details"] = [finding if d.startswith(("hang:", "slow:")) else d for d in c["details"]]
    if c["outcome"] in ("hang", "slow"):
        c["outcome"] = finding.split(":")[0]
    return c


def cell_text(cell):
    if cell["outcome"] != "ok":
        return f"**{cell['outcome'].upper()}**"
    if not cell.get("base_wall"):
        return "ok"
    text = f"ok {cell['wall_s'] / cell['base_wall']:.2f}"
    if cell.get("cpu_s") and cell.get("base_cpu"):
        text += f" / CPU {cell['cpu_s'] / cell['base_cpu']:.2f}"
    return text


def jdk_section(feature, cells):
    programs = list(dict.fromkeys(c["program"] for c in cells))
    modes = [m for m in dict.fromkeys(c["mode"] for c in cells) if m != "none"]
    by_key = {(c["program"], c["mode"]): c for c in cells}
    lines = [f"## JDK {feature}", "",
             "| program | kind | no agent (s) | " + " | ".join(modes) + " |",
             "|---|---|---:|" + "---|" * len(modes)]
    usable, not_run = [], []
    for p in programs:
        base = by_key.get((p, "none"))
        if base is None:
            continue
        if base["outcome"] in ("baseline-failed", "not-run"):
            not_run.append(f"{p} ({'; '.join(base['details'])[:160]})")
            continue
        usable.append(p)
        row = [p, base["kind"], f"{base['wall_s']:.1f}"]
        row += [cell_text(by_key[(p, m)]) if (p, m) in by_key else "–" for m in modes]
        lines.append("| " + " | ".join(row) + " |")
    agent_cells = [c for c in cells if c["mode"] != "none" and c["program"] in usable]
    counts = collections.Counter(c["outcome"] for c in agent_cells)
    lines += ["", f"Cells with an agent: {len(agent_cells)}; " +
              ", ".join(f"{o} {counts.get(o, 0)}" for o in OUTCOMES) + "."]
    if not_run:
        lines.append(f"Not run with an agent on this JDK: {'; '.join(not_run)}.")
    bad = [c for c in agent_cells if c["outcome"] != "ok"]
    if bad:
        lines += ["", f"### JDK {feature}: cells that are not ok", ""]
        for c in bad:
            action = "" if c["action"] == "-" else f" (then `{c['action']}` from the harness)"
            lines.append(f"- **{c['program']} / {c['mode']}: {c['outcome']}**: " + "; ".join(c["details"]))
            lines.append(f"  - again: `bench/compat/run.sh --jdk {feature} --programs {c['program']} --modes {c['mode']}`; "
                         f"by hand{action}, from the repository root after `bench/compat/prepare.sh` and a `mkdir -p` "
                         f"of its run directory: `{portable(c['command'])}`")
    return lines


def describe(meta):
    return [f"- `{meta['command']}`: commit `{meta['commit']}`{' (dirty tree)' if meta.get('dirty') else ''}, "
            f"{meta['date']}, agent {meta['agent']}; {'; '.join(meta['jdks'])}; "
            f"{meta.get('reps', 1)} run{'s' if meta.get('reps', 1) > 1 else ''} per cell; load average "
            f"{meta['load_start']} at start, {meta.get('load_end', '?')} at the end; bench inputs at scale "
            f"{meta['scale']}."]


def render(metas, cells):
    lines = ["# Compatibility matrix", "", f"Machine: {metas[0]['machine']}. Runs:", ""]
    for meta in metas:
        lines += describe(meta)
    lines += ["",
             "A cell is the wall time with the agent over the time without it in the same run (medians of "
             "the run's repetitions; the column without agent shows the first run's), then, where the run "
             "measured it, the same ratio of CPU time (user + system of the java process: the figure to "
             "trust on a loaded machine), "
             "or what went wrong: CRASH (hs_err file or fatal signal), HANG (stopped at the time limit while "
             "blocked or not answering `jcmd Thread.print`), SLOW (stopped at the time limit while computing), "
             "MALFORMED (the output fails the ascii grammar check or `hprof verify`), ERROR "
             "(`HPROF ERROR` on stderr), CHANGED (stdout, after the normaliser, or the exit status "
             "differs from the run without agent).", ""]
    for feature in dict.fromkeys(c["jdk"] for c in cells):
        lines += jdk_section(feature, [c for c in cells if c["jdk"] == feature]) + [""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw", nargs="+")
    ap.add_argument("--out")
    args = ap.parse_args()
    text = render(*load(args.raw))
    with open(args.out or os.path.join(args.raw[0], "matrix.md"), "w", encoding="utf-8") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
