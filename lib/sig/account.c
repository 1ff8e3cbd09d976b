/*
 * sample.c - THE ASYNC-SIGNAL-SAFE ZONE: the profiling signal handler, the
 * fault guard, and everything they call.
 *
 * Rules for every line in this file (the reasons are in docs/signal-safety.md):
 *   1. errno is saved on entry and restored on exit of each handler.
 *   2. Only memory that was allocated and validated before the handler could
 *      see it is touched: the configuration published in profil__cur, the
 *      counters it names (through the guarded accessors, because the caller
 *      may unmap them), static data.
 *   3. No malloc, no stdio, no locks that a non-handler context could hold,
 *      no logging.  The one lock here (misaligned counters) is only ever
 *      taken inside handlers and inject, with signals blocked, and is held
 *      for a handful of instructions.
 *   4. Bounded work per tick: one binary search and one counter update, or
 *      `weight` pc stores for pcsample (bounded by its capacity); for a
 *      recording with stacks, one walk of at most PROFIL_STACK_MAX frames
 *      (lib/sig/unwind.h) within the room the stack we run on has left.
 *   5. Out-of-range pcs, full buffers, faults and overflow stops are counted
 *      in profil__ctr and reported later by profil_stats(), never here.
 *   6. A signal that is not ours goes to the program's action for it
 *      (sigown.h), exactly once, as the kernel would have delivered it.
 */
#include "sample.h"

#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>

#include "../arch/guard.h"
#include "accept.h"
#include "sink.h"
#include "unwind.h"
#include "sigown.h"
#include "tslot.h"

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

/* The default action of sig, as if we were not here.  Every signal we hold
 * terminates by default, so: put SIG_DFL back and raise it again for this
 * thread; it is delivered when the handler returns and the mask is
 * restored.  A fault the kernel raised needs no raise: returning runs the
 * faulting instruction again, under SIG_DFL. */
static void default_action(int sig, const siginfo_t *si)
{
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	profil__real_sigaction(sig, &dfl, NULL);
	if (!(si->si_code > 0 && (sig == SIGSEGV || sig == SIGBUS)))
		syscall(SYS_tgkill, getpid(), profil__gettid(), sig);
}

/*
 * Give a delivery that is not ours to the program's action for sig, once,
 * as the kernel would have: ignored, default, or its handler called with
 * errno as the interrupted code left it and the mask the kernel would have
 * set (the interrupted mask, the action's sa_mask, sig itself unless
 * SA_NODEFER), SA_RESETHAND applied first.  The one difference: the
 * sampling signals stay unblocked, so the handler is still profiled.
 */
static void chain(int sig, siginfo_t *si, void *uc, int saved_errno)
{
	struct sigaction act;
	unsigned gen = profil__sig_action(sig, &act);
	/* A signal the kernel forces (a fault, a trap) cannot be ignored: it
	 * resets the action to SIG_DFL and kills the process instead. */
	bool forced = si->si_code > 0 && (sig == SIGSEGV || sig == SIGBUS || sig == SIGTRAP);

	if (act.sa_handler == SIG_IGN && !forced) {
		errno = saved_errno;
		return;
	}
	if (act.sa_handler == SIG_DFL || act.sa_handler == SIG_IGN) {
		default_action(sig, si);
		errno = saved_errno;
		return;
	}
	if (act.sa_flags & SA_RESETHAND)
		profil__sig_oneshot(sig, gen);
	uint64_t mask =
		profil__kmask(&((ucontext_t *)uc)->uc_sigmask) | profil__kmask(&act.sa_mask);
	mask &= ~profil__sig_reserved();
	if (!(act.sa_flags & SA_NODEFER))
		mask |= PROFIL_SIGBIT(sig);
	uint64_t ours;
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &mask, &ours, sizeof mask);
	errno = saved_errno;
	if (act.sa_flags & SA_SIGINFO)
		act.sa_sigaction(sig, si, uc);
	else
		act.sa_handler(sig);
	/* The handler may have changed errno on purpose: it stays. */
	int e = errno;
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &ours, NULL, sizeof ours);
	errno = e;
}

/* What a signal brings: sig_w ticks of the engine's own, and `owed` more
 * that this thread was due (see profil__on_signal), all at pc with the
 * signal's stack (NULL: none). */
