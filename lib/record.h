/*
 * record.h - the whole-process recorder used by `pcprof run`: every sample's
 * pc is counted in a table in memory shared with pcprof, so the data
 * survives any death of the program.  Started by the library constructor
 * when the PCPROF_* environment is present.  See docs/formats.md.
 */
#ifndef PROFIL_RECORD_H
#define PROFIL_RECORD_H

#include "internal.h"

#include <stdbool.h>

struct profil_rec;

/* The active recorder, NULL if none.  Read by the handler. */
PROFIL_HIDDEN extern struct profil_rec *_Atomic profil__rec;

/* Count `weight` ticks of thread tid at pc; `signal`: they came with a
 * profiling signal (else they were owed, see threads.c).  stack (NULL: none)
 * is the call stack, depth entries, as lib/sig/unwind.h writes it: stack[0]
 * is pc, then the callers; kept only when the recording has stacks, and at
 * most PROFIL_STACK_MAX entries.  AS-safe. */
PROFIL_HIDDEN void profil__record(struct profil_rec *r, pid_t tid, uintptr_t pc,
				  const uintptr_t *stack, int depth, unsigned long weight,
				  bool signal);

/* Does the active recording want each sample's call stack
 * (PCPROF_STACKS=1)?  AS-safe. */
PROFIL_HIDDEN bool profil__record_stacks(void);

/* Count `weight` ticks of CPU time that could not be sampled.
 * AS-safe. */
PROFIL_HIDDEN void profil__record_unsampled(struct profil_rec *r, unsigned long weight);

/* A thread is not sampled, wholly or in part (see threads.c), or, with
 * unseen, ended without exit handlers.  AS-safe. */
PROFIL_HIDDEN void profil__record_thread_loss(bool unseen);

/* Rate the recorder asked for (0: none).  AS-safe. */
PROFIL_HIDDEN unsigned int profil__record_hz(void);

/* Called by session.c: at start-up (not AS-safe), in the child after fork
 * (control lock held), and around exec (control lock held). */
PROFIL_HIDDEN void profil__record_init(void);
PROFIL_HIDDEN void profil__record_fork_child(void);
PROFIL_HIDDEN void profil__record_exec(uint64_t thread_cpu);
PROFIL_HIDDEN void profil__record_exec_failed(void);

#endif
