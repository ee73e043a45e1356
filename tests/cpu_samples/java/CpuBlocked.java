import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/* One busy thread and many threads that are RUNNABLE or WAITING but never
 * on a CPU: blocked in socket reads, Selector.select (epoll), Object.wait,
 * Thread.sleep and LockSupport.park. All blocked threads are named
 * "blocked-<kind>-<n>". */
public class CpuBlocked {
    static volatile long sink;
    static final Object lock = new Object();

    /* Runs for `ms` of this thread's CPU time, however busy the machine is. */
    static long burn(long ms) {
        ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        long end = bean.getCurrentThreadCpuTime() + ms * 1_000_000L, x = 0;
        while (bean.getCurrentThreadCpuTime() < end)
            for (int i = 0; i < 100_000; i++) x += (x ^ i) * 31;
        return x;
    }

    public static void main(String[] args) throws Exception {
        long ms = Long.parseLong(args[0]);
        int perKind = Integer.parseInt(args[1]);
        ServerSocket server = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
        List<Socket> accepted = new ArrayList<>();
        CountDownLatch ready = new CountDownLatch(5 * perKind);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < perKind; i++) {
            Socket client = new Socket(server.getInetAddress(), server.getLocalPort());
            accepted.add(server.accept()); /* kept open, never written */
            threads.add(new Thread(() -> {
                try (InputStream in = client.getInputStream()) {
                    ready.countDown();
                    in.read();
                } catch (Exception e) { /* closed at exit */ }
            }, "blocked-socket-" + i));
            threads.add(new Thread(() -> {
                try (Selector s = Selector.open()) {
                    ready.countDown();
                    s.select();
                } catch (Exception e) { }
            }, "blocked-select-" + i));
            threads.add(new Thread(() -> {
                synchronized (lock) {
                    ready.countDown();
                    try { lock.wait(); } catch (InterruptedException e) { }
                }
            }, "blocked-wait-" + i));
            threads.add(new Thread(() -> {
                ready.countDown();
                try { Thread.sleep(1_000_000); } catch (InterruptedException e) { }
            }, "blocked-sleep-" + i));
            threads.add(new Thread(() -> {
                ready.countDown();
                while (true) LockSupport.park();
            }, "blocked-park-" + i));
        }
        for (Thread t : threads) {
            t.setDaemon(true);
            t.start();
        }
        ready.await();
        Thread busy = new Thread(() -> sink += burn(ms), "busy");
        busy.start();
        busy.join();
    }
}
