/*
 * reserve.c - the share of a resource limit the engines may take.
 *
 * A per-thread engine needs one kernel object per thread, and the limits on
 * them are the program's: a perf descriptor counts against RLIMIT_NOFILE, a
 * POSIX timer holds a queued-signal slot of RLIMIT_SIGPENDING (shared by
 * every process of the user, and by the program's own sigqueue and
 * timer_create).  Taking one per thread until the kernel says no leaves the
 * program without descriptors or timers (issue 8, item 4).
 *
 * The rule: the library holds at most half of the headroom, the headroom
 * being what the soft limit leaves beyond everything else in use (the
 * program's descriptors; the user's queued signals and timers).  So the
 * program can always use at least half of what was free when the library
 * last looked.  Looking costs a walk of /proc/self/fd or a read of
 * /proc/self/status, so it is amortised: after a look the library takes
 * half of its remaining allowance before it looks again, and after a
 * refusal it answers the next 1, 2, 4 ... 64 requests with a refusal
 * before looking again (sooner once an object is given back).  Without
 * /proc the program is assumed to use half of the limit.
 */
#include "reserve.h"

#include <limits.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>

struct budget {
	unsigned long held;     /* objects the library holds */
	unsigned long check_at; /* look again when held reaches this */
	unsigned skip;          /* refusals to give before looking again */
	unsigned backoff;       /* the last skip */
};

static struct budget budgets[PROFIL_NRES];

static const int limit_of[PROFIL_NRES] = { RLIMIT_NOFILE, RLIMIT_SIGPENDING };

static int count_entry(const char *name, void *ctx)
{
	(void)name;
	++*(unsigned long *)ctx;
	return 0;
}

/* Everything in use under limit r, the library's objects included; -1 if
 * it cannot be known. */
static long in_use(enum profil_res r)
{
	if (r == PROFIL_RES_FD) {
		unsigned long n = 0;
		int e = profil__each_dirent("/proc/self/fd", count_entry, &n);
		if (e == -EMFILE || e == -ENFILE)
			return LONG_MAX;                     /* not even one descriptor is free */
		return e < 0 || n == 0 ? -1 : (long)(n - 1); /* not the walk's own */
	}
	long n = profil__status_number("SigQ");
	return n < 0 ? -1 : n;
}

/* How many objects of kind r the library may hold now. */
static unsigned long allowance(enum profil_res r, unsigned long held)
{
	struct rlimit rl;
	if (syscall(SYS_prlimit64, 0, limit_of[r], NULL, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return ULONG_MAX;
	long used = in_use(r);
	unsigned long others;
	if (used < 0)
		others = rl.rlim_cur / 2;
	else
		others = (unsigned long)used > held ? (unsigned long)used - held : 0;
	return others >= rl.rlim_cur ? 0 : (rl.rlim_cur - others) / 2;
}

int profil__reserve_take(enum profil_res r)
{
	struct budget *b = &budgets[r];
	if (b->held >= b->check_at) {
		if (b->skip) {
			b->skip--;
			goto refuse;
		}
		unsigned long cap = allowance(r, b->held);
		if (b->held >= cap) {
			b->backoff = b->backoff ? 2 * b->backoff : 1;
			if (b->backoff > 64)
				b->backoff = 64;
			b->skip = b->backoff;
			goto refuse;
		}
		b->backoff = 0;
		unsigned long room = cap - b->held;
		b->check_at = b->held + (room < 2 ? 1 : room / 2);
	}
	b->held++;
	return 0;
refuse:
	return r == PROFIL_RES_FD ? -EMFILE : -EAGAIN;
}

void profil__reserve_give(enum profil_res r)
{
	struct budget *b = &budgets[r];
	if (b->held)
		b->held--;
	b->skip = 0;
}

void profil__reserve_fork_child(void)
{
	memset(budgets, 0, sizeof budgets);
}
