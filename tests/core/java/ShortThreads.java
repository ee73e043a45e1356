import java.util.ArrayList;
import java.util.List;

/* Thousands of short threads in waves of 200, each allocating and entering
 * one monitor: far more runnable threads than cores, all registering with
 * and retiring from the agent's trackers at once. */
public class ShortThreads {
    static final Object lock = new Object();
    static long shared;

    public static void main(String[] args) throws Exception {
        int total = Integer.parseInt(args[0]);
        for (int started = 0; started < total; started += 200) {
            List<Thread> wave = new ArrayList<>();
            for (int i = 0; i < 200 && started + i < total; i++) {
                int id = started + i;
                Thread t = new Thread(() -> {
                    StringBuilder sb = new StringBuilder();
                    for (int k = 0; k < 50; k++) sb.append(id).append(',');
                    synchronized (lock) {
                        shared += sb.length();
                    }
                });
                wave.add(t);
                t.start();
            }
            for (Thread t : wave) t.join();
        }
        System.out.println("threads " + total + " shared " + shared);
    }
}
