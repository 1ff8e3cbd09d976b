/*
 * sig/sigown.c - holding signals without taking them from the program: the
 * program's actions for held signals, the choice of the sampling signal,
 * and each thread's view of its mask (contract: sigown.h; the reasons:
 * docs/signal-safety.md, "Signals the program owns").
 *
 * Everything here uses glibc's __sigaction (which fills in the sigreturn
 * trampoline the kernel needs) or raw system calls, and no allocation, so
 * the handler and pcsample()'s path may call it (layer L1, the AS-safe
 * zone: lib/sig/README).
 */
#include "sigown.h"

#include <limits.h>
#include <sched.h>
#include <sys/syscall.h>

#include "sample.h"

/* glibc's implementation behind sigaction: exported by libc.so.6 since
 * GLIBC_2.2.5 and a strong symbol in libc.a, so it is never our own
 * sigaction, whether the library is preloaded, linked or static. */
extern int __sigaction(int sig, const struct sigaction *act, struct sigaction *old);

#define NSIGS 65 /* signals 1..64 */

/* glibc's SIGCANCEL and SIGSETXID: pthread_sigmask never blocks them. */
#define GLIBC_INTERNAL (PROFIL_SIGBIT(32) | PROFIL_SIGBIT(33))
#define KILL_STOP      (PROFIL_SIGBIT(SIGKILL) | PROFIL_SIGBIT(SIGSTOP))

#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif
/* The flags the kernel keeps (since Linux 5.11 it clears the others, so a
 * program reads back exactly these); SA_EXPOSE_TAGBITS is 0x800. */
#define KERNEL_FLAGS                                                                               \
	(SA_NOCLDSTOP | SA_NOCLDWAIT | SA_SIGINFO | 0x800 | SA_ONSTACK | SA_RESTART |              \
	 SA_RESTORER | SA_NODEFER | SA_RESETHAND)

/*
 * The program's action for each held signal.  The handler reads it while
 * another thread may be changing it, so it is a sequence lock: the writer
 * (under `lock`) makes the generation odd, stores, makes it even; a reader
 * copies and retries until it saw the same even generation before and
 * after.  The words are copied with relaxed atomics: no torn word, no data
 * race for the tools.
 */
#define WORDS (sizeof(struct sigaction) / sizeof(uint64_t))
_Static_assert(sizeof(struct sigaction) % sizeof(uint64_t) == 0, "sigaction in words");

static uint64_t action[NSIGS][WORDS];
static _Atomic unsigned gen[NSIGS];
static _Atomic bool held[NSIGS];
/* Its holder (internal.h, profil__spin_lock): a thread that the program's
 * own filter kills in its rt_sigaction must not leave it held. */
static _Atomic pid_t lock;
static uint64_t fork_saved;

/* glibc's sigreturn trampoline, as the kernel holds it for our handler:
 * the program's actions get it too, so that they read back as glibc's
 * sigaction would return them. */
static void (*restorer)(void);

const char profil__fixup_cookie[1];

static _Atomic uint64_t reserved;
static _Atomic int chosen, spare;
/* Signals the program claimed (profil__sig_move): never chosen again. */
static _Atomic uint64_t claimed;
/* The program claimed every free real-time signal: no sampling signal. */
static _Atomic bool none_left;
/* Signals that were reserved and are not any more: a thread whose view of
 * one is `known` puts it into its real mask at its next mask call or
 * fix-up signal, whichever comes first (catch_up, profil__sig_fixup). */
static _Atomic uint64_t retired;

/* Each thread's view of its reserved bits: `view` holds them for the bits
 * in `known`; a reserved bit not yet known is taken from the real mask
 * (the thread has not called a mask function since the signal became
 * reserved, so the kernel still has what it set).  Initial-exec TLS is a
 * fixed offset from the thread pointer: safe in a signal handler. */
static __thread uint64_t view __attribute__((tls_model("initial-exec")));
static __thread uint64_t known __attribute__((tls_model("initial-exec")));

