// Allocations with known counts for the heap=sites tests. Each case
// allocates at fixed lines (the driver reads the line numbers from the
// "// SITE <name>" markers) and stores every object in a static field so
// that escape analysis cannot remove the allocation.
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.util.ArrayList;
import java.util.List;

public class SitesProg {
    static volatile Object sink;
    static final List<Object> kept = new ArrayList<>();

    static final class Item implements Cloneable {
        long value;

        Item(long v) { value = v; }

        public Item() { }

        @Override
        public Item clone() {
            try {
                return (Item) super.clone(); // SITE itemclone
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }
    }

    static void allocate(int n, int keep) {
        for (int i = 0; i < n; i++) {
            Item it = new Item(i); // SITE basic
            sink = it;
            if (i < keep) kept.add(it);
        }
        sink = null;
    }

    static void primitives(int n) {
        for (int i = 0; i < n; i++) {
            kept.add(new boolean[10]); // SITE boolean
            kept.add(new byte[10]); // SITE byte
            kept.add(new char[10]); // SITE char
            kept.add(new short[10]); // SITE short
            kept.add(new int[10]); // SITE int
            kept.add(new long[10]); // SITE long
            kept.add(new float[10]); // SITE float
            kept.add(new double[10]); // SITE double
            kept.add(new Item[10]); // SITE objarray
        }
    }

    /* A constructor that computes its arguments among objects made where no
     * site is (boxes from valueOf) before its Object.<init> runs. */
    static final class Args {
        final Object[] a;

        Args(int n) {
            this(boxes(n));
        }

        Args(Object[] a) {
            this.a = a;
        }

        static Object[] boxes(int n) {
            Object[] r = new Object[n];
            for (int i = 0; i < n; i++) r[i] = Integer.valueOf(1000 + i);
            return r;
        }
    }

    static void ctorArgs(int n) {
        for (int i = 0; i < n; i++) sink = new Args(20); // SITE ctorargs
    }

    /* A constructor whose arguments are objects of 12 classes made by
     * reflection (JNI or Unsafe, no rewritten `new` of their own) before
     * its Object.<init> runs: at the first `new`, more classes than a
     * pending entry waits for. */
    static final class Primed {
        final Object[] made;

        Primed(Object[] made) {
            this.made = made;
        }

        static Object[] reflected() {
            Class<?>[] cs = {StringBuilder.class, java.util.LinkedList.class, java.util.TreeMap.class,
                java.util.ArrayDeque.class, StringBuffer.class, java.util.BitSet.class, Object.class,
                java.util.Random.class, java.util.HashMap.class, java.util.Vector.class,
                java.util.Stack.class, java.util.IdentityHashMap.class};
            Object[] r = new Object[cs.length];
            try {
                for (int i = 0; i < cs.length; i++) r[i] = cs[i].getDeclaredConstructor().newInstance();
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
            return r;
        }
    }

    static void firstOfClass(int n, boolean keep) {
        for (int i = 0; i < n; i++) {
            sink = new Primed(Primed.reflected()); // SITE primed
            if (keep) kept.add(sink);
        }
        sink = null;
    }

    /* Two sites of one array class, sizes far apart: live bytes estimated
     * past the tagged objects must follow each site's own sizes. */
    static void sizes(int n) {
        for (int i = 0; i < n; i++) {
            kept.add(new byte[1]); // SITE small
            kept.add(new byte[1000]); // SITE big
        }
    }

    static void multi(int n) {
        for (int i = 0; i < n; i++) {
            sink = new int[3][4]; // SITE multi
        }
    }

    static void cloning(int n) {
        Item proto = new Item(7);
        int[] arr = new int[10];
        for (int i = 0; i < n; i++) {
            sink = proto.clone(); // SITE cloneobj
            sink = arr.clone(); // SITE clonearr
        }
    }

    static void reflection(int n) throws Exception {
        Constructor<Item> c = Item.class.getConstructor();
        for (int i = 0; i < n; i++) {
            sink = c.newInstance(); // SITE reflect
            sink = Array.newInstance(long.class, 10); // SITE reflectarr
        }
    }

