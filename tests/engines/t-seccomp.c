/*
 * A program profiling itself with profil() installs a seccomp filter that
 * answers timer_create, timer_settime, timer_delete, perf_event_open and
 * rt_sigaction with SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_TRAP or
 * SECCOMP_RET_KILL_THREAD (issue 19, item 1), through prctl, through
 * syscall(SYS_seccomp), or with the raw system call instruction, then
 * starts threads and forks.  Before, it died of SIGSYS on every engine, or
 * hung (a thread killed in timer_create held the library's lock).  Now
 * profiling stops where the filter goes in, for good and cleanly:
 *   - the counts up to the filter are all there (CPU time x rate, the
 *     owed ticks paid before the filter);
 *   - from then on nothing counts (the buffer stays as it was, exactly),
 *     profil_state() is PROFIL_OFF, profil_stats() says why;
 *   - threads, a fork child and the program's end live as without the
 *     library;
 *   - profil() cannot start again (-1, EAGAIN); turning it off is 0;
 *   - a call that installs no filter after all (a bad one, or
 *     libseccomp's NULL filter asking whether a flag is known) stops
 *     nothing: the counts go on after it, CPU time x rate;
 *   - and prctl(PR_TASK_PERF_EVENTS_DISABLE) under a filter installed
 *     without libc that kills ioctl: the library, which on the perf engine
 *     enables its own events again after that call, finds the filter
 *     first and makes no call (the program lives).
 * Each case runs in a child of its own (a filter cannot be removed); the
 * parent fails a child that died or did not end within 120 s of wall time
 * (a hang: it burns under a second of CPU).
 */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/tprof.h"
/* after test.h: its ts_run_case */
#include "helpers/seccomp.h"

#define HZ 1000

static void *burner(void *arg)
{
	(void)arg;
	tp_burn_thread(0.05);
	return NULL;
}

static unsigned long sum(const unsigned short *b, size_t n)
{
	unsigned long s = 0;
	for (size_t i = 0; i < n; i++)
		s += b[i];
	return s;
}

static int sandboxed(const char *action, const char *route)
{
	static unsigned short buf[64];
	unsigned ret;
	T_OK(ts_action(action, &ret));
	T_OK(profil_set_hz(HZ) > 0);
	/* glibc's first pthread_create calls rt_sigaction: before the filter. */
	pthread_t t;
	T_EQ(pthread_create(&t, NULL, burner, NULL), 0);
	T_EQ(pthread_join(t, NULL), 0);

	tp_profil_on(buf, sizeof buf, 0, 2);
	double t0 = t_proc_cpu();
	tp_burn(0.1);
	if (ts_install(ret, route, false) != 0)
		T_SKIP("cannot install a seccomp filter: %s", strerror(errno));
	double cpu = t_proc_cpu() - t0;
	/* The filter is found at the next call of the library at latest: the
	 * thread creation below, when it was installed without libc. */
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		T_EQ(pthread_create(&th[i], NULL, burner, NULL), 0);
	for (int i = 0; i < 2; i++)
		T_EQ(pthread_join(th[i], NULL), 0);
	unsigned long at = sum(buf, 64);
	T_NOTE("%s %s: %lu ticks for %.3f s of CPU before the filter", action, route, at, cpu);
	/* Without libc the filter is found after a few more signals' worth. */
	if (strcmp(route, "raw") != 0)
		T_COUNT(at, cpu * HZ);
	T_EQ(profil_state(), PROFIL_OFF);
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	if (!strstr(st.why, "seccomp filter"))
		T_FAIL("profil_stats().why does not say why: \"%s\"", st.why);

	fflush(NULL);
	pid_t pid = fork();
	T_OK(pid >= 0);
	if (pid == 0) {
		tp_burn(0.05);
		_exit(sum(buf, 64) == at ? 0 : 3);
	}
	tp_burn(0.1);
	int status;
	T_OK(waitpid(pid, &status, 0) == pid);
	tp_child_ok(status);
	T_EQ(sum(buf, 64), at);
	errno = 0;
	T_EQ(profil(buf, sizeof buf, 0, 2), -1);
	T_EQ(errno, EAGAIN);
	T_EQ(tp_profil_off(), 0);
	T_EQ(sum(buf, 64), at);
	return 0;
}

