/*
 * ctl.c - the control core (ctl.h): the lock every control path takes, and
 * the running engine, which session.c sets and the rest of the control
 * plane reads.  Kept apart from session.c so that threads.c, record.c and
 * exec.c, which session.c calls, need nothing of session.c in return.
 */
#include "ctl.h"

#include <sched.h>
#include <stdatomic.h>

#include "sig/sigown.h"

_Atomic uint32_t profil__start_seq;

static atomic_flag lock = ATOMIC_FLAG_INIT;
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

void profil__lock(sigset_t *saved)
{
	profil__block_async(saved);
	while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
		sched_yield();
	lock_saved = saved;
}

bool profil__trylock(sigset_t *saved)
{
	profil__block_async(saved);
	if (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire)) {
		profil__real_sigmask(SIG_SETMASK, saved, NULL);
		return false;
	}
	lock_saved = saved;
	return true;
}

void profil__unlock(const sigset_t *saved)
{
	lock_saved = NULL;
	atomic_flag_clear_explicit(&lock, memory_order_release);
	profil__real_sigmask(SIG_SETMASK, saved, NULL);
}

sigset_t *profil__lock_saved(void)
{
	return lock_saved;
}

void profil__lock_fork_child(void)
{
	atomic_flag_clear(&lock);
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
