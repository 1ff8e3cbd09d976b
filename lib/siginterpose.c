/*
 * siginterpose.c - the program's signal calls, interposed.
 *
 * Why: a program that sets a disposition for a signal the library holds
 * (SIG_DFL or SIG_IGN for every signal, as daemons and test harnesses do;
 * its own handler) would otherwise take the signal away: our samples would
 * then kill it or vanish.  And a program that blocks the sampling signal
 * would leave samples pending, for a sigwait or signalfd to consume.  So
 * every libc call that sets a disposition or a mask is defined here, and
 * goes through the program's view of held and reserved signals (sigown.h);
 * for every other signal it is exactly glibc's.
 *
 * Each function does what glibc 2.36's does, step by step, but on the
 * program's view: glibc's own versions call its internal __sigaction and
 * __sigprocmask, which we cannot interpose, so forwarding to them would
 * bypass the view.  The list is every exported glibc function that sets a
 * disposition or a mask, except the compatibility-only sigvec (no program
 * built since glibc 2.21 can call it) and __sigaction, which is our way
 * to the real thing.  Functions that change the mask only for the duration
 * of a wait (sigsuspend, sigpause, ppoll, pselect, epoll_pwait) are left
 * alone on purpose: docs/signal-safety.md says why.
 *
 * The waits that consume signals (sigwait, sigwaitinfo, sigtimedwait,
 * signalfd) never wait for a reserved signal.  They are raw system calls
 * with glibc 2.36's cancellation, asynchronous for the length of the call.
 *
 * All of this works the same in the shared library and in libprofil.a:
 * these are strong definitions, and glibc's sigaction, signal,
 * sigprocmask, pthread_sigmask and friends are weak in libc.a.
 */
#include <pthread.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>

#include "session.h"
#include "sig/sigown.h"

/* The signals siginterrupt() made interrupting, for signal() (glibc's
 * _sigintr, which its signal() reads and we cannot see). */
static _Atomic uint64_t interrupting;

static bool valid(int sig)
{
	return sig >= 1 && sig < NSIG;
}

/* ---- claims on the sampling signal ----
 *
 * A program that gives the library's sampling signal (or its spare) a
 * handler, blocks it by name, or waits for it, wants it for itself: the
 * library moves to another signal and gives it back before the call goes
 * on (session.c, profil__sig_give_back).  Setting SIG_DFL or SIG_IGN is no
 * claim (what programs that reset every signal do; the held signal
 * behaves as they set it), nor is a set that holds most real-time signals
 * (sigfillset, in threads that block everything, perhaps but a few):
 * neither says anything about this signal. */

static void claim(int sig)
{
	if (sig >= 1 && sig < NSIG && (profil__sig_movable() & PROFIL_SIGBIT(sig)))
		profil__sig_give_back(sig);
}

#define ALL_RT (~UINT64_C(0) << (SIGRTMIN - 1))

static void claim_set(const sigset_t *set)
{
	uint64_t mine = profil__sig_movable(), k;
	if (!mine || !set)
		return;
	/* Most real-time signals: a set of "everything" (but a few),
	 * which names none of them.  Counting it as a claim would retire
	 * the chosen signal and the spare at every such call, until none
	 * is left. */
	k = profil__kmask(set);
	if (__builtin_popcountll(k & ALL_RT) * 2 > SIGRTMAX - SIGRTMIN + 1)
		return;
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		if (k & mine & PROFIL_SIGBIT(sig))
			claim(sig);
}

static void claim_action(int sig, sighandler_t handler)
{
	if (handler != SIG_DFL && handler != SIG_IGN)
		claim(sig);
}

static void claim_mask(int how, const sigset_t *set)
{
	if (how == SIG_BLOCK || how == SIG_SETMASK)
		claim_set(set);
}

PROFIL_API int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (act)
		claim_action(sig, act->sa_handler);
	return (int)PROFIL_PUBLIC(profil__sig_program_action(sig, act, old));
}

/* ---- signal() and its variants ---- */

static sighandler_t set_handler(int sig, sighandler_t handler, int flags, bool self_mask)
{
	if (handler == SIG_ERR || !valid(sig)) {
		errno = EINVAL;
		return SIG_ERR;
	}
	struct sigaction act, old;
	claim_action(sig, handler);
	act.sa_handler = handler;
	sigemptyset(&act.sa_mask);
	if (self_mask)
		sigaddset(&act.sa_mask, sig);
	act.sa_flags = flags;
	if (PROFIL_PUBLIC(profil__sig_program_action(sig, &act, &old)) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

/* BSD semantics: the handler stays, the signal is blocked while it runs,
 * and system calls restart unless siginterrupt() said otherwise. */
PROFIL_API sighandler_t signal(int sig, sighandler_t handler)
{
	bool intr = valid(sig) && (atomic_load(&interrupting) & PROFIL_SIGBIT(sig));
	return set_handler(sig, handler, intr ? 0 : SA_RESTART, true);
}

PROFIL_API sighandler_t bsd_signal(int sig, sighandler_t handler)
{
	return signal(sig, handler);
}

PROFIL_API sighandler_t ssignal(int sig, sighandler_t handler)
{
	return signal(sig, handler);
}

/* System V semantics: one-shot, not blocked while it runs, interrupting. */
PROFIL_API sighandler_t sysv_signal(int sig, sighandler_t handler)
{
	return set_handler(sig, handler, SA_RESETHAND | SA_NODEFER, false);
}

/* What signal() becomes for programs compiled for strict X/Open. */
PROFIL_API sighandler_t __sysv_signal(int sig, sighandler_t handler)
{
	return sysv_signal(sig, handler);
}

PROFIL_API int sigignore(int sig)
{
	struct sigaction act;
	act.sa_handler = SIG_IGN;
	sigemptyset(&act.sa_mask);
	act.sa_flags = 0;
	return (int)PROFIL_PUBLIC(profil__sig_program_action(sig, &act, NULL));
}

PROFIL_API int siginterrupt(int sig, int interrupt)
{
	struct sigaction act;
	if (!valid(sig)) {
		errno = EINVAL;
		return -1;
	}
	if (PROFIL_PUBLIC(profil__sig_program_action(sig, NULL, &act)) < 0)
		return -1;
	if (interrupt) {
		atomic_fetch_or(&interrupting, PROFIL_SIGBIT(sig));
		act.sa_flags &= ~SA_RESTART;
	} else {
		atomic_fetch_and(&interrupting, ~PROFIL_SIGBIT(sig));
		act.sa_flags |= SA_RESTART;
	}
	return (int)PROFIL_PUBLIC(profil__sig_program_action(sig, &act, NULL));
}

/* ---- masks ---- */

PROFIL_API int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	claim_mask(how, set);
	return (int)PROFIL_PUBLIC(profil__sig_program_mask(how, set, old));
}

/* Returns the error instead of setting errno. */
PROFIL_API int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	int saved = errno;
	claim_mask(how, set);
	int r = profil__sig_program_mask(how, set, old);
	errno = saved;
	return -r;
}

