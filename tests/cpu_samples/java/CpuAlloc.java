import java.util.ArrayList;
import java.util.List;

/* Allocates in every form the exact heap=sites hooks count (new, arrays,
 * boxing, clone, copies) for about two seconds of CPU: with heap=sites and
 * cpu=samples together, many samples land inside the hooks. */
public class CpuAlloc implements Cloneable {
    int a, b;
    static volatile Object sink;

    @Override
    protected CpuAlloc clone() throws CloneNotSupportedException {
        return (CpuAlloc) super.clone();
    }

    public static void main(String[] args) throws Exception {
        long rounds = Long.parseLong(args[0]);
        List<Object> keep = new ArrayList<>();
        int[] arr = new int[8];
        for (long i = 0; i < rounds; i++) {
            keep.add(new CpuAlloc().clone());
            keep.add(Integer.valueOf((int) i + 1000));
            keep.add(arr.clone());
            keep.add(java.util.Arrays.copyOf(keep.toArray(), 4));
            if (keep.size() > 4096) {
                sink = keep;
                keep = new ArrayList<>();
            }
        }
        System.out.println("allocated " + rounds);
    }
}
