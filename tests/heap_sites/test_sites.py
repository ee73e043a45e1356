"""heap=sites integration tests: programs with known allocation counts,
exact and sampled, ascii and binary, on the JDK given by --java-home.

Sizes assume HotSpot's 64-bit defaults (compressed oops and class
pointers, 8-byte alignment): a 12-byte object header, a 16-byte array
header."""
import collections
import os
import re
import struct
import sys
import unittest

import hproftest as h
import sites

ITEM = "SitesProg$Item"
ITEM_SIZE = 24  # header 12 + long 8, aligned


def align(n):
    return (n + 7) & ~7


def array_size(elem_bytes, length):
    return align(16 + elem_bytes * length)


def make_case(env):
    source = dict(zip(sys.argv[1::2], sys.argv[2::2]))["--source"]
    line = h.source_markers([source], ["SITE"])

    class HeapSites(unittest.TestCase):
        def run_prog(self, name, options, *args, binary=False):
            """Runs SitesProg with heap=sites; returns the single SITES table."""
            out = os.path.join(env.work, f"sites-{name}.{'bin' if binary else 'txt'}")
            opts = f"heap=sites,file={out}" + (",format=b" if binary else "") + options
            res = h.run_java(env, opts, ["SitesProg"] + [str(a) for a in args])
            self.assertEqual(res.returncode, 0, res.stderr)
            self.assertNotIn("HPROF ERROR", res.stderr)
            self.assertIn("Dumping allocation sites ... done.", res.stderr)
            prof, tables = (sites.binary_tables if binary else sites.ascii_tables)(out)
            self.assertEqual(len(tables), 1)
            self.check_order(tables[0])
            return prof, tables[0]

        def check_order(self, t):
            keys = [r["live_bytes"] for r in t.rows]
            self.assertEqual(keys, sorted(keys, reverse=True), "rows not by live bytes")
            for r in t.rows:
                self.assertLessEqual(r["live_objs"], r["alloc_objs"])
                self.assertLessEqual(r["live_bytes"], r["alloc_bytes"])

        def one_row(self, t, cls, frames):
            rows = t.find(cls, frames)
            self.assertEqual(len(rows), 1, f"{cls} at {frames}: {rows}")
            return rows[0]

        def at(self, method, site):
            return sites.frame("SitesProg", method, line[site])

        def caller(self, method, site):
            # Both routes give a caller the line of its call.
            return sites.frame("SitesProg", method, line[site])

        def check_basic(self, t, n, keep, caller=("main", "dispatch")):
            r = self.one_row(t, ITEM, [self.at("allocate", "basic"), self.caller(*caller)])
            self.assertEqual((r["alloc_objs"], r["alloc_bytes"]), (n, n * ITEM_SIZE))
            self.assertEqual((r["live_objs"], r["live_bytes"]), (keep, keep * ITEM_SIZE))

        # ------------------------------------------------------------ exact

        def test_basic_ascii(self):
            _, t = self.run_prog("basic", "", "basic", 20000, 700)
            self.check_basic(t, 20000, 700)
            total = 100.0 * t.rows[0]["live_bytes"] / sum(r["live_bytes"] for r in t.rows)
            self.assertLessEqual(t.rows[0]["self"], total + 0.01)

        def test_basic_binary(self):
            prof, t = self.run_prog("basic", "", "basic", 20000, 700, binary=True)
            self.check_basic(t, 20000, 700)
            self.assertEqual(t.cutoff, struct.unpack(">f", struct.pack(">f", 0.0001))[0])
            self.assertGreaterEqual(t.totals["alloc_objs"], sum(r["alloc_objs"] for r in t.rows))
            self.assertGreaterEqual(t.totals["live_bytes"], sum(r["live_bytes"] for r in t.rows))
            if env.cli and os.path.exists(env.cli):
                res = h.subprocess.run([env.cli, "verify", os.path.join(env.work, "sites-basic.bin")],
                                       capture_output=True, text=True)
                self.assertEqual(res.returncode, 0, res.stdout + res.stderr)

        def test_heap_all(self):
            # heap=dump runs first and tags what it finds; SITES stays exact
            # and the dump's objects cite their allocation trace.
            out = os.path.join(env.work, "sites-all.txt")
            res = h.run_java(env, f"heap=all,file={out}", ["SitesProg", "basic", "20000", "700"])
            self.assertEqual(res.returncode, 0, res.stderr)
            prof, tables = sites.ascii_tables(out)
            self.assertEqual(len(tables), 1)
            self.check_basic(tables[0], 20000, 700)
            trace = tables[0].find(ITEM, [self.at("allocate", "basic")])[0]["trace"]
            dumps = prof.sections_named("HEAP DUMP")
            self.assertEqual(len(dumps), 1)
            cited = [l for l in dumps[0][1] if l.startswith("OBJ ") and f"class={ITEM}@" in l
                     and f"trace={trace}," in l]
            self.assertGreaterEqual(len(cited), 700)

        def test_heap_all_collects_once_per_dump(self):
            # heap=all's heap dump and SITES share one forced collection:
            # a second one right after the first freed nothing (a full GC
            # of 18-38 ms at the exit of a 0.5 s program).
            if re.search(r"-XX:\+Use(?!G1)\w+GC", os.environ.get("JAVA_TOOL_OPTIONS", "")):
                self.skipTest("reads G1's log")
            out = os.path.join(env.work, "sites-all-gc.txt")
            res = h.run_java(env, f"heap=all,file={out}", ["SitesProg", "basic", "20000", "700"],
                             extra_jvm=["-XX:+UseG1GC", "-Xlog:gc:stderr"])
            self.assertEqual(res.returncode, 0, res.stderr[-2000:])
            forced = [l for l in res.stderr.splitlines() if "JvmtiEnv ForceGarbageCollection" in l]
            self.assertEqual(len(forced), 1, forced)
            _, tables = sites.ascii_tables(out)
            self.check_basic(tables[0], 20000, 700)

        def test_heap_all_counts_as_exact_heap_sites(self):
            # heap=all counts on the exact route too: its rows with SitesProg
            # frames allocate what exact heap=sites' do, and as it tags every
            # object its live counts are exact: the objects of a class that
            # cite a trace in the dump.
            def allocated(t):
                return {(r["cls"], tuple(r["frames"])): (r["alloc_objs"], r["alloc_bytes"])
                        for r in t.rows if any(f[0] == "SitesProg" for f in r["frames"])}
            _, exact = self.run_prog("mixed-exact", ",cutoff=0", "mixed", 20000)
            out = os.path.join(env.work, "sites-mixed-all.txt")
            res = h.run_java(env, f"heap=all,cutoff=0,file={out}", ["SitesProg", "mixed", "20000"])
            self.assertEqual(res.returncode, 0, res.stderr)
            self.assertNotIn("HPROF ERROR", res.stderr)
            prof, tables = sites.ascii_tables(out)
            self.assertEqual(len(tables), 1)
            self.assertEqual(allocated(tables[0]), allocated(exact))
            self.assertGreaterEqual(len(allocated(exact)), 6)
            dump = prof.sections_named("HEAP DUMP")[0][1]
            cited = collections.Counter(re.findall(r"^OBJ \w+ \(sz=\d+, trace=(\d+), class=(SitesProg\S*)@",
                                                   "\n".join(dump), re.M))
            rows = {(str(r["trace"]), r["cls"]): r["live_objs"] for r in tables[0].rows
                    if r["cls"].startswith("SitesProg") and not r["cls"].endswith("]")}
            self.assertEqual(rows, {k: v for k, v in cited.items() if k in rows})
            self.assertEqual(sum(rows.values()), 18000)  # the Items kept

        def test_heap_all_survivors_of_ended_threads_cite_their_trace(self):
            # heap=all tags the objects alive at a dump: those kept by
            # threads that ended before the dump, half of them across a
            # collection, are live and cite their trace.
            threads, n = 4, 30000
            out = os.path.join(env.work, "sites-survivors.txt")
            res = h.run_java(env, f"heap=all,file={out}",
                             ["SitesProg", "survivors", str(n), str(threads)])
            self.assertEqual(res.returncode, 0, res.stderr)
            self.assertNotIn("HPROF ERROR", res.stderr)
            prof, tables = sites.ascii_tables(out)
            r = self.one_row(tables[0], ITEM, [self.at("keepTenth", "survivor")])
            kept = threads * n // 10
            self.assertEqual((r["alloc_objs"], r["live_objs"]), (threads * n, kept))
            dump = prof.sections_named("HEAP DUMP")[0][1]
            cited = [l for l in dump if l.startswith("OBJ ") and f"class={ITEM}@" in l
                     and f"trace={r['trace']}," in l]
            self.assertEqual(len(cited), kept)

        def test_heap_all_tags_nothing_between_dumps(self):
            # heap=all tags at a dump only: objects that live through a
            # collection and die before any dump never enter JVM TI's tag
            # map, whose size G1 logs per collection (the total of
            # "JVMTI Tag Weak OopStorage"). Tagging them after a collection
            # grew it by n each round.
            if re.search(r"-XX:\+Use(?!G1)\w+GC", os.environ.get("JAVA_TOOL_OPTIONS", "")):
                self.skipTest("reads G1's log")
            n = 100000
            out = os.path.join(env.work, "sites-outlive.txt")
            g1_log = ["-XX:+UseG1GC", "-Xlog:gc+phases=debug:stderr"]
            res = h.run_java(env, f"heap=all,cutoff=0,file={out}",
                             ["SitesProg", "outlive", str(n), "3"], extra_jvm=g1_log)
            self.assertEqual(res.returncode, 0, res.stderr[-2000:])
            self.assertNotIn("HPROF ERROR", res.stderr)
            totals, storage = [], None
            for l in res.stderr.splitlines():
                m = re.search(r"GC\(\d+\)\s+(\S.*?)\s+Min:.*Sum:\s+(\d+)", l)
                if not m:
                    continue
                if m.group(1) == "Total" and storage == "JVMTI Tag Weak OopStorage":
                    totals.append(int(m.group(2)))
                elif m.group(1) not in ("Dead", "Total"):
                    storage = m.group(1)
            self.assertGreaterEqual(len(totals), 6, "no tag map sizes in the GC log")
            self.assertLess(max(totals), n // 2, totals)
            _, tables = sites.ascii_tables(out)
            r = self.one_row(tables[0], ITEM, [self.at("outlive", "outlive")])
            self.assertEqual((r["alloc_objs"], r["live_objs"]), (3 * n, 0))

        def test_garbage_only_site_hidden_by_default_cutoff(self):
            _, t = self.run_prog("garbage", "", "basic", 5000, 0)
            self.assertEqual(t.find(ITEM, [self.at("allocate", "basic")]), [])
            _, t = self.run_prog("garbage0", ",cutoff=0", "basic", 5000, 0)
            r = self.one_row(t, ITEM, [self.at("allocate", "basic")])
            self.assertEqual((r["alloc_objs"], r["live_objs"], r["live_bytes"]), (5000, 0, 0))

        def test_primitive_arrays(self):
            n = 300
            sizes = {"boolean": 1, "byte": 1, "char": 2, "short": 2, "int": 4, "long": 8,
                     "float": 4, "double": 8}
            for binary in (False, True):
                _, t = self.run_prog("prims", "", "prims", n, binary=binary)
                for prim, size in sizes.items():
                    r = self.one_row(t, prim + "[]", [self.at("primitives", prim)])
                    each = array_size(size, 10)
                    self.assertEqual((r["alloc_objs"], r["alloc_bytes"]), (n, n * each), prim)
                    self.assertEqual((r["live_objs"], r["live_bytes"]), (n, n * each), prim)
                r = self.one_row(t, ITEM + "[]", [self.at("primitives", "objarray")])
                self.assertEqual((r["alloc_objs"], r["alloc_bytes"]), (n, n * array_size(4, 10)))

        def test_live_bytes_follow_each_sites_sizes(self):
            # Past its first tagged objects a site's live count is estimated;
            # its live bytes come from its own sizes, not its class's mean.
            n = 3000
            _, t = self.run_prog("sizes", "", "sizes", n)
            for site, length in (("small", 1), ("big", 1000)):
                r = self.one_row(t, "byte[]", [self.at("sizes", site)])
                each = array_size(1, length)
                self.assertEqual((r["alloc_objs"], r["alloc_bytes"]), (n, n * each), site)
                self.assertLessEqual(r["live_bytes"], r["alloc_bytes"], site)
                self.assertEqual(r["live_bytes"], r["live_objs"] * each, site)

        def test_live_bytes_apart_from_objects_no_site_counted(self):
            # A class's only site, past its 512 tagged objects: its live bytes
            # at its own size, not at the mean of every untagged survivor
            # (here also a hidden class's smaller arrays).
            n = 1000
            _, t = self.run_prog("foreign", ",cutoff=0", "foreign", n)
            r = self.one_row(t, "SitesProg$Mark[]", [self.at("foreign", "foreign")])
            each = array_size(4, 10)
            self.assertEqual((r["alloc_objs"], r["alloc_bytes"]), (n, n * each))
            self.assertEqual((r["live_objs"], r["live_bytes"]), (n, n * each))

        def test_constructor_arguments_made_among_other_objects(self):
            # 20 boxes reach Object.<init> between each `new Args` and its
            # own: its site still learns its class, and every one counts.
            n = 1000
            _, t = self.run_prog("ctorargs", ",cutoff=0", "ctorargs", n)
            r = self.one_row(t, "SitesProg$Args", [self.at("ctorArgs", "ctorargs")])
            self.assertEqual(r["alloc_objs"], n)

        def test_first_object_of_a_class_loaded_at_its_new(self):
            # Reflection makes objects of 12 classes between Primed's only
            # `new` and that object's Object.<init>: the site never pairs an
            # object and learns its class at the dump; its size comes from
            # the live object, or else from an instance the agent makes,
            # which no row counts.
            for keep in ("keep", "drop"):
                _, t = self.run_prog("primed-" + keep, ",cutoff=0", "primed", 1, keep)
                rows = [r for r in t.rows if r["cls"] == "SitesProg$Primed"]
                self.assertEqual(len(rows), 1, rows)
                r = self.one_row(t, "SitesProg$Primed", [self.at("firstOfClass", "primed")])
                self.assertEqual(r["alloc_objs"], 1)
                self.assertIn(r["alloc_bytes"], (16, 24))
                self.assertEqual(r["live_objs"], 1 if keep == "keep" else 0)

        def test_multi_dimensional(self):
            n = 2000
            for binary in (False, True):
                _, t = self.run_prog("multi", ",cutoff=0", "multi", n, binary=binary)
                top = [self.at("multi", "multi")]
                outer = self.one_row(t, "int[][]", top)
                inner = self.one_row(t, "int[]", top)
                self.assertEqual((outer["alloc_objs"], outer["alloc_bytes"]),
                                 (n, n * array_size(4, 3)))
                self.assertEqual((inner["alloc_objs"], inner["alloc_bytes"]),
                                 (3 * n, 3 * n * array_size(4, 4)))

        def test_clone(self):
            # Counted where clone is called: super.clone() in Item.clone,
            # and the array's clone() in cloning (both once compiled too).
            n = 3000
            _, t = self.run_prog("clone", ",cutoff=0", "clone", n)
            r = self.one_row(t, ITEM, [sites.frame(ITEM, "clone", line["itemclone"])])
            self.assertFalse(r["native_top"])
            self.assertEqual((r["alloc_objs"], r["alloc_bytes"]), (n, n * ITEM_SIZE))
            r = self.one_row(t, "int[]", [self.at("cloning", "clonearr")])
            self.assertEqual((r["alloc_objs"], r["alloc_bytes"]), (n, n * array_size(4, 10)))

        def test_reflection(self):
            # Deep traces: the reflective call chain sits between the
            # allocation and the caller, and differs between JDK 17 and 25.
            n = 1000
            _, t = self.run_prog("reflect", ",cutoff=0,depth=16", "reflect", n)
            # (On the exact route the caller's line is unknown on the
            # rewritten path, known on the JVM-reported one.)
            rows = [r for r in t.rows if r["cls"] == ITEM
                    and any(f[:2] == ("SitesProg", "reflection") for f in r["frames"])]
            self.assertEqual(sum(r["alloc_objs"] for r in rows), n)
            self.assertEqual(sum(r["alloc_bytes"] for r in rows), n * ITEM_SIZE)
            # Array.newInstance is counted at its call site, like the
            # intrinsics: the caller is the top frame, with its line.
            r = self.one_row(t, "long[]", [self.at("reflection", "reflectarr")])
            self.assertEqual(r["alloc_objs"], n)

        def test_intrinsics(self):
            # Allocations inside JIT intrinsics, counted at their call sites
            # while interpreted and once C2 compiled the loop (200k rounds,
            # also without tiered compilation); boxing only outside the box
            # cache, whose Integer bound -XX:AutoBoxCacheMax moves.
            n = 200000
            sizes = {"java.lang.Integer": 16, "java.lang.Long": 24, "java.lang.Short": 16,
                     "java.lang.Character": 16, "java.lang.Double": 24, "java.lang.Float": 16}
            expect = {"ibox": "java.lang.Integer", "autobox": "java.lang.Integer",
                      "lbox": "java.lang.Long", "sbox": "java.lang.Short",
                      "cbox": "java.lang.Character", "dbox": "java.lang.Double",
                      "fbox": "java.lang.Float"}
            expect = {line[k]: (c, n, n * sizes[c]) for k, c in expect.items()}
            edges = {"iedge": "java.lang.Integer", "ledge": "java.lang.Long",
                     "sedge": "java.lang.Short", "cedge": "java.lang.Character"}
            expect.update({line[k]: (c, n // 2, n // 2 * sizes[c]) for k, c in edges.items()})
            expect[line["list"]] = ("java.util.ArrayList", n, n * 24)
            expect[line["copyof"]] = ("java.lang.Object[]", n, n * array_size(4, 20))
            expect[line["copyofrange"]] = ("java.lang.Object[]", n, n * array_size(4, 8))
            expect[line["clonearr2"]] = ("int[]", n, n * array_size(4, 10))
            expect[line["cloneitems"]] = (ITEM + "[]", n, n * array_size(4, 10))
            expect[line["newinstance"]] = ("long[]", n, n * array_size(8, 10))
            first, last = line["ibox"] - 2, line["allocinstance"]
            for name, jvm in (("tiered", ()), ("c2only", ("-XX:-TieredCompilation",)),
                              ("boxmax", ("-XX:AutoBoxCacheMax=20000",))):
                with self.subTest(name):
                    out = os.path.join(env.work, f"sites-intrinsics-{name}.txt")
                    res = h.run_java(env, f"heap=sites,file={out},cutoff=0,depth=1", ["SitesProg", "intrinsics", str(n)],
                                     extra_jvm=jvm, timeout=600)
                    self.assertEqual(res.returncode, 0, res.stderr)
                    self.assertNotIn("HPROF ERROR", res.stderr)
                    _, tables = sites.ascii_tables(out)
                    t = tables[-1]
                    want = dict(expect)
                    if name == "boxmax":
                        del want[line["ibox"]]  # 10_000 + small is cached now
                        del want[line["iedge"]]
                    got = {}
                    for r in t.rows:
                        f = r["frames"][0] if r["frames"] else None
                        if f and f[:2] == ("SitesProg", "intrinsics") and first <= f[2] <= last:
                            self.assertNotIn(f[2], got, r)
                            got[f[2]] = (r["cls"], r["alloc_objs"], r["alloc_bytes"])
                    self.assertEqual(got, want)
                    r = self.one_row(t, ITEM, [sites.frame(ITEM, "clone", line["itemclone"])])
                    self.assertEqual((r["alloc_objs"], r["alloc_bytes"]), (n, n * ITEM_SIZE))

        def test_intrinsics_in_the_jdk(self):
            # Growth of an ArrayList (Arrays.copyOf inside the JDK), a typed
            # copy, Array.newInstance and Unsafe.allocateInstance: found by
            # their caller in deeper traces.
            n = 200000
            _, t = self.run_prog("intrinsics_deep", ",cutoff=0,depth=8", "intrinsics", n)
            def total(cls, top=None):
                rows = [r for r in t.rows if r["cls"] == cls
                        and ("SitesProg", "intrinsics") in [f[:2] for f in r["frames"][1:]]
                        and (top is None or r["frames"][0][:2] == top)]
                return sum(r["alloc_objs"] for r in rows), sum(r["alloc_bytes"] for r in rows)
            self.assertEqual(total("java.lang.Object[]", ("java.util.Arrays", "copyOf")),
                             (n, n * array_size(4, 15)))
            self.assertEqual(total("java.lang.String[]"), (n, n * array_size(4, 7)))
            r = self.one_row(t, "long[]", [self.at("intrinsics", "newinstance")])
            self.assertEqual((r["alloc_objs"], r["alloc_bytes"]), (n, n * array_size(8, 10)))
            self.assertEqual(total(ITEM, ("sun.misc.Unsafe", "allocateInstance")), (n, n * ITEM_SIZE))
            # @IntrinsicCandidate methods whose bytecode allocates:
            # Integer.toString(int) and StringBuilder.toString (JDK 25).
            self.assertEqual(total("java.lang.String", ("java.lang.Integer", "toString"))[0], n)
            built = [r for r in t.rows if r["cls"] == "java.lang.String"
                     and ("SitesProg", "built") in [f[:2] for f in r["frames"]]]
            self.assertEqual(sum(r["alloc_objs"] for r in built), n)

        def test_outside_tlab(self):
            n = 40
            _, t = self.run_prog("large", ",cutoff=0", "large", n)
            r = self.one_row(t, "byte[]", [self.at("large", "large")])
            self.assertEqual((r["alloc_objs"], r["alloc_bytes"]), (n, n * array_size(1, 3000000)))

        def test_boxing(self):
            # Exact route: counted at the call of Integer.valueOf (an
            # intrinsic, never rewritten). JVM TI route (depth > 31): the
            # allocating method is Integer.valueOf, the caller follows.
            n = 5000
            for opts in (",cutoff=0", ",cutoff=0,depth=32"):
                _, t = self.run_prog("box", opts, "box", n)
                if "depth" in opts:
                    rows = [r for r in t.find("java.lang.Integer", [])
                            if r["frames"][:1] and r["frames"][0][:2] == ("java.lang.Integer", "valueOf")
                            and r["frames"][1:2] == [self.caller("boxing", "box")]]
                else:
                    rows = t.find("java.lang.Integer", [self.at("boxing", "box")])
                self.assertEqual(len(rows), 1)
                self.assertEqual((rows[0]["alloc_objs"], rows[0]["alloc_bytes"]), (n, n * 16))

        def test_deep_traces(self):
            # Callers come from the shadow stack (depth 6) or the caller
            # window (depth 4): recursion repeats a method, and frames an
            # exception unwound are gone.
            n = 3000
            for depth, binary in ((6, False), (6, True), (4, False)):
                _, t = self.run_prog(f"deep{depth}", f",cutoff=0,depth={depth}", "deep", n,
                                     binary=binary)
                rec = [self.caller("rec", "recself")] * 3
                r = self.one_row(t, ITEM, [self.at("rec", "rec")])
                self.assertEqual(r["frames"], ([self.at("rec", "rec")] + rec +
                                               [self.caller("deep", "deeprec"),
                                                self.caller("main", "maindeep")])[:depth])
                self.assertEqual((r["alloc_objs"], r["alloc_bytes"]), (n, n * ITEM_SIZE))
                r = self.one_row(t, ITEM, [self.at("deep", "aftercatch")])
                self.assertEqual(r["frames"], [self.at("deep", "aftercatch"),
                                               self.caller("main", "maindeep")])
                self.assertEqual(r["alloc_objs"], n)
                at = self.at("recCatch", "reccatch")
                rc = self.caller("recCatch", "reccatchself")
                tail = [self.caller("deep", "deepreccatch"), self.caller("main", "maindeep")]
                for callers in ([rc, rc], [rc], []):
                    want = ([at] + callers + tail)[:depth]
                    r = self.one_row(t, ITEM, want)
                    self.assertEqual(r["frames"], want)
                    self.assertEqual(r["alloc_objs"], n)

        def test_same_counts_as_jvmti_route(self):
            # Per (class, top frame) in application code, the rewritten
            # route counts what JVM TI SampledObjectAlloc at interval 0
            # (the route taken for depth > 31) counts.
            def by_top(t):
                out = {}
                for r in t.rows:
                    if r["frames"] and r["frames"][0][0] == "SitesProg":
                        k = (r["cls"], r["frames"][0])
                        a, b = out.get(k, (0, 0))
                        out[k] = (a + r["alloc_objs"], b + r["alloc_bytes"])
                return out
            _, exact = self.run_prog("mixed", ",cutoff=0,depth=1", "mixed", 20000)
            _, jvmti = self.run_prog("mixed_jvmti", ",cutoff=0,depth=32", "mixed", 20000)
            exact, jvmti = by_top(exact), by_top(jvmti)
            self.assertGreaterEqual(len(exact), 8)
            for k, v in exact.items():
                self.assertEqual(v, jvmti.get(k), k)
            # Only the JVM TI route sees the strings the JVM makes when an
            # ldc of a string constant is first resolved (README).
            for k, v in jvmti.items():
                if k not in exact:
                    self.assertIn(k[0], ("java.lang.String", "byte[]"), k)
                    self.assertLessEqual(v[0], 10, k)

        def test_jvm_made_objects(self):
            # What the JVM allocates inside natives. Through JNI (a
            # directory's listing): the same objects as on the JVM TI route
            # (jni_alloc.c). By the JVM itself: reflection data, and class
            # names from JDK 22 (JDK 17's VMObjectAlloc does not report
            # them), in windows around the natives (native_windows.c); the
            # JVM TI route differs there by what each agent resolved first.
            listing = {("java.io.UnixFileSystem", "list0"), ("java.io.UnixFileSystem", "list")}

            def by_native(t):
                out = collections.Counter()
                for r in t.rows:
                    if r["frames"] and any(f[:2] == ("SitesProg", "jvmMade") for f in r["frames"]):
                        out[(r["cls"], r["frames"][0][:2])] += r["alloc_objs"]
                return out
            n = 500
            _, exact = self.run_prog("jvmmade", ",cutoff=0,depth=31", "jvmmade", n)
            _, jvmti = self.run_prog("jvmmade_jvmti", ",cutoff=0,depth=32", "jvmmade", n)
            exact, jvmti = by_native(exact), by_native(jvmti)
            listed = {k: v for k, v in exact.items() if k[1] in listing}
            self.assertEqual(listed, {k: v for k, v in jvmti.items() if k[1] in listing})
            self.assertGreaterEqual(sum(listed.values()), n * 7)  # array, 3 strings, their bytes
            self.assertTrue(any(k[1] == ("java.lang.Class", "getDeclaredMethods0") for k in exact),
                            exact)
            if env.java_version() >= 22:
                self.assertTrue(any(k[1] == ("java.lang.Class", "initClassName") for k in exact),
                                exact)

        def test_beside_a_debugger(self):
            # JDWP calls JNI functions newer than this build's jni.h
            # (IsVirtualThread) at each thread start: the JNI table the
            # agent installs (JDK 22+) keeps every entry of the JVM's.
            out = os.path.join(env.work, "sites-jdwp.txt")
            res = h.run_java(env, f"heap=sites,cutoff=0,file={out}",
                             ["SitesProg", "threads", "1000", "4"], extra_jvm=["-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,"
                                        "address=127.0.0.1:0"])
            self.assertEqual(res.returncode, 0, res.stderr[-2000:])
            _, tables = sites.ascii_tables(out)
            r = self.one_row(tables[0], ITEM, [self.at("allocate", "basic")])
            self.assertEqual(r["alloc_objs"], 4000)

        def test_threads_add_up(self):
            threads, n = 8, 5000
            _, t = self.run_prog("threads", ",cutoff=0", "threads", n, threads)
            r = self.one_row(t, ITEM, [self.at("allocate", "basic")])
            self.assertEqual((r["alloc_objs"], r["alloc_bytes"]), (threads * n, threads * n * ITEM_SIZE))
            self.assertIsNone(r["thread"])

        def test_virtual_threads(self):
            # A virtual thread makes its shadow stack at its first enter:
            # every frame of its task is there, counts add up.
            if env.java_version() < 21:
                self.skipTest("no virtual threads before JDK 21")
            threads, n = 50, 2000
            _, t = self.run_prog("vthreads", ",cutoff=0", "vthreads", n, threads)
            r = self.one_row(t, ITEM, [self.at("allocate", "basic")])
            self.assertEqual(r["frames"][:3], [self.at("allocate", "basic"),
                                               self.caller("vmid", "vmidalloc"),
                                               self.caller("vtask", "vtaskvmid")])
            self.assertTrue(r["frames"][3][1].startswith("lambda$vthreads$"), r["frames"])
            self.assertEqual((r["alloc_objs"], r["alloc_bytes"]), (threads * n, threads * n * ITEM_SIZE))

        def test_virtual_threads_parking(self):
            # Parked and continued on any carrier, a virtual thread keeps its
            # callers, to the bottom of its stack. On JDK 24+ the
            # continuation is entered again through Continuation.run, whose
            # hooks wrote the shadow stack (depth 5+) over the parked frames
            # below Thread.runWith: all but the first round's objects had a
            # second trace, whose bottom frames were the JDK's calls there.
            if env.java_version() < 21:
                self.skipTest("no virtual threads before JDK 21")
            threads, n, rounds = 8, 100, 20
            for depth in ("", ",depth=8"):
                _, t = self.run_prog("vparks", ",cutoff=0" + depth, "vparks", n, threads, rounds)
                r = self.one_row(t, ITEM, [self.at("allocate", "basic"), self.caller("vmid", "vmidalloc"),
                                           self.caller("vparkTask", "vparkvmid")])
                self.assertEqual(r["alloc_objs"], threads * n * rounds, depth)
                if depth:
                    self.assertIn("java.lang.VirtualThread", [f[0] for f in r["frames"]], r["frames"])

        def test_ended_virtual_threads_leave_no_state(self):
            # A virtual thread has no ThreadEnd: the tracker folds the state
            # of ended ones as more register, so 4,000 in waves of 100 leave
            # at most about 1,024 states (each an object and its arrays) in
            # the heap, and their counts add up. Without: 4,000.
            if env.java_version() < 21:
                self.skipTest("no virtual threads before JDK 21")
            threads, n, wave = 4000, 50, 100
            out = os.path.join(env.work, "sites-vwaves.txt")
            res = h.run_java(env, f"heap=all,cutoff=0,file={out}", ["SitesProg", "vthreads", str(n), str(threads), str(wave)])
            self.assertEqual(res.returncode, 0, res.stderr)
            prof, tables = sites.ascii_tables(out)
            r = self.one_row(tables[0], ITEM, [self.at("allocate", "basic")])
            self.assertEqual(r["alloc_objs"], threads * n)
            dump = prof.sections_named("HEAP DUMP")[0][1]
            states = sum(1 for line in dump if line.startswith("OBJ ") and "class=java.lang.HprofSites@" in line)
            self.assertLess(states, 1500)

        def test_virtual_threads_in_turn(self):
            # One at a time: each virtual thread after the first takes over
            # the state of one that ended (HprofSites.adopt), with the window
            # and with the shadow stack; counts still add up.
            if env.java_version() < 21:
                self.skipTest("no virtual threads before JDK 21")
            threads, n = 40, 1000
            for depth in ("", ",depth=8"):
                _, t = self.run_prog("vthreads_in_turn", ",cutoff=0" + depth, "vthreads", n, threads, 1)
                r = self.one_row(t, ITEM, [self.at("allocate", "basic"), self.caller("vmid", "vmidalloc")])
                self.assertEqual((r["alloc_objs"], r["alloc_bytes"]), (threads * n, threads * n * ITEM_SIZE),
                                 depth)

        def test_thread_y(self):
            threads, n = 4, 3000
            for binary in (False, True):
                prof, t = self.run_prog("threads_y", ",cutoff=0,thread=y", "threads", n, threads,
                                        binary=binary)
                rows = t.find(ITEM, [self.at("allocate", "basic")])
                self.assertEqual(len(rows), threads)
                self.assertEqual(len({r["thread"] for r in rows}), threads)
                starts = ({s[0]: s[3] for s in prof.thread_starts} if binary
                          else {s[1]: s[2] for s in prof.thread_starts})
                for r in rows:
                    self.assertEqual(r["alloc_objs"], n)
                    self.assertRegex(starts[r["thread"]], r"^alloc-\d$")

        def test_depth_1(self):
            _, t = self.run_prog("depth1", ",depth=1", "basic", 4000, 400)
            r = self.one_row(t, ITEM, [self.at("allocate", "basic")])
            self.assertEqual(len(r["frames"]), 1)
            self.assertEqual((r["alloc_objs"], r["live_objs"]), (4000, 400))

        def test_depth_0(self):
            for binary in (False, True):
                _, t = self.run_prog("depth0", ",depth=0", "basic", 4000, 400, binary=binary)
                r = self.one_row(t, ITEM, [])
                self.assertEqual(r["frames"], [])
                self.assertEqual(r["trace"], 300000)
                self.assertEqual((r["alloc_objs"], r["live_objs"]), (4000, 400))
                self.assertTrue(all(not x["frames"] for x in t.rows))

        def test_cutoff(self):
            for binary in (False, True):
                _, t = self.run_prog("cutoff", ",cutoff=0.05", "basic", 20000, 5000, binary=binary)
                self.check_basic(t, 20000, 5000)
                total = t.totals.get("live_bytes")
                for r in t.rows:
                    if binary:
                        self.assertGreaterEqual(r["live_bytes"] / total, 0.05)
                    else:
                        self.assertGreaterEqual(r["self"], 5.0)
                self.assertLessEqual(len(t.rows), 20)
                if binary:
                    self.assertAlmostEqual(t.cutoff, 0.05, places=6)

        def test_dumps_on_demand_while_allocating(self):
            # Two SIGQUIT dumps while two threads allocate, then the exit
            # dump: each table is whole, and counts are cumulative.
            n, keep = 10000, 1000
            for binary in (False, True):
                out = os.path.join(env.work, "sites-serve." + ("bin" if binary else "txt"))
                proc = h.start_java(env, f"heap=sites,cutoff=0,file={out}" + (",format=b" if binary else ""),
                                    ["SitesProg", "serve", str(n), str(keep)])
                try:
                    h.wait_for_line(proc.stdout, r"^ready$")
                    for _ in range(2):
                        h.send_sigquit(proc)
                        h.wait_for_line(proc.stderr, r"allocation sites \.\.\. done\.")
                    out_text, err = proc.communicate("\n", timeout=120)
                finally:
                    if proc.poll() is None:
                        proc.kill()
                self.assertEqual(proc.returncode, 0, err)
                _, tables = (sites.binary_tables if binary else sites.ascii_tables)(out)
                self.assertEqual(len(tables), 3)
                churn = []
                for t in tables:
                    self.check_order(t)
                    self.check_basic(t, n, keep, caller=("serve", "servecall"))
                    rows = t.find("long[]", [self.at("lambda$serve$2", "churn")])
                    churn.append(sum(r["alloc_objs"] for r in rows))
                self.assertEqual(churn, sorted(churn))
                self.assertGreater(churn[-1], 0)

        # ---------------------------------------------------------- sampled

        def test_sampled_estimate(self):
            # 1M objects of 24 bytes at a 32 KiB mean interval: about 730
            # samples allocated and 365 live; 25% is over 4 standard errors.
            n, keep = 1000000, 500000
            for binary in (False, True):
                _, t = self.run_prog("sampled", ",alloc_interval=32768,cutoff=0", "basic", n, keep,
                                     binary=binary)
                r = self.one_row(t, ITEM, [self.at("allocate", "basic")])
                self.assertAlmostEqual(r["alloc_objs"] / n, 1.0, delta=0.25)
                self.assertAlmostEqual(r["alloc_bytes"] / (n * ITEM_SIZE), 1.0, delta=0.25)
                self.assertAlmostEqual(r["live_objs"] / keep, 1.0, delta=0.25)
                self.assertAlmostEqual(r["live_bytes"] / (keep * ITEM_SIZE), 1.0, delta=0.25)

        def test_sampled_beside_another_sampling_agent(self):
            # One JVM TI environment may hold allocation sampling. Sampled
            # heap=sites takes it at VM init, so another sampling agent gets
            # it whichever loads first: the JVM starts, the program runs, and
            # heap=sites says it records nothing.
            args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
            other = f"-agentpath:{args['--other-agent']}=524288"
            out = os.path.join(env.work, "sites-beside.txt")
            ours = f"-agentpath:{env.agent}=heap=sites,alloc_interval=524288,file={out}"
            for flags in ([ours, other], [other, ours]):
                res = h.run_java(env, None, ["SitesProg", "basic", "20000", "10"], agent_flag="",
                                 extra_jvm=flags)
                self.assertEqual(res.returncode, 0, res.stderr)
                self.assertIn("another JVM TI agent holds allocation sampling", res.stderr)
                self.assertIn("sampledalloc:", res.stderr)

    return HeapSites


if __name__ == "__main__":
    h.main(make_case)
