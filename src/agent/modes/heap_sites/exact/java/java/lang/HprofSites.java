/*
 * heap=sites (exact mode): the tracker that rewritten allocation sites call.
 * Defined like HprofTracker into java.base at VMStart (see instrument.h); it
 * is never rewritten and calls no rewritten code: only itself, its natives,
 * Thread.currentThread, Object.getClass, Reference.get (a leaf, left as it
 * was) and jdk.internal.misc.Unsafe intrinsics. enter, exit and the
 * allocation hooks read no volatile and make no Unsafe access: both would
 * hamper the JIT in every method that inlines them (objInit reads the
 * volatile `pending`, as before).
 *
 * Each thread owns one instance, found through the field hprofSites the
 * agent adds to java.lang.Thread (javac sees it in stubs/). It
 * counts allocations per slot, a slot being (bytecode site, the
 * calling methods below the allocating one, depth-1 of them), in plain
 * arrays only its thread writes: no lock, no atomic, no JNI per allocation.
 * With depth 2..4 the callers come from a window kept by the injected
 * enterWin/exitWin/resumeWin calls in one more Thread field (hprofWin);
 * deeper, from a shadow stack kept by enter/exit/resume in two others
 * (hprofStk, hprofSp). The agent reads the counters at a dump through JNI,
 * and folds the slots of an ending thread into its own tables.
 *
 * Two builds of this file (variant/): started with the JVM, the per-thread
 * state lives in the fields above; attached to a running JVM, whose Thread
 * class cannot get fields, each thread's instance holds its window and
 * shadow stack itself and is found in a lock-free table keyed by the Thread
 * object (as HprofTracker does). THREAD_FIELDS is a compile-time constant,
 * so javac leaves the other build's code out and the start-up build is the
 * same bytecode as with fields alone. Attached, `stop` disengages the class
 * (disengage): states are unlinked from their threads and dropped.
 *
 * Site numbers are made by the agent (modes/heap_sites/exact/bsite.h): the low
 * bits say what is allocated (KIND_*, MULTI for multianewarray).
 *
 * Liveness: per slot the first EXACT objects, then one in SAMPLE, are tagged
 * by the agent (JVM TI SetTag through the native tag()); with heap=all every
 * object, so that the heap dump cites each one's trace. Arrays are tagged
 * right after allocation; an instance when its Object.<init> runs: newObj
 * leaves a pending entry that objInit pairs with the object by class.
 */
package java.lang;

import jdk.internal.misc.Unsafe;
import jdk.internal.vm.annotation.DontInline;
import jdk.internal.vm.annotation.Stable;

public final class HprofSites {
    private static final int KIND_MASK = 15, MULTI = 16, KIND_REF = 8, KIND_BOX = 9;
    /* Which build this is; the agent reads it before it reuses the class. */
    static final boolean THREAD_FIELDS = HprofSitesVariant.THREAD_FIELDS;

    /* Set by the agent at VM init (engage). @Stable: once set (not 0, null
     * or false), the JIT takes these as constants, so the hooks it inlines
     * into nearly every compiled method test no `on` and read no setting. */
    private static volatile boolean engaged;
    @Stable private static boolean on; /* = engaged, for the common paths */
    @Stable private static Unsafe U;
    @Stable private static long PENDING; /* offset of `pending` in its static base */
    @Stable private static Object STATICS;
    @Stable private static int W; /* ints per slot key: site, then the allocating method and callers */
    @Stable private static boolean WINDOW; /* callers from the window (depth < 5), not the shadow stack */
    @Stable private static long CTX_MASK; /* the window's callers a slot is keyed by */
    @Stable private static int EXACT; /* tag the first EXACT objects of a slot */
    @Stable private static int SAMPLE_MASK; /* then one in SAMPLE_MASK + 1 */
    /* heap=all: every object is tagged, so `pending` stays 1 for good
     * rather than taking two atomic updates per instance. */
    @Stable private static boolean ALL;
    @Stable private static long ALIGN_MASK; /* object alignment - 1 */
    @Stable private static int IHIGH; /* Integer.valueOf's cache: -128..IHIGH (-XX:AutoBoxCacheMax) */
    @Stable private static final int[] BASE = new int[9], SHIFT = new int[9]; /* per array kind */

    /* Threads with pending instance tags: objInit does nothing while 0. */
    private static volatile int pending;
    /* The class's lock (lock()), and its offset in the static base. */
    private static volatile int locked;
    @Stable private static long LOCKED;
    /* Site index (site >> 5) -> the key (classKey) of its objects' class,
     * once a tag saw it. */
    private static volatile Object[] siteKey = new Object[1024];

    /* Every thread's state, for the agent; written under the class lock. */
    private static HprofSites[] all = new HprofSites[16];
    private static int nAll;
    /* States registered at which register() has the agent fold those of
     * ended threads (sweep): a virtual thread has no ThreadEnd. */
    private static final int SWEEP_MIN = 1024;
    private static int sweepAt = SWEEP_MIN;

    /* tag() returns the key's agent-side id (> 0), 0 if `o` is not of the
     * site's class, -1 if it could not tag. */
    private static native int tag(Object o, int[] keys, int at, int kid, boolean sampled);
    /* Marks the tracker's own arrays so that they are not counted as live. */
    private static native void own(Object o);
    /* The derived site of a DYN site's objects of class c; -1 on failure. */
    private static native int derive(int site, Class<?> c);
    /* What the tracker keeps of class c: c itself if it is never unloaded,
     * else a WeakReference to it (made without running its constructor),
     * so that no class stays loaded for the tracker; null on failure. */
    private static native Object classKey(Class<?> c);
    /* A new WeakReference to o, made as classKey's; null on failure. */
    private static native Object weak(Object o);
    /* From the agent: depth, EXACT, SAMPLE, object alignment (0-3), the
     * array layout per kind: base (10+k), log2 element size (20+k). */
    private static native int config(int what);
    /* Waits a little for the lock (instrument.h hp_instr_backoff). */
    private static native void backoff(int round);
    /* Has the agent fold and forget the states of ended threads (ended()),
     * unless a dump is under way; -1 only links the native. */
    private static native void sweep(int link);

    /* ---- one thread's state ---- */

