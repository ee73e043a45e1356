"""Reads modes.conf and programs.conf (name | ... lines) and fills placeholders."""
import os
import shlex

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_table(name):
    """Returns the '|'-separated rows of bench/<name>, without comments and blank lines."""
    rows = []
    with open(os.path.join(BENCH, name), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                rows.append([cell.strip() for cell in line.split("|")])
    return rows


def modes(name="modes.conf"):
    """{name: options template} in file order, from bench/<name>."""
    return {row[0]: row[1] for row in read_table(name)}


def programs():
    """{name: (kind, command template)} in file order."""
    return {row[0]: (row[1], row[2]) for row in read_table("programs.conf")}


WORK = os.path.join(BENCH, "work")


def placeholders(scale, feature):
    """The placeholders every programs.conf line may use (see its header)."""
    return {"scale": scale, "feature": feature, "bench": BENCH, "work": WORK,
            "classes": os.path.join(WORK, "classes", feature), "inputs": os.path.join(WORK, "inputs")}


def fill(template, values):
    """Splits a template into arguments and substitutes {placeholders}."""
    return [arg.format(**values) for arg in shlex.split(template)]
