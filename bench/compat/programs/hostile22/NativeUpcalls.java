// Threads made in C that run Java code through the FFM API (JDK 22+):
// pthread_create, called by a downcall, starts each thread at an upcall
// stub, which attaches the thread to the JVM till it ends. Each upcall
// allocates and calls.
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.atomic.AtomicLong;

public class NativeUpcalls {
    static final AtomicLong done = new AtomicLong();
    static volatile Object sink;

    static MemorySegment start(MemorySegment arg) {
        sink = NativeWork.work(2000);
        done.incrementAndGet();
        return MemorySegment.NULL;
    }

    public static void main(String[] args) throws Throwable {
        int rounds = Integer.parseInt(args[0]), per = 4;
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        MethodHandle create = linker.downcallHandle(libc.find("pthread_create").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS,
                        ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        MethodHandle join = linker.downcallHandle(libc.find("pthread_join").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));
        MethodHandle target = MethodHandles.lookup().findStatic(NativeUpcalls.class, "start",
                MethodType.methodType(MemorySegment.class, MemorySegment.class));
        try (Arena arena = Arena.ofShared()) {
            MemorySegment stub = linker.upcallStub(target,
                    FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS), arena);
            MemorySegment tids = arena.allocate(ValueLayout.JAVA_LONG, per);
            for (int r = 0; r < rounds; r++) {
                for (int t = 0; t < per; t++) {
                    int rc = (int) create.invokeExact(tids.asSlice(8L * t), MemorySegment.NULL, stub,
                            MemorySegment.NULL);
                    if (rc != 0) throw new IllegalStateException("pthread_create " + rc);
                }
                for (int t = 0; t < per; t++) {
                    int rc = (int) join.invokeExact(tids.getAtIndex(ValueLayout.JAVA_LONG, t),
                            MemorySegment.NULL);
                    if (rc != 0) throw new IllegalStateException("pthread_join " + rc);
                }
            }
        }
        System.out.println("native upcalls: " + done.get() + " threads");
    }
}
