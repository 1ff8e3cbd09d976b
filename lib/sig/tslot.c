/*
 * sig/tslot.c - the thread table as the signal handler sees it (tslot.h);
 * layer L1, the AS-safe zone (rules: lib/sig/README).  The slots, their
 * schedule and the owed-tick accounting are described in lib/threads.c,
 * which allocates, arms and frees them; this file only finds the calling
 * thread's slot and claims the ticks its schedule has reached.
 */
#include "tslot.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>

struct profil_tslot_chunk *_Atomic profil__tslot_chunks;
__thread struct profil_thread *profil__tslot_self __attribute__((tls_model("initial-exec")));
__thread _Atomic unsigned long profil__tslot_early __attribute__((tls_model("initial-exec")));
__thread bool profil__tslot_ended __attribute__((tls_model("initial-exec")));
__thread uintptr_t profil__tslot_stack_lo __attribute__((tls_model("initial-exec")));
__thread uintptr_t profil__tslot_stack_hi __attribute__((tls_model("initial-exec")));
bool profil__tslot_user_time;

struct profil_thread *profil__tslot_find(pid_t tid)
{
	for (struct profil_tslot_chunk *c =
		     atomic_load_explicit(&profil__tslot_chunks, memory_order_acquire);
	     c; c = c->next)
		for (int i = 0; i < PROFIL_TSLOT_CHUNK; i++)
			if (__atomic_load_n(&c->slot[i].tid, __ATOMIC_RELAXED) == tid)
				return &c->slot[i];
	return NULL;
}

struct profil_thread *profil__thread_self(void)
{
	struct profil_thread *t = profil__tslot_self;
	if (!t && (t = profil__tslot_find(profil__gettid())))
		profil__tslot_self = t;
	return t;
}

uint64_t profil__tslot_cpu_self(void)
{
	if (!profil__tslot_user_time)
		return profil__clock_ns(CLOCK_THREAD_CPUTIME_ID);
	struct rusage ru;
	if (syscall(SYS_getrusage, RUSAGE_THREAD, &ru) < 0)
		return 0;
	return (uint64_t)ru.ru_utime.tv_sec * 1000000000u + (uint64_t)ru.ru_utime.tv_usec * 1000u;
}

uint64_t profil__tslot_due_by(const struct profil_thread *t, uint64_t now)
{
	if (now <= t->origin_ns)
		return 0;
	uint64_t c = now - t->origin_ns;
	return c >= t->first_ns ? 1 + (c - t->first_ns) / t->period_ns : 0;
}

uint64_t profil__tslot_claim(struct profil_thread *t, uint64_t now)
{
	uint64_t due = profil__tslot_due_by(t, now), was = atomic_load(&t->taken);
	while (due > was)
		if (atomic_compare_exchange_weak(&t->taken, &was, due))
			return due - was;
	return 0;
}

unsigned long profil__tslot_signal(uintptr_t pc, unsigned long weight)
{
	if (profil__tslot_ended)
		return 0; /* paid for good by its exit */
	struct profil_thread *t = profil__thread_self();
	if (!t) {
		/* Not registered yet (or never: a thread made without
		 * pthread_create): the engine's count is all there is. */
		atomic_fetch_add(&profil__tslot_early, weight);
		return weight;
	}
	if (!atomic_load_explicit(&t->scheduled, memory_order_acquire))
		return 0; /* a late signal of a run whose ticks were paid */
	uint64_t d = profil__tslot_claim(t, profil__tslot_cpu_self());
	if (d)
		atomic_store_explicit(&t->last_pc, pc, memory_order_relaxed);
	return (unsigned long)d;
}
