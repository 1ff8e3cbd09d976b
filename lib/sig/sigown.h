/*
 * sig/sigown.h - the signals the library holds, and what the program sees
 * of them (sigown.c); the program's signal calls that go through it are in
 * siginterpose.c.  Layer L1, the AS-safe zone (rules: lib/sig/README): the
 * handler chains to the program's actions kept here; everything here is
 * glibc's __sigaction or raw system calls.  May include: lib/internal.h,
 * lib/sig/ (tests/abi/t-layers.sh).
 *
 * Held signals.  The library holds a signal while its handler must receive
 * every delivery of it: the sampling signal while an engine runs, SIGTRAP
 * for good once perf's sigtrap variant ran (engine.h, lingers), SIGSEGV and
 * SIGBUS while the fault guard is in.  While a signal is held, the
 * program's disposition calls never reach the kernel: what it sets becomes
 * "the program's action", the one every delivery that is not ours is
 * passed to (sig/handler.c), and what it gets back is that action.  Our handler
 * stays installed whatever the program does through libc.
 *
 * Reserved signals.  A signal the library samples with is also reserved,
 * from the first time it is used until the process image ends (an exec):
 * no thread ever really blocks it, so samples are never left pending and a
 * sigwait or signalfd on a full set cannot consume them.  Each thread's
 * mask as the program set it is kept in thread-local storage, and the
 * program's mask calls show and change that view.
 *
 * Rules for the rest of the library: never call sigaction, signal,
 * sigprocmask or pthread_sigmask to change anything -- those names are the
 * program's (they bind to our interposers) -- but the profil__real_* calls
 * below.  Reading the program's view with sigaction(sig, NULL, &sa) is
 * fine: that takes no lock.
 *
 * Lock.  Changes to held signals and to the program's actions are
 * serialised by one spin lock, taken with every signal blocked in the
 * calling thread (so no handler of ours can wait for it in that thread).
 * Order: the control lock (session.c), then this one; nothing waits for the
 * control lock while holding it.
 */
#ifndef PROFIL_SIGOWN_H
#define PROFIL_SIGOWN_H

#include <stdbool.h>
#include <string.h>

#include "../internal.h"

/* The kernel's signal mask: 64 bits, signal s is bit s - 1.  glibc's
 * sigset_t is longer; the kernel reads and writes only its first 8 bytes. */
#define PROFIL_SIGBIT(sig) (UINT64_C(1) << ((sig)-1))

static inline uint64_t profil__kmask(const sigset_t *set)
{
	uint64_t k;
	memcpy(&k, set, sizeof k);
	return k;
}

/* Write the kernel part of a mask, leaving the rest of *set alone (as the
 * kernel does with a glibc sigset_t).  AS-safe. */
static inline void profil__kmask_put(sigset_t *set, uint64_t k)
{
	memcpy(set, &k, sizeof k);
}

/* glibc's own sigaction (__sigaction), never our interposer.  Returns 0 or
 * -errno.  AS-safe. */
PROFIL_HIDDEN int profil__real_sigaction(int sig, const struct sigaction *act,
					 struct sigaction *old);

/* sig is held (profil__sig_take, not yet released) and the kernel has our
 * fault handler for it now: a program that installed its own with a raw
 * rt_sigaction after we took it would get our faults.  The handler asks
 * before a walk that needs the fault guard (a system call).  AS-safe. */
PROFIL_HIDDEN bool profil__sig_guarding(int sig);

/* Change the calling thread's real mask as pthread_sigmask does (glibc's
 * internal signals 32 and 33 are never blocked), bypassing the program's
 * view.  Returns 0 or -errno.  AS-safe. */
PROFIL_HIDDEN int profil__real_sigmask(int how, const sigset_t *set, sigset_t *old);

/* ---- the control path (session.c; control lock held) ---- */

/*
 * Hold sig with handler fn (SA_SIGINFO, SA_RESTART, SA_ONSTACK, every
 * asynchronous signal blocked while it runs): the disposition in place
 * becomes the program's action, and later changes through libc go there.
 * Already held: nothing changes.  Returns 0 or -errno.  Not AS-safe (the
 * control path that pcsample() reaches: AS-safe in practice, raw calls).
 */
PROFIL_HIDDEN int profil__sig_take(int sig, void (*fn)(int, siginfo_t *, void *));

/*
 * Stop holding sig: the program's action goes back to the kernel.  With
 * flush, the signal spends a moment at SIG_IGN first, which discards every
 * instance still pending in any thread (a late sample of ours must not meet
 * a restored SIG_DFL).  If our handler is no longer installed (the program
 * replaced it with a raw system call), the kernel's disposition is left as
 * it is.  Control lock held.
 */
PROFIL_HIDDEN void profil__sig_release(int sig, bool flush);

