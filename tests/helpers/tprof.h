/*
 * helpers/tprof.h - what the core profil tests (tests/api, tests/engines,
 * tests/safety) share: burning CPU time, starting profiling or skipping for
 * an engine that cannot run here, running this program again with an
 * argument, and counting the fds and POSIX timers the process holds.
 * Header only; include as "helpers/tprof.h" after <unistd.h>.
 */
#ifndef TPROF_H
#define TPROF_H

#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <profil_ext.h>

#include "test.h"

#define TP_FN static __attribute__((unused))

extern char **environ;

/* The CPU-bound loop every burn runs: noinline, so that the pcs sampled
 * while it runs lie in it, and opaque to the optimiser. */
TP_FN __attribute__((noinline)) void tp_spin(unsigned long iters)
{
	unsigned long x = 0;
	for (unsigned long i = 0; i < iters; i++) {
		x += i ^ (x >> 3);
		__asm__ volatile("" : "+r"(x));
	}
}

/*
 * Spin until `sec` more seconds of CPU time passed on clock clk.
 *
 * The clock is read about once per millisecond of CPU, in chunks of
 * tp_spin sized from the rate the previous chunk ran at, and in halving
 * chunks near the end, so the burn ends at most one ~20 us chunk late.
 * Reading a CPU-time clock is a system call that makes the kernel bring
 * the thread's runtime up to date, and on a busy machine that can preempt
 * the thread on the spot: a loop that read it every 20 us (50000 reads a
 * CPU second) under `prove -j2` on 2 cores got fewer timer signals than
 * its CPU time was worth.  About 1000 reads a second cost under 0.1 %.
 */
#define TP_CHUNK_SEC 1e-3
#define TP_CHUNK_MIN 20000UL /* iterations, about 20 us */
TP_FN void tp_burn_on(clockid_t clk, double sec)
{
	double now = t_cpu(clk), end = now + sec;
	unsigned long iters = TP_CHUNK_MIN;
	while (now < end) {
		double was = now;
		tp_spin(iters);
		now = t_cpu(clk);
		/* The next chunk: TP_CHUNK_SEC, or half of what is left, at the
		 * rate this one ran; grow at most 8 times a step, so one clock
		 * read that shows too little time cannot make a huge chunk. */
		double want = (end - now) / 2, took = now - was;
		if (want > TP_CHUNK_SEC)
			want = TP_CHUNK_SEC;
		double next = took > 0 ? (double)iters * want / took : 8.0 * (double)iters;
		if (next > 8.0 * (double)iters)
			next = 8.0 * (double)iters;
		iters = next > (double)TP_CHUNK_MIN ? (unsigned long)next : TP_CHUNK_MIN;
	}
}
#define tp_burn(sec)        tp_burn_on(CLOCK_PROCESS_CPUTIME_ID, sec)
#define tp_burn_thread(sec) tp_burn_on(CLOCK_THREAD_CPUTIME_ID, sec)

/*
 * Spin until done(arg) is true, or `max` seconds of CPU time on clock clk
 * have passed; returns the CPU seconds spent.  For properties that need
 * some event to have happened ("profiling counts", "the handler ran 200
 * times"): a fixed short burn assumes the kernel delivered in time, which
 * a loaded machine does not promise, while `max` stays a bound in CPU
 * time, far above what the event needs.  done is polled every ~1 ms.
 */
TP_FN double tp_burn_until(clockid_t clk, double max, int (*done)(void *), void *arg)
{
	double t0 = t_cpu(clk), now = t0;
	while (now - t0 < max && !done(arg)) {
		for (int i = 0; i < 50; i++)
			tp_spin(20000);
		now = t_cpu(clk);
	}
	return now - t0;
}

/* Conditions for tp_burn_until: the counter `*(unsigned short *)arg` is not
 * zero; profiling is off (it stopped itself). */
TP_FN int tp_nonzero(void *arg)
{
	return *(volatile unsigned short *)arg != 0;
}

TP_FN int tp_is_off(void *arg)
{
	(void)arg;
	return profil_state() == PROFIL_OFF;
}

