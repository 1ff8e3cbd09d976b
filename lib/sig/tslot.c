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
_Atomic uint64_t profil__tslot_unslotted;

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

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

/*
 * Not CLOCK_THREAD_CPUTIME_ID: reading the calling thread's own clock makes
 * the scheduler bring its runtime up to date (update_curr), and when the
 * thread has used its slice that preempts it there and then instead of at
 * the next scheduler tick.  The perf engine's signals come between ticks,
 * so beside other busy threads the program was preempted just before the
 * ticks, which then found other threads running: the kernel's tick-sampled
 * CPU time of the program (its ITIMER_PROF and ITIMER_VIRTUAL, RLIMIT_CPU,
 * the PROF and VIRT clocks) fell to a third of its CPU time, and its own
 * SIGPROF profiler with it (tests/engines/t-run-signal-owners.sh).
 * getrusage(RUSAGE_THREAD) reads the runtime as the scheduler last updated
 * it (at the last scheduler tick or switch) without updating it: at most a
 * scheduler tick behind, never ahead.  Its user and system times add up to
 * that runtime, in whole microseconds each.
 */
uint64_t profil__tslot_cpu_self(void)
{
	struct rusage ru;
	if (syscall(SYS_getrusage, RUSAGE_THREAD, &ru) < 0)
		return 0;
	if (profil__tslot_user_time)
		return tv_ns(ru.ru_utime);
	return tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
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

/* Ticks of period_ns in a scheduler tick, plus one: how far the clock read
 * above can be behind.  The scheduler tick is the resolution of the coarse
 * clocks; 10 ms (HZ=100, the slowest) if that cannot be read. */
static uint64_t lag_ticks(uint64_t period_ns)
{
	static _Atomic uint64_t jiffy_ns;
	uint64_t j = atomic_load_explicit(&jiffy_ns, memory_order_relaxed);
	if (!j) {
		struct timespec ts;
		j = syscall(SYS_clock_getres, CLOCK_MONOTONIC_COARSE, &ts) == 0 && ts.tv_sec == 0 &&
				    ts.tv_nsec > 0
			    ? (uint64_t)ts.tv_nsec
			    : 10000000u;
		atomic_store_explicit(&jiffy_ns, j, memory_order_relaxed);
	}
	return (j + period_ns - 1) / period_ns + 1;
}

unsigned long profil__tslot_signal(uintptr_t pc, unsigned long weight)
{
	if (profil__tslot_ended)
		return 0; /* paid for good by its exit */
	struct profil_thread *t = profil__thread_self();
	if (!t) {
		/* Not registered yet (or never: a thread made without
		 * pthread_create): the engine's count is all there is, and
		 * it is counted apart until a schedule takes it over. */
		atomic_fetch_add(&profil__tslot_early, weight);
		atomic_fetch_add_explicit(&profil__tslot_unslotted, weight, memory_order_relaxed);
		return weight;
	}
	if (!atomic_load_explicit(&t->scheduled, memory_order_acquire))
		return 0; /* a late signal of a run whose ticks were paid */
	/* The clock read is up to a scheduler tick behind (see above), so
	 * the ticks due come in bursts, one tick's worth at a time.  Paid all
	 * at once they would stand at one pc, at the scheduler's resolution:
	 * a signal takes its own weight of them, and leaves at most a tick's
	 * worth plus one waiting for the next signals.  What is due beyond
	 * that (expiries the kernel folded into this signal: a long system
	 * call, a late signal) is this signal's, as before.  What waits when
	 * the thread ends or profiling stops is paid as owed. */
	uint64_t due = profil__tslot_due_by(t, profil__tslot_cpu_self());
	uint64_t keep = lag_ticks(t->period_ns), was = atomic_load(&t->taken), d;
	do {
		if (due <= was)
			return 0;
		uint64_t backlog = due - was, cap = weight + (backlog > keep ? backlog - keep : 0);
		d = backlog < cap ? backlog : cap;
	} while (!atomic_compare_exchange_weak(&t->taken, &was, was + d));
	if (d)
		atomic_store_explicit(&t->last_pc, pc, memory_order_relaxed);
	return (unsigned long)d;
}
