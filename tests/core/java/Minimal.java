/* Uses next to nothing of the JDK: classes that CDS loaded but nobody linked
 * are still unlinked when the agent dumps at exit. With "reflect", it reads a
 * static field through reflection, whose accessor (JDK 17) has a field that
 * HotSpot hides from the heap walk's field indices. */
public class Minimal {
    static volatile int count = 42;

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("reflect"))
            System.out.println(Minimal.class.getDeclaredField("count").get(null));
        System.out.println("minimal");
    }
}
