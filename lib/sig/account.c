/*
 * sig/account.c - accounting a sample (layer L1, the AS-safe zone; the
 * rules are in lib/sig/README, the reasons in docs/signal-safety.md): the
 * counters of the configuration the handler reads (profil__cur, built by
 * config.c and published by session.c), the pcsample array, the
 * statistics, and the recorder's sink (sink.h).  Called by the handler
 * (handler.c), by the owed-tick payer (threads.c) and by __profil_inject.
 *
 *   - Only memory that was allocated and validated before the handler could
 *     see it is touched: the configuration published in profil__cur, the
 *     counters it names (through the guarded accessors, because the caller
 *     may unmap them), static data.
 *   - No malloc, no stdio, no locks that a non-handler context could hold.
 *     The one lock here (misaligned counters) is only ever taken inside
 *     handlers and inject, with signals blocked, and is held for a handful
 *     of instructions.
 *   - Bounded work per tick: one binary search and one counter update, or
 *     `weight` pc stores for pcsample (bounded by its capacity).
 *   - Out-of-range pcs, full buffers, faults and overflow stops are counted
 *     in profil__ctr and reported later by profil_stats(), never here.
 *
 * Includes only lib/sig/, lib/arch/ and lib/internal.h (t-layers.sh).
 */
#include "sample.h"

#include "../arch/guard.h"
#include "sink.h"

struct profil_cfg *_Atomic profil__cur;
_Atomic long profil__inflight;
struct profil_counters profil__ctr;
_Atomic bool profil__stop_pending;

/* Held while a misaligned counter is read, changed and written back. */
static atomic_flag misaligned_lock = ATOMIC_FLAG_INIT;

enum bump_result { BUMP_OK, BUMP_STOP, BUMP_FAULT };

static uint64_t max_of(int esize)
{
	return esize == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * esize)) - 1;
}

/* New counter value under a policy, or false if the STOP policy fires. */
static bool apply_policy(int policy, int esize, uint64_t old, uint64_t w, uint64_t *out)
{
	uint64_t max = max_of(esize);
	switch (policy) {
	case PROFIL_OVF_WRAP:
		*out = (old + w) & max;
		return true;
	case PROFIL_OVF_STOP: {
		uint64_t smax = max >> 1; /* 32767, 2^31 - 1, 2^63 - 1 */
		if (old > smax || w > smax - old)
			return false;
		*out = old + w;
		return true;
	}
	default: /* saturate */
		*out = (w > max - old) ? max : old + w;
		return true;
	}
}

static int gcas(int esize, void *p, uint64_t *expected, uint64_t desired)
{
	if (esize == 2)
		return profil__gcas16(p, expected, desired);
	if (esize == 4)
		return profil__gcas32(p, expected, desired);
	return profil__gcas64(p, expected, desired);
}

static int gadd(int esize, void *p, uint64_t v)
{
	if (esize == 2)
		return profil__gadd16(p, v);
	if (esize == 4)
		return profil__gadd32(p, v);
	return profil__gadd64(p, v);
}

/* Add w to counter i of region r under policy. */
static enum bump_result bump(const struct profil_region *r, uint64_t i, uint64_t w, int policy)
{
	void *p = (char *)r->base + i * r->esize;
	uint64_t old, val;

	if (r->misaligned) {
		/* A locked instruction on a misaligned address can split a cache
		 * line and raise SIGBUS under split-lock detection, so the
		 * update is a plain load and store under a spin lock instead. */
		while (atomic_flag_test_and_set_explicit(&misaligned_lock, memory_order_acquire))
			;
		enum bump_result res = BUMP_OK;
		if (profil__gload(p, r->esize, &old) < 0)
			res = BUMP_FAULT;
		else if (!apply_policy(policy, r->esize, old, w, &val))
			res = BUMP_STOP;
		else if (profil__gstore(p, r->esize, val) < 0)
			res = BUMP_FAULT;
		atomic_flag_clear_explicit(&misaligned_lock, memory_order_release);
		return res;
	}
	if (policy == PROFIL_OVF_WRAP)
		return gadd(r->esize, p, w) < 0 ? BUMP_FAULT : BUMP_OK;

	/* Saturate and stop need the old value: compare-and-swap loop.  The
	 * first guess 0 costs one failed exchange, which also reads the
	 * counter through the guard. */
	old = 0;
	for (;;) {
		if (!apply_policy(policy, r->esize, old, w, &val))
			return BUMP_STOP;
		int rc = gcas(r->esize, p, &old, val);
		if (rc < 0)
			return BUMP_FAULT;
		if (rc == 1)
			return BUMP_OK;
	}
}

/* The configuration turns itself off; the teardown (timers, dispositions)
 * is done later in normal context by session.c. */
