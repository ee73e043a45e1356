import java.util.ArrayList;
import java.util.List;

/* A program with known objects, waiting at a quiet point (stdin open) while
 * the test driver takes heap dumps. Args: number of Leaf objects. */
public class HeapDumpTarget {
    interface Marked {
        int MARK = 7;
        String LABEL = "marked";
    }

    static class Base implements Marked {
        long baseLong = 0x1122334455667788L;
        String baseName = "base-name";
    }

    static class Leaf extends Base implements Comparable<Leaf> {
        static int created;
        static String kind = "static-kind";
        int i;
        boolean z = true;
        char c = 'Q';
        short s = -2;
        byte b = 0x7f;
        float f = 1.5f;
        double d = -2.25;
        Object ref;
        String text;

        Leaf(int i) {
            this.i = i;
            this.text = "leaf-" + i;
            created++;
        }

        public int compareTo(Leaf o) {
            return Integer.compare(i, o.i);
        }
    }

    static class Node {
        Node next;
        int value;
    }

    static final List<Object> keep = new ArrayList<>();
    static Object[] sparse = new Object[16];
    static int[] ints = {1, -2, 3, Integer.MAX_VALUE};
    static long[] longs = {Long.MIN_VALUE, 42L};
    static double[] doubles = {0.5, -1e300};
    static char[] chars = "héllo".toCharArray();
    static String unicode = "grüße \u4e16\u754c";
    /* Records larger than one dump segment buffer (4 MiB). */
    static Object[] bigRefs = new Object[600_000];
    static long[] bigLongs = new long[1_000_000];

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        Leaf prev = null;
        for (int i = 0; i < n; i++) {
            Leaf l = new Leaf(i);
            l.ref = prev;
            prev = l;
            keep.add(l);
        }
        Node head = null;
        for (int i = 0; i < 500; i++) {
            Node node = new Node();
            node.next = head;
            node.value = i;
            head = node;
        }
        keep.add(head);
        sparse[3] = "three";
        bigRefs[599_998] = "last";
        bigLongs[999_999] = 77;
        keep.add(new String[] {"x", null, "z", null});
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        while (System.in.read() >= 0) {
        }
        System.out.println("kept " + keep.size());
    }
}
