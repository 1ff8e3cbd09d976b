/*
 * session.h - the control path shared by the public entry points: install a
 * configuration, choose and run the engine, own the signals.  Not AS-safe
 * unless stated; see the top of session.c for the lock order.
 */
#ifndef PROFIL_SESSION_H
#define PROFIL_SESSION_H

#include <pthread.h>

#include "engine.h"
#include "sig/sample.h"

/* Take / release the control lock.  Blocks every asynchronous signal in the
 * calling thread first (restored by unlock), so a signal handler that calls
 * pcsample() can never deadlock against its own thread.  AS-safe. */
PROFIL_HIDDEN void profil__lock(sigset_t *saved);
/* Block every asynchronous signal in the calling thread, saving the old
 * mask (synchronous ones stay deliverable).  AS-safe. */
PROFIL_HIDDEN void profil__block_async(sigset_t *saved);
PROFIL_HIDDEN void profil__unlock(const sigset_t *saved);

/* Who is installing: pcsample keeps the previous session's sample count,
 * any other profiling call resets it (illumos), a deferred teardown or an
 * exec stop is neutral. */
enum { PROFIL_CALL_OTHER = 0, PROFIL_CALL_PCSAMPLE = 1, PROFIL_CALL_SETTLE = 2 };

/*
 * Replace the process-wide configuration by cfg (NULL: off), starting or
 * stopping the engine as needed.  On success the previous configuration is
 * freed and, once this returns, no handler touches its buffers any more.
 * On failure nothing changed and cfg is not consumed.  Control lock NOT held
 * by the caller.  AS-safe (pcsample's path).
 */
PROFIL_HIDDEN int profil__install(struct profil_cfg *cfg, int call);

/* Same, for a caller that already holds the control lock (the AIX entry
 * point decides under the lock whether the call is effective). */
PROFIL_HIDDEN int profil__install_locked(struct profil_cfg *cfg, int call);

/* The configuration installed now (lock held), NULL if off or stopped. */
PROFIL_HIDDEN struct profil_cfg *profil__current_locked(void);

/* Policy and base rate in force for configurations built now.  AS-safe. */
PROFIL_HIDDEN int profil__policy(void);
PROFIL_HIDDEN unsigned int profil__base_hz(void);

/* The recorder (record.c) started or stopped: start or stop the engine to
 * match.  Control lock not held.  Not AS-safe. */
PROFIL_HIDDEN int profil__record_changed(void);

/* pcsample's count of the previous session (see pcsample.c). */
PROFIL_HIDDEN extern uint64_t profil__pcs_last_count;

/* Engine running now (NULL if none).  AS-safe (atomic load). */
PROFIL_HIDDEN const struct profil_engine *profil__running_engine(void);
/* Incremented each time an engine starts. */
PROFIL_HIDDEN extern _Atomic uint32_t profil__start_seq;

/* threads.c, called with the control lock held */
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
/* The program claimed sig (siginterpose.c): if the library samples with
 * it or keeps it as the spare, give it back (session.c). */
PROFIL_HIDDEN void profil__sig_give_back(int sig);
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
/* The running engine sees only user time (engine.h, user_only).  AS-safe. */
PROFIL_HIDDEN bool profil__user_time_only(void);
/* Pay every armed thread the ticks it is owed, into cfg (a configuration
 * being retired) or, if NULL, the current one; the recorder gets them too. */
PROFIL_HIDDEN void profil__threads_pay_owed(struct profil_cfg *cfg);
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
/* Whether the program's pthread_create comes to profil__thread_create: not
 * in a program linked with libprofil.a without the wrap flags of
 * libprofil.pc.  AS-safe. */
PROFIL_HIDDEN bool profil__threads_creation_seen(void);

/* exec.c: stop before an exec, resume if it failed.  Not AS-safe. */
PROFIL_HIDDEN void profil__exec_prepare(void);
PROFIL_HIDDEN void profil__exec_failed(void);
/* Remember our pid (start-up, fork child) to recognise a vfork child. */
PROFIL_HIDDEN void profil__exec_set_pid(void);

#endif
