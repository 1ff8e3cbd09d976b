/*
 * sig/sample.h - what the signal handler reads, and the bin arithmetic.
 * Layer L1, the AS-safe zone (rules: lib/sig/README); may include
 * lib/internal.h and the public include/profil_ext.h (constants) only.
 *
 * A profiling configuration (struct profil_cfg) is built in normal context by
 * config.c, published through one atomic pointer by session.c, and from then
 * on only read by the handler, except for its atomic fields.  It is never
 * changed in place: a new call builds a new one.
 *
 * The arithmetic below is pure and static inline so that unit tests can
 * check it directly; every function here is AS-safe.
 */
#ifndef PROFIL_SAMPLE_H
#define PROFIL_SAMPLE_H

#include "../../include/profil_ext.h"
#include "../internal.h"

#include <stdbool.h>

/* Index rounding rules (spec 0.1). */
enum profil_round {
	PROFIL_ROUND_DOWN = 0, /* multiply first, I = floor(B / E) */
	PROFIL_ROUND_AIX = 1   /* AIX text: I = ceil(B / 2) */
};

/*
 * One histogram.  Fixed-point ranges: scale is 16.16 (1..2^32 - 1; 0x10000 is
 * one counter byte per text byte), off and pcs are full 64-bit addresses.
 */
struct profil_region {
	uint64_t off;   /* d = pc - off */
	uint64_t first; /* lowest pc this region counts (== off, or lowpc) */
	uint64_t last;  /* highest pc it counts, inclusive (never wraps) */
	void *base;     /* counters */
	uint64_t n;     /* number of whole counters, floor(size / esize) */
	uint64_t scale;
	uint32_t order;    /* index in the caller's array: ties go to the lowest */
	uint8_t esize;     /* 2, 4 or 8 */
	uint8_t round;     /* enum profil_round */
	bool all_to_zero;  /* scale 2 in classic/Tru64/AIX: every pc -> counter 0 */
	bool misaligned;   /* base not aligned to esize: locked plain update */
	_Atomic bool dead; /* Tru64: this range faulted and is off */
};

/* A piece of the pc line owned by one region (after overlap resolution). */
struct profil_segment {
	uint64_t first, last; /* inclusive */
	uint32_t region;
};

/* How a fault in a counter update is handled. */
enum profil_fault_scope {
	PROFIL_FAULT_ALL = 0,   /* the whole configuration turns off */
	PROFIL_FAULT_REGION = 1 /* only that region (Tru64 extended form) */
};

struct profil_cfg {
	size_t alloc_size;    /* bytes of this object (profil__alloc) */
	int kind;             /* enum profil_kind */
	uint8_t policy;       /* PROFIL_OVF_* */
	uint8_t fault_scope;  /* enum profil_fault_scope */
	unsigned int hz;      /* rate this configuration asked for */
	_Atomic bool stopped; /* turned itself off (fault, stop policy, full) */

	/* Histogram kinds. */
	uint32_t nregions, nsegments;
	struct profil_region *regions;
	struct profil_segment *segments; /* sorted by first, disjoint */
	int32_t bin;                     /* region index of the overflow bin, or -1 */

	/* pcsample: pcs[0 .. cap) receive raw pcs. */
	uintptr_t *pcs;
	uint64_t cap;
	_Atomic uint64_t next;     /* slots claimed */
	_Atomic uint64_t fault_at; /* first slot that faulted (UINT64_MAX: none) */
};

/* B = floor(d * scale / 65536) computed exactly; saturates at UINT64_MAX,
 * which is beyond every buffer.  d < 2^64, scale < 2^33. */
static inline uint64_t profil_byte_offset(uint64_t d, uint64_t scale)
{
	unsigned __int128 p = ((unsigned __int128)d * scale) >> 16;
	return p > UINT64_MAX ? UINT64_MAX : (uint64_t)p;
}

/* Counter index for a pc at distance d from the region's offset. */
static inline uint64_t profil_index(const struct profil_region *r, uint64_t d)
{
	if (r->all_to_zero)
		return 0;
	uint64_t b = profil_byte_offset(d, r->scale);
	if (r->round == PROFIL_ROUND_AIX)
		return b / 2 + (b & 1);
	return b / r->esize;
}

/*
 * Smallest d whose index is >= r->n, i.e. the length of text the region
 * covers from its offset; UINT64_MAX stands for "to the top of the address
 * space".  For ROUND_DOWN: I >= n  <=>  d * s >= n * E * 65536.  For the AIX
 * round-up rule: ceil(B / 2) >= n  <=>  B >= 2n - 1  <=>  d * s >= (2n - 1) * 65536.
 */
