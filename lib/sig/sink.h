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

#include <fcntl.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* A growing table (record-format.h) as checked at attach: where its levels
 * are in the file and how many there may be; only `open` and the counts
 * are read from the shared header, and bounded by these.
 *
 * Each level has a mapping of its own, made when the level opens, so that
 * a process maps what its tables use and not the most they could hold
 * (60 MiB of address space a process when the whole file was mapped, which
 * RLIMIT_AS counts: issue 19).  A level's mapping runs from the page of its
 * first entry to the page of the next level's first entry, inclusive
 * (profil__level_span): the next level's mapping is then made from that
 * last page with mremap, which needs no descriptor and can run in the
 * handler (sink.c, grow). */
struct profil_levels {
	struct pcprof_raw_levels *l; /* in the header */
	uint64_t off;                /* level 0's offset in the file */
	uint32_t base, max;
	size_t entry;
	/* Level k's first entry in this process, for every level open (set
	 * before `open` counts it, with release order); NULL beyond. */
	char *_Atomic at[PCPROF_RAW_LEVELS];
};

/* One mapped raw file, as the control half checked it. */
struct profil_rec {
	struct pcprof_raw_header *h; /* the header's mapping (the thread table's first level) */
	size_t size;                 /* of the file */
	size_t page;
	struct profil_levels thr, slot;
	struct profil_levels node;     /* max 0: no stacks */
	uint64_t tl_origin, tl_bucket; /* the header's, as attached; tl_bucket 0: no timeline */
	/* The latest time bucket this process gave a slot of each level of
	 * the pc table (sink.c, store): a later one is not in that level. */
	_Atomic uint32_t slot_bucket[PCPROF_RAW_LEVELS];
	/* Bytes of the file this process has mapped for the recording (the
	 * levels, the header, the module table): what the RLIMIT_AS budget
	 * counts (profil__sink_room). */
	_Atomic uint64_t mapped;
};

/* The file range of level k's mapping: [*start, *start + *len), page
 * aligned, from the page of its first entry to the page of level k + 1's
 * first entry.  AS-safe. */
static inline void profil__level_span(const struct profil_levels *t, size_t page, uint32_t k,
				      uint64_t *start, uint64_t *len)
{
	uint64_t first = t->off + (((uint64_t)t->base << k) - t->base) * t->entry;
	uint64_t next = t->off + (((uint64_t)t->base << (k + 1)) - t->base) * t->entry;
	*start = first / page * page;
	*len = next / page * page + page - *start;
}

/* Level k's first entry in the file. */
static inline uint64_t profil__level_off(const struct profil_levels *t, uint32_t k)
{
	return t->off + (((uint64_t)t->base << k) - t->base) * t->entry;
}

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

/* The process's address space now, in bytes: the first field of
 * /proc/self/statm, in pages; 0 if it cannot be read.  errno is kept.
 * AS-safe (raw system calls, one descriptor for the duration). */
static inline uint64_t profil__vm_bytes(size_t page)
{
	int saved = errno;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/statm", O_RDONLY | O_CLOEXEC);
	uint64_t v = 0;
	if (fd >= 0) {
		char buf[64];
		long n = syscall(SYS_read, fd, buf, sizeof buf);
		syscall(SYS_close, fd);
		for (long i = 0; i < n && buf[i] >= '0' && buf[i] <= '9' && v < (UINT64_C(1) << 48);
		     i++)
			v = v * 10 + (uint64_t)(buf[i] - '0');
	}
	errno = saved;
	return v * page;
}

/*
 * May the recording map `len` bytes more, when it maps `mapped` already?
 * Without an address-space limit (RLIMIT_AS), yes: a mapping of the file
 * costs no memory until it is touched.  Under one, the program must keep
 * the room it would have alone, so the recording stays small and records
 * less rather than make the program's own mmap, malloc or pthread_create
 * fail: it takes at most 1/32 of the limit, and grows only while a quarter
 * of the limit stays free after it (the address space read from
 * /proc/self/statm when it grows; without /proc, the 1/32 alone).  The
 * limit is read each time: the program may change it.  errno is kept.
 * AS-safe: raw system calls.
 */
#define PROFIL_AS_SHARE 32 /* the recording's share of RLIMIT_AS at most */
#define PROFIL_AS_FREE  4  /* 1/4 of the limit stays free after a growth */
static inline bool profil__sink_room(uint64_t mapped, uint64_t len, size_t page)
{
	int saved = errno;
	struct rlimit lim;
	long r = syscall(SYS_prlimit64, 0, RLIMIT_AS, NULL, &lim);
	errno = saved;
	if (r != 0 || lim.rlim_cur == RLIM_INFINITY)
		return true;
	uint64_t cap = lim.rlim_cur;
	if (len > cap / PROFIL_AS_SHARE || mapped > cap / PROFIL_AS_SHARE - len)
		return false;
	uint64_t vm = profil__vm_bytes(page), keep = cap / PROFIL_AS_FREE;
	return vm <= cap - keep && len <= cap - keep - vm;
}

/* Map level k of table t (level k - 1 mapped, k < t->max) and reserve its
 * entries (profil__sink_populate), without a descriptor: a new mapping of
 * the file made with mremap from the last page of level k - 1's, which
 * holds level k's first entry.  Sets t->at[k] (release order) but not the
 * header's `open`, which the caller publishes.  Returns 0, -ENOMEM when
 * profil__sink_room refuses or the kernel has no address space, -ENOSPC
 * when the file system has no room, or another -errno.  errno is kept.
 * AS-safe: raw system calls. */
PROFIL_HIDDEN int profil__sink_map_level(struct profil_rec *r, struct profil_levels *t, uint32_t k);

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

/* The active recording, if any, stops for `why` (enum pcprof_raw_stop) at
 * process CPU time cpu_ns (0: its last stored one; memory only, for a
 * seccomp filter found in force): the header says so, and profil__rec
 * becomes NULL, so nothing more is recorded (record.c still ends the file).
 * AS-safe. */
PROFIL_HIDDEN void profil__sink_stop(uint32_t why, uint64_t cpu_ns);

/* Tests only (__profil_inject_time): if not 0, the time of every sample
 * from now on is this minus 1, in nanoseconds since the recording's
 * origin, instead of the clock's. */
PROFIL_HIDDEN extern _Atomic uint64_t profil__record_test_ns;

/* Rate the recorder asked for (0: none).  AS-safe. */
PROFIL_HIDDEN unsigned int profil__record_hz(void);

#endif