/*
 * The default sampling signal: chosen at the first call, then the same for
 * the life of the process image (forked children inherit it).  The highest
 * real-time signal the program has left alone (SIG_DFL, not blocked by the
 * caller, not pending) or, failing that, the least used one; it is reserved
 * at once.  caller: the calling thread's mask from before the control lock
 * blocked everything (its bit of the chosen signal moves into the thread's
 * view and is cleared there, so unlocking does not block it again); may be
 * NULL.  Control lock held.
 */
PROFIL_HIDDEN int profil__sig_choose(sigset_t *caller);

/* Reserve sig as a sampling signal (see the top of this file); caller as
 * for profil__sig_choose.  Control lock held. */
PROFIL_HIDDEN void profil__sig_reserve(int sig, sigset_t *caller);

/*
 * Moving off a signal the program claims (docs/signal-safety.md, "When the
 * program wants the sampling signal").  With the default choice comes a
 * spare: the next signal the program has not touched (SIG_DFL or SIG_IGN,
 * not blocked by the caller, not pending, never claimed), reserved at once
 * so that no thread blocks it in the kernel from then on.
 *
 * profil__sig_movable: the chosen signal and the spare, as a kernel mask
 * (what siginterpose.c watches for claims).  AS-safe.
 *
 * profil__sig_move: the program claimed sig (the chosen signal or the
 * spare): it is never chosen again; if it was the chosen one, the spare
 * (or, without one, a signal the program has left alone since) becomes
 * the chosen one and is returned (0 if there is none: from then on the
 * library has no sampling signal); a new spare is picked and reserved.
 * Returns the chosen signal after the move.  Does not touch
 * sig's reservation or hold.  Control lock held.
 *
 * profil__sig_unreserve: sig is no longer reserved: the program's mask
 * calls and waits reach the kernel for it again.  The caller's view of sig
 * goes into *caller (its real mask from before the control lock, which
 * profil__unlock puts back); other threads are set right by a fix-up
 * signal (profil__sig_fixup).  Control lock held.
 */
PROFIL_HIDDEN uint64_t profil__sig_movable(void);
PROFIL_HIDDEN int profil__sig_move(int sig, sigset_t *caller);
PROFIL_HIDDEN void profil__sig_unreserve(int sig, sigset_t *caller);

/* Around fork: the child must not inherit the lock held by a thread that
 * does not exist there.  Called by session.c's fork handlers, after the
 * control lock is taken and before it is released. */
PROFIL_HIDDEN void profil__sig_fork_prepare(void);
PROFIL_HIDDEN void profil__sig_fork_parent(void);
PROFIL_HIDDEN void profil__sig_fork_child(void);

/* ---- the signal handler (handler.c) ---- */

/* The program's action for held signal sig, a consistent copy; returns
 * its generation, for profil__sig_oneshot.  AS-safe. */
PROFIL_HIDDEN unsigned profil__sig_action(int sig, struct sigaction *out);

/* SA_RESETHAND: the program's action for sig becomes SIG_DFL (flags and
 * mask kept, as the kernel does), unless it changed since generation gen
 * was read: the kernel resets at delivery, so a change made meanwhile by
 * another thread comes after the reset and stays.  AS-safe; call with
 * every asynchronous signal blocked. */
PROFIL_HIDDEN void profil__sig_oneshot(int sig, unsigned gen);

/* A fix-up signal (profil__sig_unreserve) arrived: the calling thread's
 * view of the signals no longer reserved goes into the mask its handler
 * returns to (the signal frame's).  AS-safe. */
PROFIL_HIDDEN void profil__sig_fixup(sigset_t *interrupted);

/* The value a fix-up signal carries in si_value (SI_QUEUE, from this
 * process). */
PROFIL_HIDDEN extern const char profil__fixup_cookie[1];

/* Reserved sampling signals, as a kernel mask.  AS-safe. */
PROFIL_HIDDEN uint64_t profil__sig_reserved(void);

/* ---- the program's calls (siginterpose.c) ---- */

/* sigaction as the program sees it: for a held signal, read or replace the
 * program's action; otherwise glibc's.  Returns 0 or -errno.  AS-safe. */
PROFIL_HIDDEN int profil__sig_program_action(int sig, const struct sigaction *act,
					     struct sigaction *old);

/* pthread_sigmask as the program sees it: reserved signals are changed in
 * the thread's view only, never in its real mask.  Returns 0 or -errno.
 * AS-safe. */
PROFIL_HIDDEN int profil__sig_program_mask(int how, const sigset_t *set, sigset_t *old);

/* Turn the calling thread's real mask *mask into the program's view of it
 * (the reserved bits as the program last set them).  AS-safe. */
PROFIL_HIDDEN void profil__sig_view_mask(sigset_t *mask);

#endif
