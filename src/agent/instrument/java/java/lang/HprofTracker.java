/*
 * The tracker that rewritten classes call. The agent defines it into the boot
 * loader's java.lang package (java.base) before any Java code runs, so every
 * class, java.base included, can call it: java.lang is exported to all and
 * every module reads java.base. It is never rewritten itself, and it calls no
 * rewritten code once engaged: only itself, natives (Thread.currentThread,
 * System.identityHashCode, System.arraycopy, Unsafe's compare-and-set),
 * intrinsics (Thread.onSpinWait) and its own natives. Anything else would
 * recurse into the tracker.
 *
 * cpu=times: each thread owns one instance (found through a field the
 * rewriter adds to java.lang.Thread, hprofTracker, when cpu=times starts
 * with the JVM; otherwise through a lock-free table keyed by the Thread
 * object) holding a shadow stack and a table of traces,
 * a trace being the methods of the top `depth` frames. Only the owning
 * thread writes it; the agent reads it at a dump through JNI, and, as the
 * counters only grow, reports the difference since the previous dump.
 *
 * Time: reading a clock at every entry and exit would cost more than the
 * rest of the tracker (System.nanoTime is 25-80 ns), so frames are timed
 * with `clock`, a monotonic nanosecond clock that an agent thread stores
 * every TICK (see modes/cpu_times/ticker.c): a call is charged the ticks that
 * happen while it runs, which is unbiased as ticks fall at random points of
 * the calls. At checkpoints at least CHECKPOINT_NS of that clock apart (and
 * when a virtual thread mounts or unmounts), the thread's CPU clock is read
 * (a native call) and the wall time charged in the interval, to finished
 * calls and to frames still running alike, is scaled by CPU time / wall
 * time of that interval. So self time is thread CPU time, apportioned
 * within each interval in proportion to wall-clock self time.
 */
package java.lang;

import jdk.internal.misc.Unsafe;
import jdk.internal.vm.annotation.DontInline;
import jdk.internal.vm.annotation.Stable;

public final class HprofTracker {
    private static final long CHECKPOINT_NS = 10_000_000;
    /* Which build this is (variant/): a compile-time constant, so javac
     * leaves the other build's code out. With the field, a call finds its
     * thread's state with one load and writes nothing shared; through the
     * table, `last` caches the state found last, which threads taking turns
     * rewrite (bench's calls2, two threads at once: 37.3x CPU on JDK 17,
     * 8.3x with the field, as one thread alone). */
    private static final boolean FIELD = HprofTrackerVariant.THREAD_FIELD;

    /* Set by the agent at VM init (or attach). Until then natives such as
     * Thread.currentThread may still need linking, which runs Java code
     * (ClassLoader.findNative) that is itself rewritten: nothing is recorded.
     * Cleared again when an attached recording stops (disengage). */
    private static volatile boolean engaged;
    /* True once engage() ran, never reset (the field build's hooks call
     * Thread.currentThread only then). @Stable: once true, the JIT takes it
     * as a constant. */
    @Stable private static boolean started;
    /* Monotonic ns, advanced by the agent's ticker thread. */
    private static volatile long clock;

    /* Frames per trace (depth=, or 2 for cpu=old); from the agent at
     * engagement (natives cannot be called earlier, see engaged). */
    private static int DEPTH;
    /* Thread -> state, open addressing, published whole; GONE marks a
     * retired slot. Only written under the class's lock (lock()). */
    private static volatile HprofTracker[] table = new HprofTracker[64];
    private static int used; /* slots not null, GONE included */
    /* The states of running threads, for the agent. */
    private static HprofTracker[] all = new HprofTracker[16];
    private static int nAll, nextId;
    private static Thread registering;
    /* The lock, and where it is for Unsafe: set at engagement. */
    private static volatile int locked;
    private static Unsafe U;
    private static Object STATICS;
    private static long LOCKED;
    private static HprofTracker last; /* the state current() found last (table build) */
    private static final HprofTracker GONE = new HprofTracker(null, -1);

    /* Found by the VM in the agent library (Java_java_lang_HprofTracker_*). */
    private static native int depth();
    private static native long cpuTime();
    /* Waits a little for the lock (instrument.h hp_instr_backoff). */
    private static native void backoff(int round);

