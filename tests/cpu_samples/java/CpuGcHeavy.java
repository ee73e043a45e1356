import java.util.Random;

/* A GC-heavy workload of a fixed amount of work: args[0] rounds of 10,000
 * allocations, each replacing a random element of a 400,000-element live
 * set, so that the collector's threads (G1's workers, refinement and
 * concurrent marking) use about as much CPU as the main thread. */
public class CpuGcHeavy {
    public static void main(String[] args) {
        int rounds = Integer.parseInt(args[0]);
        Object[] keep = new Object[400_000];
        Random r = new Random(1);
        long sum = 0;
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < 10_000; i++) {
                int[] x = new int[r.nextInt(64) + 1];
                sum += x.length;
                keep[r.nextInt(keep.length)] = (i & 7) == 0 ? new long[r.nextInt(200)]
                        : new StringBuilder("s").append(i).toString();
            }
        }
        System.out.println("sum=" + sum);
    }
}
