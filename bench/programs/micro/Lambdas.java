import java.lang.reflect.Constructor;
import java.util.function.IntSupplier;

/**
 * Micro-benchmark: objects made through method handles: capturing lambdas, and one reflective
 * constructor call in 64 (on JDK 25 both reach Unsafe.allocateInstance). Args: scale
 */
public final class Lambdas {
    public static void main(String[] args) throws Exception {
        long n = (long) (400_000_000L * Double.parseDouble(args[0]));
        IntSupplier[] keep = new IntSupplier[1024];
        Constructor<StringBuilder> ctor = StringBuilder.class.getConstructor();
        long check = 0;
        for (long i = 0; i < n; i++) {
            int j = (int) i;
            IntSupplier f = () -> j + 1;
            keep[j & 1023] = f;
            check += f.getAsInt();
            if ((i & 63) == 0) check += ctor.newInstance().length();
        }
        System.out.println("lambdas n=" + n + " check=" + check);
    }
}