    /* Its thread by a WeakReference (weak()), so that an ended virtual
     * thread, whose state stays registered, is not kept with all it holds
     * (held strongly, a finished task's captured objects stayed live); the
     * Thread itself if weak() failed; null once retired. */
    private Object threadRef;
    private boolean virt; /* its thread is (was) virtual */
    private int allIndex;

    /* Slots 0..n-1: W key ints each, the window they were counted under,
     * allocations, array bytes, agent key id. */
    private volatile int n;
    private int[] keys;
    private long[] ctxs, cnt, bytes;
    private int[] kid;
    private int[] index; /* hash of keys -> slot + 1 */
    /* Recent keys -> slot + 1, direct-mapped and checked against the slot's
     * key; most allocations repeat a recent key. Shadow stack: by (site, two
     * callers), sparing the hash over all callers and the probe. Window: by
     * the key's hash. It grows with the index up to 1 << MEMO_BITS entries,
     * as a thread with few slots needs few (virtual threads: one state
     * each while they run). */
    private int[] memo;
    private static final int MEMO_BITS = 12;

    /* (DYN site, class key) -> derived site, open addressing; null until
     * used. */
    private int[] dSite, dNum;
    private Object[] dKey;
    private int dUsed;

    /* Instances to tag once their Object.<init> runs: slot, sampled bit 31;
     * how often another class's object was checked against each, and the
     * last such class (not checked again). */
    private int np;
    private int[] pend, misses;
    private Class<?>[] missed;

    /* Start-up build: the class a hooked Unsafe.allocateInstance is making,
     * from vmMark until invoked() after the call; read by the agent's
     * VMObjectAlloc callback (vm_alloc.c) through Thread.hprofSites. */
    private Object vmMarked;

    /* Attached build: the window, shadow stack and its height (the Thread
     * fields hprofWin, hprofStk, hprofSp of the other build). */
    private long win;
    private int[] stk;
    private int sp;

    private HprofSites(Thread t, Object ref) {
        this.threadRef = ref;
        this.virt = VTHREADS && t.isVirtual();
    }

    /* The state's thread; null once retired or collected. */
    private Thread thread() {
        Object r = threadRef;
        return r == null || r instanceof Thread ? (Thread) r
                : (Thread) ((java.lang.ref.Reference<?>) r).get();
    }

    private boolean init() {
        try {
            keys = new int[16 * W];
            ctxs = new long[16];
            cnt = new long[16];
            bytes = new long[16];
            kid = new int[16];
            index = new int[32];
            memo = new int[32];
            pend = new int[ALL ? 32 : 8];
            misses = new int[pend.length];
            missed = new Class<?>[pend.length];
            if (!THREAD_FIELDS && !WINDOW) stk = widened(null, 0, 1024);
        } catch (OutOfMemoryError e) {
            return false;
        }
        own(keys);
        own(ctxs);
        own(cnt);
        own(bytes);
        own(kid);
        own(index);
        own(memo);
        own(pend);
        own(misses);
        own(missed);
        if (!THREAD_FIELDS && stk != null) own(stk);
        return true;
    }

    /* ---- injected calls ---- */

    /* Each hook has two forms: with `ctx`, the window of the allocating
     * method's callers (its enterWin result, depth 2..4), and without it
     * (depth 1, or callers from the shadow stack). */
    public static void newObj(int site) {
        newObj(site, 0L);
    }

    public static void newObj(int site, long ctx) {
        HprofSites s = state();
        if (s != null) s.count(site, ctx, 0, null);
    }

    public static void newArray(Object a, int site) {
        newArray(a, site, 0L);
    }

    public static void newArray(Object a, int site, long ctx) {
        HprofSites s = state();
        if (s == null) return;
        int k = site & KIND_MASK;
        s.count(site, ctx, size(a, k), a);
        if ((site & MULTI) != 0) s.inner((Object[]) a, site + 32, ctx);
    }

    /* After a call of an allocating intrinsic (bsite.h: BOX and DYN sites). */
    public static void invoked(Object r, int site) {
        invoked(r, site, 0L);
    }

    public static void invoked(Object r, int site, long ctx) {
        if (r == null) return;
        HprofSites s = state();
        if (s == null) return;
        if (THREAD_FIELDS && s.vmMarked != null) s.vmMarked = null; /* no barrier if clear */
        if ((site & KIND_MASK) == KIND_BOX) {
            if (fresh(r)) s.count(site | KIND_MASK, ctx, 0, r);
            return;
        }
        int d = s.derived(site, r.getClass());
        if (d < 0) return;
        int k = d & KIND_MASK;
        s.count(d, ctx, k == KIND_MASK ? 0 : size(r, k), r);
    }

    /* Before a hooked call of Unsafe.allocateInstance(c) (bsite.h): while
     * VMObjectAlloc is on, JDK 25's C2 gives up the call's intrinsic for the
     * native, which posts the event for every object a method handle
     * constructs (capturing lambdas, reflection). The agent drops the event
     * of the marked class without walking the stack: invoked() counts it. */
    public static void vmMark(Object c) {
        if (!THREAD_FIELDS) return;
        HprofSites s = state();
        if (s != null) s.vmMarked = c;
    }

    /* Whether valueOf made `r` rather than taking it from its cache. */
    private static boolean fresh(Object r) {
        if (r instanceof Integer) {
            int v = ((Integer) r).intValue();
            return v < -128 || v > IHIGH;
        }
        if (r instanceof Long) {
            long v = ((Long) r).longValue();
            return v < -128 || v > 127;
        }
        if (r instanceof Short) {
            short v = ((Short) r).shortValue();
            return v < -128 || v > 127;
        }
        if (r instanceof Character) return ((Character) r).charValue() > 127;
        return true; /* Float, Double: no cache */
    }

    public static void objInit(Object o) {
        if (pending == 0) return;
        HprofSites s = on ? THREAD_FIELDS ? Thread.currentThread().hprofSites : known() : null;
        if (s != null && s.np > 0) s.pair(o);
    }

