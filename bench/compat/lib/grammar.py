"""Checks an ascii profile against the java.hprof.txt grammar, or the cpu=old format.

The file's frame (header line, prelude, separator, THREAD/TRACE/WAIT records, sections closed by
their END lines) is parsed by tests/lib/hproftest.py's strict AsciiProfile; this module adds the
section bodies: every row of SITES, CPU SAMPLES, CPU TIME, MONITOR DUMP, MONITOR TIME and HEAP DUMP
must match its layout, ranks count up from 1, and every trace a row cites was written before it.
A cpu=old file is the header "count callee caller time" followed by rows, repeated per dump.

Usage: grammar.py FILE...  (prints one line per problem; exit status 1 if any)
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tests", "lib"))
import hproftest  # noqa: E402

DATE = hproftest.DATE
PCT = r"\s*\d+\.\d\d%"
RANKED = rf"\s*(?P<rank>\d+){PCT}{PCT}"
HEX = "[0-9a-f]+"

# Section title -> (BEGIN line pattern, column header lines, row patterns); a row pattern's named
# groups "rank" and "trace" are cross-checked.
SECTIONS = {
    "SITES": (rf"SITES BEGIN \(ordered by (live bytes|allocated bytes)\) {DATE}$",
              ["          percent          live          alloc'ed  stack class",
               " rank   self  accum     bytes objs     bytes  objs trace name"],
              [rf"{RANKED}\s+\d+\s+\d+\s+\d+\s+\d+\s+(?P<trace>\d+) \S.*$"]),
    "CPU SAMPLES": (rf"CPU SAMPLES BEGIN \(total = \d+\) {DATE}$",
                    ["rank   self  accum   count trace method"],
                    [rf"{RANKED}\s+\d+\s+(?P<trace>\d+) \S.*$"]),
    "CPU TIME (ms)": (rf"CPU TIME \(ms\) BEGIN \(total = \d+\) {DATE}$",
                      ["rank   self  accum   count trace method"],
                      [rf"{RANKED}\s+\d+\s+(?P<trace>\d+) \S.*$"]),
    "MONITOR TIME": (rf"MONITOR TIME BEGIN \(total = \d+ ms\) {DATE}$",
                     ["rank   self  accum   count trace monitor"],
                     [rf"{RANKED}\s+\d+\s+(?P<trace>\d+) \S.* \(Java\)$"]),
    "MONITOR DUMP": (r"MONITOR DUMP BEGIN$", [],
                     [r"    THREAD \d+, trace (?P<trace>\d+), status: \S+$",
                      r"    MONITOR \S.*$",
                      r"\towner: thread \d+, entry count: \d+$",
                      r"\twaiting to (enter|be notified):( thread \d+(, thread \d+)*)?$"]),
    "HEAP DUMP": (rf"HEAP DUMP BEGIN \(\d+ objects, \d+ bytes\) {DATE}$", [],
                  [rf"ROOT {HEX} \(kind=<[a-zA-Z ]+>(, \w+=[^,)]*)*\)$",
                   rf"OBJ {HEX} \(sz=\d+, trace=(?P<trace>\d+), class=\S.*@{HEX}\)$",
                   rf"ARR {HEX} \(sz=\d+, trace=(?P<trace>\d+), nelems=\d+, elem type=\S.*\)$",
                   rf"CLS {HEX} \(name=\S.*, trace=(?P<trace>\d+)\)$",
                   rf"\t[^\t]+\t\t?{HEX}$"]),
}
SECTION_BEGIN = re.compile("(" + "|".join(re.escape(s) for s in SECTIONS) + ") BEGIN")
COMPILED = {name: (re.compile(begin), heads, [re.compile(r) for r in rows])
            for name, (begin, heads, rows) in SECTIONS.items()}
CPU_OLD_HEADER = "count callee caller time"
CPU_OLD_ROW = re.compile(r"\d+ \S.* -?\d+$")
TRACE_EMPTY = 300000  # cited for "no trace" without a TRACE block


def check_section(name, lines, start, traces):
    """Problems in one section whose BEGIN line is lines[start]; returns (problems, END index)."""
    begin, heads, rows = COMPILED[name]
    problems = []
    if not begin.match(lines[start]):
        problems.append(f"line {start + 1}: bad {name} BEGIN line {lines[start]!r}")
    i, rank = start + 1, 0
    for head in heads:
        if i < len(lines) and lines[i] == head:
            i += 1
    while i < len(lines) and lines[i] != f"{name} END":
        line = lines[i]
        match = next((m for m in (r.match(line) for r in rows) if m), None)
        if not match:
            problems.append(f"line {i + 1}: bad {name} row {line!r}")
            leading = re.match(r"\s*(\d+) ", line)
            rank = int(leading.group(1)) if leading else rank  # one bad row is one problem
        else:
            groups = match.groupdict()
            if groups.get("rank") is not None:
                rank += 1
                if int(groups["rank"]) != rank:
                    problems.append(f"line {i + 1}: {name} rank {groups['rank']}, expected {rank}")
            trace = groups.get("trace")
            if trace is not None and int(trace) != TRACE_EMPTY and int(trace) not in traces:
                problems.append(f"line {i + 1}: {name} cites TRACE {trace} before it was written")
        i += 1
    return problems, i


def check_hprof_text(text):
    """Problems of a java.hprof.txt, at most one per line, [] if it follows the grammar."""
    try:
        hproftest.AsciiProfile(text)
    except (AssertionError, ValueError, IndexError) as e:
        return [f"frame: {e}"]
    lines = text.split("\n")
    problems, traces = [], set()
    i = lines.index("--------") + 1
    while i < len(lines):
        line = lines[i]
        head = hproftest.TRACE_HEAD.match(line)
        section = SECTION_BEGIN.match(line)
        if head:
            traces.add(int(head.group(1)))
        elif section:
            found, i = check_section(section.group(1), lines, i, traces)
            problems += found
        i += 1
    return problems


def check_cpu_old_text(text):
    problems = []
    lines = text.split("\n")
    if lines[-1] != "":
        problems.append("file does not end with a newline")
    for n, line in enumerate(lines[:-1], 1):
        if line != CPU_OLD_HEADER and not CPU_OLD_ROW.match(line):
            problems.append(f"line {n}: bad cpu=old row {line!r}")
    return problems


def check_file(path):
    """Problems of one ascii profile file (either format), [] if well-formed."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    if not text:
        return ["empty file"]
    if text.startswith(CPU_OLD_HEADER + "\n"):
        return check_cpu_old_text(text)
    return check_hprof_text(text)


def main():
    bad = 0
    for path in sys.argv[1:]:
        problems = check_file(path)
        for p in problems[:20]:
            print(f"{path}: {p}")
        bad += bool(problems)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
