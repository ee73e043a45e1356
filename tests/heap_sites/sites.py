"""Reading heap=sites output: the SITES table (ascii) and ALLOC SITES
records (binary), both turned into the same row dictionaries."""
import re
import struct

import hproftest as h

ROW = re.compile(r" *(\d+) +(\d+\.\d\d)% +(\d+\.\d\d)% +(\d+) +(\d+) +(\d+) +(\d+) +(\d+) (\S+)$")
TITLE = re.compile(r"SITES BEGIN \(ordered by live bytes\) " + h.DATE + "$")
HEAD1 = "          percent          live          alloc'ed  stack class"
HEAD2 = " rank   self  accum     bytes objs     bytes  objs trace name"
# ALLOC SITES array indicator per element signature character.
BASIC = {"L": 2, "[": 2, "Z": 4, "C": 5, "F": 6, "D": 7, "B": 8, "S": 9, "I": 10, "J": 11}
PRIM_NAMES = {"boolean": "Z", "char": "C", "float": "F", "double": "D", "byte": "B",
              "short": "S", "int": "I", "long": "J"}


def frame(cls, method, line):
    """A frame as the tests compare it: line is an int, or None if unknown."""
    return (cls, method, line)


def array_indicator(name):
    """Expected ALLOC SITES array type for a class name such as int[] or X[][]."""
    if not name.endswith("[]"):
        return 0
    elem = name[:-2]
    return 2 if elem.endswith("[]") or elem not in PRIM_NAMES else BASIC[PRIM_NAMES[elem]]


class Table:
    """One SITES table: rows (dicts) in file order plus totals."""

    def __init__(self, rows, totals, cutoff=None):
        self.rows, self.totals, self.cutoff = rows, totals, cutoff

    def find(self, cls, frames_prefix):
        """Rows of class `cls` whose trace starts with the given frames."""
        n = len(frames_prefix)
        return [r for r in self.rows if r["cls"] == cls and r["frames"][:n] == frames_prefix]


def ascii_tables(path):
    """Every SITES table of an ascii profile, checking layout and arithmetic."""
    text = open(path, encoding="utf-8").read()
    prof = h.AsciiProfile(text)
    tables = []
    body_start = text.index("\n--------\n")
    table_pos = body_start
    for title, body in prof.sections_named("SITES"):
        if not TITLE.match(title):
            raise AssertionError(f"bad SITES title {title!r}")
        if body[:2] != [HEAD1, HEAD2]:
            raise AssertionError(f"bad SITES header lines {body[:2]!r}")
        # Every cited trace precedes the table.
        table_pos = text.index("\n" + title + "\n", table_pos + 1)
        rows, accum = [], 0.0
        for i, line in enumerate(body[2:]):
            m = ROW.match(line)
            if not m:
                raise AssertionError(f"bad SITES row {line!r}")
            rank, self_pct, acc_pct, lb, lo, ab, ao, trace = (m.group(k) for k in range(1, 9))
            if int(rank) != i + 1:
                raise AssertionError(f"rank {rank} at row {i + 1}")
            serial = int(trace)
            if serial not in prof.traces:
                raise AssertionError(f"SITES cites unknown TRACE {serial}")
            if text.index(f"TRACE {serial}:", body_start) > table_pos:
                raise AssertionError(f"TRACE {serial} written after the SITES table")
            thread, frs = prof.traces[serial]
            rows.append({
                "cls": m.group(9), "trace": serial, "thread": thread,
                "frames": [frame(c, meth, int(ln) if ln.isdigit() else None)
                           for c, meth, _, ln in frs],
                "native_top": bool(frs) and frs[0][3] == "Native method",
                "self": float(self_pct), "accum": float(acc_pct),
                "live_bytes": int(lb), "live_objs": int(lo),
                "alloc_bytes": int(ab), "alloc_objs": int(ao)})
        live_total = sum(r["live_bytes"] for r in rows)
        for r in rows:  # percentages relative to all live bytes (shown or not)
            accum += r["self"]
            if abs(accum - r["accum"]) > 0.02 * (1 + len(rows)):
                raise AssertionError(f"accum {r['accum']} vs running sum {accum}")
        tables.append(Table(rows, {"live_bytes_shown": live_total}))
    return prof, tables


def binary_tables(path):
    """Every ALLOC SITES record of a binary profile, decoded and checked."""
    prof = h.read_binary(path)
    tables = []
    seen_traces = set()
    for tag, _, b in prof.records:
        name = h.TAGS[tag]
        if name == "TRACE":
            seen_traces.add(struct.unpack_from(">I", b, 0)[0])
        if name != "ALLOC SITES":
            continue
        flags, cutoff, lb, lo, ab, ao, n = struct.unpack_from(">HfIIQQI", b, 0)
        if flags != 0:
            raise AssertionError(f"ALLOC SITES flags {flags}")
        if len(b) != 34 + 25 * n:
            raise AssertionError(f"ALLOC SITES length {len(b)} for {n} sites")
        rows = []
        for i in range(n):
            arr, cser, tser, rlb, rlo, rab, rao = struct.unpack_from(">BIIIIII", b, 34 + 25 * i)
            if cser not in prof.classes:
                raise AssertionError(f"ALLOC SITES cites class {cser} before LOAD CLASS")
            if tser not in seen_traces:
                raise AssertionError(f"ALLOC SITES cites TRACE {tser} not written before it")
            cls = prof.classes[cser][1]
            if arr != array_indicator(cls):
                raise AssertionError(f"array indicator {arr} for {cls}")
            thread, frs = prof.traces[tser]
            rows.append({
                "cls": cls, "trace": tser, "thread": thread or None,
                "frames": [frame(c, meth, ln if ln > 0 else None) for c, meth, _, _, ln in frs],
                "native_top": bool(frs) and frs[0][4] == -3,
                "live_bytes": rlb, "live_objs": rlo, "alloc_bytes": rab, "alloc_objs": rao})
        tables.append(Table(rows, {"live_bytes": lb, "live_objs": lo,
                                   "alloc_bytes": ab, "alloc_objs": ao}, cutoff))
    return prof, tables