/* Add the library's statistics to what a failure prints (T_NOTE). */
TP_FN void tp_note_stats(void)
{
	struct profil_stats st;
	if (profil_stats(&st) != 0)
		return;
	T_NOTE("engine %s at %u Hz: signals %llu ticks %llu counted %llu outside %llu lost %llu "
	       "owed %llu threads %llu",
	       st.engine, st.hz, (unsigned long long)st.signals, (unsigned long long)st.ticks,
	       (unsigned long long)st.counted, (unsigned long long)st.outside,
	       (unsigned long long)st.lost, (unsigned long long)st.owed,
	       (unsigned long long)st.threads);
}

/* The longest a test burns waiting for an event (tp_burn_until) before it
 * calls it missing: at 100 Hz, 1000 ticks' worth of CPU. */
#define TP_EVENT_CPU 10.0

/* Burn process CPU until buf[0] counts (profiling works); fails after
 * TP_EVENT_CPU seconds without a count. */
TP_FN void tp_burn_until_counted(unsigned short *buf)
{
	double cpu = tp_burn_until(CLOCK_PROCESS_CPUTIME_ID, TP_EVENT_CPU, tp_nonzero, buf);
	if (!buf[0]) {
		tp_note_stats();
		T_FAIL("no count after %.3f s of CPU", cpu);
	}
}

/* Burn process CPU until profiling has turned itself off (a fault, a full
 * buffer); fails after TP_EVENT_CPU seconds. */
TP_FN void tp_burn_until_off(void)
{
	double cpu = tp_burn_until(CLOCK_PROCESS_CPUTIME_ID, TP_EVENT_CPU, tp_is_off, NULL);
	if (profil_state() != PROFIL_OFF) {
		tp_note_stats();
		T_FAIL("profiling still on (state %d) after %.3f s of CPU", profil_state(), cpu);
	}
}

/*
 * ThreadSanitizer runs the handler of an asynchronous signal deferred, at
 * its next interceptor call, with every signal blocked: a counter update
 * that faults in the profiling handler then kills the process instead of
 * reaching the library's fault guard.  The tests of that path skip under
 * it, and say so; ASan and make check run them.
 */
#if defined(__SANITIZE_THREAD__)
#define TP_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TP_TSAN 1
#endif
#endif
#ifndef TP_TSAN
#define TP_TSAN 0
#endif

/* AddressSanitizer: its pthread_create interceptor starts every thread
 * through a routine of its own, and it keeps a registry of threads that a
 * thread ending with a raw SYS_exit corrupts. */
#if defined(__SANITIZE_ADDRESS__)
#define TP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TP_ASAN 1
#endif
#endif
#ifndef TP_ASAN
#define TP_ASAN 0
#endif

/* What ThreadSanitizer changes in a process: it interposes sigaction and
 * signal itself (a program's handler is TSan's, which calls the program's
 * later), and it starts a background thread of its own. */
#define TP_TSAN_SIGNALS                                                                            \
	"ThreadSanitizer installs its own handler in place of the program's, so the "             \
	"dispositions this test compares are TSan's"
#define TP_TSAN_THREADS                                                                            \
	"ThreadSanitizer starts a thread of its own, which the library counts too"

TP_FN void tp_skip_fault_path_under_tsan(void)
{
	if (TP_TSAN)
		T_SKIP("ThreadSanitizer defers signal handlers with every signal blocked, so a "
		       "fault in the profiling handler cannot reach the library's fault guard");
}

/* The engine the runner asked for (tests/run-one), or "auto". */
TP_FN const char *tp_engine(void)
{
	const char *e = getenv("PROFIL_ENGINE");
	return e && *e ? e : "auto";
}

TP_FN int tp_engine_is(const char *name)
{
	return strcmp(tp_engine(), name) == 0;
}

/*
 * A NULL counter buffer.  glibc's <unistd.h> declares profil's buffer
 * __nonnull, so a literal NULL draws a warning; passing it through a
 * volatile keeps the compiler from reasoning about it, as in a program that
 * computes its buffer.
 */
TP_FN unsigned short *tp_null(void)
{
	unsigned short *volatile none = NULL;
	return none;
}

