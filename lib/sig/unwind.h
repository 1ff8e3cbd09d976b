/*
 * unwind.h - the call-stack walker of the signal path.
 *
 * Contract (every implementation): AS-safe and re-entrant across threads; no
 * locks, no allocation, no libc call that is not async-signal-safe; every
 * read of program memory goes through the fault guard (arch/guard.h), so a
 * bad frame ends the walk instead of faulting; bounded by max (each frame's
 * CFA must rise above the last, except across a signal frame; a walk that
 * is not bounded does not use the stack's bounds); max == 0 is allowed and
 * writes nothing.  The implementation: sig/unwind.c (the walk),
 * sig/unwind-tables.c (the rows it reads from the tables lib/unwind-build.c
 * makes), arch/unwind-<arch>.c.
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

#include <stdbool.h>
#include <stdint.h>

#include "../internal.h"
#include "../record-format.h"
#include "unwind-tables.h"

/* Most frames a recorded stack keeps, markers included. */
#define PROFIL_STACK_MAX 256

/*
 * What a walk writes besides its registers: the frames, and the records it
 * reads rows from where a module's cache lacks them (unwind-tables.h).
 * The handler keeps one per thread slot (tslot.h), made in normal context,
 * so that neither is on the stack the handler runs on: that may be a
 * coroutine's of a few KiB, below the kernel's signal frame (2.6 KiB of it
 * was the frame array and the records: docs/signal-safety.md, "The
 * handler's stack budget").  One thread's handler uses its own, and
 * profiling handlers never nest.
 */
/*
 * The recorder's memory of the thread's last stored stack (sig/sink.c): its
 * callers outermost first, and the node of the recording's trie each one
 * ended at.  The next stack of the thread usually shares its outer callers
 * (half of cc1plus's frames), whose nodes are then taken from here instead
 * of searched for in every level of the trie.  Nodes never leave a
 * recording; token names the one they are in (a fork child records into a
 * file of its own).
 */
struct profil_stack_memo {
	uint64_t token; /* the recording's header token; 0: nothing */
	uint32_t n;     /* entries below that hold */
	uint32_t node[PROFIL_STACK_MAX];
	uint64_t key[PROFIL_STACK_MAX];
};

struct profil_walk_buf {
	uintptr_t pcs[PROFIL_STACK_MAX];
	struct profil_uscratch x; /* its fde, rows, work and run: below */
	uint8_t fde[PROFIL_UNWIND_FDE_MAX];
	uint64_t rows[PROFIL_UNWIND_FUNC_ROWS];
	struct profil_uwork work;
	struct profil_cfi_state run;
	/* the walk's own state (unwind.c, struct walk_state) */
	_Alignas(8) unsigned char state[256];
	struct profil_stack_memo memo;
};

/* Let walk w (after profil__unwind_enter) read records into b instead of
 * onto the stack, and keep whole functions' rows (unwind-tables.h).
 * AS-safe. */
PROFIL_HIDDEN void profil__unwind_use_buf(struct profil_uwalk *w, struct profil_walk_buf *b);

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

/* The handler's walk: profil__unwind (bounded: profil__unwind_bounded
 * within [lo, hi)) into b->pcs, its direct path copying records into b,
 * not onto the stack.  AS-safe. */
PROFIL_HIDDEN int profil__unwind_into(const void *uc, struct profil_walk_buf *b, int max,
				      bool bounded, uintptr_t lo, uintptr_t hi);

#endif