    /* The caller window (depth 2..4): the thread's last three entered
     * methods (number + 1; 0: unknown), 21 bits each in hprofWin, the
     * newest in bits 42..62 (bit 63 stays clear). enterWin shifts the method
     * in and returns the window it found, which the rewriter keeps in a long
     * local of the method: it names the method's callers, so the allocation
     * hooks get it as their ctx, exitWin puts it back before each return and
     * resumeWin puts it back with the method shifted in again at the start
     * of each exception handler. The rewriter passes a method (or call) as
     * its number + 1 already in bits 42..62 (`slot`; 0, unknown, for a
     * number beyond 21 bits: its traces end there). These four are what the
     * JIT inlines into nearly every compiled method and into each callee
     * it inlines there, so each is a handful of bytecodes with no call
     * beyond the currentThread intrinsic and no branch beyond `on`, which
     * the JIT folds: one load and one store a call, one store a return.
     * Before the agent engages (when currentThread may still be null)
     * enterWin returns 0, unknown callers, and the others do nothing. */
    private static final int WIN_BITS = 21, WIN_TOP = 42, WIN_LIMIT = (1 << WIN_BITS) - 1;

    public static long enterWin(long slot) {
        if (!on) return 0;
        if (!THREAD_FIELDS) return enterMine(slot);
        long w = Thread.currentThread().hprofWin;
        Thread.currentThread().hprofWin = w >>> WIN_BITS | slot;
        return w;
    }

    public static void exitWin(long w) {
        if (!on) return;
        if (!THREAD_FIELDS) setWin(w);
        else Thread.currentThread().hprofWin = w;
    }

    /* resumeWin and callWin compute into a parameter: C1 inlines a callee
     * only while its operand stack plus its locals beyond the parameters
     * stay within 4 slots (C1InlineStackLimit, 5 under tiered
     * compilation), and the push with the Thread below it on the stack
     * takes 5. enterWin needs 7 and stays a call in C1's code: the
     * rewriter's entry would otherwise grow by 4 bytes, taking 1,393 more
     * of javac's 28,801 methods past MaxInlineSize (JDK 25). */
    public static void resumeWin(long w, long slot) {
        if (!on) return;
        w = w >>> WIN_BITS | slot;
        if (!THREAD_FIELDS) setWin(w);
        else Thread.currentThread().hprofWin = w;
    }

    /* Before a call the agent numbered (a method's calls of one name and
     * descriptor on several lines): that number in place of the method's. */
    public static void callWin(long w, long call) {
        if (!on) return;
        w = w >>> WIN_BITS | call;
        if (!THREAD_FIELDS) setWin(w);
        else Thread.currentThread().hprofWin = w;
    }

    /* Caller j (0: the direct caller) in a window: its method number, -1 if
     * unknown. */
    private static int caller(long w, int j) {
        return (int) (w >>> (WIN_TOP - WIN_BITS * j) & WIN_LIMIT) - 1;
    }

    /* The shadow stack (depth 5..31): method numbers in the thread's hprofStk,
     * hprofSp of them. enter pushes the method and returns the height below
     * it, which the rewriter keeps in a local of the method: exit puts it
     * back before each return, resume puts it back plus one at the start of
     * each exception handler. So a return costs one store and no compare,
     * and an exception needs no handler of its own: the frame that catches
     * it resets the height (entries above are dead). Before the agent
     * engages, enter returns -1 and the other two do nothing; after it, a
     * frame entered before (-1) resets the height to 0 when it catches,
     * as every counted frame is above it. These three are what the JIT
     * inlines into nearly every compiled method. enter's call to push is
     * for a thread without a stack (a virtual thread) or a full one: the
     * agent gives every platform thread its stack when it starts, so that
     * the call is never taken while the JIT profiles, which then leaves it
     * out of compiled code (compiled in, it cost fop 8 % in wall time). */
    public static int enter(int mnum) {
        if (!on) return -1;
        if (!THREAD_FIELDS) return pushMine(mnum);
        Thread t = Thread.currentThread();
        int sp = t.hprofSp;
        int[] st = t.hprofStk;
        if (st != null && sp < st.length) st[sp] = mnum;
        else push(t, sp, mnum);
        t.hprofSp = sp + 1;
        return sp;
    }

    public static void exit(int sp) {
        if (!THREAD_FIELDS) {
            if (sp >= 0) setHeight(sp);
            return;
        }
        if (sp >= 0) Thread.currentThread().hprofSp = sp;
    }

    /* callWin's shadow-stack form: the entry at the method's height. */
    public static void call(int sp, int call) {
        if (sp < 0) return;
        int[] st = THREAD_FIELDS ? Thread.currentThread().hprofStk : stackMine();
        if (st != null && sp < st.length) st[sp] = call;
    }

    public static void resume(int sp) {
        if (!THREAD_FIELDS) {
            /* sp -1: a frame entered before the engagement caught: every
             * counted frame was above it. */
            if (sp >= 0 || on) setHeight(sp + 1);
            return;
        }
        if (sp >= 0) Thread.currentThread().hprofSp = sp + 1;
        else if (on) Thread.currentThread().hprofSp = 0;
    }

    /* `on` first: before the agent engages, currentThread may still need
     * linking, which runs rewritten Java code. A plain read: a stale false
     * only drops a call, as a volatile's would in the same race. */
    private static HprofSites state() {
        if (!on) return null;
        if (!THREAD_FIELDS) return mine();
        HprofSites s = Thread.currentThread().hprofSites;
        return s != null ? s : register();
    }

    @DontInline
    private static void push(Thread t, int sp, int mnum) {
        int[] st = growStack(t, sp, 64);
        if (st != null && sp < st.length) st[sp] = mnum;
    }

    /* t's shadow stack, made (with at least `first` entries) or doubled
     * until it has room for entry `top`; entries below that were never
     * stored (a stack made mid-thread) read -1, unknown. The old one when
     * memory is short. */
    private static int[] growStack(Thread t, int top, int first) {
        lock();
        try {
            return grownStack(t, top, first);
        } finally {
            unlock();
        }
    }

    private static int[] grownStack(Thread t, int top, int first) {
        int[] a = widened(t.hprofStk, top, first);
        t.hprofStk = a;
        return a;
    }

