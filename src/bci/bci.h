/* bci: class-file rewriter for the HPROF agent.
 *
 * Parses a Java class file (versions 45..69), injects static calls to a
 * tracker class, and writes the class back.  A class it cannot handle is
 * left unchanged and a reason is reported; malformed input is never trusted.
 *
 * Injection kinds (each enabled by a non-NULL method name in bci_hooks):
 *   entry       at method entry:                 entry(int cnum, int mnum)
 *   exit        before every return and athrow:  exit(int cnum, int mnum)
 *               with exit_catch_all, the body is also wrapped in a catch-all
 *               handler calling exit() and rethrowing, so exits by callee
 *               exceptions are seen too; athrow inside the wrapped range is
 *               then not instrumented (the handler sees it), keeping one
 *               exit per entry.  Constructors are wrapped from just after
 *               their super()/this() call (the verifier forbids handlers
 *               over code where `this` is uninitialized): an exception that
 *               leaves a constructor from before that point, other than by
 *               its own athrow (which is hooked), is not seen.
 *               With entry_local instead: entry(int mnum) returns an int
 *               (or a long) kept in a new local (index: the old max_locals),
 *               passed to exit before every return and to resume at the
 *               start of every exception handler; no catch-all, athrow not
 *               hooked.  Every StackMapTable frame becomes a full frame
 *               that also declares the local.  Methods that switch the
 *               current thread (calls of Thread.setCurrentThread or
 *               VirtualThread.switchTo{Carrier,Virtual}Thread) get none,
 *               nor does jdk/internal/vm/Continuation.run()V (below).
 *   switch_from, switch_to  in those methods, without entry_local: at entry
 *               and at every exit instead of entry and exit (II)V.
 *   new_obj     before `new`:                    new_obj(int site)
 *   new_array   after newarray/anewarray/multianewarray:
 *                                                new_array(Object arr, int site)
 *   object_init at entry of java/lang/Object.<init>()V:  object_init(Object this)
 *   field       fields appended to one class (field_class)
 *   call        with entry_local, before an invoke* (not invokedynamic)
 *               that call_number numbers:        call(local, int number)
 *   invoke      after an invoke* (not invokedynamic) whose result is a
 *               reference, when invoke_number accepts it:
 *                                                invoke(Object result, int site)
 *   mark        before such an invoke when invoke_marked accepts it too
 *               (its last argument a reference):  mark(Object last argument)
 * Constant arguments are pushed with iconst/bipush/sipush/ldc(_w), long ones
 * with lconst/ldc2_w.
 * Never touched: methods without code, the tracker class, and finalize()V
 * whose body is a lone `return` (the VM registers objects for finalization
 * only when finalize() is non-empty).  See README.md for details and gaps.
 */
#ifndef BCI_H
#define BCI_H

#include <stddef.h>
#include <stdint.h>

/* Returned by the numbering callbacks to leave a method or site alone. */
#define BCI_SKIP (-1)

/* bci_hooks.entry_local: the added local's type. */
#define BCI_LOCAL_INT 1
#define BCI_LOCAL_LONG 2

/* Allocation site passed to bci_hooks.site_number. */
struct bci_site {
    int method_number; /* as returned by method_number() */
    uint32_t bci;      /* offset of the opcode in the ORIGINAL code */
    uint8_t opcode;    /* 0xbb new, 0xbc newarray, 0xbd anewarray, 0xc5 multianewarray */
    /* JVM type signature of the allocated object, e.g. "Ljava/lang/String;"
     * or "[[I" (for multianewarray: the outermost array). */
    const char *type;
    /* Line of bci in the original LineNumberTable(s); 0 if none covers it.
     * (The rewritten class's table maps the rewritten offsets.) */
    int32_t line;
};

/* Invocation passed to bci_hooks.invoke_number: only invokevirtual,
 * invokespecial, invokestatic and invokeinterface returning a reference. */
