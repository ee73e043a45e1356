/* Uses next to nothing of the JDK: classes that CDS loaded but nobody linked
 * are still unlinked when the agent dumps at exit. */
public class Minimal {
    public static void main(String[] args) {
        System.out.println("minimal");
    }
}