    /* A copy of st with room for entry `top` (st itself if it has room or
     * memory is short). */
    private static int[] widened(int[] st, int top, int first) {
        int len = st == null ? first : st.length;
        while (top >= len && len < 1 << 29) len *= 2;
        if (st != null && len == st.length) return st;
        int[] a;
        try {
            a = new int[len];
        } catch (OutOfMemoryError e) {
            return st;
        }
        own(a);
        int i = 0;
        if (st != null) {
            System.arraycopy(st, 0, a, 0, st.length);
            i = st.length;
        }
        for (; i < len; i++) a[i] = -1;
        return a;
    }

    /* Entry j below the top of a stack (j = 0: the top), -1 if unknown. */
    private static int frame(int[] st, int top, int j) {
        int i = top - j;
        return i >= 0 && st != null && i < st.length ? st[i] : -1;
    }

    /* ---- counting ---- */

    private static long size(Object a, int k) {
        int len;
        switch (k) {
            case 0: len = ((boolean[]) a).length; break;
            case 1: len = ((byte[]) a).length; break;
            case 2: len = ((char[]) a).length; break;
            case 3: len = ((short[]) a).length; break;
            case 4: len = ((int[]) a).length; break;
            case 5: len = ((float[]) a).length; break;
            case 6: len = ((long[]) a).length; break;
            case 7: len = ((double[]) a).length; break;
            default: len = ((Object[]) a).length; break;
        }
        return (BASE[k] + ((long) len << SHIFT[k]) + ALIGN_MASK) & ~ALIGN_MASK;
    }

    /* The inner arrays of a multianewarray: the arrays one level down count
     * at the next site index (the agent numbered every level). They are
     * fresh, so every non-null element is one of them. */
    private void inner(Object[] a, int next, long ctx) {
        int idx = next >>> 5;
        for (Object e : a) {
            if (e == null) return; /* the last dimension given was reached */
            int k = kindOf(e);
            int site = idx << 5 | (k == KIND_REF ? MULTI : 0) | k;
            count(site, ctx, size(e, k), e);
            if (k == KIND_REF) inner((Object[]) e, site + 32, ctx);
        }
    }

    private static int kindOf(Object a) {
        if (a instanceof Object[]) return KIND_REF;
        if (a instanceof int[]) return 4;
        if (a instanceof byte[]) return 1;
        if (a instanceof char[]) return 2;
        if (a instanceof long[]) return 6;
        if (a instanceof double[]) return 7;
        if (a instanceof short[]) return 3;
        if (a instanceof float[]) return 5;
        return 0;
    }

    private void count(int site, long ctx, long b, Object arr) {
        int slot = WINDOW ? slot(site, ctx & CTX_MASK) : slotOnStack(site);
        if (slot < 0) return;
        long c = ++cnt[slot];
        bytes[slot] += b;
        if (c <= EXACT || (c & SAMPLE_MASK) == 0) mark(slot, c > EXACT, arr);
    }

    /* The tagging paths, mark and pair, are kept out of line: inlined, their
     * native call, Unsafe atomic and loops went into every compiled
     * allocation site and constructor, for C2 to compile again each time
     * (C2 time is what javac on JDK 25 is short of; measured gain small,
     * javac JDK 25 about 0.5 s of 20). */
    @DontInline
    private void mark(int slot, boolean sampled, Object arr) {
        if (arr != null) {
            int k = tag(arr, keys, slot * W, kid[slot], sampled);
            if (k > 0) kid[slot] = k;
        } else if (np < pend.length) {
            if (np++ == 0 && !ALL) U.getAndAddInt(STATICS, PENDING, 1);
            pend[np - 1] = slot | (sampled ? 0x80000000 : 0);
            misses[np - 1] = 0;
            missed[np - 1] = null;
        }
    }

    /* Tags `o` for the most recent pending entry of its class; entries above
     * it are news whose constructor never reached Object.<init>. An instance
     * of a hidden class (a lambda made while a constructor's arguments are
     * computed) is never a rewritten new's: it pairs with none, and is no
     * miss for an entry whose class is still unknown. */
    @DontInline
    private void pair(Object o) {
        Class<?> c = o.getClass();
        Object[] classes = siteKey;
        boolean hidden = c.isHidden();
        for (int i = np - 1; i >= 0; i--) {
            int slot = pend[i] & 0x7fffffff;
            int site = keys[slot * W];
            int si = site >>> 5;
            Class<?> want = si < classes.length ? classOf(classes[si]) : null;
            if (want != null && want != c || hidden || want == null && missed[i] == c) continue;
            int k = tag(o, keys, slot * W, kid[slot], pend[i] < 0);
            if (k == 0) {
                missed[i] = c;
                if (++misses[i] == maxMisses) drop(i);
                continue;
            }
            if (k > 0) {
                kid[slot] = k;
                if (want == null) learn(si, c);
            }
            settle(i);
            return;
        }
    }

    /* An entry whose class is still unknown after maxMisses objects of other
     * classes (a run of one class counting once: javac's InferenceContext
     * computes its arguments among boxes and lambda-made objects, and its
     * 2,339 news were never counted) is taken for a new that threw (class
     * initialization failed):
     * left, it would send every later Object.<init> of the thread through
     * the native check (jython: 39 M times in 13 s). heap=all waits longer:
     * loading the class of a site's first object may construct hundreds of
     * objects (JDK 25), and a dropped entry leaves that object without its
     * trace. */
    @Stable private static int maxMisses;

    private void drop(int i) {
        System.arraycopy(pend, i + 1, pend, i, np - i - 1);
        System.arraycopy(misses, i + 1, misses, i, np - i - 1);
        System.arraycopy(missed, i + 1, missed, i, np - i - 1);
        settle(np - 1);
    }

    private void settle(int n) {
        for (int j = n; j < np; j++) missed[j] = null; /* no class kept loaded */
        np = n;
        if (n == 0 && !ALL) U.getAndAddInt(STATICS, PENDING, -1);
    }

    private static void learn(int si, Class<?> c) {
        Object key = classKey(c);
        if (key == null) return;
        lock();
        try {
            learned(si, key);
        } finally {
            unlock();
        }
    }

