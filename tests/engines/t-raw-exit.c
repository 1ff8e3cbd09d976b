/*
 * Threads that end without their exit handlers leave no timer or
 * descriptor behind (issue 8, item 6; before, each kept its timer or perf
 * descriptor until profiling stopped, or for good).
 *
 * 1. 3000 threads made with pthread_create burn 0.1 ms of CPU each and end
 *    with a raw SYS_exit (no pthread key destructor runs), four at a time.
 *    With profiling on, the process then holds at most 24 more POSIX timers
 *    and descriptors than before the threads (dead threads' slots are swept
 *    every 16 slot allocations, or half the slots in use).  Once profiling
 *    stops, exactly as many as before profiling, and profil_stats() says
 *    that 3000 threads ended without exit handlers (their CPU after their
 *    last sample could not be read).
 * 2. 32 threads made with raw clone (no pthread at all) exist when
 *    profiling starts, so the engine attaches to them; they end with a raw
 *    exit, and 40 ordinary threads come and go.  The 32 timers or
 *    descriptors are freed while profiling runs (with perf's sigtrap
 *    variant, a descriptor of a thread that existed at start is kept until
 *    profiling stops: the kernel's copies of its event in the threads it
 *    created depend on it, so at most 32 more are allowed there), and none
 *    is left once it stops.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helpers/tprof.h"

#define RAW_EXITS 3000
#define BATCH     4
#define SLACK     24
#define CLONES    32
#define NORMAL    40

static void *raw_exit_thread(void *arg)
{
	(void)arg;
	tp_burn_thread(0.0001);
	syscall(SYS_exit, 0);
	return NULL;
}

static void *normal_thread(void *arg)
{
	(void)arg;
	tp_burn_thread(0.0001);
	return NULL;
}

/* A raw clone thread shares the creator's TLS, so it makes its system
 * calls itself, touching neither errno nor anything else of libc's. */
static long raw_syscall3(long n, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return r;
}

static _Atomic int release_clones;

static int clone_body(void *arg)
{
	(void)arg;
	while (!atomic_load(&release_clones))
		raw_syscall3(SYS_futex, (long)&release_clones, FUTEX_WAIT, 0);
	raw_syscall3(SYS_exit, 0, 0, 0);
	return 0;
}

struct census {
	int fds, timers;
};

static struct census take(void)
{
	return (struct census){ tp_count_fds(), tp_count_timers() };
}

static void within(struct census now, struct census base, int slack, const char *when)
{
	if (now.fds > base.fds + slack)
		T_FAIL("%s: %d descriptors, %d before (allowed %d more)", when, now.fds, base.fds,
		       slack);
	if (base.timers >= 0 && now.timers > base.timers + slack)
		T_FAIL("%s: %d timers, %d before (allowed %d more)", when, now.timers,
		       base.timers, slack);
}

static void same(struct census now, struct census base, const char *when)
{
	within(now, base, 0, when);
	if (now.fds != base.fds || now.timers != base.timers)
		T_FAIL("%s: %d descriptors and %d timers, %d and %d before", when, now.fds,
		       now.timers, base.fds, base.timers);
}

static unsigned long ended_unseen(void)
{
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	const char *p = strstr(st.why, " ended without exit handlers");
	if (!p)
		return 0;
	while (p > st.why && p[-1] != ' ')
		p--;
	while (p > st.why && p[-1] == ' ')
		p--;
	while (p > st.why && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return strtoul(p, NULL, 10);
}

static void raw_exits(void)
{
	static unsigned short buf[4];
	struct census off = take();
	tp_profil_on(buf, sizeof buf, 0, 2);
	struct census on = take();
	for (int i = 0; i < RAW_EXITS; i += BATCH) {
		pthread_t t[BATCH];
		for (int j = 0; j < BATCH; j++)
			T_OK(pthread_create(&t[j], NULL, raw_exit_thread, NULL) == 0);
		for (int j = 0; j < BATCH; j++)
			T_OK(pthread_join(t[j], NULL) == 0);
	}
	within(take(), on, SLACK, "after 3000 raw exits");
	T_EQ(tp_profil_off(), 0);
	same(take(), off, "after profiling stopped");
	if (!tp_engine_is("process-timer")) {
		unsigned long n = ended_unseen();
		if (n != RAW_EXITS) {
			struct profil_stats st;
			profil_stats(&st);
			T_FAIL("%lu threads counted as ended without exit handlers, not %d: %s",
			       n, RAW_EXITS, st.why);
		}
	}
}

static void raw_clones(void)
{
	static unsigned short buf[4];
	static char stacks[CLONES][65536] __attribute__((aligned(16)));
	pid_t ctid[CLONES];
	int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
		    CLONE_SYSVSEM | CLONE_CHILD_CLEARTID | CLONE_PARENT_SETTID;

	/* They start with every signal blocked, so that no handler ever runs
	 * on a thread that has no TLS of its own. */
	sigset_t all, saved;
	sigfillset(&all);
	struct census off = take();
	T_OK(pthread_sigmask(SIG_SETMASK, &all, &saved) == 0);
	for (int i = 0; i < CLONES; i++)
		T_OK(clone(clone_body, stacks[i] + sizeof stacks[i], flags, NULL, &ctid[i], NULL,
			   &ctid[i]) > 0);
	T_OK(pthread_sigmask(SIG_SETMASK, &saved, NULL) == 0);
	tp_profil_on(buf, sizeof buf, 0, 2);
	atomic_store(&release_clones, 1);
	raw_syscall3(SYS_futex, (long)&release_clones, FUTEX_WAKE, CLONES);
	for (int i = 0; i < CLONES; i++) /* the kernel clears ctid at exit */
		while (__atomic_load_n(&ctid[i], __ATOMIC_ACQUIRE))
			syscall(SYS_futex, &ctid[i], FUTEX_WAIT, ctid[i], NULL);
	for (int i = 0; i < NORMAL; i++) {
		pthread_t t;
		T_OK(pthread_create(&t, NULL, normal_thread, NULL) == 0);
		T_OK(pthread_join(t, NULL) == 0);
	}
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	int parked = strstr(st.why, "sigtrap") ? CLONES : 0;
	within(take(), off, SLACK + parked, "after 32 raw clone threads ended");
	T_EQ(tp_profil_off(), 0);
	same(take(), off, "after profiling stopped");
}

int main(void)
{
	if (TP_ASAN)
		T_SKIP("AddressSanitizer cannot run threads that end with a raw SYS_exit: its "
		       "thread registry fails a CHECK when their memory is reused");
	/* Part 1 would hang at its first join, part 2 crash at its clones. */
	if (TP_TSAN)
		T_SKIP("ThreadSanitizer cannot run threads that end with a raw SYS_exit (its "
		       "pthread_join waits for ever for their runtime state to be torn down) "
		       "nor raw CLONE_VM threads (its clone interceptor treats every clone as a "
		       "fork, and the child reads its arguments from the interceptor's frame, "
		       "gone once the parent returns)");
	raw_exits();
	raw_clones();
	return 0;
}
