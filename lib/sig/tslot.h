/*
 * sig/tslot.h - the thread table as the signal handler sees it (layer L1,
 * the AS-safe zone; rules: lib/sig/README): the slots, the calling
 * thread's slot, and its tick schedule (see lib/threads.c, "owed ticks").
 * threads.c (the control code) allocates, arms and frees slots under the
 * control lock and publishes them here; the handler only finds its own
 * slot and claims the ticks due.  Everything here is AS-safe.
 * May include: lib/internal.h, lib/sig/ (tests/abi/t-layers.sh).
 */
#ifndef PROFIL_SIG_TSLOT_H
#define PROFIL_SIG_TSLOT_H

#include "../internal.h"
#include "unwind.h"

#include <stdbool.h>

/* One slot of the thread table.  Slots never move. */
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
	uint64_t paid_ns;          /* its CPU time up to which a schedule
				      covered it (its last payment), or that
				      was counted as not covered (threads.c) */
	bool blocked;              /* counted once as blocking the sampling
				      signal (threads.c) */
	_Atomic bool scheduled;    /* the schedule above is in force */
	bool unsampled;            /* attach failed: its ticks are counted lost */
	/* Where this thread's handler walks its stack (unwind.h): the chunk's
	 * walk[i] for slot[i], set when the chunk is made, never changed. */
	struct profil_walk_buf *walk;
};

/* start_origin: the schedule starts at the thread's CPU time when armed. */
#define PROFIL_ORIGIN_NOW UINT64_MAX

#define PROFIL_TSLOT_CHUNK 255

/* Slots come in chunks, prepended by threads.c with a release store and
 * never freed, so the handler can walk the list without the lock.  The
 * walk buffers (9264 bytes each: 2,307 KiB of a chunk's 2,335, address space
 * only until used) follow the slots, so that a search of the slots reads
 * a few pages; only a thread that walks touches its buffer's pages. */
struct profil_tslot_chunk {
	struct profil_tslot_chunk *next;
	struct profil_thread slot[PROFIL_TSLOT_CHUNK];
	struct profil_walk_buf walk[PROFIL_TSLOT_CHUNK];
};

PROFIL_HIDDEN extern struct profil_tslot_chunk *_Atomic profil__tslot_chunks;

/* The calling thread's slot, once found, set and cleared by threads.c at
 * thread birth and death.  Initial-exec TLS is a fixed offset from the
 * thread pointer: safe in a signal handler. */
PROFIL_HIDDEN extern __thread struct profil_thread *profil__tslot_self
	__attribute__((tls_model("initial-exec")));

/* Ticks the engine signalled in this thread before it had a slot (a thread
 * is covered from clone by an inherited perf event, but registers only in
 * its start routine), handed to its slot when it registers; and whether its
 * exit already paid it for good. */
PROFIL_HIDDEN extern __thread _Atomic unsigned long profil__tslot_early
	__attribute__((tls_model("initial-exec")));
PROFIL_HIDDEN extern __thread bool profil__tslot_ended __attribute__((tls_model("initial-exec")));

/* The calling thread's stack, [lo, hi), for a walk that must not fault
 * (unwind.h, profil__unwind_bounded); 0, 0 where unknown: a thread that did
 * not start through our start routine.  Set by threads.c in normal context
 * (pthread_getattr_np), when the thread starts or the library does. */
PROFIL_HIDDEN extern __thread uintptr_t profil__tslot_stack_lo
	__attribute__((tls_model("initial-exec")));
PROFIL_HIDDEN extern __thread uintptr_t profil__tslot_stack_hi
	__attribute__((tls_model("initial-exec")));

/* Ticks signalled to threads without a slot that no schedule took over
 * (attach takes a registering thread's early ticks): samples of threads
 * made without pthread_create, outside every schedule (threads.c, the
 * recording's unslotted).  Set to 0 in a fork child by threads.c. */
PROFIL_HIDDEN extern _Atomic uint64_t profil__tslot_unslotted;

/* Tick schedules run on user time only (engine.h, user_only).  Set by
 * threads.c under the control lock while no engine runs. */
PROFIL_HIDDEN extern bool profil__tslot_user_time;

/* The slot of thread tid, or NULL. */
PROFIL_HIDDEN struct profil_thread *profil__tslot_find(pid_t tid);

/* The calling thread's slot, or NULL (cached per thread). */
PROFIL_HIDDEN struct profil_thread *profil__thread_self(void);

/* The calling thread's CPU time (or user time) as the scheduler last
 * updated it: at most a scheduler tick behind, never ahead (tslot.c says
 * why the signal path does not read the exact clock). */
PROFIL_HIDDEN uint64_t profil__tslot_cpu_self(void);

/* Ticks t's schedule has reached by CPU time `now`. */
PROFIL_HIDDEN uint64_t profil__tslot_due_by(const struct profil_thread *t, uint64_t now);

/* Take the ticks t's schedule has reached by `now` that nobody accounted
 * yet.  A thread's own signal handler and a payer in another thread may
 * race: the exchange gives every tick to exactly one of them. */
PROFIL_HIDDEN uint64_t profil__tslot_claim(struct profil_thread *t, uint64_t now);

/* A profiling signal of the engine, standing for `weight` ticks by the
 * engine's count, arrived in the calling thread at pc: the ticks the
 * thread's schedule says it is due now, taken for good (0: none).  The
 * engine's weight counts only for a thread without a slot. */
PROFIL_HIDDEN unsigned long profil__tslot_signal(uintptr_t pc, unsigned long weight);

#endif
