"""The profile commands on the agent's own output: every mode in ascii and
binary (ProfHot: hot() does three units of work for each of cold()'s, on two
threads; allocBig() allocates 1000 byte[4096], allocSmall() 5000 Integer[2]).
Totals are checked against the totals the files state, read here
independently of hprof. Usage (from CTest):
  profiles_test.py --java-home H --agent LIB --jar JAR --lib DIR --work DIR --cli HPROF"""
import gzip
import html
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import unittest

ARGS = dict(zip(sys.argv[1::2], sys.argv[2::2]))
sys.path.insert(0, ARGS["--lib"])
import hproftest as ht  # noqa: E402

# name -> agent options; every profile is generated once per run
MODES = {
    "samples_a": "cpu=samples",
    "samples_b": "cpu=samples,format=b",
    "samples_thread_a": "cpu=samples,thread=y",
    "sites_samples_thread_b": "heap=sites,cpu=samples,thread=y,format=b",
    "times_a": "cpu=times",
    "old_a": "cpu=old",
    "sites_a": "heap=sites",
    "sites_b": "heap=sites,format=b",
    "all_a": "heap=all",
    "all_b": "heap=all,format=b",
    "times_sites_thread_a": "heap=sites,cpu=times,thread=y",
}
# two heap dumps, the second with 2500 more ProfExtra objects
DUMPS = {"dump_a": ("heap=dump,format=b", []), "dump_b": ("heap=dump,format=b", ["2500"])}
KIND_VALUES = {"samples": ["samples"], "times": ["calls", "time"], "old": ["calls", "time"],
               "sites": ["alloc-objects", "alloc-bytes", "live-objects", "live-bytes"]}


def stated_totals(path):
    """{kind: [total per value]} as the file states them."""
    with open(path, "rb") as f:
        data = f.read()
    if data.startswith(b"JAVA PROFILE 1.0.2\0") or data.startswith(b"JAVA PROFILE 1.0.1\0"):
        return binary_totals(ht.BinaryProfile(data))
    return ascii_totals(data.decode("utf-8", "replace"))


def binary_totals(prof):
    out = {}
    samples = prof.named("CPU SAMPLES")
    if samples:
        out["samples"] = [sum(struct.unpack_from(">I", b, 0)[0] for _, _, b in samples)]
    sites = prof.named("ALLOC SITES")
    if sites:
        b = sites[-1][2]
        live_bytes, live_objs, alloc_bytes, alloc_objs = struct.unpack_from(">IIQQ", b, 6)
        out["sites"] = [alloc_objs, alloc_bytes, live_objs, live_bytes]
    return out


def ascii_totals(text):
    out = {}
    totals = [int(t) for t in re.findall(r"^CPU SAMPLES BEGIN \(total = (\d+)\)", text, re.M)]
    if totals:
        out["samples"] = [sum(totals)]
    times = re.findall(r"^CPU TIME \(ms\) BEGIN \(total = (\d+)\)", text, re.M)
    if times:
        calls = re.findall(r"^CPU TIME \(ms\) BEGIN.*?^CPU TIME \(ms\) END", text, re.M | re.S)
        ncalls = sum(int(m) for sec in calls
                     for m in re.findall(r"^\s*\d+\s+\S+%\s+\S+%\s+(\d+) ", sec, re.M))
        out["times"] = [ncalls, sum(int(t) for t in times)]
    old = re.findall(r"^(\d+) \S.* (\d+)$", text, re.M) if "count callee caller time" in text else []
    if old:
        out["old"] = [sum(int(c) for c, _ in old), sum(int(t) for _, t in old)]
    sites = re.findall(r"^SITES BEGIN.*?^SITES END", text, re.M | re.S)
    if sites:
        rows = re.findall(r"^\s*\d+\s+\S+%\s+\S+%\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+) ", sites[-1], re.M)
        lb, lo, ab, ao = (sum(int(r[i]) for r in rows) for i in range(4))
        out["sites"] = [ao, ab, lo, lb]
    return out


