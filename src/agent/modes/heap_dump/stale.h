/* Temporary dump files left by a JVM killed mid-dump: HotSpot writes its
 * heap dump to ".hprof-dump-<pid>-<n>.hprof" (JDK 21+ also to ".p<k>" parts
 * of it) and only a process that lives to the end removes them. */
#ifndef HPROF_HEAP_DUMP_STALE_H
#define HPROF_HEAP_DUMP_STALE_H

#define HD_TEMP_PREFIX ".hprof-dump-"

/* Removes, from `dir`, the temporary files of processes that no longer
 * exist. A reused pid keeps them until its process ends too. */
void hd_sweep_stale(const char *dir);

#endif
