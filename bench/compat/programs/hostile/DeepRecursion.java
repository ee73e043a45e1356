import java.util.function.IntUnaryOperator;

/** Recursion into StackOverflowError, caught and repeated, on four threads at once, also
 *  through a lambda, so the profiler's stacks overflow with the program's. */
public class DeepRecursion {
    static int down(int n) {
        return down(n + 1) + 1;
    }

    static IntUnaryOperator viaLambda = n -> DeepRecursion.viaLambda.applyAsInt(n + 1) + 1;

    static int rounds(int count) {
        int caught = 0;
        for (int i = 0; i < count; i++) {
            try {
                down(0);
            } catch (StackOverflowError e) {
                caught++;
            }
            try {
                viaLambda.applyAsInt(0);
            } catch (StackOverflowError e) {
                caught++;
            }
        }
        return caught;
    }

    public static void main(String[] args) throws InterruptedException {
        int count = Integer.parseInt(args[0]);
        int[] caught = new int[4];
        Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++) {
            int slot = t;
            threads[t] = new Thread(null, () -> caught[slot] = rounds(count), "deep-" + t, 1 << 20);
            threads[t].start();
        }
        for (Thread t : threads) t.join();
        int total = 0;
        for (int c : caught) total += c;
        System.out.println("compat: deep recursion caught=" + total);
    }
}