    /* ---- one thread's state ---- */

    private Thread thread; /* null once the thread ended */
    private final int id;
    private int allIndex; /* in all[] */

    /* Shadow stack. Per frame, in fi: method number and trace; in fl: clock
     * at entry (or at the last checkpoint), clock charged to finished callees
     * since then, and scaled self and total time of earlier intervals. The
     * last three are zero in free slots, so a push writes only 3 values. */
    private int sp;
    private int[] fi = new int[2 * 32];
    private long[] fl = new long[4 * 32];

    /* Traces 0..nTraces-1: DEPTH method numbers each (top first, -1 padded),
     * completed calls, scaled self and total time in ns, and the unscaled
     * time of the current interval. */
    private volatile int nTraces;
    private int[] keys = new int[16 * (DEPTH > 0 ? DEPTH : 1)];
    private int[] count = new int[16];
    private long[] self = new long[16], total = new long[16];
    private long[] pendSelf = new long[16], pendTotal = new long[16];
    private int[] dirty = new int[16], dirtyGen = new int[16];
    /* (caller's trace, callee) -> callee's trace: a direct-mapped cache in
     * front of the pair table below, entries of two longs (key as there,
     * trace). Per caller trace, a one-entry cache missed on 54-70% of the
     * calls of the bench programs and 4 entries on 23-36% (dispatch loops
     * call many methods); this cache on 0.4-1.7% at 16K entries. It starts
     * small and doubles, up to HOT_MAX entries, while it misses more than
     * a quarter of its size per checkpoint interval. */
    private static final int HOT_MIN = 1 << 10, HOT_MAX = 1 << 16;
    private long[] hot = new long[2 * HOT_MIN];
    private int hotShift = 32 - 10, hotMisses;
    private int rootCallee = -1, rootCalleeTrace = -1;
    /* (caller's trace, callee) -> callee's trace, behind that cache: keys
     * are ((trace + 1) << 32 | method) + 1, 0 marks a free slot. */
    private long[] pairKey = new long[32];
    private int[] pairTrace = new int[32];
    private int nPairs;
    private int nDirty, gen = 1;
    private int[] index = new int[32]; /* hash of keys -> trace + 1 */

    private long cpWall, cpCpu, owed;
    private boolean paused; /* by leaving(), till arrived() */

    private HprofTracker(Thread t, int id) {
        this.thread = t;
        this.id = id;
    }

    /* ---- injected calls ---- */

    /* The injected calls are a short common path that JIT-compiles into a
     * few loads, compares and stores with nothing to spill, and everything
     * else out of line (@DontInline): with all of it compiled into enter()
     * and exit(), C2 spilled registers in the common path too. The common
     * path: the thread's state is in its field (or is the one current()
     * found last, table build), enter() finds the
     * callee's trace in `hot`, exit() pops a frame into which no tick fell
     * (the checkpoint test waits for a pop that charges time). */

    @DontInline
    public static void enter(int cnum, int mnum) {
        HprofTracker s = mine();
        if (s == null || !s.fastPush(mnum)) enterSlow(mnum);
    }

    @DontInline
    public static void exit(int cnum, int mnum) {
        HprofTracker s = mine();
        if (s == null || !s.fastPop(mnum)) exitSlow(mnum);
    }

    /* Short leaves (no call, loop or handler: bci.h) make this one call
     * instead of enter and exit: counted as a call of their trace, their
     * few instructions' time left to the caller. */
    @DontInline
    public static void leaf(int cnum, int mnum) {
        HprofTracker s = mine();
        if (s == null || !s.fastLeaf(mnum)) leafSlow(mnum);
    }

    /* Methods that switch the current thread (VirtualThread.mount and
     * unmount, which call Thread.setCurrentThread) call these instead of
     * enter and exit: before the switch the thread being left stops its
     * clock, after it the thread reached starts its own again. So a
     * carrier's frames are not charged while a virtual thread runs on it,
     * nor a virtual thread's while it is unmounted, and no frame begins on
     * one thread and ends on another. (As a frame, mount stayed open on the
     * carrier while its virtual thread ran: VirtualThreads, JDK 25, gave it
     * 48% of all self time, counted again in the virtual thread's frames.)
     * They are not counted as calls; their own time is their callers'. */
    @DontInline
    public static void leaving(int cnum, int mnum) {
        if (!engaged) return;
        HprofTracker s = current();
        if (s != null) s.pause();
    }

