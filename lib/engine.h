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

#include <stdbool.h>
#include <time.h>

/* What profiling needs from the engine. */
struct profil_run {
	unsigned int hz;    /* requested rate per thread CPU second */
	int signo;          /* the profiling signal (PROFIL_SIGNAL, SIGPROF) */
	bool distinct;      /* every tick must be a distinct sample (pcsample) */
	char perf_mode[16]; /* PROFIL_PERF_MODE: "", "sigtrap" or "fasync" */
};

/* One slot of the thread table (threads.c).  Slots never move. */
struct profil_thread {
	pid_t tid;         /* 0: free slot (read by the handler: atomic) */
	uint8_t kind;      /* THREAD_TRACKED or THREAD_FOREIGN (threads.c) */
	bool attached;     /* the engine armed something for this thread */
	uint32_t seen_seq; /* start that found it in /proc/self/task */
	long handle;       /* engine's per-thread handle: timer id or fd */

	/* The tick schedule (threads.c, "owed ticks").  A thread is due one
	 * tick at origin_ns + first_ns of its CPU time, then one every
	 * period_ns; first_ns is drawn at random in (0, period], so that the
	 * number due by any CPU time is an unbiased estimate of that time x
	 * rate.  Every tick due is accounted exactly once: by the thread's
	 * next signal (the engine's signal only says "now"), or, if none
	 * comes, when the thread ends or profiling stops ("owed"). */
	uint64_t origin_ns; /* CPU time where the schedule starts */
	uint64_t first_ns;  /* first tick, after origin_ns */
	uint64_t period_ns;
	uint64_t arm_ns;           /* for attach: CPU time from now to the next tick due,
				      where an engine that can should fire first */
	_Atomic uint64_t taken;    /* ticks accounted (claimed atomically) */
	_Atomic uintptr_t last_pc; /* pc of the thread's last signal */
	uintptr_t entry_pc;        /* where ticks before its first signal go: the
				      start routine, the program's entry point */
	uint64_t start_origin;     /* origin_ns for its next attach, or
				      PROFIL_ORIGIN_NOW (threads.c) */
	_Atomic bool scheduled;    /* the schedule above is in force */
	bool unsampled;            /* attach failed: its ticks are counted lost */
};

/* start_origin: the schedule starts at the thread's CPU time when armed. */
#define PROFIL_ORIGIN_NOW UINT64_MAX

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

/* The calling thread's slot, or NULL (cached per thread).  AS-safe. */
PROFIL_HIDDEN struct profil_thread *profil__thread_self(void);

/* A profiling signal of the engine, standing for `weight` ticks by the
 * engine's count, arrived in the calling thread at pc: the ticks the
 * thread's schedule says it is due now, taken for good (0: none).  The
 * engine's weight counts only for a thread without a slot.  AS-safe. */
PROFIL_HIDDEN unsigned long profil__threads_signal(uintptr_t pc, unsigned long weight);

/* The value our timers carry in si_value, and perf in sig_data. */
PROFIL_HIDDEN extern const char profil__cookie[1];

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

/* Kernel tick rate (CONFIG_HZ), measured once; 0 if unknown.  Not AS-safe. */
PROFIL_HIDDEN unsigned int profil__kernel_hz(void);

#endif
