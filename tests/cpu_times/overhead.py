"""CPU-time overhead of cpu=times on the bench/ programs with a given agent
build (bench/run.sh reports wall time, which the shared machine makes noisy). Commands
come from bench/programs.conf and bench/modes.conf; bench/prepare.sh must have
made bench/work. Prints one JSON line per run: wall time and CPU time (user +
sys of the JVM, children's rusage). Runs are stopped at CAP x the baseline's
wall time, methodevents runs at 240 s.
usage: overhead.py AGENT JDK_HOME FEATURE prog[:scale],... mode,... REPS [CAP]
e.g.   overhead.py build/libhprof.so /usr/lib/jvm/java-17-openjdk-amd64 17 \
           xalan,h2,fop,lucene,jython,javac:0.1 baseline,cpu-times,methodevents 1 12"""
import json, os, resource, shutil, subprocess, sys, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "lib"))
import conf

agent, jdk, feature, progs, modes, reps = sys.argv[1:7]
agent = os.path.abspath(agent)
cap = float(sys.argv[7]) if len(sys.argv) > 7 else 15  # runs are stopped at cap x the baseline wall time
base = {}
work = os.path.join(conf.BENCH, "work")
allm, allp = conf.modes(), conf.programs()
for rep in range(int(reps)):
    for spec in progs.split(","):
        prog, _, scale = spec.partition(":")
        scale = scale or "1"
        for mode in modes.split(","):
            rundir = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"hprof-overhead-{prog}-{mode}")
            shutil.rmtree(rundir, ignore_errors=True)
            os.makedirs(rundir)
            values = {"scale": scale, "feature": feature, "bench": conf.BENCH, "work": work,
                      "classes": os.path.join(work, "classes", feature), "inputs": os.path.join(work, "inputs"),
                      "agent": agent, "methodevents": os.path.join(work, "agents", "libmethodevents.so"),
                      "out": os.path.join(rundir, "prof")}
            cmd = [os.path.join(jdk, "bin", "java")] + conf.fill(allm[mode], values) + conf.fill(allp[prog][1], values)
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.time()
            limit = 240 if mode == "methodevents" else max(120, cap * base.get(prog, 200))
            try:
                p = subprocess.run(cmd, cwd=rundir, capture_output=True, text=True, timeout=limit)
                rc, err = p.returncode, p.stderr[-300:] if p.returncode else ""
            except subprocess.TimeoutExpired:
                rc, err = "timeout", f"stopped after {limit:.0f} s"
            wall = time.time() - t0
            if mode == "baseline" and rc == 0:
                base[prog] = wall
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
            print(json.dumps({"jdk": feature, "program": prog, "scale": scale, "mode": mode, "rep": rep,
                              "rc": rc, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "err": err}), flush=True)