    // Larger than any TLAB: allocated outside it (JDK-8356372 territory).
    static void large(int n) {
        for (int i = 0; i < n; i++) {
            sink = new byte[3_000_000]; // SITE large
        }
    }

    static void boxing(int n) {
        for (int i = 0; i < n; i++) {
            sink = Integer.valueOf(1_000_000 + i); // SITE box
        }
    }

    // Allocations made inside JIT intrinsics, counted at their call sites;
    // the loop runs long enough for C2 to compile it.
    static String built(StringBuilder b) {
        return b.toString();
    }

    static void intrinsics(int n) throws Exception {
        Item proto = new Item(7);
        int[] ints = new int[10];
        Item[] items = new Item[10];
        String[] strs = new String[3];
        Object[] objs = new Object[3];
        StringBuilder builder = new StringBuilder("ab");
        java.lang.reflect.Field f = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
        f.setAccessible(true);
        sun.misc.Unsafe u = (sun.misc.Unsafe) f.get(null);
        for (int i = 0; i < n; i++) {
            int small = i & 63;
            sink = Integer.valueOf(small); // cached: no allocation
            sink = Integer.valueOf(10_000 + small); // SITE ibox
            Object auto = 2_000_000 + small; // SITE autobox
            sink = auto;
            sink = Long.valueOf(small); // cached
            sink = Long.valueOf(1000 + small); // SITE lbox
            sink = Short.valueOf((short) small); // cached
            sink = Short.valueOf((short) (200 + small)); // SITE sbox
            sink = Character.valueOf((char) small); // cached
            sink = Character.valueOf((char) (200 + small)); // SITE cbox
            int odd = i & 1; // at the cache bounds: every other value is fresh
            sink = Integer.valueOf(127 + odd); // SITE iedge
            sink = Long.valueOf(-128 - odd); // SITE ledge
            sink = Short.valueOf((short) (127 + odd)); // SITE sedge
            sink = Character.valueOf((char) (127 + odd)); // SITE cedge
            sink = Byte.valueOf((byte) i); // always cached
            sink = Boolean.valueOf((i & 1) == 0); // never allocates
            sink = Double.valueOf(small); // SITE dbox
            sink = Float.valueOf(small); // SITE fbox
            List<Object> list = new ArrayList<>(); // SITE list
            for (int k = 0; k < 11; k++) list.add(proto); // SITE listadd
            sink = list;
            sink = java.util.Arrays.copyOf(objs, 20, Object[].class); // SITE copyof
            sink = java.util.Arrays.copyOfRange(objs, 1, 9, Object[].class); // SITE copyofrange
            sink = java.util.Arrays.copyOf(strs, 7); // SITE copyoftyped
            sink = proto.clone(); // SITE cloneobj2
            sink = ints.clone(); // SITE clonearr2
            sink = items.clone(); // SITE cloneitems
            sink = Array.newInstance(long.class, 10); // SITE newinstance
            sink = u.allocateInstance(Item.class); // SITE allocinstance
            // Intrinsics whose own bytecode allocates: counted inside them.
            sink = Integer.toString(100_000 + small);
            sink = built(builder);
        }
    }

    static void threads(int t, int n) throws Exception {
        Thread[] ts = new Thread[t];
        for (int k = 0; k < t; k++) {
            ts[k] = new Thread(() -> allocate(n, 0), "alloc-" + k);
            ts[k].start();
        }
        for (Thread th : ts) th.join();
    }

    // Virtual threads (JDK 21+; started through reflection, as this file
    // compiles for 17), each allocating two frames below its task; started
    // in waves of `wave`, each joined before the next starts.
    static void vthreads(int t, int n, int wave) throws Exception {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        java.lang.reflect.Method start =
                Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class);
        Thread[] ts = new Thread[t];
        for (int first = 0; first < t; first += wave) {
            int end = Math.min(t, first + wave);
            for (int k = first; k < end; k++) ts[k] = (Thread) start.invoke(builder, (Runnable) () -> vtask(n));
            for (int k = first; k < end; k++) ts[k].join();
        }
    }

