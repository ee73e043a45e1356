"""hprof record against a JVM in a container: its own pid and mount namespaces
(unshare), with a private /tmp on the host's root, and chrooted into a root
where the agent library is not visible. The JVM's pid inside is 1, its
socket and report are in its own /tmp, reached through /proc/PID/root; the
library is copied there and removed. Skipped (exit 77) where namespaces
cannot be made (not root, or forbidden).
Usage (from CTest): test_container.py --java-home H --agent LIB --jar JAR --cli HPROF"""
import os
import shlex
import shutil
import subprocess
import tempfile
import time

import hproftest as ht
from test_attach import TARGET_EXIT, TARGET_OUT, Target, TargetTest, cpu_split, run
from test_record import NO_TOOLS

UNSHARE = ["unshare", "--pid", "--fork", "--mount", "--propagation", "private"]


def namespaces_work():
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    return subprocess.run(UNSHARE + ["true"], capture_output=True).returncode == 0


def child_of(pid):
    """The one process whose parent is pid (the JVM unshare forked), or None."""
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2:].split()[1]) == pid:
                return int(name)
    return None


class ContainerTest(TargetTest):
    folder = "container"

    def start(self, script):
        """AttachTarget run by `script` (sh, $JAVA and $JAR set) in new
        namespaces; returns the JVM's pid as the host sees it."""
        script = (f"JAVA={shlex.quote(self.env.java)}\nJAR={shlex.quote(self.env.jar)}\n{script}\n"
                  'exec "$JAVA" -cp "$JAR" AttachTarget')
        self.target = Target(self.env, self.dir, launcher=UNSHARE + ["sh", "-euc", script])
        deadline = time.time() + 30
        while (jvm := child_of(self.target.proc.pid)) is None and time.time() < deadline:
            time.sleep(0.1)
        self.assertIsNotNone(jvm)
        with open(f"/proc/{jvm}/status") as f:
            nspid = [l.split()[1:] for l in f if l.startswith("NSpid:")][0]
        self.assertEqual(nspid[-1], "1", nspid)  # its own pid namespace
        return jvm

    def record_and_check(self, jvm):
        heavy = light = 0
        for i in range(6):
            out = self.path(f"r{i}.txt")
            p = subprocess.run([self.env.cli, "record", str(jvm), "-d", "4s", "-o", out,
                                "cpu=samples,interval=4"], capture_output=True, text=True,
                               timeout=300, cwd=self.dir, env=NO_TOOLS)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            h, l = cpu_split(ht.read_ascii(out))
            heavy, light = heavy + h, light + l
            if heavy + light >= 150:
                break
        self.assertGreater(heavy + light, 50, "too few samples to judge")
        self.assertGreater(heavy, light)
        leftovers = [n for n in os.listdir(f"/proc/{jvm}/root/tmp") if "hprof" in n]
        self.assertEqual(leftovers, [])
        self.assertEqual(self.target.quit(), TARGET_EXIT)
        self.assertEqual(self.target.stdout(), TARGET_OUT)
        self.assertNotIn("HPROF ERROR", self.target.stderr())

    def test_private_tmp_on_the_hosts_root(self):
        # The jar may itself be under /tmp (a checkout there): read it through
        # a descriptor opened before the private /tmp hides it.
        jvm = self.start('exec 3<"$JAR"\nmount -t tmpfs tmpfs /tmp\nmount -t proc proc /proc\n'
                         'cat <&3 >/tmp/target.jar\nexec 3<&-\nJAR=/tmp/target.jar')
        self.record_and_check(jvm)

    def test_own_root_without_the_library(self):
        if not os.path.realpath(self.env.java).startswith("/usr/"):
            self.skipTest("the chroot shares only /usr and /etc; this JDK is elsewhere")
        root = tempfile.mkdtemp(prefix="hprof-container-")
        self.addCleanup(shutil.rmtree, root, True)
        script = f"""R={root}
mkdir -p $R/usr $R/etc $R/proc $R/tmp $R/app
for d in usr etc; do mount --rbind /$d $R/$d; done
for d in bin lib lib64 sbin; do [ -L /$d ] && ln -sfn "$(readlink /$d)" $R/$d || true; done
cp "$JAR" $R/app/target.jar
mount -t tmpfs tmpfs $R/tmp
JAR=/app/target.jar
exec chroot $R sh -euc 'mount -t proc proc /proc; exec "$0" -cp "$1" AttachTarget' "$JAVA" "$JAR"
"""
        jvm = self.start(script)
        self.assertFalse(os.path.exists(f"/proc/{jvm}/root{self.env.agent}"))
        self.record_and_check(jvm)


if __name__ == "__main__":
    if not namespaces_work():
        print("skipped: cannot create pid and mount namespaces here (needs root and unshare)")
        raise SystemExit(77)
    run(ContainerTest)