/* Turn classic profiling off the glibc way (buffer NULL). */
#define tp_profil_off() profil(tp_null(), 0, 0, 0)

/* Exact tests: no timer, only __profil_inject feeds samples. */
TP_FN void tp_manual(void)
{
	T_OK(profil_set_engine("manual") == 0);
}

/*
 * profil() for a real-timer test.  The perf engine may be denied on a given
 * machine (perf_event_paranoid, seccomp) or not be built: that is a SKIP
 * with the library's own reason.  Every other failure fails the test.
 */
TP_FN void tp_profil_on(unsigned short *buf, size_t size, size_t off, unsigned int scale)
{
	if (profil(buf, size, off, scale) == 0)
		return;
	int e = errno;
	struct profil_stats st;
	profil_stats(&st);
	if (tp_engine_is("perf") &&
	    (e == ENOSYS || e == EACCES || e == EPERM || e == ENOENT || e == ENODEV ||
	     e == EOPNOTSUPP))
		T_SKIP("perf engine cannot run here (%s): %s", strerror(e), st.why);
	T_FAIL("profil(%p, %zu, %#zx, %#x): %s; engine %s: %s", (void *)buf, size, off,
	       scale, strerror(e), tp_engine(), st.why);
}


/*
 * Run /proc/self/exe again with argv[1] = arg and the environment plus the
 * NAME=value entries of `add` (NULL-terminated; they replace entries of the
 * same name).  Returns the wait status.  The child is made with fork and
 * execve, so it goes through the library's exec wrapper.
 */
TP_FN int tp_rerun(const char *arg, const char *const *add)
{
	size_t n = 0, k = 0;
	while (environ[n])
		n++;
	while (add && add[k])
		k++;
	char **env = calloc(n + k + 1, sizeof *env);
	T_OK(env != NULL);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		int replaced = 0;
		for (size_t j = 0; j < k; j++) {
			size_t len = strcspn(add[j], "=") + 1;
			replaced |= strncmp(environ[i], add[j], len) == 0;
		}
		if (!replaced)
			env[m++] = environ[i];
	}
	for (size_t j = 0; j < k; j++)
		env[m++] = (char *)add[j];
	char *argv[] = { "tprof-child", (char *)arg, NULL };

	fflush(NULL);
	pid_t pid = fork();
	T_OK(pid >= 0);
	if (pid == 0) {
		execve("/proc/self/exe", argv, env);
		_exit(126);
	}
	int status;
	T_OK(waitpid(pid, &status, 0) == pid);
	free(env);
	return status;
}

/* In a child started with an invalid value of environment variable `name`:
 * the library ignored it and names it in profil_stats(). */
TP_FN int tp_env_was_rejected(const char *name)
{
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	if (!strstr(st.why, name))
		T_FAIL("profil_stats() does not name %s: \"%s\"", name, st.why);
	return 0;
}

/* One fresh read-write page (to protect or unmap later). */
TP_FN unsigned short *tp_page(size_t *size)
{
	*size = (size_t)sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	T_OK(p != MAP_FAILED);
	return p;
}

/* A page that profiling (scale 2, every pc in counter 0) is counting into,
 * once a count has arrived. */
TP_FN unsigned short *tp_counting_page(size_t *size)
{
	unsigned short *buf = tp_page(size);
	tp_profil_on(buf, *size, 0, 2);
	tp_burn_until_counted(buf);
	return buf;
}

/* A child's wait status: exit 0 passes, exit 77 (the child skipped, and
 * said why) makes the test skip, anything else fails it. */
