// Threads made in C that run Java code: pthread_create (called through JNA)
// starts each with a JNA callback, which attaches the thread to the JVM for
// the call. Half the threads are detached when the callback returns, the
// others stay attached till the thread ends; every thread also registers a
// pthread key destructor, a second callback that runs as the thread ends,
// attaching the same C thread again as a new Java thread. Each call
// allocates and calls.
import com.sun.jna.Callback;
import com.sun.jna.CallbackThreadInitializer;
import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;
import java.util.concurrent.atomic.AtomicLong;

public class NativeThreads {
    public interface StartRoutine extends Callback {
        Pointer invoke(Pointer arg);
    }

    public interface Destructor extends Callback {
        void invoke(Pointer value);
    }

    public interface LibC extends Library {
        int pthread_create(Pointer thread, Pointer attr, StartRoutine start, Pointer arg);

        int pthread_join(NativeLong thread, Pointer result);

        int pthread_key_create(Pointer key, Destructor destructor);

        int pthread_setspecific(int key, Pointer value);
    }

    static final AtomicLong starts = new AtomicLong(), ends = new AtomicLong();
    static volatile Object sink;
    static LibC libc;
    static int key;

    static Pointer start(Pointer arg) {
        sink = NativeWork.work(2000);
        libc.pthread_setspecific(key, new Pointer(1));
        starts.incrementAndGet();
        return null;
    }

    // Strongly held: JNA frees a callback's native stub when it is collected.
    static final StartRoutine DETACHING = NativeThreads::start, STAYING = NativeThreads::start;
    static final Destructor AT_END = value -> {
        sink = NativeWork.work(500);
        ends.incrementAndGet();
    };

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]), per = 4;
        libc = Native.load("c", LibC.class);
        Native.setCallbackThreadInitializer(STAYING, new CallbackThreadInitializer(true, false, "staying"));
        Memory k = new Memory(4);
        if (libc.pthread_key_create(k, AT_END) != 0) throw new IllegalStateException("pthread_key_create");
        key = k.getInt(0);
        Memory tids = new Memory(8L * per);
        for (int r = 0; r < rounds; r++) {
            for (int t = 0; t < per; t++) {
                int rc = libc.pthread_create(tids.share(8L * t), null, t % 2 == 0 ? DETACHING : STAYING, null);
                if (rc != 0) throw new IllegalStateException("pthread_create " + rc);
            }
            for (int t = 0; t < per; t++) {
                int rc = libc.pthread_join(new NativeLong(tids.getLong(8L * t)), null);
                if (rc != 0) throw new IllegalStateException("pthread_join " + rc);
            }
        }
        System.out.println("native threads: " + starts.get() + " started, " + ends.get() + " ended");
    }
}
