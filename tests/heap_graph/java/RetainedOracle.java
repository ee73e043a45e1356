import java.io.File;
import java.util.List;
import org.graalvm.visualvm.lib.jfluid.heap.Heap;
import org.graalvm.visualvm.lib.jfluid.heap.HeapFactory;
import org.graalvm.visualvm.lib.jfluid.heap.Instance;
import org.graalvm.visualvm.lib.jfluid.heap.JavaClass;

/* VisualVM's heap library as the oracle for retained sizes. Args: dump file,
 * N, class-name prefix, object IDs (hex). Prints "TOP <id> <retained> <size>
 * <class>" for the (up to) N largest retainers it reports, "OBJ ..." the same
 * for every instance of classes whose name starts with the prefix, and "ID ..."
 * for each object ID given. */
public class RetainedOracle {
    public static void main(String[] args) throws Exception {
        Heap heap = HeapFactory.createHeap(new File(args[0]));
        List<Instance> top = heap.getBiggestObjectsByRetainedSize(Integer.parseInt(args[1]));
        for (Instance i : top) print("TOP", i);
        for (JavaClass c : heap.getAllClasses()) {
            if (!c.getName().startsWith(args[2])) continue;
            for (Instance i : c.getInstances()) print("OBJ", i);
        }
        for (int a = 3; a < args.length; a++) {
            Instance i = heap.getInstanceByID(Long.parseUnsignedLong(args[a].substring(2), 16));
            if (i == null) System.out.println("ID " + args[a] + " missing");
            else print("ID", i);
        }
    }

    static void print(String what, Instance i) {
        System.out.printf("%s 0x%x %d %d %s%n", what, i.getInstanceId(), i.getRetainedSize(),
                          i.getSize(), i.getJavaClass().getName());
    }
}
