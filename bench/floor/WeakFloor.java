import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The compatibility matrix's Workload loop (four threads making short lists of strings), with
 *  each object the loop makes itself (the key Integer, the String and, through a second string
 *  built from it, a byte[]) handed to a native of agents/weakjni.c: the floor of heap=all's
 *  exact route, one JNI call and what the mode does per object, nothing else.
 *  Usage: java -agentpath:libweakfloor.so=ROUTE WeakFloor N (ROUTE jni, call or tag: see
 *  agents/weakfloor.c), or without the agent java -Dweakfloor.mode=none|java WeakFloor N, where
 *  java keeps a WeakReference per object in its thread's array instead, dropping the cleared ones
 *  when it fills. */
public class WeakFloor {
    static native void record(Object o);

    static final String MODE = System.getProperty("weakfloor.mode", "agent");
    static final ThreadLocal<Refs> REFS = ThreadLocal.withInitial(Refs::new);

    static final class Refs {
        java.lang.ref.WeakReference<?>[] refs = new java.lang.ref.WeakReference<?>[1 << 16];
        int n;

        void add(Object o) {
            if (n == refs.length) {
                int kept = 0;
                for (int i = 0; i < n; i++)
                    if (!refs[i].refersTo(null)) refs[kept++] = refs[i];
                java.util.Arrays.fill(refs, kept, n, null);
                n = kept;
                if (kept > refs.length / 2) refs = java.util.Arrays.copyOf(refs, refs.length * 2);
            }
            refs[n++] = new java.lang.ref.WeakReference<>(o);
        }
    }

    static void java(Refs r, Object a, Object b, Object c) {
        r.add(a);
        r.add(b);
        r.add(c);
    }

    static long work(int seed, int n, boolean on) {
        Map<Integer, List<String>> map = new HashMap<>();
        long sum = 0;
        Refs refs = "java".equals(MODE) ? REFS.get() : null;
        for (int i = 0; i < n; i++) {
            Integer key = (seed + i) % 512 + 1000; /* outside the box cache, as in Workload */
            String s = Integer.toString(i);
            byte[] bytes = s.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
            if (refs != null) {
                java(refs, key, s, bytes);
            } else if (on) {
                record(key);
                record(s);
                record(bytes);
            }
            List<String> list = map.computeIfAbsent(key, k -> new ArrayList<>());
            list.add(s);
            if (list.size() > 32) list.clear();
            sum += list.size() + bytes.length;
        }
        return sum;
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        boolean on = "agent".equals(MODE);
        long[] sums = new long[4];
        Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++) {
            int slot = t;
            threads[t] = new Thread(() -> sums[slot] = work(slot, n, on), "worker-" + t);
            threads[t].start();
        }
        for (Thread t : threads) t.join();
        long total = 0;
        for (long s : sums) total += s;
        System.out.println("weakfloor: sum=" + total);
    }
}