    private static void learned(int si, Object key) {
        Object[] a = siteKey;
        if (si >= a.length) {
            int len = a.length;
            while (len <= si) len *= 2;
            Object[] b;
            try {
                b = new Object[len];
            } catch (OutOfMemoryError e) {
                return;
            }
            own(b);
            System.arraycopy(a, 0, b, 0, a.length);
            a = b;
        }
        a[si] = key;
        siteKey = a;
    }

    /* The class of a classKey, null if it was unloaded (or no key). */
    private static Class<?> classOf(Object key) {
        return key == null || key instanceof Class ? (Class<?>) key : referent(key);
    }

    /* Reference.get, the one read of a referent every collector's barriers
     * make right (a leaf: the rewriter adds nothing to it). An Unsafe read
     * is not: Shenandoah's C1 barrier took it for a strong load and handed
     * out the mirror of a class being unloaded (JDK 25: a crash in its
     * update-references phase, 2 runs in 8 of tests/core's Reachability). */
    private static Class<?> referent(Object weak) {
        return (Class<?>) ((java.lang.ref.Reference<?>) weak).get();
    }

    /* The slot of (site, window of callers), created if new; -1 when out of
     * memory. With depth 1 the window is always 0. Straight-line for the
     * JIT: one look in the memo, which finds nearly every slot; the index is
     * searched out of line, as a loop inlined into every compiled allocation
     * site is costly to compile. The index's first probe, in the memo's
     * place, missed on every allocation at a key that a collision had moved
     * along (linear probing, up to half full): 18-20 ns an allocation
     * against 9-11 in a loop of two sites at depth 1 (sites-cost.md). */
    private int slot(int site, long ctx) {
        int[] mm = memo;
        int m = hash(site, ctx) & (mm.length - 1);
        int e = mm[m] - 1;
        if (e >= 0 && keys[e * W] == site && ctxs[e] == ctx) return e;
        return probe(site, ctx, m);
    }

    @DontInline
    private int probe(int site, long ctx, int m) {
        int mask = index.length - 1;
        for (int p = hash(site, ctx) & mask;; p = (p + 1) & mask) {
            int e = index[p] - 1;
            if (e < 0) e = newSlot(site, ctx, p);
            else if (keys[e * W] != site || ctxs[e] != ctx) continue;
            if (e >= 0) memo[m] = e + 1;
            return e;
        }
    }

    private static int hash(int site, long ctx) {
        int h = site * 0x9E3779B1 ^ (int) (ctx ^ ctx >>> 32) * 0x85EBCA6B;
        return h ^ h >>> 15;
    }

    /* The slot of (site, shadow stack top and callers), created if new. */
    private int slotOnStack(int site) {
        int w = W;
        Thread t = Thread.currentThread();
        int[] st = THREAD_FIELDS ? t.hprofStk : stk;
        int top = (THREAD_FIELDS ? t.hprofSp : sp) - 1;
        /* The top frame is the allocating method, known from the site: the
         * two callers below it tell contexts apart. */
        int c1 = frame(st, top, 1), c2 = frame(st, top, 2);
        int[] mm = memo;
        int h = ((site * 0x9E3779B1 + c1) * 0x9E3779B1 + c2) * 0x85EBCA6B;
        int m = h >>> (32 - MEMO_BITS) & (mm.length - 1);
        int e = mm[m] - 1;
        if (e >= 0 && keys[e * w] == site) {
            int b = e * w, j = 0;
            while (j < w - 1 && keys[b + 1 + j] == frame(st, top, j)) j++;
            if (j == w - 1) return e;
        }
        e = find(site, st, top);
        if (e >= 0) memo[m] = e + 1;
        return e;
    }

    private static int stackHash(int[] k, int b, int w) {
        int h = k[b];
        for (int j = 0; j < w - 1; j++) h = h * 0x9E3779B1 + k[b + 1 + j];
        return h ^ h >>> 15;
    }

    /* The slot of (site, callers on the stack), by hash; created if new. */
    private int find(int site, int[] st, int top) {
        int w = W;
        int h = site;
        for (int j = 0; j < w - 1; j++) h = h * 0x9E3779B1 + frame(st, top, j);
        h ^= h >>> 15;
        int mask = index.length - 1;
        for (int p = h & mask;; p = (p + 1) & mask) {
            int e = index[p] - 1;
            if (e < 0) return newSlot(site, 0, p);
            int b = e * w;
            if (keys[b] != site) continue;
            int j = 0;
            while (j < w - 1 && keys[b + 1 + j] == frame(st, top, j)) j++;
            if (j == w - 1) return e;
        }
    }

    /* Key ints after the site: the allocating method (TOP when it is the
     * site's own, as with the window), then the callers, -1 if unknown. */
    private static final int TOP = -2;

    private int newSlot(int site, long ctx, int p) {
        int e = n, w = W;
        try {
            if (e == cnt.length) grow();
            if (2 * (e + 1) > index.length) {
                rehash(2 * index.length);
                return WINDOW ? slot(site, ctx) : slotOnStack(site);
            }
        } catch (OutOfMemoryError oom) {
            return -1;
        }
        int b = e * w;
        keys[b] = site;
        if (!WINDOW) {
            Thread t = Thread.currentThread();
            int[] st = THREAD_FIELDS ? t.hprofStk : stk;
            int top = (THREAD_FIELDS ? t.hprofSp : sp) - 1;
            for (int j = 0; j < w - 1; j++) keys[b + 1 + j] = frame(st, top, j);
        } else if (w > 1) {
            keys[b + 1] = TOP;
            for (int j = 0; j < w - 2; j++) keys[b + 2 + j] = caller(ctx, j);
        }
        ctxs[e] = ctx;
        index[p] = e + 1;
        n = e + 1; /* volatile: the agent reads n, then the arrays */
        return e;
    }

    private void grow() {
        int len = cnt.length, w = W;
        int[] k = new int[2 * len * w], ki = new int[2 * len];
        long[] x = new long[2 * len], c = new long[2 * len], b = new long[2 * len];
        own(k);
        own(ki);
        own(x);
        own(c);
        own(b);
        System.arraycopy(keys, 0, k, 0, len * w);
        System.arraycopy(kid, 0, ki, 0, len);
        System.arraycopy(ctxs, 0, x, 0, len);
        System.arraycopy(cnt, 0, c, 0, len);
        System.arraycopy(bytes, 0, b, 0, len);
        /* Published after their contents, before a larger n. */
        keys = k;
        kid = ki;
        ctxs = x;
        cnt = c;
        bytes = b;
    }

