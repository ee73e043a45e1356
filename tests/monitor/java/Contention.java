/**
 * Known monitor behaviour: 4 "contender" threads block on LOCK while main
 * holds it; "waiter" waits on WAIT_LOCK until notified.
 */
public class Contention {
    static final Object LOCK = new Object();
    static final Object WAIT_LOCK = new Object();
    static volatile boolean go;

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("hold")) {
            hold();
            return;
        }
        Thread waiter = new Thread(() -> {
            synchronized (WAIT_LOCK) {
                while (!go) {
                    try {
                        WAIT_LOCK.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }, "waiter");
        waiter.start();
        Thread[] contenders = new Thread[4];
        synchronized (LOCK) {
            for (int i = 0; i < contenders.length; i++) {
                contenders[i] = new Thread(Contention::enter, "contender-" + i);
                contenders[i].start();
            }
            // Release only when all four are blocked: exactly 4 contended entries.
            for (Thread t : contenders)
                while (t.getState() != Thread.State.BLOCKED) Thread.sleep(1);
            Thread.sleep(50);
        }
        for (Thread t : contenders) t.join();
        Thread.sleep(100);
        synchronized (WAIT_LOCK) {
            go = true;
            WAIT_LOCK.notifyAll();
        }
        waiter.join();
        System.out.println("done");
    }

    /**
     * For a dump on demand: "holder" owns LOCK (sleeping inside it),
     * "blocked" waits to enter it, "notified" waits in LOCK.wait().
     */
    static void hold() throws Exception {
        Thread notified = new Thread(() -> {
            synchronized (LOCK) {
                try {
                    LOCK.wait();
                } catch (InterruptedException e) {
                    // end
                }
            }
        }, "notified");
        notified.setDaemon(true);
        notified.start();
        while (notified.getState() != Thread.State.WAITING) Thread.sleep(1);
        Thread holder = new Thread(() -> {
            synchronized (LOCK) {
                try {
                    Thread.sleep(600_000);
                } catch (InterruptedException e) {
                    // end
                }
            }
        }, "holder");
        holder.setDaemon(true);
        holder.start();
        while (holder.getState() != Thread.State.TIMED_WAITING) Thread.sleep(1);
        Thread blocked = new Thread(Contention::enter, "blocked");
        blocked.setDaemon(true);
        blocked.start();
        while (blocked.getState() != Thread.State.BLOCKED) Thread.sleep(1);
        System.out.println("READY");
        System.out.flush();
        System.in.read();
    }

    static void enter() {
        synchronized (LOCK) {
            Math.sqrt(42);
        }
    }
}
