/*
 * unwind.h - the call-stack walker of the signal path.
 *
 * Contract (every implementation): AS-safe and re-entrant across threads; no
 * locks, no allocation, no libc call that is not async-signal-safe; every
 * read of program memory goes through the fault guard (arch/guard.h), so a
 * bad frame ends the walk instead of faulting; bounded by max (each frame's
 * CFA must rise above the last, except across a signal frame; the thread's
 * stack bounds are not known in the handler and not used); max == 0 is
 * allowed and writes nothing.  The implementation: sig/unwind.c (the walk),
 * sig/unwind-tables.c (the tables it reads), arch/unwind-<arch>.c.
 *
 * What it writes, outermost last:
 *   pcs[0]    the interrupted pc, from uc (never the handler's own frames);
 *   pcs[i>0]  the address to look up for each caller: its return address
 *             minus one (so that a call that ends a function is charged to
 *             that function), except for a frame that was itself interrupted
 *             by a signal, whose exact pc is given;
 * A walk that reaches a normal end (the process's or a thread's first
 * frame, a zero return address) stops there.  A walk that cannot go on
 * (no unwind information, a bad frame, memory it may not read) ends with
 * PCPROF_FRAME_UNKNOWN; one that reaches max - 1 frames with more to go
 * ends with PCPROF_FRAME_TRUNCATED (record-format.h): a visible marker,
 * never a guess.
 */
#ifndef PROFIL_SIG_UNWIND_H
#define PROFIL_SIG_UNWIND_H

#include <stdint.h>

#include "../internal.h"
#include "../record-format.h"

/* Most frames a recorded stack keeps, markers included. */
#define PROFIL_STACK_MAX 256

/* Walk the stack of the thread that was interrupted with context uc (the
 * handler's third argument).  Returns the number of entries written to pcs
 * (1..max, 0 only if max is 0).  AS-safe. */
PROFIL_HIDDEN int profil__unwind(const void *uc, uintptr_t *pcs, int max);

/* The same walk for a handler with no room for the frame the kernel pushes
 * when a guarded read faults (a small alternate signal stack): no read can
 * fault.  [lo, hi) is the interrupted thread's stack; the walk reads only
 * its part at and above the interrupted stack pointer, which is mapped,
 * and checks each address before it reads.  It leaves out what would read
 * other memory: signal frames (the trampoline's code) and code the tables
 * lack (the module's own .eh_frame), which end the walk with
 * PCPROF_FRAME_UNKNOWN; so does a stack pointer outside [lo, hi).  AS-safe. */
PROFIL_HIDDEN int profil__unwind_bounded(const void *uc, uintptr_t *pcs, int max, uintptr_t lo,
					 uintptr_t hi);

#endif
