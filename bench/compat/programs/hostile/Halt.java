/** Runtime.halt while threads allocate; the shutdown hook must not run. */
public class Halt {
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("compat: hook ran")));
        for (int t = 0; t < 3; t++) {
            Thread worker = new Thread(() -> {
                while (true) sink = new int[64];
            }, "allocator-" + t);
            worker.setDaemon(true);
            worker.start();
        }
        Thread.sleep(Long.parseLong(args[0]));
        System.out.println("compat: halting");
        System.out.flush();
        Runtime.getRuntime().halt(5);
    }
}
