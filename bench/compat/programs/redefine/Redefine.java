// Classes redefined while they run (as a debugger's HotSwap does): a Java
// agent in the program's own jar (Launcher-Agent-Class) swaps
// RedefinedTarget between two versions, and redefines java.util.ArrayList
// with its own class file, after every round of calls.
import java.lang.instrument.ClassDefinition;
import java.lang.instrument.Instrumentation;
import java.net.URI;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

public class Redefine {
    static Instrumentation inst;

    public static void agentmain(String args, Instrumentation i) {
        inst = i;
    }

    static byte[] resource(String name) throws Exception {
        try (java.io.InputStream in = Redefine.class.getResourceAsStream(name)) {
            return in.readAllBytes();
        }
    }

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        byte[] v1 = resource("/RedefinedTarget.class"), v2 = resource("/RedefinedTarget.v2");
        byte[] list = Files.readAllBytes(FileSystems.getFileSystem(URI.create("jrt:/"))
                .getPath("modules", "java.base", "java/util/ArrayList.class"));
        long sum = 0;
        for (int r = 0; r < rounds; r++) {
            List<Integer> l = new ArrayList<>();
            for (int i = 0; i < 100000; i++) {
                sum += RedefinedTarget.f(i);
                if (i % 100 == 0) l.add(i);
            }
            sum += l.size();
            inst.redefineClasses(new ClassDefinition(RedefinedTarget.class, r % 2 == 0 ? v2 : v1),
                    new ClassDefinition(ArrayList.class, list));
        }
        System.out.println("sum " + sum);
    }
}