static inline uint64_t profil_cover_len(const struct profil_region *r)
{
	if (r->n == 0)
		return 0;
	if (r->all_to_zero)
		return UINT64_MAX;
	unsigned __int128 need;
	if (r->round == PROFIL_ROUND_AIX)
		need = ((unsigned __int128)(2 * (unsigned __int128)r->n - 1)) << 16;
	else
		need = ((unsigned __int128)r->n * r->esize) << 16;
	unsigned __int128 d = (need + r->scale - 1) / r->scale;
	return d > UINT64_MAX ? UINT64_MAX : (uint64_t)d;
}

/* Binary search of the segment that contains pc; -1 if none. */
static inline int32_t profil_find_segment(const struct profil_cfg *c, uint64_t pc)
{
	uint32_t lo = 0, hi = c->nsegments; /* half-open [lo, hi): no underflow */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct profil_segment *s = &c->segments[mid];
		if (pc < s->first)
			hi = mid;
		else if (pc > s->last)
			lo = mid + 1;
		else
			return (int32_t)s->region;
	}
	return -1;
}

/* ---- account.c, handler.c ---- */

/* Where a sample came from (statistics only). */
enum profil_origin { PROFIL_FROM_SIGNAL = 0, PROFIL_FROM_INJECT = 1 };

/*
 * Account `weight` ticks at `pc` to the current configuration and recorder,
 * with the call stack `stack` (depth entries, stack[0] == pc; NULL: none)
 * for a recorder that keeps stacks.  Returns true if a configuration or
 * recorder was active.  AS-safe; this is the one accounting path for
 * signals and for __profil_inject.
 */
PROFIL_HIDDEN bool profil__sample(uintptr_t pc, const uintptr_t *stack, int depth,
				  unsigned long weight, int origin);

/*
 * Account `w` ticks that thread tid was due and no signal of the engine
 * brought (owed ticks, threads.c) at pc: into `retired` (a configuration
 * just replaced, no longer seen by handlers) or, if NULL, the current one,
 * and into the recorder, with the stack of the signal that paid them (NULL
 * when no signal did).  Never into a pcsample array.  AS-safe.
 */
PROFIL_HIDDEN void profil__sample_owed(struct profil_cfg *retired, pid_t tid, uintptr_t pc,
				       const uintptr_t *stack, int depth, unsigned long w);

/* Count `w` ticks of CPU time that could not be sampled at all (a thread
 * the engine could not attach to, or whose pc is unknown): lost, and said
 * so (profil_stats().unsampled, pcprof run's summary).  AS-safe. */
PROFIL_HIDDEN void profil__sample_unsampled(unsigned long w);

/* Count `w` ticks a thread was due while it blocked the sampling signal
 * in the kernel (a raw rt_sigprocmask: threads.c), with `first` the first
 * time for that thread: not sampled, like sample_unsampled's, and kept
 * apart in the recording.  AS-safe. */
PROFIL_HIDDEN void profil__sample_blocked(unsigned long w, bool first);

/* The configuration the handler reads; NULL when off.  Written only by
 * session.c with the control lock held. */
PROFIL_HIDDEN extern struct profil_cfg *_Atomic profil__cur;

/* Handlers that may still be using a configuration they loaded. */
PROFIL_HIDDEN extern _Atomic long profil__inflight;

/* Statistics counters (relaxed atomics).  Reset by session.c. */
struct profil_counters {
	_Atomic unsigned long long signals, ticks, counted, outside, lost, owed;
	_Atomic unsigned long long unsampled; /* not in ticks: see sample_unsampled */
};
PROFIL_HIDDEN extern struct profil_counters profil__ctr;

/* The signal handler for the profiling signals, and the SIGSEGV/SIGBUS
 * guard.  Installed by session.c. */
PROFIL_HIDDEN void profil__on_signal(int sig, siginfo_t *si, void *uc);
PROFIL_HIDDEN void profil__on_fault(int sig, siginfo_t *si, void *uc);

/* What the handler needs to know of the machine before it runs (the size
 * of the kernel's signal frame).  Normal context, once at start. */
PROFIL_HIDDEN void profil__handler_init(void);

/* The fault guard's two ends for the stack walks (session.c, control lock
 * held): before SIGSEGV and SIGBUS are given back, close (no new walk, and
 * wait for those under way); after they are taken, open.  In a fork child,
 * the walks of threads that are gone are forgotten. */
PROFIL_HIDDEN void profil__walks_close(void);
PROFIL_HIDDEN void profil__walks_open(void);
PROFIL_HIDDEN void profil__walks_fork_child(void);

/* Set by session.c when a configuration stops itself; cleared when the
 * deferred teardown ran. */
PROFIL_HIDDEN extern _Atomic bool profil__stop_pending;

#endif