static void account_signal(uintptr_t pc, const uintptr_t *stack, int depth, unsigned long sig_w,
			   unsigned long owed)
{
	/* A late signal of ours (already generated when profiling stopped)
	 * finds no configuration and is simply dropped. */
	if (sig_w)
		profil__sample(pc, stack, depth, sig_w, PROFIL_FROM_SIGNAL);
	if (owed)
		profil__sample_owed(NULL, profil__gettid(), pc, stack, depth, owed);
}

/* Bytes of the stack we run on kept for what runs below the frame array:
 * the walker and the recorder (about 2 KiB, gcc -fstack-usage) and the
 * frame the kernel pushes if a guarded read in the walk faults
 * (AT_MINSIGSTKSZ: 3376 bytes on an AVX-512 machine, more with AMX). */
#define STACK_KEEP 8192

/*
 * How many frames the walk may keep, given the room left on the stack the
 * handler runs on.  Our action has SA_ONSTACK, so in a thread with an
 * alternate signal stack we run on that, which may be as small as
 * MINSIGSTKSZ with the kernel's frame already on it: there the array of
 * frames is sized to what is left, or left out (0: no stack).  The
 * kernel saves the alternate stack's settings in uc_stack.  A thread's own
 * stack is assumed to have room for PROFIL_STACK_MAX frames (2 KiB).
 */
static int frames_room(const ucontext_t *uc)
{
	char here;
	uintptr_t sp = (uintptr_t)&here, lo = (uintptr_t)uc->uc_stack.ss_sp;
	if ((uc->uc_stack.ss_flags & SS_DISABLE) || sp < lo || sp - lo >= uc->uc_stack.ss_size)
		return PROFIL_STACK_MAX;
	uintptr_t room = sp - lo;
	if (room < STACK_KEEP + 8 * sizeof(uintptr_t))
		return 0;
	room = (room - STACK_KEEP) / sizeof(uintptr_t);
	return room < PROFIL_STACK_MAX ? (int)room : PROFIL_STACK_MAX;
}

/* Walk the interrupted stack and account the signal with it.  Its own
 * function, so that the array is on the stack only when there is room. */
static __attribute__((noinline)) void account_with_stack(const void *uc, uintptr_t pc, int max,
							 unsigned long sig_w, unsigned long owed)
{
	uintptr_t pcs[max];
	int depth = profil__unwind(uc, pcs, max);
	account_signal(pc, pcs, depth, sig_w, owed);
}

void profil__on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	unsigned long weight;

	if (si->si_code == SI_QUEUE && si->si_value.sival_ptr == (void *)profil__fixup_cookie &&
	    si->si_pid == getpid()) {
		/* The sampling signal moved (session.c): this thread's view
		 * of the one it left becomes real when the handler returns. */
		profil__sig_fixup(&((ucontext_t *)uc)->uc_sigmask);
		errno = saved_errno;
		return;
	}
	if (profil__accept(sig, si, &weight)) {
		uintptr_t pc = profil_uc_pc(uc);
		/* The signal says "now" for the receiving thread, which is due
		 * what its own schedule (sig/tslot.c) has reached: usually the
		 * engine's count, more when the kernel folded or dropped
		 * expiries (perf while a SIGTRAP is pending, a long system
		 * call), any share of a process-wide signal, or nothing (a late
		 * signal of a tick already paid).  What the engine did not
		 * count itself is an estimate, like an owed tick. */
		unsigned long due = profil__tslot_signal(pc, weight);
		unsigned long sig_w = due < weight ? due : weight;
		/* Only a recording keeps stacks: profil() and its kind pay for
		 * no walk.  The ticks this signal pays, owed ones included, are
		 * its stack's. */
		int max = due && profil__record_stacks() ? frames_room(uc) : 0;
		if (max)
			account_with_stack(uc, pc, max, sig_w, due - sig_w);
		else
			account_signal(pc, NULL, 0, sig_w, due - sig_w);
		errno = saved_errno;
	} else {
		chain(sig, si, uc, saved_errno);
	}
}

void profil__on_fault(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
#if PROFIL_HAVE_GUARD
	uintptr_t pc = profil_uc_pc(uc);
	if (pc >= (uintptr_t)profil__guard_begin && pc < (uintptr_t)profil__guard_end) {
		profil_uc_set_pc(uc, (uintptr_t)profil__guard_fixup);
		errno = saved_errno;
		return;
	}
#endif
	chain(sig, si, uc, saved_errno);
}