struct bci_invoke {
    int method_number; /* of the calling method */
    uint32_t bci;      /* offset of the invoke in the ORIGINAL code */
    uint8_t opcode;    /* 0xb6..0xb9 */
    /* The Methodref's class (internal name, or an array signature such as
     * "[I" for a call on an array), method name and descriptor. */
    const char *owner, *name, *desc;
    int32_t line; /* as bci_site.line */
};

struct bci_field {
    const char *name, *desc;
};

/* A call site of a numbered method, passed to bci_hooks.method_calls: an
 * invoke with the Methodref's owner, name and descriptor; a new, getstatic,
 * putstatic (name and desc NULL), which may run the owner's <clinit>; for
 * every invokedynamic, a call named BCI_INDY_NAME, descriptor "", no owner
 * (what its linkage calls), and for one of LambdaMetafactory a second: name
 * and desc are the interface method's (erased), owner, impl_name and
 * impl_desc the method implementing it (whose callers call it through the
 * interface). Strings are modified UTF-8, not NUL-terminated. */
#define BCI_INDY_NAME "<invokedynamic>"
struct bci_call {
    uint8_t opcode;
    const uint8_t *owner, *name, *desc, *impl_name, *impl_desc;
    uint16_t owner_len, name_len, desc_len, impl_name_len, impl_desc_len;
    int32_t line; /* as bci_site.line */
};

struct bci_method_calls {
    int method_number;
    int32_t first_line; /* line of offset 0, 0 if none */
    uint32_t n;
    const struct bci_call *calls; /* in code order */
};

struct bci_hooks {
    const char *tracker_class;           /* internal name, e.g. "hprof/Tracker" */
    const char *entry_name, *entry_desc; /* (II)V */
    const char *exit_name, *exit_desc;   /* (II)V */
    int exit_catch_all;                  /* also catch exceptions leaving the method */
    /* BCI_LOCAL_INT: entry (I)I, exit (I)V and resume (I)V through a new
     * local (above): for a shadow stack whose height each frame restores
     * rather than pops, exact across exceptions at one store per return.
     * BCI_LOCAL_LONG: the same with a long local (two slots): entry (J)J,
     * exit (J)V, resume (JJ)V and call (JJ)V, whose number arguments are
     * the long constants long_number gives for the method or call number:
     * the tracker gets them ready to use (one constant, less work in the
     * code the JIT inlines into every method). Continuation.run()V gets
     * none of the three: a continuation that yields returns from it with
     * its frames above still to come back, and its next run would store
     * its own callees at their heights before they do (JDK 24+, where a
     * virtual thread's continuation runs as that thread). */
    int entry_local;
    int64_t (*long_number)(int number);
    /* With entry_local: new_obj, new_array and invoke also get the local as
     * their last argument ((IJ)V, (Ljava/lang/Object;IJ)V with a long one),
     * or 0 in a method that has none. */
    int alloc_local;
    const char *resume_name, *resume_desc;
    /* With entry_local: before each invoke (not invokedynamic) that
     * call_number numbers, call(local, number): (II)V with an int local,
     * (JJ)V with a long one; lets a shadow stack tell a method's calls
     * apart. */
    const char *call_name, *call_desc;
    int (*call_number)(void *ctx, int method_number, const struct bci_call *call);
    /* No entry/exit in methods without an invoke or allocation instruction:
     * they can never be below another frame nor allocate by bytecode. */
    int entry_exit_skip_leaves;
    /* Short leaves (no invoke, allocation, backward branch or exception
     * handler: they run a bounded number of instructions and call nothing)
     * get, instead of entry and exit, this one call before each return and
     * athrow and in the catch-all: (II)V. NULL: treated like other methods. */
    const char *leaf_name, *leaf_desc;
    /* Without entry_local: methods that switch the current thread (as for
     * entry_local above) get, instead of entry and exit, switch_from at
     * entry, before the switch, and switch_to where exit would go, after
     * it: (II)V each. A shadow stack per thread then sees no frame that
     * begins on one thread and ends on another. NULL: entry and exit. */
    const char *switch_from_name, *switch_from_desc;
    const char *switch_to_name, *switch_to_desc;
    const char *new_obj_name, *new_obj_desc;         /* (I)V */
    const char *new_array_name, *new_array_desc;     /* (Ljava/lang/Object;I)V */
    const char *object_init_name, *object_init_desc; /* (Ljava/lang/Object;)V */
    const char *invoke_name, *invoke_desc;           /* (Ljava/lang/Object;I)V */
    /* Classes owning the entry/exit hooks and the allocation hooks (new_obj,
     * new_array, object_init, invoke), when not tracker_class (NULL); never rewritten
     * either. */
    const char *method_class, *alloc_class;