static int one_signal(int how, int sig)
{
	sigset_t set;
	sigemptyset(&set);
	if (sigaddset(&set, sig) < 0)
		return -1;
	claim_mask(how, &set);
	return (int)PROFIL_PUBLIC(profil__sig_program_mask(how, &set, NULL));
}

PROFIL_API int sighold(int sig)
{
	return one_signal(SIG_BLOCK, sig);
}

PROFIL_API int sigrelse(int sig)
{
	return one_signal(SIG_UNBLOCK, sig);
}

/* SIG_HOLD blocks the signal; any other disposition is set and the signal
 * unblocked.  Returns SIG_HOLD if it was blocked, else the old handler.
 * (glibc checks only the signal number: even SIG_ERR is installed.) */
PROFIL_API sighandler_t sigset(int sig, sighandler_t disp)
{
	sigset_t set, was;
	sigemptyset(&set);
	if (sigaddset(&set, sig) < 0)
		return SIG_ERR;
	struct sigaction act, old;
	if (disp == SIG_HOLD)
		claim_mask(SIG_BLOCK, &set);
	else
		claim_action(sig, disp);
	if (disp == SIG_HOLD) {
		if (PROFIL_PUBLIC(profil__sig_program_mask(SIG_BLOCK, &set, &was)) < 0)
			return SIG_ERR;
		if (sigismember(&was, sig))
			return SIG_HOLD;
		if (PROFIL_PUBLIC(profil__sig_program_action(sig, NULL, &old)) < 0)
			return SIG_ERR;
		return old.sa_handler;
	}
	act.sa_handler = disp;
	sigemptyset(&act.sa_mask);
	act.sa_flags = 0;
	if (PROFIL_PUBLIC(profil__sig_program_action(sig, &act, &old)) < 0)
		return SIG_ERR;
	if (PROFIL_PUBLIC(profil__sig_program_mask(SIG_UNBLOCK, &set, &was)) < 0)
		return SIG_ERR;
	return sigismember(&was, sig) ? SIG_HOLD : old.sa_handler;
}

/* The BSD calls: signals 1 to 32 as bits 0 to 31 of an int. */
static int old_style(int how, int mask)
{
	sigset_t set, was;
	sigemptyset(&set);
	profil__kmask_put(&set, (uint32_t)mask);
	if (PROFIL_PUBLIC(profil__sig_program_mask(how, &set, &was)) < 0)
		return -1;
	return (int)(uint32_t)profil__kmask(&was);
}

PROFIL_API int sigblock(int mask)
{
	return old_style(SIG_BLOCK, mask);
}

PROFIL_API int sigsetmask(int mask)
{
	return old_style(SIG_SETMASK, mask);
}

PROFIL_API int siggetmask(void)
{
	return old_style(SIG_BLOCK, 0);
}

/* ---- waits that consume signals ---- */

static uint64_t without_reserved(const sigset_t *set)
{
	return profil__kmask(set) & ~profil__sig_reserved();
}

PROFIL_API int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
	claim_set(set);
	uint64_t k = without_reserved(set);
	int type;
	/* A cancellation point: a request made before the switch to
	 * asynchronous is acted on here, one made after interrupts the wait. */
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &type);
	pthread_testcancel();
	int r = (int)syscall(SYS_rt_sigtimedwait, &k, info, timeout, sizeof k);
	int e = errno;
	pthread_setcanceltype(type, NULL);
	errno = e;
	/* raise() uses tkill: glibc reports SI_TKILL as SI_USER. */
	if (r > 0 && info && info->si_code == SI_TKILL)
		info->si_code = SI_USER;
	return r;
}

PROFIL_API int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	return sigtimedwait(set, info, NULL);
}

/* Never fails with EINTR (POSIX does not list it); returns the error. */
PROFIL_API int sigwait(const sigset_t *set, int *sig)
{
	siginfo_t si;
	int r;
	do
		r = sigtimedwait(set, &si, NULL);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno;
	*sig = r;
	return 0;
}

PROFIL_API int signalfd(int fd, const sigset_t *mask, int flags)
{
	claim_set(mask);
	uint64_t k = without_reserved(mask);
	return (int)syscall(SYS_signalfd4, fd, &k, sizeof k, flags);
}
