/* The OS threads of this process, as Linux lists them in /proc/self/task:
 * what the samplers and the collector probe need to know about threads that
 * JVM TI does not report (the VM's own) or reported before the agent looked. */
#ifndef HPROF_TASKS_H
#define HPROF_TASKS_H

#include <stdbool.h>
#include <sys/types.h>

/* Called once per thread; returns false to stop the listing. */
typedef bool (*hp_task_fn)(pid_t tid, void *arg);

/* Calls fn for every thread of the process, each listed once; false if
 * /proc/self/task cannot be read (errno says why). */
bool hp_tasks_each(hp_task_fn fn, void *arg);

/* The OS name of a thread of this process (/proc/self/task/<tid>/comm:
 * HotSpot's thread name cut to 15 bytes); false when it is gone. */
#define HP_COMM_LEN 16
bool hp_thread_comm(pid_t tid, char comm[HP_COMM_LEN]);

#endif
