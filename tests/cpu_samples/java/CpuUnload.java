import java.io.ByteArrayOutputStream;
import java.io.InputStream;

/* Stress: threads that each run UnloadPayload in a fresh class loader per
 * round, dropping the loaders and forcing GCs so that classes are unloaded
 * (and their compiled code discarded) while they are being sampled. */
public class CpuUnload {
    static final class Child extends ClassLoader {
        Child() { super(CpuUnload.class.getClassLoader()); }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith("UnloadPayload")) return super.loadClass(name, resolve);
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    byte[] b = bytes(name);
                    c = defineClass(name, b, 0, b.length);
                }
                return c;
            }
        }
    }

    static byte[] bytes(String name) throws ClassNotFoundException {
        try (InputStream in = CpuUnload.class.getResourceAsStream("/" + name + ".class")) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            in.transferTo(out);
            return out.toByteArray();
        } catch (Exception e) {
            throw new ClassNotFoundException(name, e);
        }
    }

    static void rounds(long end) {
        try {
            while (System.nanoTime() < end) {
                Class<?> c = new Child().loadClass("UnloadPayload");
                ((Runnable) c.getDeclaredConstructor().newInstance()).run();
            }
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    public static void main(String[] args) throws Exception {
        long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000L;
        Thread[] workers = new Thread[2];
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Thread(() -> rounds(end), "unload-" + i);
            workers[i].start();
        }
        while (System.nanoTime() < end) {
            System.gc();
            Thread.sleep(50);
        }
        for (Thread t : workers) t.join();
        System.out.println("unloaded ok");
    }
}