    static void vtask(int n) {
        vmid(n); // SITE vtaskvmid
    }

    static void vmid(int n) {
        allocate(n, 0); // SITE vmidalloc
    }

    static Item rec(int d) {
        if (d == 0) return new Item(d); // SITE rec
        return rec(d - 1); // SITE recself
    }

    static void thrower(int d) {
        if (d == 0) throw new IllegalStateException();
        thrower(d - 1);
    }

    // Each level catches what its deeper self threw, allocates, and throws
    // it on, but the outermost: the catching frame is the top again.
    static void recCatch(int d) {
        if (d == 0) throw new IllegalStateException();
        try {
            recCatch(d - 1); // SITE reccatchself
        } catch (IllegalStateException e) {
            sink = new Item(d); // SITE reccatch
            if (d < 3) throw e;
        }
    }

    // Traces deeper than the allocating method: recursion, and an
    // allocation right after an exception unwound several frames.
    static void deep(int n) {
        for (int i = 0; i < n; i++) {
            sink = rec(3); // SITE deeprec
            try {
                thrower(5);
            } catch (IllegalStateException e) {
                sink = new Item(i); // SITE aftercatch
            }
            recCatch(3); // SITE deepreccatch
        }
    }

    // Allocations of many kinds in application code, for comparing the
    // two routes.
    static void mixed(int n) {
        java.util.Map<Integer, String> m = new java.util.HashMap<>();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            m.put(i % 97, new String(new char[i % 13]));
            sb.append(new int[i % 7].length);
            Object[][] grid = new Object[i % 3 + 1][i % 5];
            kept.add(i % 10 == 0 ? grid : new Item(i));
            sink = new long[i % 11];
            if (sb.length() > 1000) sb = new StringBuilder();
        }
        sink = m;
    }

    // heap=all: threads keep every tenth object, across a collection, and
    // end before the dump.
    static final List<Object> survivors = java.util.Collections.synchronizedList(new ArrayList<>());

    static int survivorsEach;

    static void survivors(int t, int n) throws Exception {
        survivorsEach = n;
        Thread[] ts = new Thread[t];
        for (int k = 0; k < t; k++) {
            // A method reference: a lambda would renumber the others.
            ts[k] = new Thread(SitesProg::survivorTask, "survivor-" + k);
            ts[k].start();
        }
        for (Thread th : ts) th.join();
        System.gc();
    }

    static void survivorTask() {
        survivors.add(keepTenth(survivorsEach));
    }

