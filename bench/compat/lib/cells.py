"""Runs one cell of the compatibility matrix (a program under one agent mode, or without an
agent) and classifies it: crash, hang, malformed, changed, error or ok."""
import glob
import os
import re
import shlex
import shutil
import signal
import subprocess
import threading
import time

import grammar

READY = b"compat: ready"
FATAL = re.compile(rb"# A fatal error has been detected|^# SIGSEGV|^# Internal Error", re.M)
AGENT_ERROR = re.compile(r"HPROF ERROR.*")
DUMPING = re.compile(r"^Dumping .*$\n?", re.M)
CRASH_EXITS = {134, 139, -signal.SIGSEGV, -signal.SIGABRT, -signal.SIGBUS, -signal.SIGILL}


def no_core():
    import resource
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def wait_ready(path, ended, deadline):
    """Waits until the program printed its ready line; False if it ended or the deadline passed."""
    while time.monotonic() < deadline and not ended.is_set():
        with open(path, "rb") as f:
            if READY in f.read():
                return True
        time.sleep(0.02)
    return False


def act(action, proc, ended, jcmd, stdout_path, deadline, log):
    """Sends the program the signals or dump requests its action names, once it is ready. It
    watches `ended`, never polls proc: the run's waiter alone reaps the JVM, for its rusage."""
    if action == "-" or not wait_ready(stdout_path, ended, deadline):
        return
    try:
        if action.startswith("sigquit:"):
            for _ in range(int(action.split(":")[1])):
                if ended.is_set():
                    break
                os.kill(proc.pid, signal.SIGQUIT)
                time.sleep(0.02)
        elif action == "dump2":
            requests = [subprocess.Popen([jcmd, str(proc.pid), "JVMTI.data_dump"], stdout=log, stderr=log)
                        for _ in range(2)]
            os.kill(proc.pid, signal.SIGQUIT)
            os.kill(proc.pid, signal.SIGQUIT)
            for r in requests:
                r.wait(60)
        elif action == "sigterm":
            time.sleep(0.3)
            os.kill(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass


def reap(proc, ended, usage):
    """Waits for proc with wait4, for the CPU time (user + system) of the JVM and the children it
    waited for, which Popen.wait does not give; the JVM's alone, not the harness's jcmd calls."""
    _, status, rusage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    usage["cpu_s"] = rusage.ru_utime + rusage.ru_stime
    ended.set()


def run(cmd, rundir, action, timeout, jcmd):
    """Runs cmd in a fresh rundir; returns exit status, wall seconds, CPU seconds (user + system
    of the java process) and whether it timed out. A run past the timeout gets its thread dump
    taken (threads.txt) and is killed."""
    shutil.rmtree(rundir, ignore_errors=True)
    os.makedirs(rundir)
    stdout_path = os.path.join(rundir, "stdout")
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
                                                            "_JAVA_HPROF_OPTIONS")}
    ended, usage = threading.Event(), {}
    with open(stdout_path, "wb") as out, open(os.path.join(rundir, "stderr"), "wb") as err, \
            open(os.path.join(rundir, "action.log"), "wb") as log:
        start = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=rundir, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env,
                                start_new_session=True, preexec_fn=no_core)
        waiter = threading.Thread(target=reap, args=(proc, ended, usage))
        waiter.start()
        actor = threading.Thread(target=act, args=(action, proc, ended, jcmd, stdout_path, start + timeout, log))
        actor.start()
        timed_out = False
        if not ended.wait(timeout):
            timed_out = cpu_share(proc.pid)
            with open(os.path.join(rundir, "threads.txt"), "wb") as dump:
                try:
                    subprocess.run([jcmd, str(proc.pid), "Thread.print"], stdout=dump, stderr=dump, timeout=30)
                except subprocess.TimeoutExpired:
                    pass
            os.killpg(proc.pid, signal.SIGKILL)
        waiter.join()
        wall = time.monotonic() - start
        actor.join()
    try:  # children left behind (a launcher's JVM) go with their group
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return {"exit": proc.returncode, "wall_s": wall, "cpu_s": usage["cpu_s"], "timed_out": timed_out is not False,
            **({"busy": timed_out} if timed_out is not False else {})}


def cpu_share(pid, seconds=2.0):
    """The CPU time the process used over the next seconds, in CPUs (0 for a deadlock, > 0 for a
    spin or a run that is only slow)."""
    def ticks():
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    try:
        before = ticks()
        time.sleep(seconds)
        return round((ticks() - before) / os.sysconf("SC_CLK_TCK") / seconds, 2)
    except (OSError, IndexError, ValueError):
        return None


def read(path, limit=None):
    if not os.path.exists(path):
        return b""
    with open(path, "rb") as f:
        return f.read() if limit is None else f.read()[-limit:]


def normalise(stdout, rule, rundir=None):
    """The program's stdout as compared: our Dumping lines dropped, the run's own directory
    (which names the mode) replaced, the program's normaliser applied."""
    text = DUMPING.sub("", stdout.decode("utf-8", "replace"))
    if rundir:
        text = text.replace(rundir, "<rundir>")
    if rule.startswith("sub:"):
        text = re.sub(rule[4:], "<v>", text)
    elif rule.startswith("keep:"):
        keep = re.compile(rule[5:])
        text = "".join(line for line in text.splitlines(True) if keep.search(line))
    return text