/* ---- raw calls ---- */

static int sys_mask(int how, const uint64_t *set, uint64_t *old)
{
	if (syscall(SYS_rt_sigprocmask, how, set, old, sizeof(uint64_t)) < 0)
		return -errno;
	return 0;
}

int profil__real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	return __sigaction(sig, act, old) < 0 ? -errno : 0;
}

int profil__real_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	uint64_t k, o;
	if (set) {
		k = profil__kmask(set);
		if (how != SIG_UNBLOCK)
			k &= ~GLIBC_INTERNAL;
	}
	int r = sys_mask(how, set ? &k : NULL, old ? &o : NULL);
	if (r == 0 && old)
		profil__kmask_put(old, o);
	return r;
}

/* ---- the lock ---- */

/* A holder found dead had only this file's state in hand, which is
 * consistent at every system call: the lock is simply taken over. */
static void lock_all(uint64_t *saved)
{
	uint64_t all = ~UINT64_C(0);
	sys_mask(SIG_BLOCK, &all, saved);
	profil__spin_lock(&lock);
}

static void unlock_all(const uint64_t *saved)
{
	profil__spin_unlock(&lock);
	sys_mask(SIG_SETMASK, saved, NULL);
}

void profil__sig_fork_prepare(void)
{
	lock_all(&fork_saved);
}

void profil__sig_fork_parent(void)
{
	unlock_all(&fork_saved);
}

void profil__sig_fork_child(void)
{
	unlock_all(&fork_saved);
}

/* ---- the program's actions ---- */

static bool is_ours(const struct sigaction *sa)
{
	return (sa->sa_flags & SA_SIGINFO) &&
	       (sa->sa_sigaction == profil__on_signal || sa->sa_sigaction == profil__on_fault);
}

static void store(int sig, const struct sigaction *sa)
{
	uint64_t w[WORDS];
	memcpy(w, sa, sizeof w);
	unsigned g = atomic_load_explicit(&gen[sig], memory_order_relaxed);
	atomic_store_explicit(&gen[sig], g + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	for (size_t i = 0; i < WORDS; i++)
		__atomic_store_n(&action[sig][i], w[i], __ATOMIC_RELAXED);
	atomic_store_explicit(&gen[sig], g + 2, memory_order_release);
}

unsigned profil__sig_action(int sig, struct sigaction *out)
{
	uint64_t w[WORDS];
	unsigned g;
	for (;;) {
		g = atomic_load_explicit(&gen[sig], memory_order_acquire);
		if (g & 1) {
			sched_yield(); /* a writer in another thread */
			continue;
		}
		for (size_t i = 0; i < WORDS; i++)
			w[i] = __atomic_load_n(&action[sig][i], __ATOMIC_RELAXED);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&gen[sig], memory_order_relaxed) == g)
			break;
	}
	memcpy(out, w, sizeof w);
	return g;
}

void profil__sig_oneshot(int sig, unsigned g)
{
	uint64_t saved;
	lock_all(&saved);
	struct sigaction sa;
	if (atomic_load(&held[sig]) && profil__sig_action(sig, &sa) == g) {
		sa.sa_handler = SIG_DFL;
		store(sig, &sa);
	}
	unlock_all(&saved);
}

/* What the kernel would hold after the program set act: known flags only,
 * glibc's trampoline, no SIGKILL or SIGSTOP in the mask, and a mask beyond
 * the kernel's 64 bits that reads back as zeros. */
static void as_kernel_keeps(const struct sigaction *act, struct sigaction *out)
{
	memset(out, 0, sizeof *out);
	out->sa_handler = act->sa_handler;
	out->sa_flags = (act->sa_flags | SA_RESTORER) & KERNEL_FLAGS;
	out->sa_restorer = restorer;
	profil__kmask_put(&out->sa_mask, profil__kmask(&act->sa_mask) & ~KILL_STOP);
}