/* A call that installs nothing (a bad filter; libseccomp asking whether
 * the kernel knows a flag, with a NULL filter): profiling goes on. */
static int failed(void)
{
	static unsigned short buf[64];
	T_OK(profil_set_hz(HZ) > 0);
	tp_profil_on(buf, sizeof buf, 0, 2);
	struct sock_fprog empty = { 0, NULL };
	T_EQ(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
	errno = 0;
	T_EQ(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &empty), -1);
	T_EQ(errno, EINVAL);
	errno = 0;
	T_EQ(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &empty), -1);
	T_EQ(errno, EINVAL);
	errno = 0;
	T_EQ(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, NULL), -1);
	T_EQ(errno, EFAULT);
	T_EQ(profil_state(), PROFIL_CLASSIC);
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	if (strstr(st.why, "seccomp"))
		T_FAIL("profil_stats().why: \"%s\"", st.why);
	unsigned long at = sum(buf, 64);
	double t0 = t_proc_cpu();
	pthread_t t;
	T_EQ(pthread_create(&t, NULL, burner, NULL), 0);
	tp_burn(0.1);
	T_EQ(pthread_join(t, NULL), 0);
	double cpu = t_proc_cpu() - t0;
	T_NOTE("%.3f s of CPU after the calls", cpu);
	T_COUNT(sum(buf, 64) - at, cpu * HZ);
	T_EQ(tp_profil_off(), 0);
	return 0;
}

/* The program disables its perf counters under a filter the library has
 * not seen yet (the raw instruction) that kills ioctl: the prctl wrapper,
 * which on the perf engine enables the engine's events again with an
 * ioctl each, looks for a filter first, finds it and makes no call. */
static int perfoff(void)
{
	static unsigned short buf[64];
	T_OK(profil_set_hz(HZ) > 0);
	pthread_t t;
	T_EQ(pthread_create(&t, NULL, burner, NULL), 0);
	T_EQ(pthread_join(t, NULL), 0);
	tp_profil_on(buf, sizeof buf, 0, 2);
	tp_burn(0.05);
	/* stdout's first use asks isatty (an ioctl): before the filter */
	T_NOTE("%lu ticks before the filter", sum(buf, 64));
	fflush(NULL);
	struct sock_filter code[] = {
		TS_LOAD(arch),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TS_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		TS_LOAD(nr),
		TS_NR(SYS_ioctl, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { sizeof code / sizeof code[0], code };
	T_EQ(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
	if (ts_raw_seccomp(SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
		T_SKIP("cannot install a seccomp filter");
	T_EQ(prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0), 0);
	/* The perf engine's wrapper found the filter; the timers' finds it
	 * at the next call of the library, profil() off below. */
	if (tp_engine_is("perf"))
		T_EQ(profil_state(), PROFIL_OFF);
	tp_burn(0.05);
	T_EQ(tp_profil_off(), 0);
	T_EQ(profil_state(), PROFIL_OFF);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "case") == 0 && strcmp(argv[2], "failed") == 0)
		return failed();
	if (argc == 3 && strcmp(argv[1], "case") == 0 && strcmp(argv[2], "perfoff") == 0)
		return perfoff();
	if (argc == 4 && strcmp(argv[1], "case") == 0)
		return sandboxed(argv[2], argv[3]);
	static const char *const cases[][3] = {
		{ "kill-process", "prctl" },
		{ "trap", "prctl" },
		{ "kill-thread", "prctl" },
		{ "kill-thread", "seccomp" },
		{ "kill-thread", "raw" },
		{ "trap", "raw" },
		{ "failed" },
		{ "perfoff" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		ts_run_case(argv[0], cases[i]);
	return 0;
}
