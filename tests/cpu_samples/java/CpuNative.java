import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Random;
import java.util.zip.Deflater;

/* A thread on a CPU in native code (zlib behind Deflater): it is running,
 * so its samples count, with the native method on top of its Java frames. */
public class CpuNative {
    public static void main(String[] args) {
        byte[] input = new byte[1 << 20], output = new byte[1 << 21];
        new Random(42).nextBytes(input);
        for (int i = 0; i < input.length; i += 3) input[i] = 'a'; /* some redundancy */
        ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        long end = bean.getCurrentThreadCpuTime() + Long.parseLong(args[0]) * 1_000_000L;
        long total = 0;
        while (bean.getCurrentThreadCpuTime() < end) {
            Deflater d = new Deflater(9);
            d.setInput(input);
            d.finish();
            while (!d.finished()) total += d.deflate(output);
            d.end();
        }
        System.out.println("deflated " + total);
    }
}