    /* When the class rewritten is field_class (internal name): package-
     * private transient synthetic fields (name, descriptor) are appended
     * (each unless one of that name exists), for the tracker to reach; the
     * list ends with a NULL name. */
    const char *field_class;
    const struct bci_field *fields;

    int class_number; /* first constant argument of entry/exit */
    /* Number for a method with code, in class-file order; BCI_SKIP leaves the
     * method without entry/exit/allocation calls.  NULL: the method's index. */
    int (*method_number)(void *ctx, const char *name, const char *desc, uint16_t access);
    /* Number for an allocation site; BCI_SKIP leaves the site alone.
     * NULL: the site's bytecode offset. */
    int (*site_number)(void *ctx, const struct bci_site *site);
    /* Number for an invocation; BCI_SKIP (or NULL) leaves it alone. */
    int (*invoke_number)(void *ctx, const struct bci_invoke *inv);
    /* For an invocation invoke_number accepted whose last argument is a
     * reference: nonzero also calls mark(that argument) just before it,
     * (Ljava/lang/Object;)V in alloc_class, so that the tracker knows the
     * call is under way (the invoke hook runs only once it returns). */
    int (*invoke_marked)(void *ctx, const struct bci_invoke *inv);
    const char *mark_name, *mark_desc;
    /* When set: the call sites of every numbered method, and the class's
     * SourceFile (if it has one, before any method), so that frames of its
     * callers get lines and names outlive the class. */
    void (*method_calls)(void *ctx, const struct bci_method_calls *mc);
    void (*source_file)(void *ctx, const uint8_t *name, uint16_t len);
    void *ctx;
};

struct bci_result {
    uint8_t *data; /* malloc'd new class when bci_rewrite returns 1; free with bci_free */
    size_t len;
    char reason[160];           /* why the class was left unchanged (return 0) */
    unsigned methods;           /* methods instrumented */
    unsigned sites;             /* allocation sites instrumented */
    unsigned invokes;           /* invocations instrumented */
    unsigned ctor_no_catch_all; /* constructors that fell back to athrow hooks */
    /* Methods the injected code grew past 35 and 325 bytes, HotSpot's
     * default MaxInlineSize and FreqInlineSize: the JIT inlines such a
     * callee only when hot, or not at all. */
    unsigned past_max_inline, past_freq_inline;
};

/* Rewrites class bytes.  Returns 1 with a new class in res->data, or 0 when
 * the class is to be used unchanged (res->reason says why).  Thread-safe;
 * callbacks are called from the calling thread before it returns. */
int bci_rewrite(const uint8_t *cls, size_t len, const struct bci_hooks *hooks,
                struct bci_result *res);

/* Parses and writes the class back without injections, re-encoding the
 * constant pool and every method's code (instructions, exception table,
 * StackMapTable, line and variable tables, type annotations).  For a valid
 * class the output equals the input; used by tests to check the relocator.
 * Returns 1 with the output, or 0 with a reason if the class is rejected. */
int bci_roundtrip(const uint8_t *cls, size_t len, struct bci_result *res);

void bci_free(struct bci_result *res);

/* Copies this_class's internal name (NUL-terminated) into buf.  Returns its
 * length, or -1 if the bytes are not a readable class file or cap is short. */
int bci_class_name(const uint8_t *cls, size_t len, char *buf, size_t cap);

#endif
