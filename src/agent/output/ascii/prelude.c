#include "agent/output/ascii/prelude.h"

/* Our own description of the ascii records, built into the library (the
 * original read jvm.hprof.txt from the JDK and failed without it). Record
 * shapes are indented so that a search for a record's first line never
 * matches the prelude. */
const char hp_ascii_prelude[] =
    "This file is written by the hprof agent (-agentlib:hprof or -agentpath:.../libhprof.so)\n"
    "in the ascii layout of the JDK 5-8 HPROF agent. After the line of dashes below come\n"
    "these records:\n"
    "\n"
    "  THREAD START (obj=<id>, id = <serial>, name=\"<name>\", group=\"<group>\")\n"
    "  THREAD END (id = <serial>)\n"
    "      A Java thread starting or ending. Threads that existed when the agent\n"
    "      started are listed too. <serial> identifies the thread elsewhere.\n"
    "\n"
    "  TRACE <serial>: [(thread=<thread serial>)]\n"
    "      A stack trace, top frame first, at most depth= frames, one per line:\n"
    "      <class>.<method>(<source file>:<line>); the line reads \"Unknown line\"\n"
    "      when it is not known (or lineno=n) and \"Native method\" for native\n"
    "      frames; an empty trace reads <empty>. Each trace is printed once,\n"
    "      before the first record that refers to it by serial.\n"
    "\n"
    "  HEAP DUMP section (heap=dump): all live objects. ROOT lines name the GC\n"
    "      roots by kind; CLS, OBJ and ARR lines describe classes, instances and\n"
    "      arrays, each followed by its non-null references. Ids are not addresses.\n"
    "\n"
    "  SITES section (heap=sites): for each allocation site, a (class, trace)\n"
    "      pair, the live and the allocated bytes and objects, ranked by live bytes.\n"
    "\n"
    "  CPU SAMPLES section (cpu=samples): samples of threads running on a CPU,\n"
    "      counted per trace. CPU outside Java code reads as one-frame traces\n"
    "      <kind>.<name>(<Unknown Source>:Unknown line), the kind one of <GC>,\n"
    "      <JIT>, <VM>, <hprof> (the agent's threads) and <unwalkable>.\n"
    "\n"
    "  CPU TIME (ms) section (cpu=times): exact call counts and thread CPU time\n"
    "      per trace.\n"
    "\n"
    "  MONITOR DUMP and MONITOR TIME sections (monitor=y): a snapshot of threads\n"
    "      and owned monitors, and time spent waiting to enter monitors; WAIT and\n"
    "      WAITED lines record Object.wait calls as they happen.\n"
    "\n"
    "Each section starts with \"<NAME> BEGIN\" and ends with \"<NAME> END\". Sections\n"
    "are written at program exit (doe=y) and whenever a dump is requested: send\n"
    "SIGQUIT (kill -QUIT <pid>) or run jcmd <pid> JVMTI.data_dump. Each dump\n"
    "appends whole sections; CPU data restarts after each dump.\n";

const char hp_ascii_prelude_attached[] =
    "\n"
    "This recording was attached to a running JVM: what happened before the attach\n"
    "is not in it. CPU samples and MONITOR TIME start at the attach; SITES count\n"
    "only the objects allocated since then (older objects are neither allocated\n"
    "nor live there); threads already running are listed as the agent found them.\n";
