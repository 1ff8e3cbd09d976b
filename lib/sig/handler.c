/*
 * sig/handler.c - the profiling signal handler and the fault guard (layer
 * L1, the AS-safe zone: the rules are in lib/sig/README, the reasons in
 * docs/signal-safety.md).
 *
 *   1. errno is saved on entry and restored on exit of each handler.
 *   2. Whether a delivery is ours is asked of the classifiers the control
 *      code published (accept.h); the ticks it pays come from the thread's
 *      schedule (tslot.h); its stack from the walker (unwind.h), only for a
 *      recording with stacks: one walk of at most PROFIL_STACK_MAX frames
 *      within the room the stack we run on has left.  The accounting is
 *      account.c's.
 *   3. A signal that is not ours goes to the program's action for it
 *      (sigown.h), exactly once, as the kernel would have delivered it.
 *
 * Includes only lib/sig/, lib/arch/ and lib/internal.h (t-layers.sh):
 * nothing here calls up into the control code.
 */
#include "sample.h"

#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>

#include "../arch/guard.h"
#include "accept.h"
#include "seal.h"
#include "sigown.h"
#include "sink.h"
#include "tslot.h"
#include "unwind.h"

/* The default action of sig, as if we were not here.  Every signal we hold
 * terminates by default, so: put SIG_DFL back and raise it again for this
 * thread; it is delivered when the handler returns and the mask is
 * restored.  A fault the kernel raised needs no raise: returning runs the
 * faulting instruction again, under SIG_DFL. */
static void default_action(int sig, const siginfo_t *si)
{
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	profil__real_sigaction(sig, &dfl, NULL);
	if (!(si->si_code > 0 && (sig == SIGSEGV || sig == SIGBUS)))
		syscall(SYS_tgkill, getpid(), profil__gettid(), sig);
}

/*
 * Give a delivery that is not ours to the program's action for sig, once,
 * as the kernel would have: ignored, default, or its handler called with
 * errno as the interrupted code left it and the mask the kernel would have
 * set (the interrupted mask, the action's sa_mask, sig itself unless
 * SA_NODEFER), SA_RESETHAND applied first.  The one difference: the
 * sampling signals stay unblocked, so the handler is still profiled.
 */
static void chain(int sig, siginfo_t *si, void *uc, int saved_errno)
{
	struct sigaction act;
	unsigned gen = profil__sig_action(sig, &act);
	/* A signal the kernel forces (a fault, a trap) cannot be ignored: it
	 * resets the action to SIG_DFL and kills the process instead. */
	bool forced = si->si_code > 0 && (sig == SIGSEGV || sig == SIGBUS || sig == SIGTRAP);

	if (act.sa_handler == SIG_IGN && !forced) {
		errno = saved_errno;
		return;
	}
	if (act.sa_handler == SIG_DFL || act.sa_handler == SIG_IGN) {
		default_action(sig, si);
		errno = saved_errno;
		return;
	}
	if (act.sa_flags & SA_RESETHAND)
		profil__sig_oneshot(sig, gen);
	uint64_t mask =
		profil__kmask(&((ucontext_t *)uc)->uc_sigmask) | profil__kmask(&act.sa_mask);
	mask &= ~profil__sig_reserved();
	if (!(act.sa_flags & SA_NODEFER))
		mask |= PROFIL_SIGBIT(sig);
	uint64_t ours;
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &mask, &ours, sizeof mask);
	errno = saved_errno;
	if (act.sa_flags & SA_SIGINFO)
		act.sa_sigaction(sig, si, uc);
	else
		act.sa_handler(sig);
	/* The handler may have changed errno on purpose: it stays. */
	int e = errno;
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &ours, NULL, sizeof ours);
	errno = e;
}

/* What a signal brings: sig_w ticks of the engine's own, and `owed` more
 * that this thread was due (see profil__on_signal), all at pc with the
 * signal's stack (NULL: none). */
static void account_signal(uintptr_t pc, const uintptr_t *stack, int depth, unsigned long sig_w,
			   unsigned long owed)
{
	/* A late signal of ours (already generated when profiling stopped)
	 * finds no configuration and is simply dropped. */
	if (sig_w)
		profil__sample(pc, stack, depth, sig_w, PROFIL_FROM_SIGNAL);
	if (owed)
		profil__sample_owed(NULL, profil__gettid(), pc, stack, depth, owed);
}

/* Bytes of the stack we run on kept for what runs below the frame array:
 * the walker and the recorder (about 2 KiB, gcc -fstack-usage) and the
 * frame the kernel pushes if a guarded read in the walk faults
 * (AT_MINSIGSTKSZ: 3376 bytes on an AVX-512 machine, more with AMX). */
#define STACK_KEEP 8192

/* The same for a bounded walk, which cannot fault and never takes the
 * direct path (unwind.h): the walker and the recorder without it measured
 * 1.3 KiB (gcc -fstack-usage, x86-64, -O2), kept with room to spare. */
#if defined(__SANITIZE_ADDRESS__)
/* AddressSanitizer's redzones make every frame several times larger: the
 * ASan build keeps to walks that have room for a fault, as before. */
#define STACK_KEEP_BOUNDED STACK_KEEP
#else
#define STACK_KEEP_BOUNDED 2048
#endif

