"""Turns a raw results directory (runs.jsonl, heapdump.jsonl, meta.json) into report.md and
report.json: per JDK and mode, a table of medians and ratios (CPU time and wall time) against the
baseline of the same run, the geometric mean of the ratios over programs, each with a bootstrap 95%
interval, and each mode beside its before-<mode> (the same options on an older agent).

Usage: report.py <raw-dir>
"""
import json
import math
import os
import random
import statistics
import sys


def load(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def mb(value, unit_bytes):
    """value in units of unit_bytes, as MB (None stays None)."""
    return None if value is None else value * unit_bytes / (1024 * 1024)


def cells(runs):
    """{(jdk, program, mode): summary} with medians over the ok runs, or the failure reason."""
    groups = {}
    for r in runs:
        groups.setdefault((r["jdk"], r["program"], r["mode"]), []).append(r)
    out = {}
    for key, rs in groups.items():
        ok = [r for r in rs if r["status"] == "ok"]
        if ok and len(ok) == len(rs):
            out[key] = {"reps": len(ok), "kind": rs[0]["kind"], "walls": [r["wall_s"] for r in ok],
                        "wall_s": statistics.median(r["wall_s"] for r in ok),
                        "maxrss_mb": statistics.median(mb(r["maxrss_kb"], 1024) for r in ok),
                        "output_mb": statistics.median(mb(r["output_bytes"], 1) for r in ok)}
            if all("cpu_s" in r for r in ok):  # runs recorded before CPU time was have none
                out[key].update(cpus=[r["cpu_s"] for r in ok], cpu_s=statistics.median(r["cpu_s"] for r in ok))
        else:
            bad = next(r for r in rs if r["status"] != "ok")
            reason = bad.get("message") or f"exit {bad.get('exit')}: " + last_line(bad.get("stderr_tail", ""))
            out[key] = {"kind": rs[0]["kind"], "na": f"{bad['status']}: {reason}"}
            if bad["status"] == "timeout":
                out[key]["stopped_s"] = bad["wall_s"]
                if "cpu_s" in bad:
                    out[key]["stopped_cpu_s"] = bad["cpu_s"]
    return out


def last_line(text):
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1][:160] if lines else ""


BOOTSTRAP = 2000


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def bootstrap(pairs, rng):
    """95% percentile interval of the geometric mean of ratio-of-medians over (mode walls,
    baseline walls) pairs, each resampled with replacement: the spread the run's own noise
    allows. None when a side has a single run."""
    if any(len(m) < 2 or len(b) < 2 for m, b in pairs):
        return None
    stats = sorted(geomean([statistics.median(rng.choices(m, k=len(m))) /
                            statistics.median(rng.choices(b, k=len(b))) for m, b in pairs])
                   for _ in range(BOOTSTRAP))
    return stats[int(0.025 * BOOTSTRAP)], stats[int(0.975 * BOOTSTRAP) - 1]


# Per metric, the cell keys of its runs, median, stopped run's value and ratio (the ratio's
# interval and lower bound are <ratio>_ci and <ratio>_gt).
METRICS = {"wall": ("walls", "wall_s", "stopped_s", "ratio"),
           "cpu": ("cpus", "cpu_s", "stopped_cpu_s", "cpu_ratio")}


def ratios(summary, metric="wall"):
    """Adds the metric's ratio and its interval (and, for wall time, the RSS delta) to every mode
    cell that has a baseline, and a lower bound (<ratio>_gt) to stopped ones. Returns {(jdk, mode,
    kind): (geomean, is_lower_bound, interval)} with kind "program" (the real programs: what the
    issues' goals are about) or "micro"; stopped programs enter the geometric mean with their lower
    bound (and no interval)."""
    runs, median, stopped, ratio = METRICS[metric]
    geo, rng = {}, random.Random(1)
    for (jdk, program, mode), c in sorted(summary.items()):
        base = summary.get((jdk, program, "baseline"))
        if mode == "baseline" or not base or median not in base:
            continue
        key = (jdk, mode, c["kind"])
        if stopped in c:
            c[ratio + "_gt"] = c[stopped] / base[median]
            geo.setdefault(key, []).append((c[ratio + "_gt"], None))
        elif median in c:
            c[ratio] = c[median] / base[median]
            c[ratio + "_ci"] = bootstrap([(c[runs], base[runs])], rng)
            if metric == "wall":
                c["rss_delta_mb"] = c["maxrss_mb"] - base["maxrss_mb"]
            geo.setdefault(key, []).append((c[ratio], (c[runs], base[runs])))
    out = {}
    for k, v in geo.items():
        lower_bound = any(p is None for _, p in v)
        ci = None if lower_bound else bootstrap([p for _, p in v], rng)
        out[k] = (geomean([r for r, _ in v]), lower_bound, ci)
    return out