    static List<Item> keepTenth(int n) {
        List<Item> mine = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Item it = new Item(i); // SITE survivor
            if (i % 10 == 0) mine.add(it);
            if (i == n / 2) System.gc();
        }
        return mine;
    }

    // Rounds of n Items that live through a collection, then die before
    // the next one (no dump in between).
    static void outlive(int n, int rounds) throws Exception {
        for (int r = 0; r < rounds; r++) {
            List<Item> kept = new ArrayList<>();
            for (int i = 0; i < n; i++) kept.add(new Item(i)); // SITE outlive
            System.gc();
            Thread.sleep(200); // time for a tagger to act on this collection
            if (kept.size() != n) throw new AssertionError();
            kept = null;
            System.gc();
        }
    }

    static volatile boolean stop;

    // Allocates at the basic site, then keeps two threads allocating
    // garbage while the driver requests dumps; ends when stdin has a line.
    static void serve(int n, int keep) throws Exception {
        allocate(n, keep); // SITE servecall
        Thread[] ts = new Thread[2];
        for (int k = 0; k < ts.length; k++) {
            ts[k] = new Thread(() -> {
                while (!stop) sink = new long[4]; // SITE churn
            });
            ts[k].start();
        }
        System.out.println("ready");
        System.out.flush();
        new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
        stop = true;
        for (Thread th : ts) th.join();
    }

    // Objects the JVM makes inside natives: through JNI (a directory's
    // listing, n times) and itself (names and methods of classes loaded
    // here).
    static void jvmMade(int n) throws Exception {
        java.io.File dir = java.nio.file.Files.createTempDirectory("sites").toFile();
        for (String f : new String[] {"a", "bb", "ccc"}) new java.io.File(dir, f).createNewFile();
        int names = 0;
        for (int i = 0; i < n; i++) names += dir.list().length;
        for (String c : new String[] {"java.util.zip.Adler32", "java.util.concurrent.Exchanger",
                                      "java.util.concurrent.Phaser"}) {
            Class<?> k = Class.forName(c);
            names += k.getName().length() + k.getDeclaredMethods().length;
        }
        for (java.io.File f : dir.listFiles()) f.delete();
        dir.delete();
        if (names == 0) throw new AssertionError();
    }

    static final class Mark { }

    // n Mark[10] at one site, and n Mark[5] that a hidden copy of
    // HiddenMaker makes: code no rewriter sees, whose objects no site counts.
    static void foreign(int n) throws Exception {
        for (int i = 0; i < n; i++) kept.add(new Mark[10]); // SITE foreign
        byte[] bytes;
        try (java.io.InputStream in = SitesProg.class.getResourceAsStream("/HiddenMaker.class")) {
            bytes = in.readAllBytes();
        }
        java.lang.invoke.MethodHandles.Lookup hidden =
                java.lang.invoke.MethodHandles.lookup().defineHiddenClass(bytes, true);
        java.lang.invoke.MethodHandle make = hidden.findStatic(hidden.lookupClass(), "make",
                java.lang.invoke.MethodType.methodType(void.class, int.class, List.class));
        try {
            make.invokeExact(n, kept);
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    // Virtual threads that park between allocations (JDK 21+): `rounds`
    // rounds of n allocations two frames below the task, each round
    // followed by a 1 ms sleep, so the thread continues on any carrier.
    static void vparks(int t, int n, int rounds) throws Exception {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        java.lang.reflect.Method start =
                Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class);
        Thread[] ts = new Thread[t];
        for (int k = 0; k < t; k++) ts[k] = (Thread) start.invoke(builder, (Runnable) () -> vparkTask(n, rounds));
        for (Thread th : ts) th.join();
    }

    static void vparkTask(int n, int rounds) {
        for (int r = 0; r < rounds; r++) {
            vmid(n); // SITE vparkvmid
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[1]);
        switch (args[0]) {
            case "basic": allocate(n, Integer.parseInt(args[2])); break; // SITE dispatch
            case "prims": primitives(n); break;
            case "multi": multi(n); break;
            case "sizes": sizes(n); break;
            case "ctorargs": ctorArgs(n); break;
            case "primed": firstOfClass(n, args[2].equals("keep")); break;
            case "clone": cloning(n); break;
            case "reflect": reflection(n); break;
            case "large": large(n); break;
            case "serve": serve(n, Integer.parseInt(args[2])); break;
            case "box": boxing(n); break;
            case "intrinsics": intrinsics(n); break;
            case "deep": deep(n); break; // SITE maindeep
            case "mixed": mixed(n); break;
            case "threads": threads(Integer.parseInt(args[2]), n); break;
            case "vthreads":
                vthreads(Integer.parseInt(args[2]), n, Integer.parseInt(args[args.length > 3 ? 3 : 2]));
                break;
            case "vparks": vparks(Integer.parseInt(args[2]), n, Integer.parseInt(args[3])); break;
            case "survivors": survivors(Integer.parseInt(args[2]), n); break;
            case "outlive": outlive(n, Integer.parseInt(args[2])); break;
            case "jvmmade": jvmMade(n); break;
            case "foreign": foreign(n); break;
            default: throw new IllegalArgumentException(args[0]);
        }
        sink = null;
    }
}

// Read as bytes and defined as a hidden class by SitesProg.foreign, never loaded by name.
final class HiddenMaker {
    static void make(int n, List<Object> into) {
        for (int i = 0; i < n; i++) into.add(new SitesProg.Mark[5]);
    }
}
