/**
 * Burns CPU in heavy() and light() in a 3:1 ratio of identical loop work,
 * and sleeps in sleepy(), which uses almost no CPU.
 * Usage: CpuTimesRatio UNITS (loop iterations of light(), per round)
 */
public class CpuTimesRatio {
    static volatile long sink;

    static void heavy(long units) {
        long x = sink | 1;
        for (long i = 0; i < 3 * units; i++) { /* xorshift: a chain the JIT cannot shortcut */
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        sink += x;
    }

    static void light(long units) {
        long x = sink | 1;
        for (long i = 0; i < units; i++) { /* xorshift: a chain the JIT cannot shortcut */
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        sink += x;
    }

    static void sleepy() throws InterruptedException {
        Thread.sleep(200);
    }

    /* An intermediate frame: main's and its own self time are close to 0
     * although checkpoints happen while they have callees running. */
    static void rounds(long units) {
        for (int round = 0; round < 20; round++) {
            heavy(units);
            light(units);
        }
    }

    public static void main(String[] args) throws Exception {
        long units = Long.parseLong(args[0]);
        rounds(units);
        sleepy();
        System.out.println("sink " + sink);
    }
}