def ci_text(ci):
    return f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""


def geo_text(geo):
    value, lower_bound, ci = geo
    return f"> {value:.2f}" if lower_bound else f"{value:.2f}{ci_text(ci)}"


KINDS = ("program", "micro")


def jdks_of(summary):
    return sorted({k[0] for k in summary}, key=int)


def paired(modes):
    """modes with each before-<mode> moved to just after its <mode>."""
    out = [m for m in modes if not (m.startswith("before-") and m[len("before-"):] in modes)]
    for m in [m for m in out if "before-" + m in modes]:
        out.insert(out.index(m) + 1, "before-" + m)
    return out


def geomean_table(summary, geo, modes, metric, title):
    """The per-mode geometric means of one metric, a column per JDK and kind."""
    ratio = METRICS[metric][3]
    jdks = jdks_of(summary)
    lines = [f"## Geometric mean of {title} ratios (mode / no agent)", "",
             "| mode | " + " | ".join(f"JDK {j} {k}s" for j in jdks for k in KINDS) + " |",
             "|---|" + "---|" * (len(jdks) * len(KINDS))]
    for mode in modes[1:]:
        row = []
        for j in jdks:
            for k in KINDS:
                ran = [c for (jj, _, m), c in summary.items() if jj == j and m == mode and c["kind"] == k]
                if (j, mode, k) in geo:
                    counted = sum(1 for c in ran if ratio in c or ratio + "_gt" in c)
                    row.append(geo_text(geo[(j, mode, k)]) + (
                        f" (over {counted} of {len(ran)}; see the table)" if counted < len(ran) else ""))
                else:
                    na = {c["na"] for c in ran if "na" in c}
                    row.append(f"n/a ({'; '.join(sorted(na))})" if na else "not run")
        lines.append(f"| {mode} | " + " | ".join(row) + " |")
    return lines + [""]


def before_after(summary, geo, modes):
    """For every mode run beside its before-<mode>, per JDK and kind: both CPU-time geometric means
    and the change, the geometric mean over the programs both ran of after / before median CPU
    time with a bootstrap interval (the same as the ratio of the two means when both ran every
    program; the baseline's noise does not enter it). No change when a run was stopped."""
    rows, rng = [], random.Random(1)
    for mode in [m for m in modes if "before-" + m in modes]:
        before = "before-" + mode
        for j in jdks_of(summary):
            for k in KINDS:
                was, now = geo["cpu"].get((j, before, k)), geo["cpu"].get((j, mode, k))
                if not was and not now:
                    continue
                pairs = [(c["cpus"], summary[(j, p, before)]["cpus"]) for (jj, p, m), c in sorted(summary.items())
                         if (jj, m) == (j, mode) and c["kind"] == k and "cpus" in c
                         and "cpus" in summary.get((j, p, before), {})]
                change = None
                if was and now and not was[1] and not now[1] and pairs:
                    change = (geomean([statistics.median(a) / statistics.median(b) for a, b in pairs]),
                              False, bootstrap(pairs, rng))
                rows.append({"mode": mode, "jdk": j, "kind": k, "programs": len(pairs), "cpu_before": was,
                             "cpu_after": now, "change": change,
                             "wall_before": geo["wall"].get((j, before, k)), "wall_after": geo["wall"].get((j, mode, k))})
    return rows


