#!/usr/bin/env python3
"""Splits a JVM's CPU by what it did, from `perf script --no-inline -F comm,ip,sym`
output of call-graph samples (stdin). Each sample goes to the first rule that
matches its thread name or any frame of its stack. Prints one `name<TAB>samples
per run` line per rule; argv[1] is the number of runs pooled in the input.
Used by bench/startup_cost.sh."""
import sys


def on_stack(*prefixes):
    return lambda comm, frames: any(f.startswith(prefixes) for f in frames)


def containing(*parts):
    return lambda comm, frames: any(p in f for f in frames for p in parts)


RULES = [
    ("JIT compilers (C1, C2 threads)", lambda c, f: c.startswith(("C1 ", "C2 "))),
    ("GC threads", lambda c, f: c.startswith(("GC ", "G1 "))),
    ("VM thread (GCs, heap walks, tag map)", lambda c, f: c.startswith("VM Thread")),
    ("agent threads", lambda c, f: c.startswith("HPROF")),
    ("agent: exit (dump at VM death)", on_stack("on_vm_death", "hp_recording_end")),
    ("agent: VM init", on_stack("on_vm_init", "hp_recording_live")),
    ("agent: rewrite in ClassFileLoadHook", on_stack("rewrite_class", "on_class_file_load")),
    ("VMObjectAlloc events", containing("post_vm_object_alloc", "on_vm_object_alloc")),
    ("verification", containing("Verifier")),
    ("class load and parse", on_stack("ClassFileParser", "KlassFactory", "SystemDictionary::load",
                                      "ClassLoader::load", "jvm_define_class")),
    ("link (bytecode rewriting, vtables)", containing("link_class")),
    ("interpreter", lambda c, f: bool(f) and f[0].startswith(
        ("Interpreter", "InterpreterRuntime", "TemplateInterpreter"))),
    ("compiled Java", lambda c, f: bool(f) and "(" in f[0] and "::" not in f[0]),
    ("other", lambda c, f: True),
]


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    counts = {name: 0 for name, _ in RULES}
    comm, frames = None, []

    def flush():
        if comm is None:
            return
        names = [f.split(None, 1)[1] if " " in f else "?" for f in frames]
        for name, rule in RULES:
            if rule(comm, names):
                counts[name] += 1
                return

    for line in sys.stdin:
        if not line.strip():
            flush()
            comm, frames = None, []
        elif comm is None and not line.startswith("\t"):
            comm = line.rstrip()
        else:
            frames.append(line.strip())
    flush()
    for name, _ in RULES:
        print(f"{name}\t{counts[name] / runs:.0f}")


if __name__ == "__main__":
    main()
