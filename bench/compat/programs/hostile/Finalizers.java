import java.lang.ref.Cleaner;
import java.lang.ref.PhantomReference;
import java.lang.ref.ReferenceQueue;
import java.util.concurrent.atomic.AtomicInteger;

/** Objects with finalize(), Cleaner actions and phantom references, collected while more come. */
public class Finalizers {
    static final AtomicInteger finalized = new AtomicInteger();
    static final AtomicInteger cleaned = new AtomicInteger();

    static class Finalizable {
        final byte[] payload = new byte[256];

        @Override
        @SuppressWarnings({"deprecation", "removal"})
        protected void finalize() {
            finalized.incrementAndGet();
        }
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        Cleaner cleaner = Cleaner.create();
        ReferenceQueue<Object> queue = new ReferenceQueue<>();
        int phantoms = 0;
        for (int i = 0; i < n; i++) {
            new Finalizable();
            cleaner.register(new int[16], cleaned::incrementAndGet);
            PhantomReference<Object> ref = new PhantomReference<>(new Object(), queue);
            if (ref.refersTo(null)) phantoms++;
            while (queue.poll() != null) phantoms++;
            if (i % 100_000 == 0) System.gc();
        }
        System.gc();
        System.out.println("compat: finalizers and cleaners registered=" + n);
    }
}