def before_after_table(rows):
    if not rows:
        return []
    lines = ["## Before → after (CPU time)", "",
             "Each mode beside before-<mode>, the same options on the older agent (HPROF_AGENT_BEFORE). "
             "Change is after / before CPU time over the programs both ran (below 1: the change made the "
             "mode cheaper), with its bootstrap 95% interval.", "",
             "| mode | JDK | kind | CPU ratio before | CPU ratio after | change | programs | wall ratio before → after |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        text = [geo_text(g) if g else "n/a" for g in (r["cpu_before"], r["cpu_after"], r["change"])]
        text += [geo_text(g[:2] + (None,)) if g else "n/a" for g in (r["wall_before"], r["wall_after"])]
        lines.append(f"| {r['mode']} | {r['jdk']} | {r['kind']}s | {text[0]} | {text[1]} | {text[2]} | "
                     f"{r['programs']} | {text[3]} → {text[4]} |")
    return lines + [""]


def cell_row(program, base, c):
    """One program's line of a mode's table: wall time, CPU time (when recorded), RSS, output."""
    cpu = (f"{base['cpu_s']:.2f} | {c['cpu_s']:.2f} | {c['cpu_ratio']:.2f}{ci_text(c['cpu_ratio_ci'])}"
           if "cpu_ratio" in c else " | | ")
    if "ratio" in c:
        return (f"| {program} | {base['wall_s']:.2f} | {c['wall_s']:.2f} | {c['ratio']:.2f}{ci_text(c['ratio_ci'])} | "
                f"{cpu} | {c['rss_delta_mb']:+.0f} | {c['output_mb']:.1f} | {c['reps']} |")
    if "ratio_gt" in c:
        cpu_gt = f"> {c['cpu_ratio_gt']:.1f}" if "cpu_ratio_gt" in c else ""
        return (f"| {program} | {base['wall_s']:.2f} | > {c['stopped_s']:.2f} | > {c['ratio_gt']:.1f} (stopped) | "
                f"| | {cpu_gt} | | | |")
    return f"| {program} | | | n/a ({c.get('na', 'no baseline')}) | | | | | | |"


def mode_tables(summary, geo, modes, programs):
    lines = ["Real programs and micro-benchmarks are averaged apart: the goals are about the real programs. "
             "CPU time (user + system of the java process) is the figure to trust on a shared machine: "
             "other jobs stretch wall time, not it.", ""]
    lines += geomean_table(summary, geo["cpu"], modes, "cpu", "CPU-time")
    lines += geomean_table(summary, geo["wall"], modes, "wall", "wall-time")
    lines += before_after_table(before_after(summary, geo, modes))
    for j in jdks_of(summary):
        lines += [f"## JDK {j}: baseline (no agent)", "",
                  "| program | kind | median wall s | median CPU s | median peak RSS MB | reps |", "|---|---|---|---|---|---|"]
        for p in programs:
            c = summary.get((j, p, "baseline"))
            if c:
                lines.append(f"| {p} | {c['kind']} | " + (
                    f"{c['wall_s']:.2f} | {c.get('cpu_s', float('nan')):.2f} | {c['maxrss_mb']:.0f} | {c['reps']} |"
                    if "na" not in c else f"{c['na']} | | | |"))
        for mode in modes[1:]:
            rows = [(p, summary[(j, p, mode)]) for p in programs if (j, p, mode) in summary]
            if not rows:
                continue
            lines += ["", f"### JDK {j}: {mode}", "",
                      "| program | baseline s | mode s | ratio | baseline CPU s | mode CPU s | CPU ratio | "
                      "peak RSS delta MB | output MB | reps |", "|---|---|---|---|---|---|---|---|---|---|"]
            lines += [cell_row(p, summary.get((j, p, "baseline"), {}), c) for p, c in rows]
            for k in KINDS:
                if (j, mode, k) in geo["wall"]:
                    cpu = geo_text(geo["cpu"][(j, mode, k)]) if (j, mode, k) in geo["cpu"] else ""
                    lines.append(f"| **geometric mean, {k}s** | | | **{geo_text(geo['wall'][(j, mode, k)])}** | | | "
                                 f"**{cpu}** | | | |")
        lines.append("")
    return lines


def heapdump_table(runs):
    if not runs:
        return [], {}
    lines = ["", "## Heap dump on demand (~1 GB heap of mixed objects, same JVM, same heap)", "",
             "`jcmd <pid> JVMTI.data_dump` with our agent (heap=dump,format=b,doe=n) vs "
             "`jcmd <pid> GC.heap_dump <file>` (HotSpot, live objects; includes its full GC).", "",
             "| JDK | reps | heap used MB | agent s | agent MB written | agent RSS delta MB | "
             "GC.heap_dump s | GC.heap_dump MB | GC.heap_dump RSS delta MB | time ratio agent/HotSpot |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    out = {}
    for jdk in sorted({r["jdk"] for r in runs}, key=int):
        rs = [r for r in runs if r["jdk"] == jdk]

        def med(key, rows):
            vals = [r[key] for r in rows if r.get(key) is not None]
            return statistics.median(vals) if vals else None
        agent_ok = [r for r in rs if r.get("agent_status") == "ok"]
        summary = {"reps": len(rs), "heap_used_mb": mb(med("heap_used", rs), 1),
                   "jcmd_s": med("jcmd_s", rs), "jcmd_mb": mb(med("jcmd_bytes", rs), 1),
                   "jcmd_rss_delta_mb": mb(med("jcmd_rss_delta_kb", rs), 1024)}
        if agent_ok:
            summary.update(agent_s=med("agent_s", agent_ok), agent_mb=mb(med("agent_bytes", agent_ok), 1),
                           agent_rss_delta_mb=mb(med("agent_rss_delta_kb", agent_ok), 1024),
                           completion=sorted({r["agent_completion"] for r in agent_ok}))
            summary["ratio"] = summary["agent_s"] / summary["jcmd_s"]
            agent = (f"{summary['agent_s']:.2f} | {summary['agent_mb']:.0f} | {summary['agent_rss_delta_mb']:+.0f}")
            ratio = f"{summary['ratio']:.2f}"
        else:
            summary["agent_na"] = rs[0].get("agent_status", "not run")
            agent, ratio = f"n/a ({summary['agent_na']}) | | ", "n/a"
        reps = f"{len(rs)}" + (f" (agent ok in {len(agent_ok)})" if len(agent_ok) != len(rs) else "")
        lines.append(f"| {jdk} | {reps} | {summary['heap_used_mb']:.0f} | {agent} | {summary['jcmd_s']:.2f} | "
                     f"{summary['jcmd_mb']:.0f} | {summary['jcmd_rss_delta_mb']:+.0f} | {ratio} |")
        out[jdk] = summary
    if any("completion" in s for s in out.values()):
        lines += ["", "Agent completion signal per JDK: " + "; ".join(
            f"JDK {j}: {', '.join(s['completion'])}" for j, s in out.items() if "completion" in s)]
    return lines, out


def main():
    raw = sys.argv[1]
    with open(os.path.join(raw, "meta.json"), encoding="utf-8") as f:
        meta = json.load(f)
    summary = cells(load(os.path.join(raw, "runs.jsonl")))
    geo = {metric: ratios(summary, metric) for metric in METRICS}
    modes = paired(meta["modes"])
    lines = ["# Benchmark results" + (" (--quick: a harness check, not a measurement)" if meta["quick"] else ""), "",
             f"- commit: `{meta['commit']}`{' (tree dirty)' if meta['dirty'] else ''}, {meta['date']}",
             f"- agent: {meta['agent']}",
             *([f"- before-agent (before-* modes): {meta['before_agent']}"] if meta.get("before_agent") else []),
             f"- JDKs: " + "; ".join(meta["jdks"]),
             f"- machine: {meta['machine']}",
             f"- load average at start / end: {meta['load_start']} / {meta.get('load_end', '?')}",
             f"- repetitions: {meta['reps']} (median reported), scale {meta['scale']}, "
             "configurations interleaved rep-major",
             f"- command: `{meta['command']}`", "",
             "Ratios are CPU or wall time with the mode / the same without an agent, medians from this run; "
             "[a, b] is a bootstrap 95% interval of a ratio, from this run's repetitions; "
             "\"> R\" marks a run stopped at the --max-ratio limit, and a geometric mean that includes one "
             "is a lower bound. "
             "Peak RSS delta compares median peak RSS (ru_maxrss) with the baseline's; output is the "
             "size of the profiler's files. Absolute times are not comparable between runs.", ""]
    full = sum(1 for c in summary.values() if c.get("reps") == meta["reps"])
    planned = len(meta["modes"]) * len(meta["programs"]) * len(meta["jdks"])
    if full < planned:
        lines += [f"**Incomplete:** {full} of {planned} (JDK, program, mode) cells have all {meta['reps']} reps; "
                  "the others have fewer reps, or stopped (timeout, failure, rejection), or never ran "
                  "because the run was cut short.", ""]
    lines += mode_tables(summary, geo, modes, meta["programs"])
    hd_lines, hd = heapdump_table(load(os.path.join(raw, "heapdump.jsonl")))
    lines += hd_lines
    with open(os.path.join(raw, "report.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    data = {"meta": meta, **{name: {f"{j}/{m}/{k}": {"value": v, "lower_bound": b, "interval95": ci}
                                    for (j, m, k), (v, b, ci) in geo[metric].items()}
                             for name, metric in (("geomean", "wall"), ("cpu_geomean", "cpu"))},
            "before_after": before_after(summary, geo, modes),
            "cells": [{"jdk": j, "program": p, "mode": m, **{f: x for f, x in c.items() if f not in ("walls", "cpus")}}
                      for (j, p, m), c in summary.items()],
            "heapdump": hd}
    with open(os.path.join(raw, "report.json"), "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)


if __name__ == "__main__":
    main()
