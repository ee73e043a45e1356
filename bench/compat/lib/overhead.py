"""Renders one mode's CPU-time overhead on every matrix program from compatibility runs made
with --reps: per JDK, the median CPU seconds without agent and under the mode, their ratio with a
bootstrap 95 % interval, the objects each program allocates (from a run of the sites-all mode)
and the floor ratio: the time without agent plus one JNI weak reference per object at the
measured cost (bench/floor), over the time without agent. Cells are merged as table.py does.

Usage: overhead.py <raw>... [--mode heap-all] [--count-mode sites-all] [--limit 3]
                   [--floor-ns 17=73.3,25=76.7] [--out FILE]
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import report  # noqa: E402
import table  # noqa: E402


def floor_table(text):
    """{"17": 73.3, ...} from "17=73.3,25=76.7"."""
    return {jdk: float(ns) for jdk, ns in (item.split("=") for item in text.split(","))}


def number(value):
    return "–" if value is None else f"{value:.2f}"


def verdict(ratio, interval, floor_ratio, limit):
    if ratio <= limit:
        return f"≤ {limit:g}x" if not interval or interval[1] <= limit else f"≤ {limit:g}x (interval reaches over)"
    if floor_ratio is not None and floor_ratio > limit:
        return f"over; the floor alone is {floor_ratio:.2f}x"
    return f"**over {limit:g}x**"


def rows(cells, jdk, mode, count_mode, floor_ns, limit):
    """The table rows of one JDK and the number of programs over the limit."""
    by_key = {(c["program"], c["mode"]): c for c in cells if c["jdk"] == jdk}
    rng, lines, over = random.Random(1), [], 0
    for program in dict.fromkeys(p for p, _ in by_key):
        base, cell = by_key.get((program, "none")), by_key.get((program, mode))
        if not base or not cell or not cell.get("base_cpus"):
            continue
        if cell["outcome"] != "ok" or "cpus" not in cell:  # a run stopped at --max-ratio is over
            over += cell["outcome"] in ("slow", "hang")
            lines.append(f"| {program} | {cell['base_cpu']:.2f} | {cell['outcome']} | | | | **{cell['outcome']}** |")
            continue
        base_cpu = cell["base_cpu"]  # the median without agent of the cell's own run
        ratio = cell["cpu_s"] / base_cpu
        interval = report.bootstrap([(cell["cpus"], cell["base_cpus"])], rng)
        objects = (by_key.get((program, count_mode)) or {}).get("sites_objs")
        floor_ratio = (base_cpu + objects * floor_ns * 1e-9) / base_cpu if objects is not None else None
        over += ratio > limit
        lines.append(f"| {program} | {base_cpu:.2f} | {cell['cpu_s']:.2f} | {ratio:.2f}"
                     f"{report.ci_text(interval)} | {number(objects and objects / 1e6)} | {number(floor_ratio)} | "
                     f"{verdict(ratio, interval, floor_ratio, limit)} |")
    return lines, over


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw", nargs="+")
    ap.add_argument("--mode", default="heap-all")
    ap.add_argument("--count-mode", default="sites-all")
    ap.add_argument("--limit", type=float, default=3)
    ap.add_argument("--floor-ns", default="17=73.3,25=76.7", help="ns per object of the floor, per JDK")
    ap.add_argument("--out")
    args = ap.parse_args()
    metas, cells = table.load(args.raw)
    floors = floor_table(args.floor_ns)
    text = ["Runs:", ""] + [line for meta in metas for line in table.describe(meta)]
    for jdk in dict.fromkeys(c["jdk"] for c in cells):
        lines, over = rows(cells, jdk, args.mode, args.count_mode, floors[jdk], args.limit)
        text += ["", f"## JDK {jdk}: {args.mode}, {over} of {len(lines)} programs over {args.limit:g}x CPU", "",
                 f"| program | no agent CPU s | {args.mode} CPU s | ratio [95 %] | objects (M) | floor ratio | verdict |",
                 "|---|---:|---:|---|---:|---:|---|"] + lines
    out = "\n".join(text) + "\n"
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(out)
    print(out, end="")


if __name__ == "__main__":
    main()
