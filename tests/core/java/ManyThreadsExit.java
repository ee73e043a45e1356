import java.util.concurrent.locks.LockSupport;

/** Exits while 200 threads are busy, sleeping, parked or allocating. */
public class ManyThreadsExit {
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 200; i++) {
            final int kind = i % 4;
            Thread t = new Thread(() -> {
                while (true) {
                    switch (kind) {
                        case 0: sink = new byte[64]; break;
                        case 1: try { Thread.sleep(5); } catch (InterruptedException e) { return; } break;
                        case 2: LockSupport.parkNanos(1_000_000); break;
                        default: Math.sqrt(System.nanoTime()); break;
                    }
                }
            }, "busy-" + i);
            t.start();
        }
        Thread.sleep(1000);
        System.out.println("exiting");
        System.exit(0);
    }
}
