# CPU-bound pure-Python workload for Jython: n-body simulation, dictionary and
# string work, and a recursive solver. Usage: jython bench.py <scale>
import sys


def nbody(steps):
    bodies = [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 39.47],
              [4.84, -1.16, -0.10, 0.60, 2.81, -0.02, 0.037],
              [8.34, 4.12, -0.40, -1.01, 1.82, 0.008, 0.011],
              [12.89, -15.11, -0.22, 1.08, 0.86, -0.01, 0.0017],
              [15.37, -25.91, 0.17, 0.97, 0.59, -0.03, 0.002]]
    dt = 0.01
    for _ in range(steps):
        for i in range(len(bodies)):
            bi = bodies[i]
            for j in range(i + 1, len(bodies)):
                bj = bodies[j]
                dx, dy, dz = bi[0] - bj[0], bi[1] - bj[1], bi[2] - bj[2]
                d2 = dx * dx + dy * dy + dz * dz
                mag = dt / (d2 * d2 ** 0.5)
                bi[3] -= dx * bj[6] * mag
                bi[4] -= dy * bj[6] * mag
                bi[5] -= dz * bj[6] * mag
                bj[3] += dx * bi[6] * mag
                bj[4] += dy * bi[6] * mag
                bj[5] += dz * bi[6] * mag
        for b in bodies:
            b[0] += dt * b[3]
            b[1] += dt * b[4]
            b[2] += dt * b[5]
    return bodies[0][0]


def words(n):
    counts = {}
    seed = 12345
    for _ in range(n):
        seed = (seed * 1103515245 + 12345) & 0x7fffffff
        w = "w%d" % (seed % 5000)
        counts[w] = counts.get(w, 0) + 1
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
    return ",".join("%s=%d" % kv for kv in top)


def queens(n, row=0, cols=(), d1=(), d2=()):
    if row == n:
        return 1
    total = 0
    for c in range(n):
        if c not in cols and row + c not in d1 and row - c not in d2:
            total += queens(n, row + 1, cols + (c,), d1 + (row + c,), d2 + (row - c,))
    return total


scale = float(sys.argv[1])
print("jython nbody=%.6f words=%s queens=%d" % (
    nbody(int(300000 * scale)), words(int(2000000 * scale)), queens(8 if scale < 0.5 else 9)))
