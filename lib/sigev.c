/*
 * sigev.c - timer_create's SIGEV_THREAD callbacks, sampled like any thread.
 *
 * glibc runs each expiry of a SIGEV_THREAD timer in a new thread, which
 * its helper thread creates with its internal pthread_create (past our
 * interposer) and starts with every signal blocked.  So the callback's
 * thread had no slot and no timer or event of its own, and the perf event
 * it inherited from the helper could not signal it: 20 callbacks of 30 ms
 * (0.61 s of CPU time) got 2 or 3 samples on every engine, and pcprof run
 * said "lost: none".
 *
 * So the shared library interposes timer_create.  For SIGEV_THREAD, glibc
 * gets a copy of the program's sigevent whose function is our trampoline
 * and whose value points to the program's (function, value) pair.  The
 * trampoline, in the callback's thread, registers that thread as our
 * pthread_create's start routine would (threads.h, profil__thread_adopt),
 * makes the sampling signals deliverable while the program's view of its
 * mask stays what glibc set (every signal blocked, sigown.h), and calls
 * the program's function with the program's value.  Nothing else of the
 * call changes: its arguments as the program gave them to everything but
 * glibc's copy, its result and errno.
 *
 * A pair is never freed: glibc may start a callback's thread before
 * timer_delete returns and run it after, so no moment is known when no
 * thread will read it again.  Pairs are shared instead (the same function
 * and value, the same pair: a program that re-creates one timer takes one
 * entry), and at most MAX_PAIRS are kept (64 KiB); a timer beyond them
 * is given to glibc unchanged, and its callbacks are not sampled (pcprof
 * run names their CPU time as threads it did not see start; the recording
 * says timers were left unwrapped, record.h).
 *
 * libprofil.a defines no timer_create: a static program has no next
 * definition to call, and its callbacks stay unsampled.
 */
#ifndef PROFIL_STATIC_ARCHIVE

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "ctl.h"
#include "record.h"
#include "threads.h"
#include "sig/sigown.h"

#define MAX_PAIRS 4096
#define INDEX     (2 * MAX_PAIRS) /* open addressing, at most half full */

struct pair {
	void (*fn)(union sigval);
	union sigval value;
};

/* Entries [0, npairs) are immutable once written; index[] holds 1 + the
 * entry of each hash position (0: free).  Both under the control lock. */
static struct pair *pairs;
static uint32_t *index_of;
static uint32_t npairs;

static void trampoline(union sigval v)
{
	const struct pair *p = v.sival_ptr;
	/* Sealed (a seccomp filter, internal.h): no system call of ours, the
	 * callback runs as glibc started it. */
	if (profil__sealed()) {
		p->fn(p->value);
		return;
	}
	profil__thread_adopt((uintptr_t)p->fn);
	/* glibc blocked everything (a raw system call, past our view): the
	 * program's view becomes that, the sampling signals deliverable. */
	sigset_t now;
	if (profil__real_sigmask(SIG_BLOCK, NULL, &now) == 0)
		profil__sig_program_mask(SIG_SETMASK, &now, NULL);
	p->fn(p->value);
}

/* The shared pair for (fn, value), or NULL when there is no room, or
 * when the library is sealed (no memory of ours is mapped then: the timer
 * goes to glibc as it is, and nothing samples). */
static const struct pair *pair_for(void (*fn)(union sigval), union sigval value)
{
	sigset_t saved;
	if (!profil__lock(&saved))
		return NULL;
	if (!pairs) {
		pairs = profil__alloc(MAX_PAIRS * sizeof *pairs);
		index_of = pairs ? profil__alloc(INDEX * sizeof *index_of) : NULL;
		if (!index_of) {
			profil__free(pairs, MAX_PAIRS * sizeof *pairs);
			pairs = NULL;
		}
	}
	const struct pair *found = NULL;
	if (pairs) {
		uint64_t h =
			profil__mix64((uintptr_t)fn ^ profil__mix64((uintptr_t)value.sival_ptr));
		for (uint32_t i = 0; i < INDEX; i++) {
			uint32_t *at = &index_of[(h + i) & (INDEX - 1)];
			if (*at) {
				struct pair *p = &pairs[*at - 1];
				if (p->fn == fn && p->value.sival_ptr == value.sival_ptr) {
					found = p;
					break;
				}
				continue;
			}
			if (npairs < MAX_PAIRS) {
				struct pair *p = &pairs[npairs++];
				p->fn = fn;
				p->value = value;
				*at = npairs;
				found = p;
			}
			break;
		}
	}
	profil__unlock(&saved);
	return found;
}

typedef int timer_create_fn(clockid_t, struct sigevent *, timer_t *);

PROFIL_API int timer_create(clockid_t clock, struct sigevent *sev, timer_t *id)
{
	/* Racing first calls store the same value. */
	static timer_create_fn *real;
	timer_create_fn *f = __atomic_load_n(&real, __ATOMIC_RELAXED);
	if (!f) {
		f = (timer_create_fn *)dlsym(RTLD_NEXT, "timer_create");
		if (!f) {
			errno = ENOSYS;
			return -1;
		}
		__atomic_store_n(&real, f, __ATOMIC_RELAXED);
	}
	if (!sev || sev->sigev_notify != SIGEV_THREAD || !sev->sigev_notify_function)
		return f(clock, sev, id);
	int saved_errno = errno;
	const struct pair *p = pair_for(sev->sigev_notify_function, sev->sigev_value);
	errno = saved_errno;
	if (!p) {
		/* (Sealed, nothing records: the flag goes nowhere.) */
		profil__record_gap_flag(PCPROF_RAW_G_TIMERS);
		return f(clock, sev, id);
	}
	struct sigevent ours = *sev;
	ours.sigev_notify_function = trampoline;
	ours.sigev_value.sival_ptr = (void *)p;
	return f(clock, &ours, id);
}

#endif