def check_outputs(rundir, cli):
    """Problems of the profiler's output files in rundir (prof.*): grammar or `hprof verify`."""
    files = sorted(glob.glob(os.path.join(rundir, "prof*")))
    if not files:
        return ["no output file"]
    problems = []
    for path in files:
        if path.endswith(".hprof") or open(path, "rb").read(18) == b"JAVA PROFILE 1.0.2":
            done = subprocess.run([cli, "verify", path], capture_output=True, text=True, timeout=600)
            if done.returncode != 0:
                lines = (done.stdout + done.stderr).strip().splitlines()
                problems.append(f"{os.path.basename(path)}: hprof verify: " + "; ".join(lines[:3]))
        else:
            problems += [f"{os.path.basename(path)}: {p}" for p in grammar.check_file(path)[:3]]
    return problems


def allocated_objects(rundir):
    """The objects allocated by the run as its ascii profile's last SITES section counts them (the
    sum of its alloc'ed objs column: every site only with cutoff=0), or None without one."""
    for path in sorted(glob.glob(os.path.join(rundir, "prof*.txt"))):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        start = text.rfind("\nSITES BEGIN")
        if start < 0:
            continue
        body = text[start:text.index("\nSITES END", start)].splitlines()[4:]
        return sum(int(row.split()[6]) for row in body)
    return None


def classify(rundir, result, baseline, rule, cli, agent_mode):
    """Sets result["outcome"] (the worst finding) and result["details"]."""
    stdout, stderr = read(os.path.join(rundir, "stdout")), read(os.path.join(rundir, "stderr"))
    hs_err = sorted(glob.glob(os.path.join(rundir, "hs_err*.log")))
    details = []
    if hs_err or result["exit"] in CRASH_EXITS or FATAL.search(stdout) or FATAL.search(stderr):
        details.append("crash: " + (top_frames(hs_err[0]) if hs_err else f"exit {result['exit']}"))
    if result["timed_out"]:
        details.append(timeout_finding(rundir, result))
    error = AGENT_ERROR.search(stderr.decode("utf-8", "replace"))
    if error:
        details.append("error: " + error.group(0))
    if agent_mode and not result["timed_out"]:
        details += ["malformed: " + p for p in check_outputs(rundir, cli)]
    if baseline is not None and not result["timed_out"]:
        if result["exit"] != baseline["exit"]:
            details.append(f"changed: exit {result['exit']}, without agent {baseline['exit']}")
        if normalise(stdout, rule, rundir) != baseline["stdout"]:
            details.append("changed: stdout differs: " + first_difference(normalise(stdout, rule, rundir),
                                                                         baseline["stdout"]))
    order = ["crash", "hang", "slow", "malformed", "error", "changed"]
    kinds = [d.split(":")[0] for d in details]
    result["outcome"] = next((k for k in order if k in kinds), "ok")
    result["details"] = details
    result["stdout"] = normalise(stdout, rule, rundir)
    result["stderr_tail"] = stderr[-1500:].decode("utf-8", "replace")
    result["dumps"] = len(re.findall(rb"^Dumping", stderr, re.M))
    if agent_mode and "malformed" not in kinds:
        result["sites_objs"] = allocated_objects(rundir)
    if hs_err:
        result["hs_err"] = hs_err[0]
    return result


def timeout_finding(rundir, result):
    """A run stopped at its time limit is a hang if it was blocked (no CPU used in the 2 s before:
    a loaded 2-core machine gives a computing JVM as little as 0.1 CPUs) or the JVM did not answer
    jcmd Thread.print; it is slow if it still computed and answered."""
    busy = result.get("busy")
    answered = b'"main"' in read(os.path.join(rundir, "threads.txt")) or b"Full thread dump" in read(
        os.path.join(rundir, "threads.txt"))
    kind = "slow" if answered and busy and busy >= 0.02 else "hang"
    return (f"{kind}: stopped after {result['wall_s']:.0f} s, using {busy} CPUs in its last 2 s, "
            f"thread dump {'in threads.txt' if answered else 'refused'}")


def first_difference(got, want):
    a, b = got.splitlines(), want.splitlines()
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"line {i + 1}: {x[:120]!r}, without agent {y[:120]!r}"
    return f"{len(a)} lines, without agent {len(b)}"


def top_frames(hs_err, n=6):
    """The problematic frame and the first frames of the native stack of an hs_err file."""
    text = read(hs_err).decode("utf-8", "replace")
    lines = text.splitlines()
    prob = [lines[i + 1].strip("# ").strip() for i, ln in enumerate(lines) if ln.startswith("# Problematic frame:")]
    signal_line = next((ln.strip("# ").strip() for ln in lines if ln.startswith("#  SIG") or "Internal Error" in ln), "")
    try:
        start = next(i for i, ln in enumerate(lines) if ln.startswith("Native frames:")) + 1
        frames = [ln.strip() for ln in lines[start:start + n] if ln.strip()]
    except StopIteration:
        frames = []
    return "; ".join(x for x in [signal_line] + prob + frames if x)


def quote(cmd):
    return " ".join(shlex.quote(a) for a in cmd)
