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
 *      into the thread's walk buffer, of a stack the thread is known to
 *      own, within the room the stack we run on has left (walk_room).  The
 *      accounting is account.c's.
 *   3. A signal that is not ours goes to the program's action for it
 *      (sigown.h), exactly once, as the kernel would have delivered it.
 *
 * Includes only lib/sig/, lib/arch/ and lib/internal.h (t-layers.sh):
 * nothing here calls up into the control code.
 */
#include "sample.h"

#include <sched.h>
#include <string.h>
#include <sys/auxv.h>
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

/*
 * The handler's stack budget (docs/signal-safety.md, "The handler's stack
 * budget").  Below the kernel's signal frame the handler itself uses at
 * most HANDLER_BUDGET bytes of the stack it runs on, walk and recording
 * included: the frames a walk finds and the direct path's copies are in the
 * thread's walk buffer (unwind.h, tslot.h), not on that stack.  A guarded
 * read that faults in a walk costs a second kernel frame and
 * profil__on_fault's below that, so a walk that may fault needs
 * HANDLER_BUDGET + the kernel's frame + FAULT_BUDGET; a bounded walk, which
 * cannot fault, needs HANDLER_BUDGET.  tests/engines/t-run-small-stacks.sh
 * measures the handler on painted stacks and holds it to the budget.
 */
#if defined(__SANITIZE_ADDRESS__)
/* AddressSanitizer's redzones make every frame several times larger. */
#define HANDLER_BUDGET 8192
#else
#define HANDLER_BUDGET 2048
#endif
#define FAULT_BUDGET 1024

/* The kernel's signal frame (AT_MINSIGSTKSZ: 3376 bytes on an AVX-512
 * machine, more with AMX), read in normal context by
 * profil__handler_init; until then a figure with room for AVX-512. */
static size_t kernel_frame = 4096;

void profil__handler_init(void)
{
	unsigned long k = getauxval(AT_MINSIGSTKSZ);
	if (k >= 1024 && k <= (1ul << 20))
		kernel_frame = k;
}

enum room { ROOM_NONE, ROOM_BOUNDED, ROOM_FULL, ROOM_OFF_STACK };

/*
 * Whether the handler may walk the interrupted stack, and how.
 *
 * A walk reads the interrupted stack, so it must be one the thread is known
 * to own: its stack (tslot.h: set for every thread started through our
 * start routine, and the one that loaded us) or its alternate signal stack
 * (which the kernel describes in uc_stack).  An interrupted stack pointer
 * anywhere else is a coroutine's (makecontext, a green thread, a stack the
 * program allocated): ROOM_OFF_STACK, the sample without a walk.  Such a
 * stack may be a few KiB with the kernel's frame already on it, and a walk
 * that faults there would push a second one (issue 19: 7 KiB makecontext
 * stacks crashed, 6 KiB malloc'd ones had memory below them overwritten).
 *
 * Then the room left on the stack the handler runs on (the alternate one,
 * or the thread's own) decides: enough for a walk that may fault, for a
 * bounded one (within the interrupted stack's bounds: cannot fault), or
 * for none.  A thread whose stack is unknown (made without our start
 * routine: raw clone, glibc's own helper threads) is walked as before: on
 * its own stack, the room is assumed.
 */
static enum room walk_room(const ucontext_t *uc, uintptr_t *lo, uintptr_t *hi)
{
	char here;
	uintptr_t sp = (uintptr_t)&here, isp = profil_uc_sp(uc);
	uintptr_t alt = (uintptr_t)uc->uc_stack.ss_sp, alt_size = uc->uc_stack.ss_size;
	bool has_alt = !(uc->uc_stack.ss_flags & SS_DISABLE);
	*lo = profil__tslot_stack_lo;
	*hi = profil__tslot_stack_hi;
	if (has_alt && isp - alt < alt_size) {
		/* Interrupted on its alternate stack (in a handler of its
		 * own): known, and where a bounded walk stays. */
		*lo = alt;
		*hi = alt + alt_size;
	} else if (*hi && (isp < *lo || isp >= *hi)) {
		return ROOM_OFF_STACK;
	}
	uintptr_t base;
	if (has_alt && sp - alt < alt_size)
		base = alt; /* SA_ONSTACK: we run on the alternate stack */
	else if (*hi && sp - *lo < *hi - *lo)
		base = *lo; /* on the interrupted stack, the thread's own */
	else
		return ROOM_FULL; /* unknown: assumed, as before */
	uintptr_t room = sp - base;
	if (room >= HANDLER_BUDGET + kernel_frame + FAULT_BUDGET)
		return ROOM_FULL;
	if (*hi && room >= HANDLER_BUDGET)
		return ROOM_BOUNDED;
	return ROOM_NONE;
}

/* Walk the interrupted stack into the thread's walk buffer and account the
 * signal with it; where the handler may not walk, with the pc alone: its
 * caller [unknown] off a known stack (what was not walked shows), no stack
 * at all where there is no room or no buffer, as before. */
static void account_walked(const ucontext_t *uc, uintptr_t pc, unsigned long sig_w,
			   unsigned long owed)
{
	struct profil_thread *t = profil__thread_self();
	uintptr_t lo, hi;
	enum room room = t && t->walk ? walk_room(uc, &lo, &hi) : ROOM_NONE;
	if (room == ROOM_OFF_STACK) {
		const uintptr_t two[2] = { pc, PCPROF_FRAME_UNKNOWN };
		account_signal(pc, two, 2, sig_w, owed);
	} else if (room == ROOM_NONE) {
		account_signal(pc, NULL, 0, sig_w, owed);
	} else {
		int depth = profil__unwind_into(uc, t->walk, PROFIL_STACK_MAX, room == ROOM_BOUNDED,
						lo, hi);
		account_signal(pc, t->walk->pcs, depth, sig_w, owed);
	}
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
		atomic_fetch_add(&walking, 1);
		/* Asking the kernel whether the guard is ours is an
		 * rt_sigaction, which a seccomp filter installed without libc
		 * may answer with death (seal.h): one prctl says first. */
		bool walk = due && profil__record_stacks() && !atomic_load(&closing) &&
			    !profil__filter_check(false) && profil__sig_guarding(SIGSEGV) &&
			    profil__sig_guarding(SIGBUS);
		if (walk)
			account_walked(uc, pc, sig_w, due - sig_w);
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