    @DontInline
    public static void arrived(int cnum, int mnum) {
        if (!engaged) return;
        HprofTracker s = current();
        if (s != null) s.resume();
    }

    /* The calling thread's state if the common path finds it, else null.
     * Thread.currentThread is not called before engagement: until then the
     * native may still need linking, which runs rewritten code. */
    private static HprofTracker mine() {
        if (FIELD) {
            if (!started) return null;
            Thread t = Thread.currentThread();
            HprofTracker s = t != null ? t.hprofTracker : null;
            return s != null && s.thread == t ? s : null;
        }
        HprofTracker s = last;
        return s != null && s.thread == Thread.currentThread() ? s : null;
    }

    private boolean fastLeaf(int m) {
        int i = sp;
        int[] f = fi;
        if (i <= 0 || 2 * i - 1 >= f.length) return false;
        int tr = hotTrace(f[2 * i - 1], m);
        int[] n = count;
        if (tr < 0 || tr >= n.length) return false;
        n[tr]++;
        return true;
    }

    /* The trace of callee m under caller trace p from the direct-mapped
     * cache; -1 on a miss. */
    private int hotTrace(int p, int m) {
        long[] c = hot;
        int k = 2 * (hash(p, m) >>> hotShift);
        if (p < 0 || k + 1 >= c.length || c[k] != pairKey(p, m)) return -1;
        return (int) c[k + 1];
    }

    @DontInline
    private static void leafSlow(int m) {
        if (!engaged) return;
        HprofTracker s = current();
        if (s == null) return;
        int i = s.sp;
        s.push(m);
        if (s.sp == i + 1) s.pop(m); /* not if the stack could not grow */
    }

    private boolean fastPush(int m) {
        int i = sp;
        int[] f = fi;
        if (i <= 0 || 2 * i + 1 >= f.length) return false;
        int t = hotTrace(f[2 * i - 1], m);
        if (t < 0) return false;
        f[2 * i] = m;
        f[2 * i + 1] = t;
        fl[4 * i] = clock;
        sp = i + 1;
        return true;
    }

    private boolean fastPop(int m) {
        int i = sp - 1;
        int[] f = fi;
        long[] l = fl;
        if (i < 0 || 2 * i + 1 >= f.length || 4 * i + 3 >= l.length || f[2 * i] != m) return false;
        int tr = f[2 * i + 1];
        int[] c = count;
        if (tr < 0 || tr >= c.length || clock != l[4 * i] || l[4 * i + 3] != 0) return false;
        c[tr]++;
        sp = i;
        return true;
    }

    @DontInline
    private static void enterSlow(int m) {
        if (!engaged) return;
        HprofTracker s = current();
        if (s != null) s.push(m);
    }

    @DontInline
    private static void exitSlow(int m) {
        if (!engaged) return;
        HprofTracker s = current();
        if (s != null) s.pop(m);
    }

    private static HprofTracker current() {
        Thread t = Thread.currentThread();
        if (t == null) return null; /* before the VM made the main Thread */
        if (FIELD) {
            HprofTracker s = t.hprofTracker;
            return s != null && s.thread == t ? s : register(t);
        }
        /* Most programs run one busy thread at a time: try its state first,
         * and keep the shared field unwritten while it stays the same. */
        HprofTracker s = last;
        if (s != null && s.thread == t) return s;
        HprofTracker[] tab = table;
        int mask = tab.length - 1;
        for (int i = System.identityHashCode(t) & mask;; i = (i + 1) & mask) {
            s = tab[i];
            if (s == null) return last = register(t);
            if (s.thread == t) return last = s;
        }
    }

