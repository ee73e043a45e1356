import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.List;

/** A second agent in Java, as APM and coverage agents are: after the delay its option gives (ms),
 *  it retransforms every modifiable loaded class, its transformer handing back a copy of the bytes
 *  it is given (which, for classes the profiler rewrote, are the rewritten bytes). Reports on
 *  standard error only, so the program's output stays comparable. */
public class RetransformAgent {
    public static void premain(String args, Instrumentation inst) {
        long delay = args == null || args.isEmpty() ? 300 : Long.parseLong(args);
        inst.addTransformer(new ClassFileTransformer() {
            @Override
            public byte[] transform(Module module, ClassLoader loader, String name, Class<?> redefined,
                                    ProtectionDomain domain, byte[] bytes) {
                return redefined == null ? null : bytes.clone();
            }
        }, true);
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(delay);
            } catch (InterruptedException e) {
                return;
            }
            List<Class<?>> all = new ArrayList<>();
            for (Class<?> c : inst.getAllLoadedClasses()) if (inst.isModifiableClass(c)) all.add(c);
            int failed = 0;
            for (int i = 0; i < all.size(); i += 100) {
                try {
                    inst.retransformClasses(all.subList(i, Math.min(all.size(), i + 100)).toArray(new Class<?>[0]));
                } catch (Throwable e) {
                    failed++;
                }
            }
            System.err.println("retransform-agent: " + all.size() + " classes, " + failed + " batches refused");
        }, "retransform-agent");
        t.setDaemon(true);
        t.start();
    }
}
