import java.io.InputStream;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

/** Known call lines ("// CALL caller_callee", "// ALLOC name") for the
 * caller-line tests; "unload" runs LinesGen in many class loaders and lets
 * them be collected before the report. */
public class LinesProg {
    public static Object sink;
    static List<Object> list = new ArrayList<>();

    public static void main(String[] args) throws Throwable {
        if (args[0].equals("calls")) {
            for (int i = 0; i < 3000; i++) {
                outer(i); // CALL main_outer
            }
            twice(1); // CALL main_twice
            lambdas(); // CALL main_lambdas
            for (int i = 0; i < 300; i++) {
                dynamic(i); // CALL main_dynamic
            }
        } else {
            churn(Integer.parseInt(args[1]));
        }
        System.out.println("done " + list.size());
    }

    static void outer(int i) {
        middle(i); // CALL outer_middle
        grow(i); // CALL outer_grow
    }

    static void middle(int i) {
        inner(i); // CALL middle_inner
    }

    static void inner(int i) {
        sink = new int[i % 7 + 1]; // ALLOC inner
    }

    static void grow(int i) {
        list.add(Integer.valueOf(i + 1000)); // CALL grow_add
    }

    /** Two calls of one method on different lines: heap=sites tells them
     * apart, cpu=times shows the lowest line. */
    static void twice(int i) {
        inner(i); // CALL twice_first
        inner(i + 1); // CALL twice_second
    }

    /** A lambda's body is called through its hidden class, which no trace
     * shows: each() is its caller, at the call of the interface method. */
    static void lambdas() {
        Runnable r = () -> inner(5); // CALL lambda_inner
        each(r); // CALL lambdas_each
    }

    /** Calls through invokedynamic (string concatenation, a capturing
     * lambda) and a method handle on four lines: their allocations' traces reach this method
     * through the call sites' linkage. */
    static void dynamic(int i) throws Throwable {
        sink = "a" + i; // CALL dynamic_concat1
        sink = "b" + i + "c"; // CALL dynamic_concat2
        java.util.function.IntSupplier s = () -> i; // CALL dynamic_capture
        sink = s;
        sink = (Object) MAKE.invokeExact(i); // CALL dynamic_mh
    }

    static final java.lang.invoke.MethodHandle MAKE = makeHandle();

    static java.lang.invoke.MethodHandle makeHandle() {
        try {
            return java.lang.invoke.MethodHandles.lookup().findStatic(LinesProg.class, "make",
                    java.lang.invoke.MethodType.methodType(Object.class, int.class));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    static Object make(int i) {
        return new long[i % 5 + 1];
    }

    static void each(Runnable r) {
        r.run(); // CALL each_run
    }

    /** Loader of its own copy of LinesGen, so that the class can be unloaded. */
    static final class OwnLoader extends ClassLoader {
        private final byte[] bytes;

        OwnLoader(byte[] bytes) {
            super(LinesProg.class.getClassLoader());
            this.bytes = bytes;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.equals("LinesGen")) return super.loadClass(name, resolve);
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                return c != null ? c : defineClass(name, bytes, 0, bytes.length);
            }
        }
    }

    static void run(Runnable r) {
        r.run(); // CALL churn_run
    }

    static void churn(int classes) throws Exception {
        byte[] bytes;
        try (InputStream in = LinesProg.class.getResourceAsStream("/LinesGen.class")) {
            bytes = in.readAllBytes();
        }
        List<WeakReference<ClassLoader>> loaders = new ArrayList<>();
        // On a thread of its own: heap=sites caches the classes of the
        // instances reflection made (JDK 25: Unsafe.allocateInstance) per thread.
        Thread t = new Thread(() -> {
            try {
                for (int i = 0; i < classes; i++) {
                    ClassLoader l = new OwnLoader(bytes);
                    Object o = l.loadClass("LinesGen").getDeclaredConstructor().newInstance();
                    run((Runnable) o);
                    loaders.add(new WeakReference<>(l));
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        });
        t.start();
        t.join();
        int gone = 0;
        for (int round = 0; round < 20 && gone < classes; round++) {
            System.gc();
            Thread.sleep(50);
            gone = 0;
            for (WeakReference<ClassLoader> w : loaders) gone += w.get() == null ? 1 : 0;
        }
        System.out.println("unloaded " + gone + " of " + classes);
    }
}
