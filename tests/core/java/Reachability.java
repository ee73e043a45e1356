import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.io.InputStream;
import java.lang.ref.WeakReference;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/* A profiler never changes what is reachable: each allocation form makes an
 * object that only a WeakReference holds; after System.gc() every one must be
 * gone. Two forms make classes the program drops, which must be unloaded: a
 * hidden class instantiated by reflection, and a class loader whose class
 * allocates its own instances (the weak reference holds the class or the
 * loader). Prints "<form> collected" or "<form> KEPT" per form, then, with the
 * argument "oom", recovers from OutOfMemoryError in a loop of clones. With
 * "hold" it only keeps a large heap for the exit dump. */
public class Reachability implements Cloneable {
    int[] payload = new int[64];

    @Override
    protected Reachability clone() throws CloneNotSupportedException {
        return (Reachability) super.clone();
    }

    /* Loaded again by each throw-away loader: its objects are made by
     * reflection and by its own `new`. */
    public static class Loaded {
        public Object make() {
            return new Loaded[] {new Loaded()};
        }
    }

    static byte[] loadedBytes() throws Exception {
        try (InputStream in = Reachability.class.getResourceAsStream("Reachability$Loaded.class")) {
            return in.readAllBytes();
        }
    }

    static Object make(String form) throws Throwable {
        Object[] big = new Object[16];
        for (int i = 0; i < big.length; i++) big[i] = new int[1024];
        switch (form) {
            case "new": return new Reachability();
            case "int[]": return new int[4096];
            case "Object[]": return big;
            case "multianewarray": return new int[8][8][8];
            case "array.clone": return big.clone();
            case "super.clone": return new Reachability().clone();
            case "Arrays.copyOf": return Arrays.copyOf(big, 64);
            case "Arrays.copyOf.typed": return Arrays.copyOf(big, 64, Object[].class);
            case "Arrays.copyOf.Integer[]": return Arrays.copyOf(new Integer[] {1000}, 64, Integer[].class);
            case "Arrays.copyOfRange": return Arrays.copyOfRange(big, 0, 8, Object[].class);
            case "Array.newInstance": return Array.newInstance(String.class, 64);
            case "Integer.valueOf": return Integer.valueOf(123456);
            case "Long.valueOf": return Long.valueOf(123456789L);
            case "Double.valueOf": return Double.valueOf(1.5);
            case "reflection": return Reachability.class.getDeclaredConstructor().newInstance();
            case "methodhandle": {
                MethodHandle h = MethodHandles.lookup().findConstructor(Reachability.class,
                        MethodType.methodType(void.class));
                return (Reachability) h.invoke();
            }
            case "Unsafe.allocateInstance": {
                Field f = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
                f.setAccessible(true);
                sun.misc.Unsafe u = (sun.misc.Unsafe) f.get(null);
                return u.allocateInstance(Reachability.class);
            }
            case "ArrayList.grow": {
                List<Object> l = new ArrayList<>();
                for (int i = 0; i < 100; i++) l.add(big);
                return l;
            }
            case "lambda": {
                int[] captured = new int[4096];
                Supplier<int[]> s = () -> captured;
                return s;
            }
            case "String.concat": return "x".repeat(1000) + form;
            case "hidden class": {
                Class<?> c = MethodHandles.lookup().defineHiddenClass(loadedBytes(), true).lookupClass();
                c.getDeclaredConstructor().newInstance();
                return c;
            }
            case "class loader": {
                URL here = Reachability.class.getProtectionDomain().getCodeSource().getLocation();
                URLClassLoader loader = new URLClassLoader(new URL[] {here}, null);
                Class<?> c = loader.loadClass("Reachability$Loaded");
                c.getMethod("make").invoke(c.getDeclaredConstructor().newInstance());
                loader.close();
                return loader;
            }
            default: throw new IllegalArgumentException(form);
        }
    }

    static final String[] FORMS = {"new", "int[]", "Object[]", "multianewarray", "array.clone",
        "super.clone", "Arrays.copyOf", "Arrays.copyOf.typed", "Arrays.copyOf.Integer[]",
        "Arrays.copyOfRange", "Array.newInstance", "Integer.valueOf", "Long.valueOf",
        "Double.valueOf", "reflection", "methodhandle", "Unsafe.allocateInstance",
        "ArrayList.grow", "lambda", "String.concat", "hidden class", "class loader"};

    static Object[] held;
    static volatile Object sink;

    /* A virtual thread (JDK 21+, started by reflection) whose finished task
     * captured an array: the array, null where there are none. */
    static Object finishedVirtualThread() throws Throwable {
        java.lang.reflect.Method start;
        try {
            start = Thread.class.getMethod("startVirtualThread", Runnable.class);
        } catch (NoSuchMethodException e) {
            return null;
        }
        int[] captured = new int[1 << 20];
        ((Thread) start.invoke(null, (Runnable) () -> sink = captured.length)).join();
        return captured;
    }

    public static void main(String[] args) throws Throwable {
        if (args.length > 0 && args[0].equals("vthread")) {
            /* Several, so that a state handed from one to the next is seen. */
            List<WeakReference<Object>> refs = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Object o = finishedVirtualThread();
                if (o == null) {
                    System.out.println("no virtual threads");
                    return;
                }
                refs.add(new WeakReference<>(o));
            }
            /* join() returns before the carrier has left the thread's last
             * frames (afterDone), which still hold it: a GC at once may see
             * the last one alive. Kept, it stays kept through every GC. */
            for (int i = 0; i < 20 && refs.stream().anyMatch(r -> r.get() != null); i++) {
                System.gc();
                Thread.sleep(50);
            }
            for (WeakReference<Object> r : refs)
                System.out.println("virtual thread's task" + (r.get() == null ? " collected" : " KEPT"));
            return;
        }
        if (args.length > 0 && args[0].equals("hold")) {
            /* A heap of some 40 MB that the exit dump must write. */
            held = new Object[500000];
            for (int i = 0; i < held.length; i++) held[i] = new int[16];
            System.out.println("held " + held.length);
            return;
        }
        /* Each form twice: once interpreted, once after warm-up (compiled). */
        for (int round = 0; round < 2; round++) {
            if (round == 1)
                for (int i = 0; i < 5000; i++)
                    for (String f : FORMS)
                        if (i < 200 || !f.contains("class")) make(f);
            for (String f : FORMS) {
                /* One form at a time: nothing allocated after it could
                 * displace what a profiler might still hold of it. */
                WeakReference<Object> ref = new WeakReference<>(make(f));
                System.gc();
                System.out.println(f + (round == 0 ? "" : " (warm)")
                        + (ref.get() == null ? " collected" : " KEPT"));
            }
        }
        if (args.length > 0 && args[0].equals("oom")) oomLoop();
    }

    /* Fills the heap with clones of one large array, drops them on
     * OutOfMemoryError and starts again: a program that recovers. */
    static void oomLoop() {
        Object[] chunk = new Object[64];
        for (int i = 0; i < chunk.length; i++) chunk[i] = new byte[64 * 1024];
        int recovered = 0;
        for (int round = 0; round < 5; round++) {
            List<Object> hold = new ArrayList<>();
            try {
                while (true) hold.add(((Object[]) chunk.clone()).clone() == null ? null : new byte[256 * 1024]);
            } catch (OutOfMemoryError e) {
                hold = null;
                recovered++;
            }
        }
        System.out.println("recovered from OutOfMemoryError " + recovered + " times");
    }
}
