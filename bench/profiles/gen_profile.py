"""Writes a synthetic binary (format=b) profile with many distinct stacks,
for measuring the profile commands: N traces of DEPTH frames drawn from M
methods in C classes, one CPU SAMPLES record citing every trace and one
ALLOC SITES record with one site per trace. With --branch B, each frame is
one of B callees of the frame below it, so stacks share prefixes as in real
programs; without it every frame is drawn uniformly. With --repeat R the CPU
SAMPLES record is written R times (as R dumps would), so the file grows and
the distinct stacks do not.
Usage: gen_profile.py OUT [--traces N] [--depth D] [--methods M] [--branch B] [--seed S]
                          [--repeat R]"""
import argparse
import random
import struct


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--traces", type=int, default=1_000_000)
    ap.add_argument("--depth", type=int, default=16)
    ap.add_argument("--methods", type=int, default=5000)
    ap.add_argument("--classes", type=int, default=500)
    ap.add_argument("--branch", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    with open(a.out, "wb") as f:
        f.write(b"JAVA PROFILE 1.0.2\0" + struct.pack(">IQ", 8, 1_700_000_000_000))

        def rec(tag, body):
            f.write(struct.pack(">BII", tag, 0, len(body)) + body)

        sid = 0

        def utf8(s):
            nonlocal sid
            sid += 1
            rec(0x01, struct.pack(">Q", sid) + s.encode())
            return sid

        for c in range(1, a.classes + 1):
            rec(0x02, struct.pack(">IQIQ", c, 0x1000 + c, 0, utf8(f"com/example/gen/Class{c}")))
        src = utf8("Gen.java")
        sig = utf8("()V")
        for m in range(1, a.methods + 1):
            name = utf8(f"method{m}")
            rec(0x04, struct.pack(">QQQQIi", m, name, sig, src, 1 + m % a.classes, 10 + m % 90))
        # distinct stacks: a random root path of DEPTH-1 frames plus a leaf unique per trace
        samples = bytearray()
        sites = bytearray()
        total = 0
        for t in range(1, a.traces + 1):
            if a.branch:
                path = [1]
                for _ in range(a.depth - 1):
                    path.append((path[-1] * 7919 + rnd.randrange(a.branch)) % a.methods + 1)
                frames = path[::-1]  # leaf first
            else:
                frames = [rnd.randrange(1, a.methods + 1) for _ in range(a.depth)]
            rec(0x05, struct.pack(">III", t, 0, a.depth) + struct.pack(f">{a.depth}Q", *frames))
            count = 1 + rnd.randrange(20)
            total += count
            samples += struct.pack(">II", count, t)
            sites += struct.pack(">BIIIIII", 0, 1 + t % a.classes, t, 16 * count, count,
                                 32 * count, 2 * count)
        for _ in range(a.repeat):
            rec(0x0D, struct.pack(">II", total, a.traces) + bytes(samples))
        n = a.traces
        rec(0x06, struct.pack(">HIIIQQI", 0, 0, 16 * total, total, 32 * total, 2 * total, n) +
            bytes(sites))


if __name__ == "__main__":
    main()
