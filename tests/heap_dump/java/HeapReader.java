import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.graalvm.visualvm.lib.jfluid.heap.FieldValue;
import org.graalvm.visualvm.lib.jfluid.heap.Heap;
import org.graalvm.visualvm.lib.jfluid.heap.HeapFactory;
import org.graalvm.visualvm.lib.jfluid.heap.Instance;
import org.graalvm.visualvm.lib.jfluid.heap.JavaClass;
import org.graalvm.visualvm.lib.jfluid.heap.ObjectArrayInstance;
import org.graalvm.visualvm.lib.jfluid.heap.ObjectFieldValue;
import org.graalvm.visualvm.lib.jfluid.heap.PrimitiveArrayInstance;

/* Opens an HPROF file (args: file [dump number, from 0]) with VisualVM's
 * reader and prints, one per line:
 *   COUNT <class> <instances>   for every class with instances
 *   TOTAL <instances>
 *   VALUE <what> = <value>      for HeapDumpTarget's known objects
 * so that a driver can compare two dumps of the same program. */
public class HeapReader {
    static final String T = "HeapDumpTarget";

    public static void main(String[] args) throws Exception {
        Heap heap = args.length > 1 ? HeapFactory.createHeap(new File(args[0]), Integer.parseInt(args[1]))
                                    : HeapFactory.createHeap(new File(args[0]));
        Map<String, Integer> counts = new TreeMap<>();
        long total = 0;
        for (JavaClass c : heap.getAllClasses()) {
            int n = c.getInstancesCount();
            total += n;
            if (n > 0) counts.merge(c.getName(), n, Integer::sum);
        }
        for (Map.Entry<String, Integer> e : counts.entrySet())
            System.out.println("COUNT " + e.getKey() + " " + e.getValue());
        System.out.println("TOTAL " + total);

        JavaClass target = heap.getJavaClassByName(T);
        for (FieldValue v : target.getStaticFieldValues())
            value(T + "." + v.getField().getName(), v);
        JavaClass leaf = heap.getJavaClassByName(T + "$Leaf");
        for (FieldValue v : leaf.getStaticFieldValues())
            value("Leaf." + v.getField().getName(), v);
        JavaClass marked = heap.getJavaClassByName(T + "$Marked");
        for (FieldValue v : marked.getStaticFieldValues())
            value("Marked." + v.getField().getName(), v);
        for (Instance i : leaf.getInstances()) {
            if (!"42".equals(field(i, "i"))) continue;
            for (FieldValue v : i.getFieldValues()) value("Leaf42." + v.getField().getName(), v);
        }
        System.out.println("VALUE Leaf.super = " + leaf.getSuperClass().getName());
        /* Wrappers the target never uses: the agent's heap walk once linked
         * them itself and wrote their static values as zero. */
        for (String w : new String[] {"java.lang.Short", "java.lang.Long"}) {
            JavaClass c = heap.getJavaClassByName(w);
            for (FieldValue v : c == null ? List.<FieldValue>of() : c.getStaticFieldValues())
                if (v.getField().getName().endsWith("_VALUE"))
                    value(w + "." + v.getField().getName(), v);
        }
    }

    static String field(Instance i, String name) {
        for (FieldValue v : i.getFieldValues())
            if (v.getField().getName().equals(name)) return v.getValue();
        return null;
    }

    static void value(String what, FieldValue v) {
        if (what.endsWith("<classLoader>") || what.endsWith("<resolved_references>")) return;
        String shown = v instanceof ObjectFieldValue ? render(((ObjectFieldValue) v).getInstance(), 2)
                                                     : v.getValue();
        System.out.println("VALUE " + what + " = " + shown);
    }

    static String render(Instance i, int depth) {
        if (i == null) return "null";
        String cls = i.getJavaClass().getName();
        if (cls.equals("java.lang.String")) return "\"" + string(i) + "\"";
        if (i instanceof PrimitiveArrayInstance) {
            List<String> values = ((PrimitiveArrayInstance) i).getValues();
            if (values.size() <= 100) return cls + values;
            return cls + "(" + values.size() + ") last " + values.get(values.size() - 1);
        }
        if (i instanceof ObjectArrayInstance) {
            List<Instance> values = ((ObjectArrayInstance) i).getValues();
            int n = ((ObjectArrayInstance) i).getLength();
            if (n > 100)
                return cls + "(" + n + ") [" + (n - 2) + "] " + render(values.get(n - 2), 0);
            List<String> items = new ArrayList<>();
            for (Instance e : values) items.add(depth > 0 ? render(e, depth - 1) : "...");
            return cls + "(" + n + ")" + items;
        }
        if (cls.equals(T + "$Leaf") && depth > 0)
            return cls + "(i=" + field(i, "i") + ")";
        return cls;
    }

    /* java.lang.String since JDK 9: byte[] value with coder 0 (Latin-1) or
     * 1 (UTF-16 in the platform's byte order, little-endian here). */
    static String string(Instance s) {
        Object value = s.getValueOfField("value");
        if (!(value instanceof PrimitiveArrayInstance)) return "?";
        List<String> items = ((PrimitiveArrayInstance) value).getValues();
        String coder = field(s, "coder");
        if (items.isEmpty()) return "";
        if (((PrimitiveArrayInstance) value).getJavaClass().getName().equals("char[]")) {
            StringBuilder b = new StringBuilder();
            for (String c : items) b.append(c);
            return b.toString();
        }
        byte[] bytes = new byte[items.size()];
        for (int k = 0; k < bytes.length; k++) bytes[k] = Byte.parseByte(items.get(k));
        return new String(bytes, "1".equals(coder) ? StandardCharsets.UTF_16LE : StandardCharsets.ISO_8859_1);
    }
}
