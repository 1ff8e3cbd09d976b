/*
 * SIGEV_THREAD timer callbacks after a seccomp filter.  The library wraps
 * such a timer's callback (lib/sigev.c) so that glibc's callback thread is
 * registered and sampled; once a filter went in, the library makes no
 * system call of its own (it is sealed), and that must hold in those
 * threads too.  Before, the wrapper registered each callback's thread
 * whatever the state, and the registration asked the kernel for the
 * thread's id (gettid) before it found the library sealed: a filter that
 * refuses gettid, which the program itself never calls, killed it under
 * the library at the first callback after the filter (SIGSYS), where it
 * runs alone.
 *
 * The case (in a child of its own: a filter cannot be removed): profiling
 * with profil(), a periodic SIGEV_THREAD timer whose callbacks count
 * themselves; two callbacks before the filter, which answers gettid with
 * SECCOMP_RET_KILL_PROCESS and allows everything else, installed on every
 * thread through syscall(SYS_seccomp) with SECCOMP_FILTER_FLAG_TSYNC (the
 * library seals itself first); then five more callbacks must
 * run and the program end normally, profil() off returning 0.  The wait
 * for callbacks is bounded by 20 s of wall time (they come every 5 ms).
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "helpers/tprof.h"
/* after test.h: its ts_run_case */
#include "helpers/seccomp.h"

static _Atomic int calls;

static void callback(union sigval v)
{
	(void)v;
	calls++;
}

static void *nothing(void *arg)
{
	return arg;
}

/* Wait until `n` callbacks ran in all, at most 20 s of wall time. */
static void wait_calls(int n)
{
	double t0 = t_cpu(CLOCK_MONOTONIC);
	while (calls < n) {
		if (t_cpu(CLOCK_MONOTONIC) - t0 > 20)
			T_FAIL("%d callbacks of %d after 20 s", calls, n);
		usleep(1000);
	}
}

static int sealed_callbacks(void)
{
	static unsigned short buf[64];
	/* glibc's first pthread_create calls rt_sigaction: before the filter
	 * (the filter below would not mind, but the library's start would). */
	pthread_t t;
	T_EQ(pthread_create(&t, NULL, nothing, NULL), 0);
	T_EQ(pthread_join(t, NULL), 0);
	tp_profil_on(buf, sizeof buf, 0, 2);

	struct sigevent sev = { .sigev_notify = SIGEV_THREAD };
	sev.sigev_notify_function = callback;
	timer_t id;
	T_EQ(timer_create(CLOCK_MONOTONIC, &sev, &id), 0);
	struct itimerspec every = { { 0, 5000000 }, { 0, 5000000 } };
	T_EQ(timer_settime(id, 0, &every, NULL), 0);
	wait_calls(2);

	struct sock_filter code[] = {
		TS_LOAD(arch),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TS_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		TS_LOAD(nr),
		TS_NR(SYS_gettid, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { sizeof code / sizeof code[0], code };
	T_EQ(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
	/* On every thread (TSYNC): glibc's helper thread, which starts the
	 * callbacks' threads, was made before the filter. */
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0)
		T_SKIP("cannot install a seccomp filter: %s", strerror(errno));
	T_EQ(profil_state(), PROFIL_OFF);
	int at = calls;
	wait_calls(at + 5);
	T_NOTE("%d callbacks before the filter, %d in all", at, (int)calls);
	T_EQ(timer_delete(id), 0);
	T_EQ(tp_profil_off(), 0);
	return 0;
}

int main(int argc, char **argv)
{
	/* glibc's SIGEV_THREAD helper thread is started inside libc, where
	 * TSan's pthread_create interceptor never sees it, and dies of SIGSEGV
	 * in TSan's malloc at the first expiry: a program of ten lines with
	 * one such timer does so under TSan without the library. */
	if (TP_TSAN)
		T_SKIP("ThreadSanitizer cannot run SIGEV_THREAD timers: glibc's helper thread "
		       "crashes in its malloc, with or without the library");
	if (argc == 3 && strcmp(argv[1], "case") == 0)
		return sealed_callbacks();
	static const char *const cases[][3] = { { "sealed" } };
	ts_run_case(argv[0], cases[0]);
	return 0;
}