    private void rehash(int size) {
        int[] idx = new int[size];
        own(idx);
        if (memo.length < 1 << MEMO_BITS) {
            int[] mm = new int[Math.min(size, 1 << MEMO_BITS)];
            own(mm);
            memo = mm;
        }
        int w = W, mask = size - 1;
        for (int e = 0; e < n; e++) {
            int h = WINDOW ? hash(keys[e * w], ctxs[e]) : stackHash(keys, e * w, w);
            int p = h & mask;
            while (idx[p] != 0) p = (p + 1) & mask;
            idx[p] = e + 1;
        }
        index = idx;
    }

    /* A key that is not the class itself finds its class only while that
     * is loaded. */
    private int derived(int site, Class<?> c) {
        int[] ds = dSite;
        if (ds != null) {
            Object[] dk = dKey;
            int mask = ds.length - 1;
            for (int p = (site * 0x9E3779B1 + System.identityHashCode(c)) & mask;; p = (p + 1) & mask) {
                Object e = dk[p];
                if (e == null) break;
                if (ds[p] == site && (e == c || !(e instanceof Class) && referent(e) == c)) return dNum[p];
            }
        }
        int d = derive(site, c);
        if (d >= 0) remember(site, c, d);
        return d;
    }

    /* Grown (or rebuilt) from the entries whose class is still loaded, to
     * at least four times as many slots: a thread that derives for one
     * short-lived class after another keeps a table the size of the live
     * ones. */
    private void remember(int site, Class<?> c, int d) {
        Object key = classKey(c);
        if (key == null) return;
        try {
            if (dSite == null || 2 * (dUsed + 1) > dSite.length) {
                int live = 0;
                for (int i = 0; dSite != null && i < dSite.length; i++)
                    if (classOf(dKey[i]) != null) live++;
                int len = 16;
                while (len < 4 * (live + 1)) len *= 2;
                int[] os = dSite, on = dNum, ns = new int[len], nn = new int[len];
                Object[] ok = dKey, nk = new Object[len];
                own(ns);
                own(nn);
                own(nk);
                dSite = ns;
                dNum = nn;
                dKey = nk;
                dUsed = 0;
                for (int i = 0; os != null && i < os.length; i++) {
                    Class<?> k = classOf(ok[i]);
                    if (k != null) put(os[i], k, ok[i], on[i]);
                }
            }
        } catch (OutOfMemoryError e) {
            return;
        }
        put(site, c, key, d);
    }

    private void put(int site, Class<?> c, Object key, int d) {
        int mask = dSite.length - 1;
        int p = (site * 0x9E3779B1 + System.identityHashCode(c)) & mask;
        while (dKey[p] != null) p = (p + 1) & mask;
        dSite[p] = site;
        dKey[p] = key;
        dNum[p] = d;
        dUsed++;
    }

    /* ---- thread registry ---- */

    /* Virtual threads end without ThreadEnd, so their states stay in `all`
     * until a sweep; a new virtual thread takes over the state of one that
     * ended rather than make its own (arrays, each tagged): 100,000 of them
     * (compat's VirtualThreads, JDK 25) take 2.1 s of CPU, not 3.4, at
     * depth 4, 2.6 s not 4.5 at depth 8, 2.9 s not 4.1 under heap=all
     * (medians of 3; 0.9 s without agent). The counts stay in the state: a
     * virtual thread's belong to the unknown thread either way. VTHREADS:
     * JDK 21+, this build (the attached one keeps a state per thread). */
    @Stable private static boolean VTHREADS;
    private static int reuseAt; /* where reusable() looks next in `all` */
    /* The states last given to virtual threads, the newest at recentAt - 1
     * (mod 16), looked at first: the one that ended last is still in the
     * CPU's caches (as in HprofTracker). Emptied when a sweep drops states. */
    private static final HprofSites[] recent = new HprofSites[16];
    private static int recentAt;

    /* A state whose virtual thread ended, from a few looked at. */
    private static HprofSites reusable() {
        for (int k = 1; k <= recent.length; k++) {
            HprofSites s = recent[(recentAt - k) & (recent.length - 1)];
            if (s != null && ended(s)) return s;
        }
        for (int k = 0; k < 8 && nAll > 0; k++) {
            if (reuseAt >= nAll) reuseAt = 0;
            HprofSites s = all[reuseAt++];
            if (ended(s)) return s;
        }
        return null;
    }

    /* A virtual thread's that ended (or was collected, parked for good). */
    private static boolean ended(HprofSites s) {
        Thread o = s.thread();
        return s.virt && (o == null || !o.isAlive());
    }

    /* s, given to a virtual thread, as the newest in `recent`. */
    private static HprofSites handedOut(HprofSites s) {
        return recent[recentAt++ & (recent.length - 1)] = s;
    }

    private static void forgetRecent() {
        for (int k = 0; k < recent.length; k++) recent[k] = null;
    }

    private static HprofSites adopt(HprofSites s, Thread t, Object ref) {
        Thread o = s.thread();
        if (o != null) {
            o.hprofSites = null;
            o.hprofStk = null;
        }
        s.threadRef = ref;
        s.vmMarked = null;
        s.unpend();
        t.hprofSites = s;
        return s;
    }

    /* Its pending entries are news whose thread ended (or lost the state)
     * before their Object.<init>. */
    private void unpend() {
        if (np == 0) return;
        for (int j = 0; j < np; j++) missed[j] = null;
        np = 0;
        if (!ALL) U.getAndAddInt(STATICS, PENDING, -1);
    }

    /* The calling thread's new state; out of line: state() is the common
     * path. Registering constructs a state, whose Object.<init> calls
     * objInit, which finds no state yet and returns. The sweep runs outside
     * the lock: the agent takes its fold lock before this one. */
    @DontInline
    private static HprofSites register() {
        HprofSites s = added();
        if (s != null && nAll >= sweepAt) sweep(0);
        return s;
    }

