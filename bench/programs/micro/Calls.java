/** Micro-benchmark: call-heavy. Tiny non-trivial methods and deep recursion. Args: scale */
public final class Calls {
    private int state = 1;

    private int step(int x) {
        state = state * 31 + x;
        return state >>> 7;
    }

    private int twice(int x) {
        return step(x) ^ step(x + 1);
    }

    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static long deep(int depth) {
        return depth == 0 ? 0 : 1 + deep(depth - 1);
    }

    public static void main(String[] args) {
        double scale = Double.parseDouble(args[0]);
        Calls c = new Calls();
        long check = 0;
        for (int i = 0; i < (int) (2_000_000_000 * scale); i++) check += c.twice(i);
        for (int i = 0; i < (int) (60 * scale) + 1; i++) check += fib(32);
        for (int i = 0; i < (int) (200_000 * scale) + 1; i++) check += deep(2000);
        System.out.println("calls check=" + check);
    }
}