    private void push(int m) {
        int i = sp;
        if (2 * i + 2 > fi.length && !growStack()) return;
        fi[2 * i] = m;
        int t;
        if (i == 0) {
            if (rootCallee == m) {
                t = rootCalleeTrace;
            } else {
                t = callee(-1, m, 0);
                rootCallee = m;
                rootCalleeTrace = t;
            }
        } else {
            int p = fi[2 * i - 1];
            if (p < 0) {
                t = trace(i);
            } else {
                long key = pairKey(p, m);
                int k = 2 * (hash(p, m) >>> hotShift);
                if (hot[k] == key) {
                    t = (int) hot[k + 1];
                } else {
                    t = callee(p, m, i);
                    hot[k] = key;
                    hot[k + 1] = t;
                    hotMisses++;
                }
            }
        }
        fi[2 * i + 1] = t;
        fl[4 * i] = clock;
        sp = i + 1;
        if (i == 0 && nParked > 0 && m == parkedBottom) unpark(fl[0]);
    }

    private void pop(int m) {
        long now = clock;
        int top = sp - 1;
        if (top < 0) return;
        if (fi[2 * top] != m) {
            /* Frames above ours left without their exit call (an exception
             * out of a constructor's super() call): they ended too. */
            int k = top;
            while (k >= 0 && fi[2 * k] != m) k--;
            if (k < 0) return; /* entered before we could see it */
            if (k == 0 && VTHREADS && thread != null && thread.isVirtual() && park(now)) top = 0;
            while (top > k) finish(top--, now);
        }
        finish(top, now);
        if (now - cpWall >= CHECKPOINT_NS) {
            checkpoint(now);
            growHot();
        }
    }

    /* A virtual thread's frames above its bottom one when that returned
     * with them still open: its continuation yielded (JDK 24+ mounts it
     * from outside, so the bottom frame is Continuation.run, which returns
     * at every yield). They are kept here, not counted, and put back above
     * the bottom frame when it is entered again to continue them; before,
     * they were counted at the yield, their exits after it ignored, and
     * what they did next was charged to Continuation.run, the only caller
     * left. They are put back at once, not at the first exit after the
     * thaw, as the thawed top frame may call before it returns; so the
     * few calls Continuation.run makes before the thaw (and after the
     * yield) show the parked frames as their callers. Per frame: method
     * and trace in parkedI, scaled self and total time of earlier
     * intervals in parkedL. */
    private int nParked, parkedBottom;
    private int[] parkedI;
    private long[] parkedL;

    /* Keeps frames 1.. aside, charged up to now; false if out of memory. */
    private boolean park(long now) {
        int n = sp - 1;
        try {
            if (parkedI == null || parkedI.length < 2 * n) {
                parkedI = new int[2 * n];
                parkedL = new long[2 * n];
            }
        } catch (OutOfMemoryError e) {
            return false;
        }
        checkpoint(now);
        System.arraycopy(fi, 2, parkedI, 0, 2 * n);
        for (int j = 1; j <= n; j++) {
            parkedL[2 * j - 2] = fl[4 * j + 2];
            parkedL[2 * j - 1] = fl[4 * j + 3];
            for (int b = 4 * j; b < 4 * j + 4; b++) fl[b] = 0;
        }
        nParked = n;
        parkedBottom = fi[0];
        sp = 1;
        return true;
    }

    /* Puts the parked frames back above the bottom frame, entered at now. */
    private void unpark(long now) {
        int n = nParked;
        nParked = 0;
        while (2 * (n + 1) > fi.length)
            if (!growStack()) return;
        System.arraycopy(parkedI, 0, fi, 2, 2 * n);
        for (int j = 1; j <= n; j++) {
            fl[4 * j] = now;
            fl[4 * j + 2] = parkedL[2 * j - 2];
            fl[4 * j + 3] = parkedL[2 * j - 1];
        }
        sp = n + 1;
    }

    /* Charges the time up to now (pause() and resume() nest: a switching
     * method may call another). */
    private void pause() {
        if (paused) return;
        checkpoint(clock);
        paused = true;
    }

    /* The open frames, and the CPU clock (a virtual thread may be on another
     * carrier now), start again from now. */
    private void resume() {
        if (!paused) return;
        long now = clock;
        for (int i = 0; i < sp; i++) {
            fl[4 * i] = now;
            fl[4 * i + 1] = 0;
        }
        cpWall = now;
        cpCpu = cpuTime();
        paused = false;
    }

