import java.util.ArrayList;
import java.util.List;

/** System.exit from another thread while four threads allocate and call without pause. */
public class ExitFromThread {
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        long millis = Long.parseLong(args[0]);
        for (int t = 0; t < 4; t++) {
            Thread worker = new Thread(() -> {
                while (true) {
                    List<String> list = new ArrayList<>();
                    for (int i = 0; i < 100; i++) list.add("x" + i);
                    sink = list;
                }
            }, "allocator-" + t);
            worker.start();
        }
        Thread exiter = new Thread(() -> {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                return;
            }
            System.out.println("compat: exit from another thread");
            System.out.flush();
            System.exit(3);
        }, "exiter");
        exiter.start();
        exiter.join();
    }
}
