import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.function.IntSupplier;
import java.util.function.IntUnaryOperator;

/** Class churn: hidden classes defined and dropped, lambdas spun in throw-away class loaders,
 *  so classes load and unload all the time. Prints "compat: ready" once churning. */
public class ClassChurn {
    /** Defined again and again as a hidden class. */
    public static class Template implements IntSupplier {
        public int getAsInt() {
            return 42;
        }
    }

    /** Loaded again and again by a throw-away class loader; spins a lambda each time. */
    public static class WithLambda implements IntSupplier {
        public int getAsInt() {
            IntUnaryOperator twice = x -> x * 2;
            return twice.applyAsInt(21);
        }
    }

    public static void main(String[] args) throws Throwable {
        int rounds = Integer.parseInt(args[0]);
        byte[] bytes;
        try (InputStream in = ClassChurn.class.getResourceAsStream("ClassChurn$Template.class")) {
            bytes = in.readAllBytes();
        }
        URL here = ClassChurn.class.getProtectionDomain().getCodeSource().getLocation();
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        long sum = 0;
        System.out.println("compat: ready");
        System.out.flush();
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < 20; i++) {
                Class<?> hidden = lookup.defineHiddenClass(bytes, true).lookupClass();
                sum += ((IntSupplier) hidden.getDeclaredConstructor().newInstance()).getAsInt();
                int k = i;
                IntSupplier lambda = () -> k + 1;
                sum += lambda.getAsInt() - k - 1;
            }
            try (URLClassLoader loader = new URLClassLoader(new URL[] {here}, null)) {
                Class<?> fresh = loader.loadClass("ClassChurn$WithLambda");
                sum += ((IntSupplier) fresh.getDeclaredConstructor().newInstance()).getAsInt() > 0 ? 0 : 1;
            }
            if (r % 100 == 99) System.gc();
        }
        System.out.println("compat: churn rounds=" + rounds + " sum=" + sum);
    }
}