    private static HprofSites added() {
        if (!engaged) return null;
        Thread t = Thread.currentThread();
        Object ref = weak(t);
        if (ref == null) ref = t;
        lock();
        try {
            if (!engaged) return null; /* disengaged while it waited */
            HprofSites known = THREAD_FIELDS ? t.hprofSites : seek(t);
            if (known != null) return known;
            boolean virtual = VTHREADS && t.isVirtual();
            if (virtual) {
                HprofSites d = reusable();
                if (d != null) return handedOut(adopt(d, t, ref));
            }
            HprofSites s = new HprofSites(t, ref);
            try {
                if (!s.init()) return null;
                if (nAll == all.length) {
                    HprofSites[] a = new HprofSites[2 * nAll];
                    own(a);
                    System.arraycopy(all, 0, a, 0, nAll);
                    all = a;
                }
                if (!THREAD_FIELDS) place(s);
            } catch (OutOfMemoryError e) {
                return null;
            }
            own(s);
            s.allIndex = nAll;
            all[nAll++] = s;
            if (THREAD_FIELDS) t.hprofSites = s;
            return virtual ? handedOut(s) : s;
        } finally {
            unlock();
        }
    }

    /* ---- attached build: states by thread ---- */

    /* Thread -> state, open addressing. Written under the lock only: an
     * entry is added in place, a table that grows or loses an entry is
     * replaced by a copy, so that readers without the lock never see
     * entries move. */
    private static volatile HprofSites[] table = THREAD_FIELDS ? null : new HprofSites[64];
    private static int used; /* entries in the table */
    private static HprofSites last; /* the state mine() found last */

    /* The calling thread's state, made if it has none; null when
     * disengaged. Most programs run one busy thread at a time: `last`
     * finds its state without a probe and keeps the shared field unwritten
     * while that thread stays the busy one. */
    private static HprofSites mine() {
        HprofSites s = last;
        if (s != null && s.thread() == Thread.currentThread()) return s;
        return found();
    }

    @DontInline
    private static HprofSites found() {
        HprofSites s = seek(Thread.currentThread());
        return s != null ? (last = s) : register();
    }

    /* As mine(), but never made: objInit runs inside register(). */
    private static HprofSites known() {
        HprofSites s = last;
        Thread t = Thread.currentThread();
        return s != null && s.thread() == t ? s : seek(t);
    }

    /* t's state, without a lock; null if it has none. */
    private static HprofSites seek(Thread t) {
        if (!engaged) return null;
        HprofSites[] tab = table;
        int mask = tab.length - 1;
        for (int i = System.identityHashCode(t) & mask;; i = (i + 1) & mask) {
            HprofSites s = tab[i];
            if (s == null || s.thread() == t) return s;
        }
    }

    /* Under the lock: s into the table, a copy twice as large if half full. */
    private static void place(HprofSites s) {
        HprofSites[] tab = table;
        if (2 * (used + 1) > tab.length) tab = copy(tab, 2 * tab.length, null);
        put(tab, s);
        used++;
        table = tab;
    }

    private static void put(HprofSites[] tab, HprofSites s) {
        int mask = tab.length - 1;
        int i = System.identityHashCode(s.thread()) & mask;
        while (tab[i] != null) i = (i + 1) & mask;
        tab[i] = s;
    }

    /* The entries of `old` but `drop` in a new table of n slots. */
    private static HprofSites[] copy(HprofSites[] old, int n, HprofSites drop) {
        HprofSites[] tab = new HprofSites[n];
        own(tab);
        for (HprofSites s : old)
            if (s != null && s != drop) put(tab, s);
        return tab;
    }

    /* Under the lock: a table of n slots of the registered states. */
    private static HprofSites[] registered(int n) {
        HprofSites[] tab = new HprofSites[n];
        own(tab);
        for (int i = 0; i < nAll; i++)
            put(tab, all[i]);
        return tab;
    }

    /* Under the lock: t's state out of the table (a copy without it); null
     * if it had none. Memory short, it stays, unlinked from t by retired(). */
    private static HprofSites unplace(Thread t) {
        HprofSites s = seek(t);
        if (s == null) return null;
        try {
            table = copy(table, table.length, s);
            used--;
        } catch (OutOfMemoryError e) {
            /* kept: its thread field is cleared, so no lookup finds it */
        }
        return s;
    }

    /* The attached forms of the window and shadow-stack hooks: the same
     * work on the state's own fields. Frames that were running at the
     * attach run their old code, which calls nothing: their callers are
     * unknown, and a thread's first state starts with an empty window and
     * stack. */
    private static long enterMine(long slot) {
        HprofSites s = mine();
        if (s == null) return 0;
        long w = s.win;
        s.win = w >>> WIN_BITS | slot;
        return w;
    }

    private static void setWin(long w) {
        HprofSites s = mine();
        if (s != null) s.win = w;
    }

    private static int pushMine(int mnum) {
        HprofSites s = mine();
        if (s == null) return -1;
        int sp = s.sp;
        int[] st = s.stk;
        if (st == null || sp >= st.length) st = s.stk = widened(st, sp, 64);
        if (sp < st.length) st[sp] = mnum;
        s.sp = sp + 1;
        return sp;
    }

    private static void setHeight(int sp) {
        HprofSites s = mine();
        if (s != null) s.sp = sp;
    }

    private static int[] stackMine() {
        HprofSites s = mine();
        return s != null ? s.stk : null;
    }

    /* The lock of the thread registry, siteKey and stack growth: a spin
     * lock, not a monitor. Its holders never block, while on JDK 24+ a
     * virtual thread waiting for a monitor unmounts and needs the
     * VirtualThread-unblocker thread to run again, and that thread
     * allocates (rewritten JDK code), so it may need this lock first:
     * with `synchronized` here, test_virtual_threads hung about one run in
     * 30. Waiters spin, then wait in native code (backoff), so a virtual
     * thread keeps its carrier; holders are mounted and finish. */
    private static void lock() {
        for (int spins = 0; !U.compareAndSetInt(STATICS, LOCKED, 0, 1); spins++) {
            if (spins < 100) Thread.onSpinWait();
            else backoff(spins - 100);
        }
    }

    private static void unlock() {
        U.putIntVolatile(STATICS, LOCKED, 0);
    }

    /* ---- called by the agent through JNI ---- */

