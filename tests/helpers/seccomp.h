/*
 * seccomp.h - a seccomp filter against a profiler, for the tests and
 * tests/targets/sandbox (which includes it by its path: targets are built
 * without -Itests).  A plain BPF program, no libseccomp.
 *
 * The filter answers timer_create, timer_settime, timer_delete,
 * perf_event_open and rt_sigaction (every call libprofil's engines and
 * signals need) with `ret`, and allows everything else; with `hide`, it
 * also answers prctl with success and nothing done (SECCOMP_RET_ERRNO with
 * 0), so that prctl(PR_GET_SECCOMP) says no filter is there: a filter the
 * library cannot see, whose first victim may be a thread holding a lock.
 *
 * The calling process must have started a thread before (glibc calls
 * rt_sigaction at its first pthread_create) and have no_new_privs set, or
 * be privileged: ts_install sets it.
 */
#ifndef TESTS_HELPERS_SECCOMP_H
#define TESTS_HELPERS_SECCOMP_H

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define TS_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define TS_ARCH AUDIT_ARCH_AARCH64
#else
#error "tests/helpers/seccomp.h: no seccomp architecture for this machine"
#endif

/* SECCOMP_RET_* for "kill-process", "trap", "kill-thread"; 0 (which is
 * also KILL_THREAD's value, so check the name first) and false if none. */
static inline __attribute__((unused)) bool ts_action(const char *name, unsigned *ret)
{
	if (strcmp(name, "kill-process") == 0)
		*ret = SECCOMP_RET_KILL_PROCESS;
	else if (strcmp(name, "trap") == 0)
		*ret = SECCOMP_RET_TRAP;
	else if (strcmp(name, "kill-thread") == 0)
		*ret = SECCOMP_RET_KILL_THREAD;
	else
		return false;
	return true;
}

/* The seccomp system call itself, with no library between. */
static inline long ts_raw_seccomp(unsigned op, unsigned long flags, void *prog)
{
#if defined(__x86_64__)
	long r;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"((long)SYS_seccomp), "D"((long)op), "S"((long)flags), "d"(prog)
			 : "rcx", "r11", "memory");
	return r;
#else
	register long x8 __asm__("x8") = SYS_seccomp, x0 __asm__("x0") = op,
			 x1 __asm__("x1") = (long)flags, x2 __asm__("x2") = (long)prog;
	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
	return x0;
#endif
}

/* Jump to the k-th instruction after this one when the number is n. */
#define TS_NR(n, k) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (n), (k), 0)
#define TS_LOAD(f)  BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, f))

/*
 * Install the filter on the calling thread by `route`: "prctl"
 * (prctl(PR_SET_SECCOMP)), "seccomp" (syscall(SYS_seccomp), as libseccomp
 * does), "tsync" (the same with SECCOMP_FILTER_FLAG_TSYNC: every thread of
 * the process gets it) or "raw" (the system call instruction).  Returns 0,
 * or -1 with errno (EINVAL for an unknown route).
 */
static inline __attribute__((unused)) int ts_install(unsigned ret, const char *route, bool hide)
{
	struct sock_filter code[] = {
		TS_LOAD(arch),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TS_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		TS_LOAD(nr),
		TS_NR(SYS_timer_create, 7),
		TS_NR(SYS_timer_settime, 6),
		TS_NR(SYS_timer_delete, 5),
		TS_NR(SYS_perf_event_open, 4),
		TS_NR(SYS_rt_sigaction, 3),
		TS_NR(hide ? SYS_prctl : SYS_rt_sigaction, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0),
		BPF_STMT(BPF_RET | BPF_K, ret),
	};
	struct sock_fprog prog = { sizeof code / sizeof code[0], code };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	long r;
	if (strcmp(route, "prctl") == 0)
		r = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
	else if (strcmp(route, "seccomp") == 0)
		r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
	else if (strcmp(route, "tsync") == 0)
		r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
	else if (strcmp(route, "raw") == 0) {
		r = ts_raw_seccomp(SECCOMP_SET_MODE_FILTER, 0, &prog);
		if (r < 0)
			errno = (int)-r, r = -1;
	} else {
		errno = EINVAL;
		r = -1;
	}
	return r == 0 ? 0 : -1;
}

/*
 * A container's filter: allows everything but acct(2), which it answers
 * with EPERM, as Docker's does, and is installed before the program
 * starts (a filter that is not the program's).  0 or -1 with errno.
 */
static inline __attribute__((unused)) int ts_install_outer(void)
{
	struct sock_filter code[] = {
		TS_LOAD(nr),
		TS_NR(SYS_acct, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};
	struct sock_fprog prog = { sizeof code / sizeof code[0], code };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return (int)ts_raw_seccomp(SECCOMP_SET_MODE_FILTER, 0, &prog) == 0 ? 0 : -1;
}

#ifdef T_FAIL
/*
 * For the tests (test.h): run /proc/self/exe again with `args` (a filter
 * cannot be removed, so each case has a process of its own), and fail
 * when it dies, exits with neither 0 nor 77 (which skips the test), or
 * does not end within 120 s of wall time (a hang: a case burns well under
 * a second of CPU).
 */
#include <signal.h>
#include <sys/wait.h>

static inline __attribute__((unused)) void ts_run_case(const char *argv0, const char *const args[3])
{
	char label[128];
	snprintf(label, sizeof label, "%s %s", args[0], args[1] ? args[1] : "");
	fflush(NULL);
	pid_t pid = fork();
	T_OK(pid >= 0);
	if (pid == 0) {
		execl("/proc/self/exe", argv0, "case", args[0], args[1], args[2], (char *)NULL);
		_exit(126);
	}
	int status = 0;
	double t0 = t_cpu(CLOCK_MONOTONIC); /* wall time, for the watchdog only */
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (t_cpu(CLOCK_MONOTONIC) - t0 > 120) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			T_FAIL("%s: hung (killed after 120 s)", label);
		}
		usleep(10000);
	}
	if (!WIFEXITED(status))
		T_FAIL("%s: killed by signal %d (%s)", label, WTERMSIG(status),
		       strsignal(WTERMSIG(status)));
	if (WEXITSTATUS(status) == 77)
		T_SKIP("%s: the case skipped (see above)", label);
	if (WEXITSTATUS(status) != 0)
		T_FAIL("%s: exit %d", label, WEXITSTATUS(status));
}
#endif

#endif