    /* Counts frame i, which ends at `now`, and pops it. */
    private void finish(int i, long now) {
        int tr = fi[2 * i + 1];
        if (tr >= 0) count[tr]++;
        sp = i;
        long tot = now - fl[4 * i];
        /* Mostly no tick fell into the call and no checkpoint happened. */
        if (tot != 0 || fl[4 * i + 3] != 0) charge(i, tr, tot);
    }

    private void charge(int i, int tr, long tot) {
        int b = 4 * i;
        if (i > 0) fl[b - 3] += tot;
        if (tr >= 0) {
            long slf = tot - fl[b + 1];
            self[tr] += fl[b + 2];
            total[tr] += fl[b + 3];
            if (dirtyGen[tr] != gen) {
                dirtyGen[tr] = gen;
                dirty[nDirty++] = tr;
            }
            pendSelf[tr] += slf > 0 ? slf : 0;
            pendTotal[tr] += tot > 0 ? tot : 0;
        }
        fl[b + 1] = 0;
        fl[b + 2] = 0;
        fl[b + 3] = 0;
    }

    /* Scales the interval's wall time by its CPU/wall ratio, so that what
     * the interval charges adds up to the thread's CPU time. Not capped at
     * 1: the wall time is in whole clock steps, and an interval of a few
     * steps (a virtual thread's run between two parks) often sees fewer
     * steps than its CPU time; capped, bursts of 2 ms were charged half of
     * their CPU. An interval no step fell into charges nothing: its CPU
     * time is owed to the next one. */
    private void checkpoint(long now) {
        long cpu = cpuTime();
        long wall = now - cpWall;
        long used = cpu - cpCpu + owed;
        double r = 1; /* no thread CPU clock (-1): wall time as it is */
        if (cpu >= 0 && cpCpu >= 0) {
            owed = wall <= 0 && used > 0 ? used : 0;
            r = wall <= 0 || used <= 0 ? 0 : (double) used / wall;
        }
        for (int j = 0; j < nDirty; j++) {
            int tr = dirty[j];
            self[tr] += (long) (pendSelf[tr] * r);
            total[tr] += (long) (pendTotal[tr] * r);
            pendSelf[tr] = 0;
            pendTotal[tr] = 0;
        }
        nDirty = 0;
        gen++;
        for (int i = 0; i < sp; i++) {
            int b = 4 * i;
            long tot = now - fl[b];
            /* Not self: finished callees, and the callee still running
             * (frame i + 1, whose start is not reset yet). */
            long callee = i + 1 < sp ? now - fl[b + 4] : 0;
            fl[b + 2] += (long) ((tot - fl[b + 1] - callee) * r);
            fl[b + 3] += (long) (tot * r);
            fl[b] = now;
            fl[b + 1] = 0;
        }
        cpWall = now;
        cpCpu = cpu;
    }

    /* Doubles the callee cache if it missed on more than a quarter of its
     * entries since it was last looked at (a checkpoint interval or more). */
    private void growHot() {
        if (hotMisses > hot.length / 8 && hot.length < 2 * HOT_MAX) {
            try {
                hot = new long[2 * hot.length];
                hotShift--;
            } catch (OutOfMemoryError e) {
                /* keeps the smaller cache */
            }
        }
        hotMisses = 0;
    }

    private static long pairKey(int p, int m) {
        return ((long) (p + 1) << 32 | m) + 1;
    }

    private static int hash(int p, int m) {
        return p * 0x9E3779B1 ^ m * 0x85EBCA6B;
    }

    /* The trace of frame i, method m called from trace p (-1: bottom frame). */
    private int callee(int p, int m, int i) {
        long key = pairKey(p, m);
        int mask = pairKey.length - 1;
        for (int slot = (int) ((key * 0x9E3779B97F4A7C15L) >>> 40) & mask;;
                slot = (slot + 1) & mask) {
            long k = pairKey[slot];
            if (k == key) return pairTrace[slot];
            if (k == 0) {
                int t = trace(i);
                if (t >= 0) addPair(key, t);
                return t;
            }
        }
    }

