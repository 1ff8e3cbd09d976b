/*
 * seccomp.c - the program's calls that install a seccomp filter, and its
 * calls that disable the perf engine's events: prctl, and syscall(SYS_prctl
 * or SYS_seccomp), interposed once for both.
 *
 * A filter the program installs may answer any system call of ours
 * (timer_create, perf_event_open, rt_sigaction...) with
 * SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_KILL_THREAD or SECCOMP_RET_TRAP:
 * the program would die of SIGSYS under the profiler where it runs alone.
 * The filter cannot be read, so the library makes no system call of its
 * own after one (it is sealed, internal.h).  The right moment to stop is
 * just before the filter goes in, while the library may still stop its
 * timers and events, give the signals back and note the CPU time: so the
 * two ways libc offers to install one are interposed here, prctl
 * (PR_SET_SECCOMP) and syscall (SYS_seccomp, as libseccomp calls it, and
 * SYS_prctl).  glibc has no seccomp() of its own.  A filter installed
 * without libc (the system call instruction, as Chromium's sandbox
 * does) is found instead before the library's next calls, in the thread
 * about to make them (sig/seal.h, profil__filter_check).
 *
 * prctl(PR_TASK_PERF_EVENTS_DISABLE) disables every perf event the calling
 * thread opened, and the perf engine opens every thread's event from the
 * thread that starts it (or each thread its own): a program that stops its
 * own counters that way stopped ours too, its threads' signals stopped,
 * and their ticks were paid at exit, owed, at the pc of the last signal:
 * 574 of 802 samples of a program that disabled its counters half way were
 * charged to the function it had left (engine-perf.c).  The events are the
 * library's, not the program's: the program's request is made as it
 * asked, then the library enables its own again, unless it is sealed (a
 * filter may refuse the ioctl fatally).  PR_TASK_PERF_EVENTS_ENABLE
 * enables them with the program's, as it always did.  Only the system call
 * instruction itself still disables them unseen (the ticks are then paid
 * at exit, and the summary's owed count shows it).
 *
 * syscall itself is assembly (arch/syscall-*.S): only seccomp and prctl
 * come here.  Where there is no such file, syscall() is libc's and only
 * prctl is seen.  Both are in the shared library and in libprofil.a: prctl
 * makes its system call itself, so the archive needs no libc name that
 * libc.so does not export.
 */
#include <linux/seccomp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "arch/sys6.h"
#include "ctl.h"
#include "engine.h"
#include "session.h"

#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif

#if defined(__x86_64__)
#define HAVE_SYSCALL_STUB 1 /* arch/syscall-x86_64.S */
#endif

#ifdef PROFIL_HAVE_SYS6
static long raw(long n, long a, long b, long c, long d, long e, long f)
{
	return profil_sys6(n, a, b, c, d, e, f);
}
#else
/* libc's syscall (no stub defines ours here): -errno like the kernel's
 * own answer. */
static long raw(long n, long a, long b, long c, long d, long e, long f)
{
	long r = syscall(n, a, b, c, d, e, f);
	return r == -1 ? -errno : r;
}
#endif

/* Does this call install a filter (or strict mode) if it succeeds?  Not
 * a query (SECCOMP_GET_*, PR_GET_SECCOMP), nor a filter at NULL, which
 * libseccomp passes to learn whether the kernel knows a flag (EFAULT). */
static bool installs(long n, long a, long b, long c)
{
	if (n == SYS_seccomp)
		return a == SECCOMP_SET_MODE_STRICT || (a == SECCOMP_SET_MODE_FILTER && c != 0);
	if (n == SYS_prctl && a == PR_SET_SECCOMP)
		return b == SECCOMP_MODE_STRICT || (b == SECCOMP_MODE_FILTER && c != 0);
	return false;
}

/* Installed?  With SECCOMP_FILTER_FLAG_TSYNC a positive result is the
 * thread that could not be synchronised (nothing installed); with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER it is the listener's descriptor. */
static bool installed(long n, long b, long r)
{
	if (r < 0 && r > -4096)
		return false;
	return r == 0 || (n == SYS_seccomp && (b & SECCOMP_FILTER_FLAG_NEW_LISTENER));
}

/* The result as syscall(3) gives it. */
static long ret(long r)
{
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

/* The program disabled its threads' perf events, ours among them: enable
 * ours again.  Sealed, nothing (profil__lock refuses, and a filter found
 * now seals it). */
static void perf_keep(void)
{
	if (profil__sealed() || profil__running_engine() != &profil__engine_perf)
		return;
	int saved_errno = errno;
	sigset_t saved;
	if (profil__lock(&saved)) {
		if (profil__running_engine() == &profil__engine_perf)
			profil__perf_resume();
		profil__unlock(&saved);
	}
	errno = saved_errno;
}

static long call(long n, long a, long b, long c, long d, long e, long f)
{
	if (!installs(n, a, b, c)) {
		long r = raw(n, a, b, c, d, e, f);
		if (r == 0 && n == SYS_prctl && a == PR_TASK_PERF_EVENTS_DISABLE)
			perf_keep();
		return ret(r);
	}
	int saved = errno;
	profil__seal_begin();
	errno = saved;
	long r = raw(n, a, b, c, d, e, f);
	profil__seal_end(installed(n, b, r));
	errno = saved;
	return ret(r);
}

#ifdef HAVE_SYSCALL_STUB
/* arch/syscall-x86_64.S: its seccomp and prctl calls, and its errors. */
PROFIL_HIDDEN long profil__syscall_filtered(long n, long a, long b, long c, long d, long e, long f);
PROFIL_HIDDEN long profil__syscall_error(long r);

long profil__syscall_filtered(long n, long a, long b, long c, long d, long e, long f)
{
	return call(n, a, b, c, d, e, f);
}

long profil__syscall_error(long r)
{
	return ret(r);
}
#endif

/* prctl takes up to four arguments after the option, all unsigned long
 * (glibc reads them so whatever the option). */
PROFIL_API int prctl(int option, ...)
{
	va_list ap;
	va_start(ap, option);
	unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long),
		      a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
	va_end(ap);
	return (int)call(SYS_prctl, option, (long)a2, (long)a3, (long)a4, (long)a5, 0);
}
