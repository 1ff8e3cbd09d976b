/*
 * sig/sink.h - the recorder's hot half (layer L1, the AS-safe zone): where
 * the handler stores a sample and its stack into the raw file's mapped
 * tables (lib/record-format.h).  AS-safe, re-entrant across threads: atomics
 * and raw system calls only, no locks, bounded probing.
 *
 * The control half (lib/record.c) maps the file, fills a struct profil_rec
 * in normal context and publishes it through profil__rec; this file only
 * reads what it was given.  May include: lib/internal.h,
 * lib/record-format.h, lib/sig/, lib/arch/ (tests/abi/t-layers.sh).
 */
#ifndef PROFIL_SIG_SINK_H
#define PROFIL_SIG_SINK_H

#include "../internal.h"
#include "../record-format.h"

#include <stdbool.h>
#include <sys/mman.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* A growing table (record-format.h) as checked at attach: where its levels
 * are in our mapping and how many there may be; only `open` and the counts
 * are read from the shared header, and bounded by these. */
struct profil_levels {
	struct pcprof_raw_levels *l;
	char *at; /* level 0 */
	uint32_t base, max;
	size_t entry;
};

/* One mapped raw file, as the control half checked it. */
struct profil_rec {
	struct pcprof_raw_header *h; /* the mapping starts here */
	size_t size;                 /* of the mapping */
	size_t page;
	struct profil_levels thr, slot;
	struct profil_levels node;     /* max 0: no stacks */
	uint64_t tl_origin, tl_bucket; /* the header's, as attached; tl_bucket 0: no timeline */
};

/* The active recorder, NULL if none.  Published by record.c, read by the
 * handler. */
PROFIL_HIDDEN extern struct profil_rec *_Atomic profil__rec;

/* Make bytes [off, off + len) of a mapping of `size` bytes that starts at
 * base writable for good (pages of the file allocated now), so that a
 * store there cannot raise SIGBUS when the file system is full: 0,
 * -ENOSPC, or another -errno.  errno is kept.  AS-safe. */
static inline int profil__sink_populate(void *base, size_t size, size_t page, uint64_t off,
					uint64_t len)
{
	uint64_t start = off / page * page, end = (off + len + page - 1) / page * page;
	if (end > size)
		return -EINVAL;
	if (start == end)
		return 0;
	/* Also called where the program's errno must survive (the owed ticks
	 * of an exiting thread, exec). */
	int saved = errno, r = 0;
	if (madvise((char *)base + start, end - start, MADV_POPULATE_WRITE) < 0)
		r = errno == EFAULT ? -ENOSPC : -errno;
	errno = saved;
	return r;
}

/* Count `weight` ticks of thread tid at pc; `signal`: they came with a
 * profiling signal (else they were owed, see threads.c).  stack (NULL: none)
 * is the call stack, depth entries, as lib/sig/unwind.h writes it: stack[0]
 * is pc, then the callers; kept only when the recording has stacks, and at
 * most PROFIL_STACK_MAX entries.  AS-safe. */
PROFIL_HIDDEN void profil__record(struct profil_rec *r, pid_t tid, uintptr_t pc,
				  const uintptr_t *stack, int depth, unsigned long weight,
				  bool signal);

/* Read again the recorded name of every thread still in this process
 * (see sink.c).  AS-safe, but one open per thread: control paths only. */
PROFIL_HIDDEN void profil__sink_rename_all(struct profil_rec *r);

/* The calling thread ends (its exit handlers run): in the active
 * recording, if any, its name becomes the one it has now. */
PROFIL_HIDDEN void profil__record_thread_end(void);

/* Does the active recording want each sample's call stack
 * (PCPROF_STACKS=1)?  AS-safe. */
PROFIL_HIDDEN bool profil__record_stacks(void);

/* Count `weight` ticks of CPU time that could not be sampled.
 * AS-safe. */
PROFIL_HIDDEN void profil__record_unsampled(struct profil_rec *r, unsigned long weight);

/* Count `weight` ticks a thread was due while it blocked the sampling
 * signal in the kernel (threads.c), and the thread with `first`.  AS-safe. */
PROFIL_HIDDEN void profil__record_blocked(struct profil_rec *r, unsigned long weight, bool first);

/* Set PCPROF_RAW_G_* bits in the active recording's gap_flags, if any.
 * AS-safe. */
PROFIL_HIDDEN void profil__record_gap_flag(uint32_t flags);

/* A thread is not sampled, wholly or in part (see threads.c), or, with
 * unseen, ended without exit handlers.  AS-safe. */
PROFIL_HIDDEN void profil__record_thread_loss(bool unseen);

/* Tests only (__profil_inject_time): if not 0, the time of every sample
 * from now on is this minus 1, in nanoseconds since the recording's
 * origin, instead of the clock's. */
PROFIL_HIDDEN extern _Atomic uint64_t profil__record_test_ns;

/* Rate the recorder asked for (0: none).  AS-safe. */
PROFIL_HIDDEN unsigned int profil__record_hz(void);

#endif