    private void addPair(long key, int t) {
        if (2 * (nPairs + 1) > pairKey.length) {
            long[] oldKey = pairKey;
            int[] oldTrace = pairTrace;
            try {
                pairKey = new long[2 * oldKey.length];
                pairTrace = new int[2 * oldKey.length];
            } catch (OutOfMemoryError e) {
                pairKey = oldKey;
                pairTrace = oldTrace;
                return;
            }
            nPairs = 0;
            for (int j = 0; j < oldKey.length; j++)
                if (oldKey[j] != 0) addPair(oldKey[j], oldTrace[j]);
        }
        int mask = pairKey.length - 1;
        int slot = (int) ((key * 0x9E3779B97F4A7C15L) >>> 40) & mask;
        while (pairKey[slot] != 0) slot = (slot + 1) & mask;
        pairKey[slot] = key;
        pairTrace[slot] = t;
        nPairs++;
    }

    /* The trace of frame i (and the frames below it), created if new; -1 if
     * out of memory. */
    private int trace(int i) {
        int d = DEPTH;
        int h = 0;
        for (int j = 0; j < d; j++) h = h * 0x9E3779B1 + (i - j >= 0 ? fi[2 * (i - j)] : -1);
        h ^= h >>> 15;
        int mask = index.length - 1;
        for (int p = h & mask;; p = (p + 1) & mask) {
            int e = index[p] - 1;
            if (e < 0) return newTrace(i, p);
            int base = e * d, j = 0;
            while (j < d && keys[base + j] == (i - j >= 0 ? fi[2 * (i - j)] : -1)) j++;
            if (j == d) return e;
        }
    }

    private int newTrace(int i, int slot) {
        int n = nTraces, d = DEPTH;
        try {
            if (n == count.length) growTraces();
            if (2 * (n + 1) > index.length) {
                rehash(2 * index.length);
                return trace(i);
            }
        } catch (OutOfMemoryError e) {
            return -1;
        }
        for (int j = 0; j < d; j++) keys[n * d + j] = i - j >= 0 ? fi[2 * (i - j)] : -1;
        index[slot] = n + 1;
        nTraces = n + 1; /* volatile: the agent reads n, then the arrays */
        return n;
    }

    private void growTraces() {
        int n = count.length, d = DEPTH > 0 ? DEPTH : 1;
        int[] k = new int[2 * n * d];
        int[] c = new int[2 * n], di = new int[2 * n], dg = new int[2 * n];
        long[] s = new long[2 * n], t = new long[2 * n], ps = new long[2 * n],
                pt = new long[2 * n];
        System.arraycopy(keys, 0, k, 0, n * d);
        System.arraycopy(count, 0, c, 0, n);
        System.arraycopy(self, 0, s, 0, n);
        System.arraycopy(total, 0, t, 0, n);
        System.arraycopy(pendSelf, 0, ps, 0, n);
        System.arraycopy(pendTotal, 0, pt, 0, n);
        System.arraycopy(dirty, 0, di, 0, nDirty);
        System.arraycopy(dirtyGen, 0, dg, 0, n);
        /* Arrays the agent reads are published after their contents. */
        keys = k;
        count = c;
        self = s;
        total = t;
        pendSelf = ps;
        pendTotal = pt;
        dirty = di;
        dirtyGen = dg;
    }

    private void rehash(int size) {
        int[] idx = new int[size];
        int d = DEPTH, mask = size - 1;
        for (int e = 0; e < nTraces; e++) {
            int h = 0;
            for (int j = 0; j < d; j++) h = h * 0x9E3779B1 + keys[e * d + j];
            h ^= h >>> 15;
            int p = h & mask;
            while (idx[p] != 0) p = (p + 1) & mask;
            idx[p] = e + 1;
        }
        index = idx;
    }

    private boolean growStack() {
        try {
            int[] a = new int[2 * fi.length];
            long[] b = new long[2 * fl.length];
            System.arraycopy(fi, 0, a, 0, fi.length);
            System.arraycopy(fl, 0, b, 0, fl.length);
            fi = a;
            fl = b;
            return true;
        } catch (OutOfMemoryError oom) {
            return false;
        }
    }

    /* ---- thread table ---- */

    private static HprofTracker register(Thread t) {
        /* Registration runs no rewritten code; should that ever change,
         * this keeps it from recursing (and from waiting for its own lock). */
        if (registering == t) return null;
        lock();
        registering = t;
        try {
            return add(t);
        } finally {
            registering = null;
            unlock();
        }
    }