    static void engage() throws Exception {
        U = Unsafe.getUnsafe();
        /* Throws if Thread was not rewritten. */
        if (THREAD_FIELDS) U.objectFieldOffset(Thread.class, "hprofSites");
        java.lang.reflect.Field f = HprofSites.class.getDeclaredField("pending");
        STATICS = U.staticFieldBase(f);
        PENDING = U.staticFieldOffset(f);
        LOCKED = U.staticFieldOffset(HprofSites.class.getDeclaredField("locked"));
        int depth = config(0);
        W = depth > 1 ? 1 + depth : 1;
        WINDOW = config(4) == 0;
        int callers = !WINDOW || W == 1 ? 0 : W - 2;
        CTX_MASK = callers == 0 ? 0 : ((1L << WIN_BITS * callers) - 1) << (63 - WIN_BITS * callers);
        EXACT = config(1);
        SAMPLE_MASK = config(2) - 1;
        ALIGN_MASK = config(3) - 1;
        ALL = config(5) != 0;
        VTHREADS = THREAD_FIELDS && Runtime.version().feature() >= 21;
        if (ALL) pending = 1;
        maxMisses = ALL ? 1024 : 8;
        java.lang.reflect.Field high =
                Class.forName("java.lang.Integer$IntegerCache", true, null).getDeclaredField("high");
        IHIGH = U.getInt(U.staticFieldBase(high), U.staticFieldOffset(high));
        for (int k = 0; k < BASE.length; k++) {
            BASE[k] = config(10 + k);
            SHIFT[k] = config(20 + k);
        }
        own(all);
        own(siteKey);
        if (!THREAD_FIELDS) own(table);
        /* Every native is linked before the hooks go live: the VM links a
         * native on its first call through ClassLoader.findNative, Java code
         * that allocates; live hooks would call the native being linked
         * again, without end (StackOverflowError at VM start whenever the
         * boot library map is not empty then, e.g. --module-path). */
        tag(null, null, 0, 0, false);
        derive(0, null);
        classKey(null);
        weak(null);
        backoff(-1);
        sweep(-1);
        engaged = true;
        on = true;
    }

    /* From the agent, with depth > 1: a shadow stack for t, a thread that
     * starts (JVM TI ThreadStart, before its first frame) or runs at VM
     * init. */
    static void giveStack(Thread t) {
        if (THREAD_FIELDS && !WINDOW && t.hprofStk == null) growStack(t, 0, 1024);
    }

    /* On the ending thread: forgets its state, which the agent reads one
     * last time (null if it had none), and its shadow stack. */
    static HprofSites retire() {
        if (!engaged) return null;
        lock();
        try {
            return retired();
        } finally {
            unlock();
        }
    }

    private static HprofSites retired() {
        Thread t = Thread.currentThread();
        HprofSites s;
        if (THREAD_FIELDS) {
            t.hprofStk = null;
            s = t.hprofSites;
            if (s == null) return null;
            t.hprofSites = null;
        } else {
            s = unplace(t);
            if (s == null) return null;
        }
        s.threadRef = null;
        drop(s);
        return s;
    }

    /* Under the lock: s out of `all` (the last state takes its place). */
    private static void drop(HprofSites s) {
        HprofSites moved = all[--nAll];
        all[s.allIndex] = moved;
        moved.allIndex = s.allIndex;
        all[nAll] = null;
        s.unpend();
    }

    /* From the agent's sweep, which folds what they counted: the states of
     * threads that ended with theirs still registered, taken out of the
     * registry, then nulls. Virtual threads do (100,000 ended ones kept 1.1 M
     * objects, each tagged, to the end of the run); a platform thread's
     * ThreadEnd folds its state while it is alive, under the same fold lock.
     * The next sweep is due when twice as many states are registered. */
    static HprofSites[] ended() {
        if (!engaged) return null;
        lock();
        try {
            HprofSites[] gone;
            try {
                gone = new HprofSites[nAll];
            } catch (OutOfMemoryError e) {
                return null;
            }
            int n = 0;
            for (int i = nAll - 1; i >= 0; i--) { /* drop() moves a visited state to i */
                HprofSites s = all[i];
                Thread t = s.thread(); /* null: collected (retired ones are out of `all`) */
                if (t != null && t.isAlive()) continue;
                if (THREAD_FIELDS && t != null) {
                    t.hprofSites = null;
                    t.hprofStk = null;
                }
                drop(s);
                gone[n++] = s;
            }
            sweepAt = 2 * nAll > SWEEP_MIN ? 2 * nAll : SWEEP_MIN;
            if (n > 0) forgetRecent();
            if (!THREAD_FIELDS && n > 0) {
                try {
                    table = registered(table.length);
                    used = nAll;
                } catch (OutOfMemoryError e) {
                    /* the old table: its ended threads' entries match no thread */
                }
            }
            return gone;
        } finally {
            unlock();
        }
    }

    /* At `stop` after the last dump: nothing is counted from now on,
     * though rewritten code still on stacks calls in (and, in the start-up
     * build, Thread's own methods, which keep their rewrite). States are
     * unlinked from their threads (so mine() misses, and Thread's field is
     * null) and dropped, and with them the site classes learned, so that a
     * later engage starts afresh. The settings stay (@Stable: compiled code
     * holds them), which is why the agent attaches again only with the same
     * depth. */
    static void disengage() {
        engaged = false;
        if (U == null) return; /* never engaged */
        lock();
        try {
            forgetStates();
        } finally {
            unlock();
        }
    }

    private static void forgetStates() {
        for (int i = 0; i < nAll; i++) {
            Thread t = all[i].thread();
            if (THREAD_FIELDS && t != null) t.hprofSites = null;
            all[i].threadRef = null;
        }
        last = null;
        forgetRecent();
        all = new HprofSites[16];
        nAll = 0;
        sweepAt = SWEEP_MIN;
        table = new HprofSites[64];
        used = 0;
        siteKey = new Object[1024];
        pending = 0;
    }

    static HprofSites[] states() {
        if (!engaged) return new HprofSites[0];
        lock();
        try {
            HprofSites[] a = new HprofSites[nAll];
            System.arraycopy(all, 0, a, 0, nAll);
            return a;
        } finally {
            unlock();
        }
    }
}
