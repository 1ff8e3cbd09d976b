/*
 * extensions.c - the public calls beyond the classic interfaces (profil_ext.h):
 * engine and rate settings, the state and statistics, and the injection
 * entry points the tests use.
 */
#include <string.h>

#include "../include/profil_ext.h"
#include "session-int.h"
#include "threads.h"
#include "record.h"
#include "sig/seal.h"
#include "sig/sigown.h"

PROFIL_API int profil_set_engine(const char *name)
{
	const struct profil_engine *e = NULL;
	if (name && strcmp(name, "auto") != 0 && !(e = profil__engine_by_name(name)))
		return (int)PROFIL_PUBLIC(-EINVAL);
	sigset_t saved;
	bool locked = profil__lock(&saved);
	S.forced = e; /* sealed: a choice for nothing */
	if (locked)
		profil__unlock(&saved);
	return 0;
}

PROFIL_API const char *profil_engine_name(void)
{
	const struct profil_engine *e = profil__running_engine();
	if (!e)
		e = S.last;
	return e ? e->name : NULL;
}

PROFIL_API int profil_state(void)
{
	struct profil_cfg *c = atomic_load(&profil__cur);
	/* Sealed, a configuration may still be published (a filter found in
	 * force: nothing was torn down), but nothing counts into it. */
	if (!c || atomic_load(&c->stopped) || profil__sealed())
		return PROFIL_OFF;
	return c->kind;
}

PROFIL_API unsigned int profil_hz(void)
{
	return profil__base_hz();
}

PROFIL_API int profil_set_hz(unsigned int hz)
{
	if (hz < 1 || hz > 10000)
		return (int)PROFIL_PUBLIC(-EINVAL);
	return (int)atomic_exchange(&S.base_hz, hz);
}

PROFIL_API int profil_overflow_policy(int policy)
{
	if (policy == PROFIL_OVF_QUERY)
		return atomic_load(&S.policy);
	if (policy != PROFIL_OVF_SATURATE && policy != PROFIL_OVF_WRAP && policy != PROFIL_OVF_STOP)
		return (int)PROFIL_PUBLIC(-EINVAL);
	return atomic_exchange(&S.policy, policy);
}

/* Fields come out of `reserved`: the size is the ABI. */
_Static_assert(sizeof(struct profil_stats) == 408, "struct profil_stats changed size");

PROFIL_API int profil_stats(struct profil_stats *st)
{
	if (!st)
		return (int)PROFIL_PUBLIC(-EFAULT);
	memset(st, 0, sizeof *st);
	/* Sealed, nothing changes any more: read without the lock. */
	sigset_t saved;
	bool locked = profil__lock(&saved);
	const struct profil_engine *e = profil__running_engine();
	st->hz = e ? S.run.hz : 0;
	st->base_hz = profil__base_hz();
	st->signals = atomic_load(&profil__ctr.signals);
	st->ticks = atomic_load(&profil__ctr.ticks);
	st->counted = atomic_load(&profil__ctr.counted);
	st->outside = atomic_load(&profil__ctr.outside);
	st->lost = atomic_load(&profil__ctr.lost);
	st->owed = atomic_load(&profil__ctr.owed);
	st->unsampled = atomic_load(&profil__ctr.unsampled);
	st->signo = S.last_sig;
	st->threads = profil__thread_attaches;
	st->thread_errors = profil__threads_unsampled();
	const struct profil_engine *shown = e ? e : S.last;
	if (shown)
		profil__strlcat(st->engine, sizeof st->engine, shown->name);
	profil__strlcat(st->why, sizeof st->why, S.why);
	profil__strlcat(st->why, sizeof st->why, S.moved);
	profil__threads_loss_text(st->why, sizeof st->why);
	if (!profil__threads_creation_seen())
		profil__strlcat(st->why, sizeof st->why,
				"; pthread_create not wrapped (static link without its flags)");
	if (profil__env.bad[0]) {
		profil__strlcat(st->why, sizeof st->why, "; ignored invalid ");
		profil__strlcat(st->why, sizeof st->why, profil__env.bad);
	}
	if (profil__sealed()) {
		profil__strlcat(st->why, sizeof st->why, "; stopped for good: ");
		profil__strlcat(st->why, sizeof st->why, profil__sealed_text());
	}
	if (locked)
		profil__unlock(&saved);
	return 0;
}

static int inject(uintptr_t pc, const uintptr_t *stack, int depth, unsigned long ticks)
{
	if (profil__sealed())
		return -1; /* no system call of ours: nothing counts any more */
	/* Block signals so that a handler calling pcsample() cannot wait for
	 * this very thread to leave the accounting path. */
	sigset_t saved;
	profil__block_async(&saved);
	bool active = profil__sample(pc, stack, depth, ticks, PROFIL_FROM_INJECT);
	profil__real_sigmask(SIG_SETMASK, &saved, NULL);
	return active ? 0 : -1;
}

PROFIL_API int __profil_inject(uintptr_t pc, unsigned long ticks)
{
	return inject(pc, NULL, 0, ticks);
}

PROFIL_API int __profil_inject_stack(const uintptr_t *pcs, int n, unsigned ticks)
{
	if (!pcs || n < 1) {
		errno = EINVAL;
		return -1;
	}
	return inject(pcs[0], pcs, n, ticks);
}

PROFIL_API int __profil_inject_time(long long ns)
{
	atomic_store(&profil__record_test_ns, ns < 0 ? 0 : (uint64_t)ns + 1);
	return atomic_load(&profil__rec) && atomic_load(&profil__rec)->tl_bucket ? 0 : -1;
}