    /* A spin lock, not a monitor, for the same reason as HprofSites.lock:
     * on JDK 24+ a virtual thread waiting for a monitor needs the
     * VirtualThread-unblocker thread, which runs rewritten code that may
     * need this lock. Holders never block; waiters spin, then wait in native
     * code (backoff), on their carrier either way. */
    private static void lock() {
        for (int spins = 0; !U.compareAndSetInt(STATICS, LOCKED, 0, 1); spins++) {
            if (spins < 100) Thread.onSpinWait();
            else backoff(spins - 100);
        }
    }

    private static void unlock() {
        U.putIntVolatile(STATICS, LOCKED, 0);
    }

    private static HprofTracker add(Thread t) {
        if (!engaged) return null; /* a stop came while the thread waited for the lock */
        HprofTracker[] tab = table;
        int mask = tab.length - 1;
        int i = System.identityHashCode(t) & mask;
        for (HprofTracker s; (s = tab[i]) != null; i = (i + 1) & mask)
            if (s.thread == t) return FIELD ? t.hprofTracker = s : s;
        boolean virtual = VTHREADS && t.isVirtual();
        HprofTracker s = virtual ? reusable() : null;
        boolean reused = s != null;
        try {
            if (!reused) s = new HprofTracker(t, nextId);
            if (!reused && nAll == all.length) {
                HprofTracker[] a = new HprofTracker[2 * nAll];
                System.arraycopy(all, 0, a, 0, nAll);
                all = a;
            }
            if (2 * (used + 1) > tab.length) {
                tab = resized(tab);
                mask = tab.length - 1;
                i = System.identityHashCode(t) & mask;
                while (tab[i] != null) i = (i + 1) & mask;
            }
        } catch (OutOfMemoryError e) {
            return null;
        }
        if (reused) {
            unlink(tab, s);
            s.restart();
        } else {
            nextId++;
            s.allIndex = nAll;
            all[nAll++] = s;
        }
        s.thread = t;
        s.cpWall = clock;
        s.cpCpu = cpuTime();
        tab[i] = s;
        used++;
        table = tab;
        if (FIELD) t.hprofTracker = s;
        if (virtual) recent[recentAt++ & (recent.length - 1)] = s;
        return s;
    }

    /* Virtual threads end without ThreadEnd, so their states stay in `all`
     * and in the table; a new virtual thread takes over the state of one
     * that ended rather than make its own: with one each, 100,000 of them
     * (compat's VirtualThreads, JDK 25) took 15 s of CPU and 5 GB, 0.9 s
     * and 136 MB without agent. The traces and counts stay in the state (a
     * virtual thread's belong to the unknown thread either way), its id
     * too, so dumps keep reading it as one state. VTHREADS: JDK 21+. */
    private static boolean VTHREADS;
    private static int reuseAt; /* where reusable() looks next in `all` */
    /* The states last given to virtual threads, the newest at recentAt - 1
     * (mod 16), looked at first: the one that ended last is still in the
     * CPU's caches. Taken round-robin from `all` alone, they came back cold:
     * compat's VirtualThreads spent a third of its samples in enter/leaf. */
    private static final HprofTracker[] recent = new HprofTracker[16];
    private static int recentAt;

    /* A state whose virtual thread ended, from a few looked at. */
    private static HprofTracker reusable() {
        for (int k = 1; k <= recent.length; k++) {
            HprofTracker s = recent[(recentAt - k) & (recent.length - 1)];
            if (s != null && ended(s)) return s;
        }
        for (int k = 0; k < 8 && nAll > 0; k++) {
            if (reuseAt >= nAll) reuseAt = 0;
            HprofTracker s = all[reuseAt++];
            if (ended(s)) return s;
        }
        return null;
    }

    private static boolean ended(HprofTracker s) {
        Thread o = s.thread;
        return o != null && o.isVirtual() && !o.isAlive();
    }

    /* Its ended thread's slot becomes GONE (still counted in `used`). */
    private static void unlink(HprofTracker[] tab, HprofTracker s) {
        int mask = tab.length - 1;
        for (int i = System.identityHashCode(s.thread) & mask; tab[i] != null; i = (i + 1) & mask) {
            if (tab[i] == s) {
                tab[i] = GONE;
                return;
            }
        }
    }

