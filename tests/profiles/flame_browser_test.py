"""hprof flame pages in headless Chromium, driven through chromedriver:
the hot method is drawn at its share, hover describes a frame, search
highlights and reports the matches' share, click zooms, reset and the
inverted view work, kinds have their colours, and names that look like
markup stay text. Inputs are the crafted profiles of tests/profiles/corpus,
whose counts are known, and a binary profile of a million distinct stacks
(bench/profiles/gen_profile.py). Usage:
  flame_browser_test.py --cli HPROF --corpus DIR --work DIR --gen GEN_PROFILE_PY"""
import os
import subprocess
import sys
import unittest

ARGS = dict(zip(sys.argv[1::2], sys.argv[2::2]))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import webdriver  # noqa: E402

FRAMES = """return Array.from(document.querySelectorAll('#chart .f')).map(function (e) {
  return [e.textContent, e.getBoundingClientRect().width, e.className, e.offsetTop]; });"""


def page(name, out_name, *opts):
    out = os.path.join(ARGS["--work"], out_name + ".html")
    subprocess.run([ARGS["--cli"], "flame", os.path.join(ARGS["--corpus"], name + ".txt"),
                    "--minwidth", "0", "-o", out] + list(opts), check=True)
    return out


class FlameBrowserTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(ARGS["--work"], exist_ok=True)
        cls.samples = page("ascii_samples", "samples")
        cls.threads = page("ascii_samples", "threads", "--threads", "--title", "per thread")
        cls.script = page("ascii_script", "script")
        cls.pseudo = page("ascii_pseudo", "pseudo")
        cls.diff = os.path.join(ARGS["--work"], "diff.html")
        subprocess.run([ARGS["--cli"], "flame", "--diff", "--minwidth", "0",
                        os.path.join(ARGS["--corpus"], "ascii_samples.txt"),
                        os.path.join(ARGS["--corpus"], "ascii_samples_b.txt"), "-o", cls.diff],
                       check=True)
        cls.b = webdriver.Browser(os.path.join(ARGS["--work"], "chromium-profile"))

    @classmethod
    def tearDownClass(cls):
        cls.b.close()

    def frames(self):
        return self.b.js(FRAMES)

    def frame(self, text):
        found = [f for f in self.frames() if f[0] == text]
        self.assertTrue(found, f"{text} not drawn")
        return found[0]

    def element(self, text):
        for e in self.b.find("#chart .f"):
            if self.b.cmd("GET", f"/element/{e}/text") == text:
                return e
        raise AssertionError(f"no element {text}")

    def width(self):
        return self.b.js("return document.getElementById('chart').clientWidth;")

    def test_hot_method_drawn_at_its_share(self):
        self.b.open(self.samples)
        # ProfHot.hot: 30 of the 50 samples (both CPU SAMPLES sections)
        self.assertAlmostEqual(self.frame("ProfHot.hot")[1] / self.width(), 0.6, delta=0.01)
        self.assertAlmostEqual(self.frame("all")[1], self.width(), delta=1)

    def test_hover_describes_the_frame(self):
        self.b.open(self.samples)
        tip = self.b.js("""var e = Array.from(document.querySelectorAll('#chart .f'))
            .filter(function (x) { return x.textContent === 'ProfHot.hot'; })[0];
            var r = e.getBoundingClientRect();
            e.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, clientX: r.left + 2,
                                                         clientY: r.top + 2}));
            var t = document.getElementById('tip'); return [t.hidden, t.textContent];""")
        self.assertFalse(tip[0])
        self.assertIn("ProfHot.hot (Java, line 14)", tip[1])
        self.assertIn("30 samples, 60.00% of all", tip[1])

    def test_search_highlights_and_reports_the_share(self):
        self.b.open(self.samples)
        self.b.type(self.b.find("#search")[0], "ProfHot.unit")
        status = self.b.js("return document.getElementById('status').textContent;")
        self.assertEqual(status, "matched 2 frames: 40 samples, 80.00% of all")
        marked = [f[0] for f in self.frames() if " m" in f[2]]
        self.assertEqual(marked, ["ProfHot.unit", "ProfHot.unit"])

    def test_click_zooms_and_reset_restores(self):
        self.b.open(self.samples)
        self.b.type(self.b.find("#search")[0], "hot")
        self.b.click(self.element("ProfHot.hot"))
        hot = self.frame("ProfHot.hot")
        self.assertAlmostEqual(hot[1], self.width(), delta=1)
        self.assertIn(" z", hot[2])
        self.assertAlmostEqual(self.frame("ProfHot.unit")[1], self.width(), delta=1)
        self.assertNotIn("ProfHot.cold", [f[0] for f in self.frames()])
        self.b.click(self.b.find("#reset")[0])
        self.assertAlmostEqual(self.frame("ProfHot.hot")[1] / self.width(), 0.6, delta=0.01)
        self.assertEqual(self.b.js("return document.getElementById('status').textContent;"), "")
        self.assertFalse([f for f in self.frames() if " m" in f[2]])

    def test_inverted_view_starts_at_the_leaves(self):
        self.b.open(self.samples)
        self.b.click(self.b.find("#invert")[0])
        unit = self.frame("ProfHot.unit")
        self.assertEqual(unit[3], 16)  # the first row under the root
        self.assertAlmostEqual(unit[1] / self.width(), 0.8, delta=0.01)

    def test_kinds_have_their_colours(self):
        self.b.open(self.samples)
        kinds = {f[0]: f[2].split()[1] for f in self.frames()}
        self.assertEqual(kinds["java.lang.Object.wait"], "k2")  # native
        self.assertEqual(kinds["java.lang.Thread.run"], "k1")   # JDK
        self.assertEqual(kinds["ProfHot.hot"], "k0")            # Java
        self.assertEqual(kinds["[below cutoff]"], "k3")         # hprof's summary
        self.assertEqual(kinds["[empty trace]"], "k4")          # unwalkable
        self.b.open(self.threads)
        self.assertEqual(self.frame("[thread main]")[2].split()[1], "k6")
        self.assertEqual(self.b.js("return document.title;"), "per thread")

    def test_pseudo_frames_coloured_by_their_class(self):
        self.b.open(self.pseudo)
        frames = {f[0]: f[2].split()[1] for f in self.frames()}
        self.assertEqual(frames["<GC>.workers"], "k7")
        self.assertEqual(frames["[GC workers].young"], "k7")
        self.assertEqual(frames["[JIT].compile"], "k8")
        self.assertEqual(frames["[VM].operations"], "k9")
        self.assertEqual(frames["[GCLocker].stall"], "k9")
        self.assertEqual(frames["<unwalkable>.in_gc"], "k4")
        colours = self.b.js("""var out = {};
            document.querySelectorAll('#chart .f').forEach(function (e) {
              out[e.className.split(' ')[1]] = getComputedStyle(e).backgroundColor; });
            return out;""")
        kinds = ["k0", "k4", "k7", "k8", "k9"]
        self.assertEqual(len({colours[k] for k in kinds}), len(kinds), colours)
        tip = self.b.js("""var e = Array.from(document.querySelectorAll('#chart .f'))
            .filter(function (x) { return x.textContent === '[JIT].compile'; })[0];
            var r = e.getBoundingClientRect();
            e.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, clientX: r.left + 2,
                                                         clientY: r.top + 2}));
            return document.getElementById('tip').textContent;""")
        self.assertIn("[JIT].compile (JIT, ", tip)

    def test_a_million_distinct_stacks(self):
        big = os.path.join(ARGS["--work"], "million.hprof")
        subprocess.run([sys.executable, ARGS["--gen"], big, "--traces", "1000000", "--depth", "8",
                        "--branch", "4"], check=True)
        out = os.path.join(ARGS["--work"], "million.html")
        subprocess.run([ARGS["--cli"], "flame", big, "-o", out], check=True)
        self.assertLess(os.path.getsize(out), 1 << 20)  # narrow frames merged into their parents
        self.b.open(out)
        frames = self.frames()
        self.assertTrue(100 < len(frames) < 10000, len(frames))
        # every generated stack starts at method1 (of Class2)
        root = self.frame("com.example.gen.Class2.method1")
        self.assertAlmostEqual(root[1], self.width(), delta=1)
        self.b.type(self.b.find("#search")[0], "Class2.method1")
        status = self.b.js("return document.getElementById('status').textContent;")
        self.assertTrue(status.endswith("100.00% of all"), status)
        self.b.click(self.b.find("#reset")[0])
        self.b.click(self.b.find("#invert")[0])
        self.assertGreater(len(self.frames()), 1)

    def test_differential_colours_and_widths(self):
        self.b.open(self.diff)
        # B: 50 of 100 samples under ProfHot.cold (A: 10 of 50), 50 under ProfHot.hot (A: 30 of 50)
        self.assertAlmostEqual(self.frame("ProfHot.cold")[1] / self.width(), 0.5, delta=0.01)
        colours = self.b.js("""var out = {};
            document.querySelectorAll('#chart .f').forEach(function (e) {
              out[e.textContent] = getComputedStyle(e).backgroundColor.match(/\\d+/g).map(Number); });
            return out;""")
        red, green, blue = colours["ProfHot.cold"]
        self.assertGreater(red, blue)  # grew: 20 % -> 50 %
        red, green, blue = colours["ProfHot.hot"]
        self.assertGreater(blue, red)  # shrank: 60 % -> 50 %
        self.assertTrue(self.b.js("return document.getElementById('baseline').textContent;")
                        .endswith("ascii_samples.txt"))

    def test_markup_in_names_stays_text(self):
        with open(self.script, encoding="utf-8") as f:
            html = f.read()
        self.assertNotIn("<script>alert", html)
        self.assertIn("&lt;script&gt;alert(1)&lt;/script&gt;.x&amp;y&quot;z&#39;", html)
        self.b.open(self.script)
        self.assertEqual(self.b.js("return document.scripts.length;"), 2)
        texts = [f[0] for f in self.frames()]
        self.assertIn("<script>alert(1)</script>.x&y\"z'", texts)
        self.assertIn("Evil.</script><script>alert", texts)


if __name__ == "__main__":
    result = unittest.TextTestRunner(verbosity=2).run(
        unittest.defaultTestLoader.loadTestsFromTestCase(FlameBrowserTest))
    sys.exit(0 if result.wasSuccessful() else 1)
