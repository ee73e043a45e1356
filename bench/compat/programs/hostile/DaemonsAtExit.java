/** main returns while eight daemon threads still allocate, lock, wait and sleep. */
public class DaemonsAtExit {
    static final Object lock = new Object();
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        for (int t = 0; t < 8; t++) {
            int kind = t % 4;
            Thread d = new Thread(() -> {
                while (true) {
                    try {
                        switch (kind) {
                            case 0 -> sink = new StringBuilder().append(System.nanoTime()).toString();
                            case 1 -> { synchronized (lock) { sink = new int[32]; } }
                            case 2 -> { synchronized (lock) { lock.wait(1); } }
                            default -> Thread.sleep(1);
                        }
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "daemon-" + t);
            d.setDaemon(true);
            d.start();
        }
        Thread.sleep(Long.parseLong(args[0]));
        System.out.println("compat: main returns with daemons running");
    }
}
