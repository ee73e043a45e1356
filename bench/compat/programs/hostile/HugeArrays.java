/** Huge arrays: primitive and object arrays of hundreds of MB allocated and dropped, one array
 *  past the VM's size limit (OutOfMemoryError caught), and a 256 MB array live at exit. */
public class HugeArrays {
    static Object keep;

    public static void main(String[] args) {
        int rounds = Integer.parseInt(args[0]);
        long sum = 0;
        for (int r = 0; r < rounds; r++) {
            long[] longs = new long[100_000_000];          // 800 MB
            longs[longs.length - 1] = r;
            sum += longs[longs.length - 1];
            byte[] bytes = new byte[Integer.MAX_VALUE - 16]; // about 2 GB
            bytes[bytes.length - 1] = 1;
            sum += bytes[bytes.length - 1];
            Object[] refs = new Object[20_000_000];          // 80-160 MB of references
            for (int i = 0; i < refs.length; i += 4096) refs[i] = Integer.valueOf(i);
            sum += refs.length;
        }
        try {
            keep = new int[Integer.MAX_VALUE];
        } catch (OutOfMemoryError e) {
            sum++;
        }
        keep = new int[64 << 20]; // 256 MB live at exit
        System.out.println("compat: huge arrays rounds=" + rounds + " sum=" + sum);
    }
}