TP_FN void tp_child_ok(int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		T_SKIP("the child skipped (see above)");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		T_FAIL("child: %s %d", WIFEXITED(status) ? "exit" : "signal",
		       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

#define tp_rerun_ok(arg, add) tp_child_ok(tp_rerun(arg, add))

/* Open file descriptors of this process (the one used to list them is not
 * counted). */
TP_FN int tp_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	T_OK(d != NULL);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;
}

/* POSIX timers of this process, from /proc/self/timers (one "ID:" line per
 * timer; the file exists with CONFIG_CHECKPOINT_RESTORE).  -1 if absent. */
TP_FN int tp_count_timers(void)
{
	FILE *f = fopen("/proc/self/timers", "r");
	if (!f)
		return -1;
	char line[256];
	int n = 0;
	while (fgets(line, sizeof line, f))
		n += strncmp(line, "ID:", 3) == 0;
	fclose(f);
	return n;
}

/*
 * The kernel's disposition of a signal and the calling thread's real mask,
 * read with raw system calls: what libc's sigaction and sigprocmask return
 * is the program's view, which the library keeps as the program set it
 * while it holds a signal (libprofil(7), SIGNALS).
 */
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif
struct tp_kaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

TP_FN void tp_kernel_action(int sig, struct tp_kaction *k)
{
	memset(k, 0, sizeof *k);
	T_OK(syscall(SYS_rt_sigaction, sig, NULL, k, sizeof k->mask) == 0);
}

TP_FN uint64_t tp_kernel_mask(void)
{
	uint64_t m;
	T_OK(syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &m, sizeof m) == 0);
	return m;
}

#define TP_BIT(sig) (UINT64_C(1) << ((sig) - 1))

/* Our handler is the kernel's for sig: a SA_SIGINFO handler that is not
 * the program's `theirs` (NULL: any). */
TP_FN int tp_kernel_has_ours(int sig, void *theirs)
{
	struct tp_kaction k;
	tp_kernel_action(sig, &k);
	return (k.flags & SA_SIGINFO) && k.handler != SIG_DFL && k.handler != SIG_IGN &&
	       k.handler != theirs;
}

/* The signal the library samples with now (or last), from profil_stats. */
TP_FN int tp_sampling_signal(void)
{
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	return st.signo;
}

/* Install fn for sig with SA_SIGINFO | flags, blocking `masked` while it
 * runs. */
TP_FN void tp_handle(int sig, void (*fn)(int, siginfo_t *, void *), int flags, int masked)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, masked);
	T_OK(sigaction(sig, &sa, NULL) == 0);
}

/* Every signal disposition the kernel holds, to compare before and after. */
struct tp_dispositions {
	struct tp_kaction k[NSIG];
};

TP_FN void tp_save_dispositions(struct tp_dispositions *d)
{
	memset(d, 0, sizeof *d);
	for (int s = 1; s < NSIG; s++)
		tp_kernel_action(s, &d->k[s]);
}

/*
 * The one documented exception (libprofil(7), SIGNALS): after the perf
 * engine's sigtrap variant ran, the library keeps its SIGTRAP handler,
 * because the kernel can still deliver a SIGTRAP for a closed event.  Then
 * SIGTRAP must still *behave* as the saved SIG_DFL: a raised SIGTRAP kills
 * (a child) with SIGTRAP.
 */
TP_FN int tp_trap_behaves_default(const struct tp_kaction *was, const struct tp_kaction *now)
{
	if (was->handler != SIG_DFL || !(now->flags & SA_SIGINFO))
		return 0;
	pid_t pid = fork();
	T_OK(pid >= 0);
	if (pid == 0) {
		raise(SIGTRAP);
		_exit(0);
	}
	int st;
	T_OK(waitpid(pid, &st, 0) == pid);
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGTRAP;
}

/* The same handler, flags and mask in the kernel, for every signal. */
TP_FN void tp_same_dispositions(const struct tp_dispositions *a,
				const struct tp_dispositions *b)
{
	for (int s = 1; s < NSIG; s++) {
		const struct tp_kaction *x = &a->k[s], *y = &b->k[s];
		if (s == SIGTRAP && x->handler != y->handler && tp_trap_behaves_default(x, y))
			continue;
		if (x->handler != y->handler ||
		    (x->flags & ~SA_RESTORER) != (y->flags & ~SA_RESTORER) || x->mask != y->mask)
			T_FAIL("signal %d (%s): kernel has handler %p flags %#lx mask %#llx, "
			       "had %p flags %#lx mask %#llx",
			       s, strsignal(s), y->handler, y->flags, (unsigned long long)y->mask,
			       x->handler, x->flags, (unsigned long long)x->mask);
	}
}

#endif
