import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import javax.management.ObjectName;

/**
 * Keeps exactly COUNT instances of CliTestObj reachable, prints the JVM's own
 * class-histogram lines for it and its array and writes a live heap dump to args[0]; with
 * "--wait" instead, prints "READY" and waits on stdin while an outside
 * `jcmd <pid> GC.heap_dump` runs.
 */
public class CliDumpTest {
    static final int COUNT = 12345;
    static CliTestObj[] keep;

    public static void main(String[] args) throws Exception {
        keep = new CliTestObj[COUNT];
        for (int i = 0; i < COUNT; i++) keep[i] = new CliTestObj(i, keep[i > 0 ? i - 1 : 0]);
        String histo = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        for (String line : histo.split("\n"))
            if (line.trim().endsWith("CliTestObj") || line.trim().endsWith("[LCliTestObj;"))
                System.out.println("JVMHISTO " + line.trim());
        if (args[0].equals("--wait")) {
            System.out.println("READY");
            System.out.flush();
            System.in.read();
        } else {
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
        }
        System.out.println("kept " + keep.length);
    }
}

class CliTestObj {
    final int n;
    final long twice;
    final CliTestObj prev;
    final byte flag;

    CliTestObj(int n, CliTestObj prev) {
        this.n = n;
        this.twice = 2L * n;
        this.prev = prev;
        this.flag = (byte) n;
    }
}
