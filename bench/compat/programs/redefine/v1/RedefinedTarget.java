// The first version of the class Redefine swaps at run time.
public class RedefinedTarget {
    static Object keep;

    public static int f(int i) {
        keep = new int[1];
        return 1;
    }
}
