// The second version of the class Redefine swaps at run time (another body, other allocations).
public class RedefinedTarget {
    static Object keep;

    public static int f(int i) {
        keep = new long[2];
        keep = new StringBuilder().append(i).toString();
        return 2;
    }
}
