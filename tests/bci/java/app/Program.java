package app;

import hprofbci.Tracker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntUnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Exercises code shapes the rewriter must keep working: exceptions leaving
 * methods (thrown, from the VM, through constructors), switches, loops,
 * finally, synchronized, lambdas, records, enums, interface default/static
 * methods and all allocation opcodes.  Prints a deterministic result on
 * stdout; on stderr it reports whether the tracker saw exactly one exit per
 * entry on this thread (checked only with -Dbci.expectBalanced=true).  The one
 * exit the rewriter cannot see is a constructor left by an exception from its
 * super() call: run() does that exactly once (new Derived(0)).  With
 * entry_local hooks (-Dbci.local=true) the tracker keeps a shadow-stack
 * height instead; run() checks after every catch that it is its own again.
 */
public final class Program {
    interface Shape {
        double area();

        default String describe() { return kind() + String.format("(%.1f)", area()); }

        static Shape unit() { return new Square(1); }

        String kind();
    }

    record Square(double side) implements Shape {
        Square {
            if (side < 0) throw new IllegalArgumentException("negative side");
        }

        public double area() { return side * side; }

        public String kind() { return "square"; }
    }

    enum Op {
        ADD { int apply(int a, int b) { return a + b; } },
        DIV { int apply(int a, int b) { return a / b; } };

        abstract int apply(int a, int b);
    }

    static class Base {
        final String tag;

        Base(String tag) {
            this.tag = tag;
            if (tag.isEmpty()) throw new IllegalStateException("empty tag");
        }
    }

    static final class Derived extends Base {
        final int[][] grid;

        Derived(int n) {
            super(n > 0 ? "pos" + new StringBuilder().append(n) : n == 0 ? "" : "neg");
            grid = new int[n][n + 1];
            if (n > 3) throw new IllegalArgumentException("too big: " + n);
        }

        Derived() { this(2); }
    }

    static int depth(int n) {
        int at = Tracker.depth;
        if (n == 0) throw new UnsupportedOperationException("bottom");
        try {
            return depth(n - 1);
        } finally {
            same(Tracker.depth, at);
            counter++;
        }
    }

    static int counter;
    static final Object LOCK = new Object();

    /* javac's handlers that cover their own start: the synchronized block's
     * (unlock, rethrow) and each finally's; the outer finally's range also
     * covers the inner handler (FileChannelImpl.write has this shape). */
    static int guarded(int n) {
        int at = Tracker.depth;
        synchronized (LOCK) {
            try {
                try {
                    return depth(n);
                } finally {
                    same(Tracker.depth, at);
                    counter++;
                }
            } finally {
                same(Tracker.depth, at);
                counter += 2;
            }
        }
    }

    static String classify(int v) {
        switch (v) {
        case 0: return "zero";
        case 1: return "one";
        case 2: case 3: return "few";
        case 1000: return "thousand";
        case -7: return "minus seven";
        default: return v < 0 ? "negative" : "many";
        }
    }

    static String dense(int v) {
        switch (v & 7) {
        case 0: return "a"; case 1: return "b"; case 2: return "c"; case 3: return "d";
        case 4: return "e"; case 5: return "f"; default: return "g";
        }
    }

    static synchronized long sumLoop(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            if ((i & 1) == 0) continue;
            s += i;
        }
        return s;
    }

    /* The shadow-stack height (entry_local hooks) is `at` again. */
    static void same(int now, int at) {
        if (now != at) Tracker.wrong++;
    }

    static String run() {
        int at = Tracker.depth;
        StringBuilder out = new StringBuilder();
        out.append(Shape.unit().describe()).append('\n');
        try {
            new Square(-1);
        } catch (IllegalArgumentException e) {
            same(Tracker.depth, at);
            out.append("caught ").append(e.getMessage()).append('\n');
        }
        for (Op op : Op.values()) {
            try {
                out.append(op).append('=').append(op.apply(7, 0)).append('\n');
            } catch (ArithmeticException e) {
                same(Tracker.depth, at);
                out.append(op).append(" threw ").append(e.getMessage()).append('\n');
            }
        }
        for (int n = -1; n <= 5; n++) {
            try {
                Derived d = new Derived(n);
                out.append("derived ").append(d.tag).append(' ').append(d.grid.length).append('\n');
            } catch (RuntimeException e) {
                same(Tracker.depth, at);
                out.append("derived ").append(n).append(": ").append(e).append('\n');
            }
        }
        out.append("default ctor ").append(new Derived().tag).append('\n');
        try {
            depth(25);
        } catch (UnsupportedOperationException e) {
            same(Tracker.depth, at);
            out.append("depth ").append(e.getMessage()).append(' ').append(counter).append('\n');
        }
        try {
            guarded(3);
        } catch (UnsupportedOperationException e) {
            same(Tracker.depth, at);
            out.append("guarded ").append(e.getMessage()).append(' ').append(counter).append('\n');
        }
        try {
            Object o = null;
            out.append(o.hashCode());
        } catch (NullPointerException e) {
            same(Tracker.depth, at);
            out.append("npe caught\n");
        }
        try {
            int[] a = new int[2];
            a[3] = 1;
        } catch (ArrayIndexOutOfBoundsException e) {
            same(Tracker.depth, at);
            out.append("aioobe caught\n");
        }
        for (int v : new int[] {0, 1, 3, 1000, -7, -1, 99})
            out.append(classify(v)).append(dense(v)).append(' ');
        out.append('\n').append(sumLoop(1000)).append('\n');
        IntUnaryOperator sq = x -> x * x;
        out.append(IntStream.rangeClosed(1, 10).map(sq).boxed().map(String::valueOf)
                .collect(Collectors.joining(","))).append('\n');
        Map<String, List<Integer>> groups = new TreeMap<>();
        for (int i = 0; i < 30; i++)
            groups.computeIfAbsent(i % 3 == 0 ? "fizz" : "other", k -> new ArrayList<>()).add(i);
        out.append(groups).append('\n');
        long[][][] cube = new long[2][3][4];
        String[][] strs = new String[2][];
        Object[] objs = new Object[] {cube, strs, new char[] {'o', 'k'}};
        out.append(objs.length).append(cube[1][2].length).append(new String((char[]) objs[2]));
        switch ("beta") {
        case "alpha": out.append(" alpha"); break;
        case "beta": out.append(" beta"); break;
        default: out.append(" other");
        }
        return out.append('\n').toString();
    }

    public static void main(String[] args) {
        Tracker.watched = Thread.currentThread();
        long e0 = Tracker.entries, x0 = Tracker.exits, n0 = Tracker.news, a0 = Tracker.arrays;
        long o0 = Tracker.objectInits;
        String result = run();
        long e1 = Tracker.entries, x1 = Tracker.exits, n1 = Tracker.news, a1 = Tracker.arrays;
        long o1 = Tracker.objectInits;
        Tracker.watched = null;
        System.out.print(result);
        long calls = e1 - e0, exits = x1 - x0;
        boolean local = Boolean.getBoolean("bci.local");
        boolean ok = (local ? Tracker.wrong == 0 && Tracker.depth == 0 : calls == exits + 1)
                && calls > 0 && n1 > n0 && a1 > a0 && o1 - o0 >= n1 - n0;
        System.err.println("tracker: entries=" + calls + " exits=" + exits + " news=" + (n1 - n0)
                + " arrays=" + (a1 - a0) + " objectInits=" + (o1 - o0) + (ok ? " balanced" : " UNBALANCED") + " (1 exit expected unseen)");
        if (Boolean.getBoolean("bci.expectBalanced") && !ok) System.exit(1);
    }
}
