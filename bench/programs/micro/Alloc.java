/** Micro-benchmark: allocation-heavy. Many small short-lived objects, a few survivors. Args: scale */
public final class Alloc {
    record Point(int x, int y) {}

    static final class Node {
        final Object value;
        final Node next;

        Node(Object value, Node next) {
            this.value = value;
            this.next = next;
        }
    }

    public static void main(String[] args) {
        long n = (long) (400_000_000L * Double.parseDouble(args[0]));
        Node[] keep = new Node[4096];
        long check = 0;
        for (long i = 0; i < n; i++) {
            Node node = new Node(new Point((int) i, (int) (i >> 3)), keep[(int) (i & 4095)]);
            if ((i & 63) == 0) keep[(int) (i & 4095)] = (i & 4095) == 0 ? null : node;
            if ((i & 1023) == 0) check += new int[(int) (i & 31)].length + new char[8].length;
            check += ((Point) node.value).y();
        }
        System.out.println("alloc n=" + n + " check=" + check);
    }
}
