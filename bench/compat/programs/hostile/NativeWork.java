// What NativeThreads and NativeUpcalls run on the threads they make in C: allocations and calls.
public class NativeWork {
    static volatile Object sink;

    static long work(int n) {
        long h = 0;
        for (int i = 0; i < n; i++) {
            int[] a = new int[i % 64 + 1];
            String s = Integer.toString(i);
            sink = a;
            h += s.hashCode() + a.length;
        }
        return h;
    }
}