int profil__sig_program_action(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (sig <= 0 || sig >= NSIGS)
		return profil__real_sigaction(sig, act, old); /* its EINVAL */
	if (!act) {
		/* A read needs no lock: held is set after the action is
		 * stored and before our handler goes in, and cleared after the
		 * kernel has the program's action back.  So a kernel action
		 * that is ours means held, even if held was not yet set when
		 * looked at. */
		struct sigaction cur;
		if (!atomic_load(&held[sig])) {
			int r = profil__real_sigaction(sig, NULL, &cur);
			if (r < 0 || !is_ours(&cur) || !atomic_load(&held[sig])) {
				if (r == 0 && old)
					*old = cur;
				return r;
			}
		}
		if (old)
			profil__sig_action(sig, old);
		return 0;
	}
	/* The program's memory is read and written outside the lock, where
	 * every signal is blocked: a bad pointer must fault into the program's
	 * own SIGSEGV handling, not a forced kill. */
	struct sigaction given = *act, was, now;
	as_kernel_keeps(&given, &now);
	/* Sealed, the library takes no signal any more: a signal it does not
	 * hold is the program's call alone, which its own filter may refuse,
	 * and nothing of ours is held across it. */
	if (profil__sealed() && !atomic_load(&held[sig])) {
		int r = profil__real_sigaction(sig, &given, &was);
		if (r == 0 && old)
			*old = was;
		return r;
	}
	uint64_t saved;
	int r = 0;
	lock_all(&saved);
	if (atomic_load(&held[sig])) {
		profil__sig_action(sig, &was);
		store(sig, &now);
	} else {
		r = profil__real_sigaction(sig, &given, &was);
	}
	unlock_all(&saved);
	if (r == 0 && old)
		*old = was;
	return r;
}

/* ---- holding ---- */

