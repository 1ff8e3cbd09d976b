/*
 * ctl.c - the control core (ctl.h): the lock every control path takes, and
 * the running engine, which session.c sets and the rest of the control
 * plane reads.  Kept apart from session.c so that threads.c, record.c and
 * exec.c, which session.c calls, need nothing of session.c in return.
 */
#include "ctl.h"

#include <sched.h>
#include <stdatomic.h>

#include "sig/seal.h"
#include "sig/sigown.h"
#include "sig/sink.h"

_Atomic uint32_t profil__start_seq;

static _Atomic pid_t holder; /* of the control lock; 0: free */
static sigset_t *lock_saved;
static const struct profil_engine *_Atomic engine;

/* Synchronous signals stay deliverable: blocking them would turn a fault
 * (and the fault guard's recovery) into a forced kill. */
void profil__block_async(sigset_t *saved)
{
	sigset_t all;
	sigfillset(&all);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGILL);
	sigdelset(&all, SIGFPE);
	sigdelset(&all, SIGTRAP);
	profil__real_sigmask(SIG_BLOCK, &all, saved);
}

/* Before the mask and the lock, a look for a filter: one that refuses
 * what comes next must find nothing held.  While nothing samples, a lock
 * taken per thread (its start and end) leads to no call a filter is
 * likely to refuse, and the look (a prctl, 0.6 us on the test machine)
 * waits for the next start, which looks thoroughly.  Once taken, the lock
 * is given up again if the library was sealed meanwhile (by the thread
 * that held it, before the program's filter went in): every holder may
 * make its system calls. */
static bool lock(sigset_t *saved, bool wait, bool thorough)
{
	if (profil__sealed())
		return false;
	if ((thorough || atomic_load(&engine) || atomic_load(&profil__rec)) &&
	    profil__filter_check(thorough))
		return false;
	profil__block_async(saved);
	if (!wait) {
		pid_t none = 0;
		if (!atomic_compare_exchange_strong(&holder, &none, profil__gettid())) {
			profil__real_sigmask(SIG_SETMASK, saved, NULL);
			return false;
		}
	} else if (!profil__spin_lock(&holder)) {
		profil__seal(PROFIL_SEALED_DEAD);
	}
	lock_saved = saved;
	if (profil__sealed()) {
		profil__unlock(saved);
		return false;
	}
	return true;
}

bool profil__lock(sigset_t *saved)
{
	return lock(saved, true, false);
}

bool profil__lock_thorough(sigset_t *saved)
{
	return lock(saved, true, true);
}

bool profil__trylock(sigset_t *saved)
{
	return lock(saved, false, false);
}

void profil__unlock(const sigset_t *saved)
{
	lock_saved = NULL;
	profil__spin_unlock(&holder);
	profil__real_sigmask(SIG_SETMASK, saved, NULL);
}

sigset_t *profil__lock_saved(void)
{
	return lock_saved;
}

void profil__lock_fork_child(void)
{
	atomic_store(&holder, 0);
}

const struct profil_engine *profil__running_engine(void)
{
	return atomic_load(&engine);
}

void profil__set_running_engine(const struct profil_engine *e)
{
	atomic_store(&engine, e);
}

bool profil__user_time_only(void)
{
	const struct profil_engine *e = atomic_load(&engine);
	return e && e->user_only && e->user_only();
}