# pprof sample types per kind, and the factor from the hprof value they come from
PPROF_TYPES = {
    "samples": [("samples/count", 0, 1), ("cpu/nanoseconds", 0, 10_000_000)],
    "times": [("calls/count", 0, 1), ("cpu/nanoseconds", 1, 1_000_000)],
    "old": [("calls/count", 0, 1), ("cpu/nanoseconds", 1, 1_000_000)],
    "sites": [("alloc_objects/count", 0, 1), ("alloc_space/bytes", 1, 1),
              ("inuse_objects/count", 2, 1), ("inuse_space/bytes", 3, 1)],
}


def go_pprof(*args):
    go = shutil.which("go") or "/usr/lib/go/bin/go"
    r = subprocess.run([go, "tool", "pprof"] + list(args), capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def pprof_raw_totals(path):
    """Sample types and the sum of each value, as Go's own reader sees them."""
    lines = go_pprof("-raw", path).splitlines()
    at = lines.index("Samples:")
    types = [t.replace("[dflt]", "") for t in lines[at + 1].split()]
    sums = [0] * len(types)
    for line in lines[at + 2:]:
        m = re.match(r"^\s+(\d+(?:\s+\d+)*): ", line)
        if m:
            for i, v in enumerate(m.group(1).split()):
                sums[i] += int(v)
        elif not line.startswith(" "):
            break
    return types, sums


def make_case(env):
    cli = env.cli
    env.work = os.path.join(env.work, os.path.basename(env.java_home.rstrip("/")))
    os.makedirs(env.work, exist_ok=True)
    files = {}
    for name, opts in MODES.items():
        path = os.path.join(env.work, name + ".hprof")
        r = ht.run_java(env, f"{opts},file={path},verbose=n", ["ProfHot", "10", "4000000"])
        assert r.returncode == 0, r.stderr
        files[name] = path
    for name, (opts, extra) in DUMPS.items():
        path = os.path.join(env.work, name + ".hprof")
        r = ht.run_java(env, f"{opts},file={path},verbose=n", ["ProfHot", "1", "1000"] + extra)
        assert r.returncode == 0, r.stderr
        files[name] = path

    def hprof(*args, check=True):
        r = subprocess.run([cli] + list(args), capture_output=True)
        if check and r.returncode != 0:
            raise AssertionError(f"hprof {' '.join(args)}: {r.returncode} {r.stderr.decode()}")
        return r

    def collapsed(name, *opts):
        """{path: count} of `hprof collapsed`, each path once."""
        out = {}
        for line in hprof("collapsed", files[name], *opts).stdout.decode().splitlines():
            stack, count = line.rsplit(" ", 1)
            assert stack not in out, f"{stack} twice"
            out[stack] = int(count)
        return out

    def ending(counts, suffix):
        return sum(c for s, c in counts.items() if s.endswith(suffix))

    class ProfilesTest(unittest.TestCase):
        def test_collapsed_totals_equal_the_files_totals(self):
            for name in MODES:
                for kind, totals in stated_totals(files[name]).items():
                    for value, total in zip(KIND_VALUES[kind], totals):
                        got = sum(collapsed(name, "--kind", kind, "--value", value).values())
                        self.assertEqual(got, total, f"{name} {kind} {value}")

        def test_hot_outweighs_cold(self):
            for name in ("samples_a", "samples_b", "times_a"):
                c = collapsed(name)
                hot, cold = ending(c, "ProfHot.hot;ProfHot.unit"), ending(c, "ProfHot.cold;ProfHot.unit")
                self.assertGreater(hot, cold, f"{name}: hot {hot}, cold {cold}")

        def test_sites_count_the_known_allocations(self):
            for name in ("sites_a", "sites_b", "sites_samples_thread_b", "all_a", "all_b",
                         "times_sites_thread_a"):
                c = collapsed(name, "--kind", "sites", "--value", "alloc-objects")
                self.assertEqual(ending(c, "ProfHot.allocBig;byte[]"), 1000, name)
                self.assertEqual(ending(c, "ProfHot.allocSmall;java.lang.Integer[]"), 5000, name)

        def test_old_counts_caller_callee_pairs(self):
            c = collapsed("old_a", "--value", "calls")
            self.assertEqual(c.get("ProfHot.allocSmall;java.util.ArrayList.add"), 5000)

        def test_threads(self):
            for name in ("samples_thread_a", "sites_samples_thread_b", "times_sites_thread_a"):
                roots = {s.split(";")[0] for s in collapsed(name, "--threads")}
                self.assertIn("[thread main]", roots, name)
                self.assertIn("[thread worker]", roots, name)
            r = hprof("collapsed", files["samples_a"], "--threads", check=False)
            self.assertEqual(r.returncode, 4)

        def test_truncated_files_fail_with_one_line(self):
            # inside the last record, or before the END line of the last report
            for name, end in (("samples_b", None), ("samples_a", b"CPU SAMPLES END"),
                              ("sites_a", b"SITES END")):
                with open(files[name], "rb") as f:
                    data = f.read()
                bad = os.path.join(env.work, name + ".cut")
                with open(bad, "wb") as f:
                    f.write(data[:len(data) - 3] if end is None else data[:data.rindex(end)])
                r = hprof("collapsed", bad, check=False)
                self.assertEqual(r.returncode, 1, name)
                err = r.stderr.decode().splitlines()
                self.assertEqual(len(err), 1, err)
                self.assertTrue(err[0].startswith("hprof: error: " + bad + ": "), err)

        def test_flame_pages_add_up_to_the_files_totals(self):
            for name in MODES:
                for kind, totals in stated_totals(files[name]).items():
                    for value, total in zip(KIND_VALUES[kind], totals):
                        out = os.path.join(env.work, f"{name}.{kind}.html")
                        hprof("flame", files[name], "--kind", kind, "--value", value, "--minwidth",
                              "0", "-o", out)
                        with open(out, encoding="utf-8") as f:
                            html = f.read()
                        data = json.loads(re.search(r"var HPROF_DATA=(\{.*?\});", html).group(1))
                        self.assertEqual(data["trees"][0][3], total, f"{name} {kind} {value}")
                        self.assertEqual(data["trees"][1][3], total, f"{name} {kind} {value}")
                        names = re.search(r'<pre id="names" hidden>(.*?)</pre>', html, re.S)
                        self.assertIn("ProfHot.main", names.group(1).split("\n"), name)

        def test_agent_pseudo_frames_have_their_kinds(self):
            # cpu=samples writes CPU outside Java code as <GC>.x, <JIT>.x, <VM>.x, <hprof>.x and
            # unwalkable samples as <unwalkable>.reason: GC 7, JIT 8, VM 9, unwalkable 4
            want = {"<GC>": 7, "<JIT>": 8, "<VM>": 9, "<hprof>": 9, "<unwalkable>": 4}
            seen = set()
            for name in ("samples_a", "samples_b", "samples_thread_a"):
                out = os.path.join(env.work, name + ".pseudo.html")
                hprof("flame", files[name], "--minwidth", "0", "-o", out)
                with open(out, encoding="utf-8") as f:
                    page = f.read()
                data = json.loads(re.search(r"var HPROF_DATA=(\{.*?\});", page).group(1))
                pre = re.search(r'<pre id="names" hidden>\n(.*?)</pre>', page, re.S).group(1)
                names = html.unescape(pre).split("\n")  # a browser drops <pre>'s first newline
                tree = data["trees"][0]
                for i in range(0, len(tree), 5):
                    cls = names[tree[i]].split(".")[0]
                    if cls in want:
                        self.assertEqual(tree[i + 1], want[cls], f"{name}: {names[tree[i]]}")
                        seen.add(cls)
            self.assertTrue(seen)  # JIT threads and VM startup use CPU in every run

        def test_pprof_keeps_pseudo_frame_names(self):
            # pprof drops "<...>" as C++ template arguments: pseudo-frames go out as [GC].x
            out = os.path.join(env.work, "pseudo.pb.gz")
            hprof("pprof", files["samples_a"], "-o", out)
            names = [l.split()[-1] for l in go_pprof("-top", "-nodecount=1000", out).splitlines()
                     if re.match(r"^\s*\d", l)]
            pseudo = [n for n in names if n.startswith("[")]
            self.assertTrue(pseudo, names)
            for n in pseudo:
                self.assertRegex(n, r"^\[(GC|JIT|VM|hprof|unwalkable)\]\.[A-Za-z0-9]+$")
            self.assertFalse([n for n in names if n.startswith(".")], names)

        def test_diff_with_itself_is_empty(self):
            for name in list(MODES) + list(DUMPS):
                self.assertEqual(hprof("diff", files[name], files[name]).stdout, b"", name)
                out = json.loads(hprof("diff", "--json", files[name], files[name]).stdout)
                rows = out["classes"] if name in DUMPS else out["methods"] + out["stacks"]
                self.assertEqual(rows, [], name)

        def test_diff_of_two_profiles(self):
            a, b = files["samples_a"], files["samples_b"]
            out = json.loads(hprof("diff", "--json", a, b).stdout)
            self.assertEqual(out["a"]["total"], stated_totals(a)["samples"][0])
            self.assertEqual(out["b"]["total"], stated_totals(b)["samples"][0])
            for m in out["methods"]:
                want = 100 * m["total_b"] / out["b"]["total"] - 100 * m["total_a"] / out["a"]["total"]
                self.assertAlmostEqual(m["total_change"], want, places=4)
            keys = [max(abs(m["self_change"]), abs(m["total_change"])) for m in out["methods"]]
            self.assertEqual(keys, sorted(keys, reverse=True))  # largest change first
            r = hprof("diff", files["samples_a"], files["sites_a"], check=False)
            self.assertEqual(r.returncode, 4)

        def test_diff_of_two_heap_dumps(self):
            out = json.loads(hprof("diff", "--json", files["dump_a"], files["dump_b"]).stdout)
            top = out["classes"][0]
            self.assertEqual(top["class"], "ProfExtra")
            self.assertEqual(top["instances_b"] - top["instances_a"], 2500)
            self.assertIn("ProfExtra", hprof("diff", files["dump_a"], files["dump_b"]).stdout.decode())

        def test_flame_diff_widths_from_b(self):
            out = os.path.join(env.work, "diff.html")
            hprof("flame", "--diff", files["samples_a"], files["samples_b"], "-o", out)
            with open(out, encoding="utf-8") as f:
                data = json.loads(re.search(r"var HPROF_DATA=(\{.*?\});", f.read()).group(1))
            self.assertEqual(data["diff"], 1)
            self.assertEqual(data["trees"][0][3], stated_totals(files["samples_b"])["samples"][0])
            self.assertEqual(data["trees"][0][5], stated_totals(files["samples_a"])["samples"][0])

        def test_merge_with_itself_doubles_every_count(self):
            for name in MODES:
                out = os.path.join(env.work, name + ".merged")
                hprof("merge", files[name], files[name], "-o", out)
                with open(out, "rb") as f:
                    binary = f.read(19) == b"JAVA PROFILE 1.0.2\0"
                self.assertEqual(binary, name.endswith("_b"), name)  # the inputs' format
                if binary:
                    hprof("verify", out)
                elif name != "old_a":  # cpu=old files have no header
                    ht.read_ascii(out)
                for kind, totals in stated_totals(files[name]).items():
                    self.assertEqual(stated_totals(out)[kind], [2 * t for t in totals], name)
                    for value in KIND_VALUES[kind]:
                        if kind == "times" and value == "time":
                            continue  # ascii rows state rounded shares of the time
                        opts = ("--kind", kind, "--value", value)
                        before = collapsed(name, *opts)
                        files[name + ".merged"] = out
                        after = collapsed(name + ".merged", *opts)
                        self.assertEqual(after, {s: 2 * c for s, c in before.items()},
                                         f"{name} {kind} {value}")

        def test_merge_refuses_different_kinds(self):
            r = hprof("merge", files["samples_a"], files["sites_a"], "-o",
                      os.path.join(env.work, "bad.merged"), check=False)
            self.assertEqual(r.returncode, 2)
            self.assertIn("cannot merge different kinds", r.stderr.decode())
            self.assertFalse(os.path.exists(os.path.join(env.work, "bad.merged")))

        def test_merge_of_three_adds_up(self):
            names = ["samples_a", "samples_thread_a", "samples_a"]
            out = os.path.join(env.work, "three.merged")
            hprof("merge", *[files[n] for n in names], "-o", out)
            total = sum(stated_totals(files[n])["samples"][0] for n in names)
            self.assertEqual(stated_totals(out)["samples"], [total])
            files["three.merged"] = out
            self.assertEqual(sum(collapsed("three.merged").values()), total)

        def test_pprof_read_back_by_go(self):
            for name in MODES:
                for kind, totals in stated_totals(files[name]).items():
                    out = os.path.join(env.work, f"{name}.{kind}.pb.gz")
                    hprof("pprof", files[name], "--kind", kind, "-o", out)
                    types, sums = pprof_raw_totals(out)
                    want = PPROF_TYPES[kind]
                    self.assertEqual(types, [t for t, _, _ in want], name)
                    self.assertEqual(sums, [totals[i] * f for _, i, f in want], f"{name} {kind}")

        def test_pprof_top_entries(self):
            out = os.path.join(env.work, "top.pb.gz")
            for name, kind, index, value, top in (
                    ("samples_b", "samples", "samples", "samples", "ProfHot.unit"),
                    ("samples_a", "samples", "samples", "samples", "ProfHot.unit"),
                    ("sites_b", "sites", "alloc_objects", "alloc-objects", "java.lang.Integer[]"),
                    ("sites_a", "sites", "alloc_objects", "alloc-objects", "java.lang.Integer[]")):
                hprof("pprof", files[name], "--kind", kind, "-o", out)
                top_rows = go_pprof("-top", "-sample_index=" + index, out).splitlines()
                rows = [l.split() for l in top_rows if re.match(r"^\s*\d", l)]
                self.assertEqual(rows[0][-1], top, name)
                # its flat count is what the folded stacks ending in it add up to
                flat = collapsed(name, "--kind", kind, "--value", value)
                self.assertEqual(int(rows[0][0]), ending(flat, ";" + top), name)

        def test_gzipped_inputs_read_as_the_plain_files(self):
            def read(path):
                with open(path, "rb") as f:
                    return f.read()

            def outputs(cmd, *inputs):
                out = os.path.join(env.work, "gz.out")
                hprof(cmd, *inputs, "-o", out, *(("--title", "t") if cmd == "flame" else ()))
                return re.sub(rb'<span id="source">.*?</span>', b"", read(out))  # the file name

            for name in ("samples_a", "samples_b", "sites_b", "times_a", "old_a"):
                gz = files[name] + ".gz"
                with gzip.open(gz, "wb") as g:
                    g.write(read(files[name]))
                files[name + ".gz"] = gz
                self.assertEqual(collapsed(name + ".gz"), collapsed(name), name)
                for cmd in ("pprof", "flame"):
                    self.assertEqual(outputs(cmd, gz), outputs(cmd, files[name]), f"{name} {cmd}")
                self.assertEqual(outputs("merge", gz, gz), outputs("merge", files[name], files[name]),
                                 name)
                self.assertEqual(hprof("diff", gz, files[name]).stdout, b"", name)
            cut = os.path.join(env.work, "cut.hprof.gz")
            with open(cut, "wb") as f:
                f.write(read(files["samples_b.gz"])[:-20])
            for cmd in ("collapsed", "pprof", "flame", "merge"):
                r = hprof(cmd, cut, "-o", os.path.join(env.work, "cut.out"), check=False)
                self.assertEqual(r.returncode, 1, cmd)
                self.assertEqual(r.stderr.decode().splitlines(),
                                 [f"hprof: error: {cut}: gzip member truncated"], cmd)

    return ProfilesTest


if __name__ == "__main__":
    ht.main(make_case)