bool profil__sig_guarding(int sig)
{
	struct sigaction cur;
	return sig > 0 && sig < NSIGS && atomic_load(&held[sig]) &&
	       profil__real_sigaction(sig, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
	       cur.sa_sigaction == profil__on_fault;
}

int profil__sig_take(int sig, void (*fn)(int, siginfo_t *, void *))
{
	uint64_t saved;
	int r = 0;
	lock_all(&saved);
	if (atomic_load(&held[sig]))
		goto out;
	struct sigaction cur, sa;
	if ((r = profil__real_sigaction(sig, NULL, &cur)) < 0)
		goto out;
	if (is_ours(&cur)) {
		/* Not held but ours: nothing says what the program had. */
		memset(&cur, 0, sizeof cur);
		cur.sa_handler = SIG_DFL;
	}
	store(sig, &cur);
	/* Held before our handler is in: from here on the program's calls
	 * see and change the stored action, never the kernel's. */
	atomic_store(&held[sig], true);
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigfillset(&sa.sa_mask);
	/* A fault inside the handler (a counter buffer unmapped under us)
	 * must reach profil__on_fault, so synchronous signals stay unblocked. */
	sigdelset(&sa.sa_mask, SIGSEGV);
	sigdelset(&sa.sa_mask, SIGBUS);
	sigdelset(&sa.sa_mask, SIGILL);
	sigdelset(&sa.sa_mask, SIGFPE);
	if ((r = profil__real_sigaction(sig, &sa, NULL)) < 0) {
		atomic_store(&held[sig], false);
		goto out;
	}
	if (!restorer && profil__real_sigaction(sig, NULL, &sa) == 0 && (sa.sa_flags & SA_RESTORER))
		restorer = sa.sa_restorer;
out:
	unlock_all(&saved);
	return r;
}

void profil__sig_release(int sig, bool flush)
{
	uint64_t saved;
	lock_all(&saved);
	struct sigaction cur, prog;
	if (atomic_load(&held[sig]) && profil__real_sigaction(sig, NULL, &cur) == 0 &&
	    is_ours(&cur)) {
		if (flush) {
			struct sigaction ign;
			memset(&ign, 0, sizeof ign);
			ign.sa_handler = SIG_IGN;
			profil__real_sigaction(sig, &ign, NULL);
		}
		profil__sig_action(sig, &prog);
		profil__real_sigaction(sig, &prog, NULL);
	}
	atomic_store(&held[sig], false);
	unlock_all(&saved);
}

/* ---- reserved signals and masks ---- */

uint64_t profil__sig_reserved(void)
{
	return atomic_load_explicit(&reserved, memory_order_acquire);
}

void profil__sig_reserve(int sig, sigset_t *caller)
{
	uint64_t bit = PROFIL_SIGBIT(sig);
	if (profil__sig_reserved() & bit)
		return;
	if (caller) {
		uint64_t k = profil__kmask(caller);
		view = (view & ~bit) | (k & bit);
		known |= bit;
		profil__kmask_put(caller, k & ~bit);
	}
	atomic_fetch_or(&reserved, bit);
}

/* Rank of a candidate sampling signal, lower is better: left alone, then
 * ignored, then blocked or pending at SIG_DFL (perhaps waited for with
 * sigwait), then blocked and ignored (on Linux a blocked signal is queued
 * even when ignored), then with a handler. */
static int rank(int sig, uint64_t busy)
{
	struct sigaction sa;
	if (profil__real_sigaction(sig, NULL, &sa) < 0)
		return INT_MAX;
	bool blocked = busy & PROFIL_SIGBIT(sig);
	if (sa.sa_handler == SIG_DFL)
		return blocked ? 2 : 0;
	if (sa.sa_handler == SIG_IGN)
		return blocked ? 3 : 1;
	return 4;
}

/* Rank at most worst: for the spare and for a move, only a signal the
 * program has not touched (left alone or ignored) will do. */
#define UNTOUCHED 1

/* The best real-time signal by rank, the highest within a rank, leaving
 * out `skip` and every signal the program claimed; 0 if none ranks at most
 * worst. */
static int pick(const sigset_t *caller, uint64_t skip, int worst)
{
	uint64_t busy = caller ? profil__kmask(caller) : 0, pending = 0;
	if (syscall(SYS_rt_sigpending, &pending, sizeof pending) == 0)
		busy |= pending;
	skip |= atomic_load(&claimed);
	int best = 0, best_rank = INT_MAX;
	for (int sig = SIGRTMAX; sig >= SIGRTMIN && best_rank > 0; sig--) {
		if (skip & PROFIL_SIGBIT(sig))
			continue;
		int r = rank(sig, busy);
		if (r < best_rank && r <= worst) {
			best = sig;
			best_rank = r;
		}
	}
	return best;
}

/* A spare, reserved at once, so that threads that block everything from
 * now on leave it unblocked for a move (see profil__sig_move). */
static void pick_spare(sigset_t *caller, int in_use)
{
	int s = pick(caller, in_use ? PROFIL_SIGBIT(in_use) : 0, UNTOUCHED);
	if (s)
		profil__sig_reserve(s, caller);
	atomic_store(&spare, s);
}

int profil__sig_choose(sigset_t *caller)
{
	int best = atomic_load(&chosen);
	if (best || atomic_load(&none_left))
		return best;
	if (!(best = pick(caller, 0, INT_MAX)))
		best = SIGRTMAX;
	profil__sig_reserve(best, caller);
	atomic_store(&chosen, best);
	pick_spare(caller, best);
	return best;
}

uint64_t profil__sig_movable(void)
{
	int c = atomic_load_explicit(&chosen, memory_order_relaxed);
	int s = atomic_load_explicit(&spare, memory_order_relaxed);
	return (c ? PROFIL_SIGBIT(c) : 0) | (s ? PROFIL_SIGBIT(s) : 0);
}

int profil__sig_move(int sig, sigset_t *caller)
{
	uint64_t bit = PROFIL_SIGBIT(sig);
	atomic_fetch_or(&claimed, bit);
	int c = atomic_load(&chosen), s = atomic_load(&spare), to = c;
	if (sig == c) {
		/* No spare was free when it was picked: one may be now (not
		 * reserved ahead, so threads may block it in the kernel). */
		if (!(to = s) && (to = pick(caller, 0, UNTOUCHED)))
			profil__sig_reserve(to, caller);
		atomic_store(&chosen, to);
		if (!to)
			atomic_store(&none_left, true);
		pick_spare(caller, to);
	} else if (sig == s) {
		pick_spare(caller, c);
	}
	return to;
}

void profil__sig_unreserve(int sig, sigset_t *caller)
{
	uint64_t bit = PROFIL_SIGBIT(sig);
	atomic_fetch_or(&retired, bit);
	if (!(atomic_fetch_and(&reserved, ~bit) & bit) || !caller)
		return;
	/* The caller's real mask takes the bit its view has: its next
	 * profil__unlock installs it. */
	if (known & bit) {
		uint64_t k = profil__kmask(caller);
		profil__kmask_put(caller, (k & ~bit) | (view & bit));
		known &= ~bit;
	}
}

/* The thread's view of retired signals, into the mask m (a kernel mask). */
static uint64_t with_retired(uint64_t m, uint64_t r)
{
	return (m & ~r) | (view & r);
}

/* Put the calling thread's view of retired signals into its real mask. */
static void catch_up(void)
{
	uint64_t r = atomic_load_explicit(&retired, memory_order_relaxed) & known;
	if (!r)
		return;
	uint64_t b = view & r, u = r & ~view;
	if (b)
		sys_mask(SIG_BLOCK, &b, NULL);
	if (u)
		sys_mask(SIG_UNBLOCK, &u, NULL);
	known &= ~r;
}

void profil__sig_fixup(sigset_t *interrupted)
{
	uint64_t r = atomic_load_explicit(&retired, memory_order_relaxed) & known;
	profil__kmask_put(interrupted, with_retired(profil__kmask(interrupted), r));
	known &= ~r;
}

int profil__sig_program_mask(int how, const sigset_t *set, sigset_t *old)
{
	if (set && how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK)
		return -EINVAL;
	catch_up();
	uint64_t res = profil__sig_reserved();
	if (!res)
		return profil__real_sigmask(how, set, old);

	/* One system call does the change without the reserved bits (with
	 * pthread_sigmask's rule for glibc's signals) and returns the real
	 * mask from before it. */
	uint64_t k = set ? profil__kmask(set) : 0, real = k & ~res, was;
	if (how != SIG_UNBLOCK)
		real &= ~GLIBC_INTERNAL;
	int r = sys_mask(how, set ? &real : NULL, &was);
	if (r < 0)
		return r;
	uint64_t unknown = res & ~known;
	uint64_t before = (was & ~res) | (view & res & known) | (was & unknown);
	if (set) {
		uint64_t v = before & res;
		if (how == SIG_BLOCK)
			v |= k & res;
		else if (how == SIG_UNBLOCK)
			v &= ~k;
		else
			v = k & res;
		view = v;
		known |= res;
		/* A reserved signal this thread blocked before it was
		 * reserved: a relative change left it blocked. */
		uint64_t stale = was & unknown;
		if (stale && how != SIG_SETMASK)
			sys_mask(SIG_UNBLOCK, &stale, NULL);
	}
	if (old)
		profil__kmask_put(old, before);
	return 0;
}

void profil__sig_view_mask(sigset_t *mask)
{
	uint64_t r = atomic_load_explicit(&retired, memory_order_relaxed) & known;
	uint64_t res = profil__sig_reserved(), k = with_retired(profil__kmask(mask), r);
	uint64_t unknown = res & ~known;
	profil__kmask_put(mask, (k & ~res) | (view & res & known) | (k & unknown));
}
