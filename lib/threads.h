/*
 * threads.h - the thread table's control half (threads.c): registering
 * threads, arming and disarming them for the running engine, their owed
 * ticks.  Layer L3, below session.c, which calls it with the control lock
 * held unless stated; it reads the lock and the running engine from
 * ctl.h and calls nothing in session.c.  The handler's half is
 * sig/tslot.h.  Not AS-safe unless stated.
 */
#ifndef PROFIL_THREADS_H
#define PROFIL_THREADS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "internal.h"
#include "sig/sample.h"

PROFIL_HIDDEN void profil__threads_init(void);
/* Attach e to every thread.  whole: a thread refused for lack of resources
 * fails the start with that error (another engine may cover them all);
 * else it is left unsampled and counted. */
PROFIL_HIDDEN int profil__threads_attach_all(const struct profil_engine *e, uint32_t seq,
					     bool whole);
PROFIL_HIDDEN void profil__threads_detach_all(const struct profil_engine *e);
/* Re-aim every attached thread's timer or event at sig (engine resignal);
 * sig 0: detach them all.  A thread that cannot be moved keeps its tick
 * schedule and counts as unsampled.  Control lock held, creation blocked. */
PROFIL_HIDDEN void profil__threads_resignal(const struct profil_engine *e, int sig);
/* Send every other thread a fix-up signal sig (sigown.h). */
PROFIL_HIDDEN void profil__threads_fixup(int sig);
/* Around fork: prepare in the forking thread (control lock held), child
 * in the child. */
PROFIL_HIDDEN void profil__threads_fork_prepare(void);
PROFIL_HIDDEN void profil__threads_fork_child(void);
PROFIL_HIDDEN void profil__threads_block_creation(void);
PROFIL_HIDDEN void profil__threads_unblock_creation(void);
PROFIL_HIDDEN extern unsigned long long profil__thread_attaches;
/* Threads the engine does not sample, wholly or in part: not attached, or
 * their timer or event closed by the program (profil_stats' thread_errors). */
PROFIL_HIDDEN unsigned long long profil__threads_unsampled(void);
/* Append what was not sampled and why ("; not sampled: 3 threads (...)")
 * to buf, nothing if all was.  */
PROFIL_HIDDEN void profil__threads_loss_text(char *buf, size_t len);
/* Zero the attach and loss counts (an engine is being started). */
PROFIL_HIDDEN void profil__threads_reset_counts(void);
/* Period of the engine being started, for the owed-tick schedule. */
PROFIL_HIDDEN void profil__threads_set_period(uint64_t ns);
/* Whether the schedules of the engine being started run on user time. */
PROFIL_HIDDEN void profil__threads_user_time(bool on);
/* Pay every armed thread the ticks it is owed, into cfg (a configuration
 * being retired) or, if NULL, the current one; the recorder gets them too. */
PROFIL_HIDDEN void profil__threads_pay_owed(struct profil_cfg *cfg);
/* How much of the image's CPU time the tick schedules covered, and what
 * else ran (record.c, for the recording's version 6 fields): */
struct profil_span {
	uint64_t covered;   /* every schedule from its origin to its thread's last
			       payment (pay the live ones first) */
	uint64_t before;    /* threads' CPU time while no schedule ran on them */
	uint64_t ended;     /* threads that ended through their exit handlers */
	uint64_t unslotted; /* ticks of threads without a slot (sig/tslot.h) */
	/* Threads alive now that no schedule knows, and their CPU time:
	 * io_uring's workers, and the others (made without pthread_create
	 * after the engine started). */
	uint64_t iou_ns, foreign_ns;
	uint32_t iou, foreign;
};
/* Fill *s.  AS-safe (raw system calls, no allocation); with the control
 * lock held or not (a thread that changes meanwhile may be missed). */
PROFIL_HIDDEN void profil__threads_span(struct profil_span *s);

/* A recorded image begins (record.c, before its engine starts): the main
 * thread's ticks count from CPU time main_origin (PROFIL_ORIGIN_NOW: from
 * when it is armed), and those before its first signal go to the
 * program's entry point.  Takes the control lock.  Not AS-safe. */
PROFIL_HIDDEN void profil__threads_image_start(uint64_t main_origin);

/* pthread_create's work (pthread-create.c has the entry points): create
 * the thread with `real` (libc's pthread_create) so that it registers, and
 * is armed if an engine runs, before it calls fn.  Returns what
 * pthread_create returns.  Control lock not held.  Not AS-safe (malloc). */
typedef int profil__create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
PROFIL_HIDDEN int profil__thread_create(profil__create_fn *real, pthread_t *thr,
					const pthread_attr_t *attr, void *(*fn)(void *), void *arg);
/* Register the calling thread, which libc started without our
 * pthread_create (glibc's SIGEV_THREAD timer threads, sigev.c), as that
 * would have: a slot, the running engine armed for it (perf's sigtrap
 * variant: the event it inherited from the thread that cloned it), its
 * ticks owed at entry until its first signal, and paid and freed when it
 * ends (its exit handlers).  Once per thread.  Control lock not held.
 * Not AS-safe. */
PROFIL_HIDDEN void profil__thread_adopt(uintptr_t entry);

/* Whether the program's pthread_create comes to profil__thread_create: not
 * in a program linked with libprofil.a without the wrap flags of
 * libprofil.pc.  AS-safe. */
PROFIL_HIDDEN bool profil__threads_creation_seen(void);

#endif
