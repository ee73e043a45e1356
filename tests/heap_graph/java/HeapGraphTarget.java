import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.SoftReference;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/* Dumps its heap (args: dump file, mode). Mode "known" first builds object
 * graphs whose dominators and retained sizes are known; "known-wait" builds
 * them, prints READY <pid> and waits for stdin to close; "javac OUTDIR
 * SOURCES..." compiles the sources in-process and keeps the finished task
 * alive, for a real program's heap. */
public class HeapGraphTarget {
    static class Chain { Chain next; byte[] data; }
    static class Diamond { Diamond a, b; long[] data; }
    static class Shared { Object s; }
    static class Cyc { Cyc other; byte[] data; }
    static class Holder { Object held; }
    static class Deep { Deep next; }
    static class Leaf { int v; }

    static Chain chain;
    static Diamond diamond;
    static Shared shared1, shared2;
    static Cyc cycle;
    static Holder strongHolder;
    static WeakReference<Object> weak;
    static SoftReference<Object> softOnly;
    static Deep deep;
    static Object[] leaves;
    static Object keep;
    /* For hprof suspects: 2000 x byte[1000] in one map. */
    static Map<Integer, byte[]> cache = new HashMap<>();
    /* For hprof waste: 100 equal strings with their own arrays, an ArrayList of
     * capacity 10000 holding one element, a HashMap of 4096 buckets holding one
     * entry, 50 empty ArrayLists, an Object[1000] holding one element, 1000 Longs. */
    static List<String> dups = new ArrayList<>();
    static List<Object> oversized = new ArrayList<>(10000);
    static Map<Object, Object> sparseMap = new HashMap<>(4096);
    static List<List<Object>> empties = new ArrayList<>();
    static Object[] sparse = new Object[1000];
    static Long[] boxes = new Long[1000];
    /* Markup in a dump string: the web UI must show it as text. */
    static String marker = "<b>bold</b> & \"quoted\" <script>document.title='pwned'</script>";

    static void known() {
        chain = new Chain();
        chain.data = new byte[1000];
        chain.next = new Chain();
        chain.next.data = new byte[2000];
        chain.next.next = new Chain();
        chain.next.next.data = new byte[3000];

        diamond = new Diamond();
        diamond.a = new Diamond();
        diamond.b = new Diamond();
        Diamond g = new Diamond();
        g.data = new long[100];
        diamond.a.a = g;
        diamond.b.a = g;

        Shared s = new Shared();
        s.s = new byte[5000];
        shared1 = new Shared();
        shared2 = new Shared();
        shared1.s = s;
        shared2.s = s;

        cycle = new Cyc();
        cycle.data = new byte[100];
        cycle.other = new Cyc();
        cycle.other.data = new byte[200];
        cycle.other.other = cycle;

        strongHolder = new Holder();
        strongHolder.held = new byte[7000];
        weak = new WeakReference<>(strongHolder.held);
        softOnly = new SoftReference<>(new byte[9000]);

        Deep head = null;
        for (int i = 0; i < 200000; i++) {
            Deep d = new Deep();
            d.next = head;
            head = d;
        }
        deep = head;

        for (int i = 0; i < 2000; i++) cache.put(i, new byte[1000]);
        char[] value = "duplicated value 0123456789".toCharArray();
        for (int i = 0; i < 100; i++) dups.add(new String(value));
        oversized.add(value);
        sparseMap.put("key", "value");
        for (int i = 0; i < 50; i++) empties.add(new ArrayList<>());
        sparse[0] = value;
        for (int i = 0; i < boxes.length; i++) boxes[i] = Long.valueOf(100000 + i);

        leaves = new Object[1000];
        for (int i = 0; i < leaves.length; i++) leaves[i] = new Leaf();
    }

    public static void main(String[] args) throws Exception {
        if (args[1].startsWith("known")) known();
        if (args[1].equals("known-wait")) {
            /* The driver dumps us from outside (jcmd), then closes stdin. */
            System.out.println("READY " + ProcessHandle.current().pid());
            System.out.flush();
            System.in.read();
            return;
        }
        if (args[1].equals("javac")) {
            JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
            List<String> opts = new ArrayList<>(List.of("-d", args[2]));
            for (int i = 3; i < args.length; i++) opts.add(args[i]);
            var fm = javac.getStandardFileManager(null, null, null);
            var task = javac.getTask(null, fm, null, opts.subList(0, 2),
                                     null, fm.getJavaFileObjectsFromStrings(opts.subList(2, opts.size())));
            if (!task.call()) throw new AssertionError("javac failed");
            keep = task;
        }
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
        System.out.println("DUMPED");
    }
}