    /* An empty stack for a new thread: frames its old thread left open
     * (its last interval, under one checkpoint) are dropped, keeping free
     * slots zero; pending time of finished calls is charged at the next
     * checkpoint. */
    private void restart() {
        for (int j = 0; j < 4 * sp; j++) fl[j] = 0;
        sp = 0;
        paused = false;
        nParked = 0;
    }

    /* A table without the GONE slots, twice as large if still half full. */
    private static HprofTracker[] resized(HprofTracker[] old) {
        int live = 0;
        for (HprofTracker s : old) if (s != null && s != GONE) live++;
        int n = old.length;
        while (2 * (live + 1) > n / 2) n *= 2;
        HprofTracker[] tab = new HprofTracker[n];
        for (HprofTracker s : old) {
            if (s == null || s == GONE) continue;
            int i = System.identityHashCode(s.thread) & (n - 1);
            while (tab[i] != null) i = (i + 1) & (n - 1);
            tab[i] = s;
        }
        used = live;
        return tab;
    }

    /* ---- called by the agent through JNI ---- */

    /* Attached, before engage: the JVM looks for the natives of a boot
     * class in the boot loader's libraries, then in the agent libraries it
     * loaded, and it adds an attached agent to those only once its
     * Agent_OnAttach has returned. So the agent library (`path`) is also
     * made a library of the boot loader (once; later calls find it loaded).
     * Runs before any class is rewritten. */
    static boolean bindNatives(String path) {
        try {
            return jdk.internal.loader.BootLoader.getNativeLibraries()
                    .loadLibrary(HprofTracker.class, new java.io.File(path)) != null;
        } catch (Throwable t) {
            return false;
        }
    }

    static void engage() throws Exception {
        U = Unsafe.getUnsafe();
        java.lang.reflect.Field f = HprofTracker.class.getDeclaredField("locked");
        STATICS = U.staticFieldBase(f);
        LOCKED = U.staticFieldOffset(f);
        DEPTH = depth();
        VTHREADS = Runtime.version().feature() >= 21;
        cpuTime(); /* links it now: linking runs rewritten Java code */
        backoff(-1);
        engaged = true;
        started = true;
    }

    /* At the stop of an attached recording, after its last dump: nothing is
     * recorded from now on, though rewritten code still on stacks calls in.
     * States are unlinked from their threads (so the fast paths miss) and
     * dropped, so that a later engage starts afresh. */
    static void disengage() {
        engaged = false;
        if (U == null) return; /* never engaged */
        lock();
        try {
            for (int i = 0; i < nAll; i++) {
                Thread t = all[i].thread;
                if (FIELD && t != null) t.hprofTracker = null;
                all[i].thread = null;
            }
            table = new HprofTracker[64];
            all = new HprofTracker[16];
            for (int k = 0; k < recent.length; k++) recent[k] = null;
            nAll = 0;
            used = 0;
            nextId = 0;
            last = null;
        } finally {
            unlock();
        }
    }

    /* On the ending thread: closes its last interval, frees its slot and
     * forgets the state, which the agent reads one last time. Null if the
     * thread had none. */
    static HprofTracker retire() {
        if (!engaged) return null;
        lock();
        try {
            return retired();
        } finally {
            unlock();
        }
    }

    private static HprofTracker retired() {
        Thread t = Thread.currentThread();
        HprofTracker[] tab = table;
        int mask = tab.length - 1;
        for (int i = System.identityHashCode(t) & mask; tab[i] != null; i = (i + 1) & mask) {
            HprofTracker s = tab[i];
            if (s.thread != t) continue;
            s.checkpoint(clock);
            s.thread = null;
            if (FIELD) t.hprofTracker = null;
            tab[i] = GONE;
            HprofTracker moved = all[--nAll];
            all[s.allIndex] = moved;
            moved.allIndex = s.allIndex;
            all[nAll] = null;
            return s;
        }
        return null;
    }

    /* The states of the running threads. */
    static HprofTracker[] states() {
        if (!engaged) return new HprofTracker[0];
        lock();
        try {
            HprofTracker[] a = new HprofTracker[nAll];
            System.arraycopy(all, 0, a, 0, nAll);
            return a;
        } finally {
            unlock();
        }
    }
}
