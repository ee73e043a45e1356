package app;

import hprofbci.Tracker;

/**
 * JDK 25 flexible constructor bodies (JEP 513): statements, a field store and
 * a throw before super().  Compiled by the JDK 25 javac at test time.  Prints
 * a deterministic result; on stderr, whether every entry had its exit (the
 * throw before super() is an athrow, which gets the exit hook).
 */
public final class Flexible {
    static class Base {
        final int v;

        Base(int v) { this.v = v; }
    }

    static final class Child extends Base {
        final String name;

        Child(int v, String name) {
            if (v < 0) throw new IllegalArgumentException("negative " + v);
            int w = v * 2 + name.length();
            this.name = name;
            super(w);
        }

        Child(String s) { this(s.length(), s); }
    }

    static String run() {
        StringBuilder out = new StringBuilder();
        for (int i : new int[] {-1, 0, 3}) {
            try {
                Child c = new Child(i, "c" + i);
                out.append(c.name).append(' ').append(c.v).append('\n');
            } catch (IllegalArgumentException e) {
                out.append("caught ").append(e.getMessage()).append('\n');
            }
        }
        return out.append(new Child("hello").v).append('\n').toString();
    }

    public static void main(String[] args) {
        Tracker.watched = Thread.currentThread();
        long e0 = Tracker.entries, x0 = Tracker.exits;
        String result = run();
        long e1 = Tracker.entries, x1 = Tracker.exits;
        Tracker.watched = null;
        System.out.print(result);
        boolean ok = e1 - e0 == x1 - x0 && e1 > e0;
        System.err.println("tracker: entries=" + (e1 - e0) + " exits=" + (x1 - x0)
                + (ok ? " balanced" : " UNBALANCED"));
        if (Boolean.getBoolean("bci.expectBalanced") && !ok) System.exit(1);
    }
}