static void auto_stop(struct profil_cfg *c)
{
	atomic_store(&c->stopped, true);
	atomic_store(&profil__stop_pending, true);
}

static void count(_Atomic unsigned long long *ctr, unsigned long w)
{
	atomic_fetch_add_explicit(ctr, w, memory_order_relaxed);
}

static void account_regions(struct profil_cfg *c, uint64_t pc, unsigned long w)
{
	int32_t ri = profil_find_segment(c, pc);
	struct profil_region *r;
	uint64_t idx;

	if (ri >= 0 && !atomic_load_explicit(&c->regions[ri].dead, memory_order_relaxed)) {
		r = &c->regions[ri];
		idx = profil_index(r, pc - r->off);
	} else if (ri < 0 && c->bin >= 0) {
		r = &c->regions[c->bin];
		idx = 0;
	} else {
		count(&profil__ctr.outside, w);
		return;
	}
	switch (bump(r, idx, w, c->policy)) {
	case BUMP_OK:
		count(&profil__ctr.counted, w);
		return;
	case BUMP_STOP:
		count(&profil__ctr.lost, w);
		auto_stop(c);
		return;
	case BUMP_FAULT:
		count(&profil__ctr.lost, w);
		if (c->fault_scope == PROFIL_FAULT_REGION)
			atomic_store(&r->dead, true); /* Tru64: only this range */
		else
			auto_stop(c);
		return;
	}
}

static void account_pcs(struct profil_cfg *c, uint64_t pc, unsigned long w)
{
	for (unsigned long k = 0; k < w; k++) {
		uint64_t slot = atomic_load_explicit(&c->next, memory_order_relaxed);
		do {
			if (slot >= c->cap) {
				count(&profil__ctr.lost, w - k);
				auto_stop(c);
				return;
			}
		} while (!atomic_compare_exchange_weak(&c->next, &slot, slot + 1));
		if (profil__gstore64(&c->pcs[slot], pc) < 0) {
			/* Keep the count at the slots that really hold a pc. */
			uint64_t f = atomic_load(&c->fault_at);
			while (slot < f && !atomic_compare_exchange_weak(&c->fault_at, &f, slot))
				;
			count(&profil__ctr.lost, w - k);
			auto_stop(c);
			return;
		}
		count(&profil__ctr.counted, 1);
		if (slot + 1 == c->cap) {
			count(&profil__ctr.lost, w - k - 1);
			auto_stop(c);
			return;
		}
	}
}

static bool live(struct profil_cfg *c)
{
	return c && !atomic_load_explicit(&c->stopped, memory_order_acquire);
}

static void account(struct profil_cfg *c, uint64_t pc, unsigned long w)
{
	count(&profil__ctr.ticks, w);
	if (c->kind == PROFIL_PCSAMPLE)
		account_pcs(c, pc, w);
	else
		account_regions(c, pc, w);
}

bool profil__sample(uintptr_t pc, const uintptr_t *stack, int depth, unsigned long weight,
		    int origin)
{
	bool active = false;

	atomic_fetch_add(&profil__inflight, 1);
	struct profil_cfg *c = atomic_load(&profil__cur);
	if (live(c)) {
		active = true;
		if (origin == PROFIL_FROM_SIGNAL)
			count(&profil__ctr.signals, 1);
		account(c, pc, weight);
	}
	struct profil_rec *rec = atomic_load(&profil__rec);
	if (rec) {
		active = true;
		profil__record(rec, profil__gettid(), pc, stack, depth, weight,
			       origin == PROFIL_FROM_SIGNAL);
	}
	atomic_fetch_sub(&profil__inflight, 1);
	return active;
}

void profil__sample_owed(struct profil_cfg *retired, pid_t tid, uintptr_t pc,
			 const uintptr_t *stack, int depth, unsigned long w)
{
	count(&profil__ctr.owed, w);
	atomic_fetch_add(&profil__inflight, 1);
	struct profil_cfg *c = retired ? retired : atomic_load(&profil__cur);
	/* pcsample promises a distinct pc per stored sample: no estimates. */
	if (live(c) && c->kind != PROFIL_PCSAMPLE)
		account(c, pc, w);
	struct profil_rec *rec = atomic_load(&profil__rec);
	if (rec)
		profil__record(rec, tid, pc, stack, depth, w, false);
	atomic_fetch_sub(&profil__inflight, 1);
}

void profil__sample_unsampled(unsigned long w)
{
	count(&profil__ctr.unsampled, w);
	struct profil_rec *rec = atomic_load(&profil__rec);
	if (rec)
		profil__record_unsampled(rec, w);
}

void profil__sample_blocked(unsigned long w, bool first)
{
	count(&profil__ctr.unsampled, w);
	struct profil_rec *rec = atomic_load(&profil__rec);
	if (rec)
		profil__record_blocked(rec, w, first);
}