/*
 * How many frames the walk may keep, given the room left on the stack the
 * handler runs on, and whether it must be a bounded one.  Our action has
 * SA_ONSTACK, so in a thread with an alternate signal stack we run on
 * that, which may be small with the kernel's frame already on it.  The
 * kernel saves the alternate stack's settings in uc_stack.  A thread's own
 * stack is assumed to have room for PROFIL_STACK_MAX frames (2 KiB).
 *
 * Rust gives every thread an alternate stack of SIGSTKSZ (8 KiB), which
 * the kernel's frame fills to less than STACK_KEEP: there the walk is a
 * bounded one, within the thread's stack bounds (tslot.h), that needs no
 * room for a fault.  Below even that, or on a thread whose bounds are
 * unknown, the sample has no stack (0).
 */
static int frames_room(const ucontext_t *uc, bool *bounded)
{
	char here;
	uintptr_t sp = (uintptr_t)&here, lo = (uintptr_t)uc->uc_stack.ss_sp;
	*bounded = false;
	if ((uc->uc_stack.ss_flags & SS_DISABLE) || sp < lo || sp - lo >= uc->uc_stack.ss_size)
		return PROFIL_STACK_MAX;
	uintptr_t room = sp - lo, keep = STACK_KEEP;
	if (room < STACK_KEEP + 8 * sizeof(uintptr_t)) {
		if (!profil__tslot_stack_hi)
			return 0;
		*bounded = true;
		keep = STACK_KEEP_BOUNDED;
		if (room < keep + 8 * sizeof(uintptr_t))
			return 0;
	}
	room = (room - keep) / sizeof(uintptr_t);
	return room < PROFIL_STACK_MAX ? (int)room : PROFIL_STACK_MAX;
}

/* Walk the interrupted stack and account the signal with it.  Its own
 * function, so that the array is on the stack only when there is room. */
static __attribute__((noinline)) void account_with_stack(const void *uc, uintptr_t pc, int max,
							 bool bounded, unsigned long sig_w,
							 unsigned long owed)
{
	uintptr_t pcs[max];
	int depth = bounded ? profil__unwind_bounded(uc, pcs, max, profil__tslot_stack_lo,
						     profil__tslot_stack_hi)
			    : profil__unwind(uc, pcs, max);
	account_signal(pc, pcs, depth, sig_w, owed);
}

/* Handlers between their guard check and the end of their walk, and
 * whether the guard is being given back: profil__walks_close raises
 * `closing`, then waits for `walking` to drain, so that no walk begun
 * with the guard faults after it (both sequentially consistent: each side
 * stores, then reads the other's). */
static _Atomic unsigned walking;
static _Atomic bool closing;

void profil__walks_close(void)
{
	atomic_store(&closing, true);
	while (atomic_load(&walking))
		sched_yield();
}

void profil__walks_open(void)
{
	atomic_store(&closing, false);
}

void profil__walks_fork_child(void)
{
	atomic_store(&walking, 0);
}

void profil__on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	unsigned long weight;

	if (si->si_code == SI_QUEUE && si->si_value.sival_ptr == (void *)profil__fixup_cookie &&
	    si->si_pid == getpid()) {
		/* The sampling signal moved (session.c): this thread's view
		 * of the one it left becomes real when the handler returns. */
		profil__sig_fixup(&((ucontext_t *)uc)->uc_sigmask);
		errno = saved_errno;
		return;
	}
	if (profil__accept(sig, si, &weight)) {
		/* Sealed (a seccomp filter, internal.h): a timer or event
		 * still armed from before it is dropped, since counting it
		 * takes system calls (the thread's CPU clock, its name). */
		if (profil__sealed()) {
			errno = saved_errno;
			return;
		}
		uintptr_t pc = profil_uc_pc(uc);
		/* The signal says "now" for the receiving thread, which is due
		 * what its own schedule (sig/tslot.c) has reached: usually the
		 * engine's count, more when the kernel folded or dropped
		 * expiries (perf while a SIGTRAP is pending, a long system
		 * call), any share of a process-wide signal, or nothing (a late
		 * signal of a tick already paid).  What the engine did not
		 * count itself is an estimate, like an owed tick. */
		unsigned long due = profil__tslot_signal(pc, weight);
		unsigned long sig_w = due < weight ? due : weight;
		/* Only a recording keeps stacks: profil() and its kind pay for
		 * no walk.  The walk reads wherever the frames point, so it
		 * needs the fault guard (session.c holds SIGSEGV and SIGBUS
		 * while anything samples); without it the sample is flat.  The
		 * ticks this signal pays, owed ones included, are its stack's. */
		bool bounded = false;
		atomic_fetch_add(&walking, 1);
		/* Asking the kernel whether the guard is ours is an
		 * rt_sigaction, which a seccomp filter installed without libc
		 * may answer with death (seal.h): one prctl says first. */
		bool walk = due && profil__record_stacks() && !atomic_load(&closing) &&
			    !profil__filter_check(false) && profil__sig_guarding(SIGSEGV) &&
			    profil__sig_guarding(SIGBUS);
		int max = walk ? frames_room(uc, &bounded) : 0;
		if (max)
			account_with_stack(uc, pc, max, bounded, sig_w, due - sig_w);
		else
			account_signal(pc, NULL, 0, sig_w, due - sig_w);
		atomic_fetch_sub(&walking, 1);
		errno = saved_errno;
	} else {
		chain(sig, si, uc, saved_errno);
	}
}

void profil__on_fault(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
#if PROFIL_HAVE_GUARD
	uintptr_t pc = profil_uc_pc(uc);
	if (pc >= (uintptr_t)profil__guard_begin && pc < (uintptr_t)profil__guard_end) {
		profil_uc_set_pc(uc, (uintptr_t)profil__guard_fixup);
		errno = saved_errno;
		return;
	}
#endif
	chain(sig, si, uc, saved_errno);
}
