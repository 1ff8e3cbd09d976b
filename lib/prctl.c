/*
 * prctl.c - prctl(PR_TASK_PERF_EVENTS_DISABLE) leaves the perf engine's
 * events alone.
 *
 * That request disables every perf event the calling thread opened, and
 * the perf engine opens every thread's event from the thread that starts
 * it (or each thread its own): a program that stops its own counters that
 * way stopped ours too, its threads' signals stopped, and their ticks were
 * paid at exit, owed, at the pc of the last signal: 574 of 802 samples of
 * a program that disabled its counters half way were charged to the
 * function it had left (engine-perf.c).  The events are the library's,
 * not the program's: the program's request is made as it asked, then the
 * library enables its own again.  PR_TASK_PERF_EVENTS_ENABLE enables them
 * with the program's, as it always did.
 *
 * Only libc's prctl is seen: a raw system call still disables them (the
 * ticks are then paid at exit, and the summary's owed count shows it).
 * libprofil.a defines no prctl: it could only call libc's by a name libc.so
 * does not export, as for pthread_create.
 */
#ifndef PROFIL_STATIC_ARCHIVE

#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "ctl.h"
#include "engine.h"

/* prctl's arguments after the option are unsigned longs, as many as the
 * option takes (glibc reads four with va_arg, as here, and passes them all
 * to the system call). */
PROFIL_API int prctl(int option, ...)
{
	va_list ap;
	va_start(ap, option);
	unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long);
	unsigned long a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
	va_end(ap);
	long r = syscall(SYS_prctl, option, a2, a3, a4, a5);
	if (r == 0 && option == PR_TASK_PERF_EVENTS_DISABLE &&
	    profil__running_engine() == &profil__engine_perf) {
		int saved_errno = errno;
		sigset_t saved;
		profil__lock(&saved);
		if (profil__running_engine() == &profil__engine_perf)
			profil__perf_resume();
		profil__unlock(&saved);
		errno = saved_errno;
	}
	return (int)r;
}

#endif
