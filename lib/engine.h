/*
 * engine.h - the sampling engine interface.
 *
 * An engine turns CPU time into profiling signals.  Each lives in its own
 * file (engine-<name>.c) and defines one const struct profil_engine; the only
 * list of them, in preference order, and the only code that chooses between
 * them, is in session.c.
 *
 * Calling context: probe, start, attach, detach, stop and fork_child are
 * called by session.c or threads.c with the control lock held and every
 * signal blocked in the calling thread; they must not call back into the
 * session.  They use only syscalls, so pcsample() stays async-signal-safe.
 * classify is called from the signal handler and must be AS-safe.
 * All return 0 or -errno.
 */
#ifndef PROFIL_ENGINE_H
#define PROFIL_ENGINE_H

#include "internal.h"
#include "sig/accept.h"
#include "sig/tslot.h"

#include <stdbool.h>
#include <time.h>

/* What profiling needs from the engine. */
struct profil_run {
	unsigned int hz;    /* requested rate per thread CPU second */
	int signo;          /* the profiling signal (PROFIL_SIGNAL, SIGPROF) */
	bool distinct;      /* every tick must be a distinct sample (pcsample) */
	char perf_mode[16]; /* PROFIL_PERF_MODE: "", "sigtrap" or "fasync" */
	/* The engine asked for by name (session.c), NULL: chosen by rate;
	 * the engines themselves ignore it. */
	const struct profil_engine *forced;
};

/* CPU clock id of a thread by tid: the kernel's MAKE_THREAD_CPUCLOCK(tid,
 * CPUCLOCK_SCHED), what pthread_getcpuclockid returns for a pthread. */
static inline clockid_t profil_thread_clock(pid_t tid)
{
	return (clockid_t)((~(unsigned)tid << 3) | 6);
}

struct profil_engine {
	const char *name;
	/* Can deliver more distinct samples per second than the kernel tick. */
	bool subtick;
	/* Never chosen automatically, only by name (PROFIL_ENGINE,
	 * profil_set_engine): the manual engine takes no real ticks, and the
	 * process timer's signal may land in a thread that sleeps (session.c,
	 * order). */
	bool by_name;

	/* Usable here for run?  On failure writes a short reason into why.
	 * Has no lasting effect. */
	int (*probe)(const struct profil_run *run, char *why, size_t len);

	/* The signal the engine will raise (the handler is installed for it
	 * before start is called). */
	int (*signal)(const struct profil_run *run);

	/* Arm the process-wide part.  Per-thread parts come through attach. */
	int (*start)(const struct profil_run *run);

	/* Per-thread engines: arm for thread t (the caller, or an existing
	 * thread found by start).  `inherited` says that t was created by a
	 * covered thread while this run was active, so an engine whose kernel
	 * object is inherited by new threads need not arm anything.  NULL for
	 * process-wide engines.  An error from the resource limits (-EMFILE,
	 * -ENFILE, -EAGAIN, -ENOMEM) means the reserve of reserve.h or the
	 * limit itself refused the thread's object. */
	int (*attach)(struct profil_thread *t, bool inherited);
	/* Disarm thread t and free what attach took, but never an object
	 * that is no longer provably ours: -EBADF if the program closed or
	 * deleted it (then the thread had stopped being sampled, from an
	 * unknown time), else 0. */
	int (*detach)(struct profil_thread *t);

	/* Aim at signal sig what was armed with the old one, keeping each
	 * timer's phase: for thread t, or with t NULL the process-wide part
	 * and what later attaches use (session.c, when the program claims
	 * the sampling signal).  0, -EBADF if the program closed or deleted
	 * t's object, or another error (t is then not sampled any more and
	 * holds nothing).  NULL: the engine has no signal to move. */
	int (*resignal)(struct profil_thread *t, int sig);

	/* Disarm everything (process-wide part; threads were detached). */
	void (*stop)(void);

	/* In the child after fork: forget inherited kernel objects (close
	 * inherited fds) without touching the parent's. */
	void (*fork_child)(void);

	/* AS-safe.  Is this delivery one of ours?  If so, *weight = ticks it
	 * stands for.  Must also recognise a late signal of a stopped run.
	 * session.c publishes it to the handler's table (sig/accept.h). */
	bool (*classify)(int sig, const siginfo_t *si, unsigned long *weight);

	/* One line describing the variant in use (e.g. perf's sigtrap/fasync)
	 * appended to the "why" text; may be NULL. */
	const char *(*variant)(void);

	/* True if a signal of a stopped run can still arrive after every
	 * kernel object is gone (so our handler must stay installed to drop
	 * it); may be NULL (false). */
	bool (*lingers)(void);

	/* True if the engine can see only user time (perf without permission
	 * to sample the kernel): tick schedules then run on user time, and
	 * system time is not profiled.  May be NULL (false). */
	bool (*user_only)(void);
};

PROFIL_HIDDEN extern const struct profil_engine profil__engine_thread_timer;
PROFIL_HIDDEN extern const struct profil_engine profil__engine_perf;
PROFIL_HIDDEN extern const struct profil_engine profil__engine_process_timer;
PROFIL_HIDDEN extern const struct profil_engine profil__engine_manual;

/* POSIX timer helpers shared by the two timer engines (engine-timer.c).
 * tid 0 makes a process-directed timer.  AS-safe. */
PROFIL_HIDDEN int profil__timer_create(clockid_t clock, pid_t tid, int sig, int *id);
PROFIL_HIDDEN int profil__timer_arm(int id, long period_ns, long first_ns);
/* Delete a timer made after profil__reserve_take(PROFIL_RES_SIGQ) and give
 * its queued-signal slot back; -EBADF if it no longer existed.  AS-safe. */
PROFIL_HIDDEN int profil__timer_delete(int id);
/* Replace timer *id by one on the same clock and thread that raises sig,
 * armed with what was left of the old one.  On failure the old one is
 * gone too, and its queued-signal slot given back.  AS-safe. */
PROFIL_HIDDEN int profil__timer_resignal(int *id, clockid_t clock, pid_t tid, int sig);
/* Create and delete a test timer; on failure explain in why ("timer_create
 * on <what>: <error>"). */
PROFIL_HIDDEN int profil__timer_probe(clockid_t clock, pid_t tid, int sig, const char *what,
				      char *why, size_t len);
PROFIL_HIDDEN bool profil__timer_classify(int sig, const siginfo_t *si, unsigned long *weight);

/* The program disabled the perf events its threads own
 * (prctl(PR_TASK_PERF_EVENTS_DISABLE), seccomp.c): enable again every event
 * of the perf engine still provably ours, and with each the copies its
 * threads inherited.  Control lock held.  AS-safe. */
PROFIL_HIDDEN void profil__perf_resume(void);

/* Kernel tick rate (CONFIG_HZ), measured once; 0 if unknown.  Not AS-safe. */
PROFIL_HIDDEN unsigned int profil__kernel_hz(void);

#endif
