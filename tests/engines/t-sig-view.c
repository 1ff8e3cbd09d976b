/*
 * The program's view of a signal the library holds is what the kernel
 * would give it.  Profiling runs, so the library holds its sampling signal
 * H, forced with PROFIL_SIGNAL (the default one the library would give
 * back at the script's first handler or block: t-rt-owner); the same script of disposition and mask calls (sigaction, signal,
 * siginterrupt, sysv_signal, sigset with SIG_HOLD, sigignore, sighold,
 * sigrelse, sigprocmask with each `how` and an invalid one) runs on H
 * through the program's functions (the library's), and on a signal R the
 * library does not hold through glibc's own functions (looked up in
 * libc.so.6): every return value, errno, and every action and mask read
 * back must be the same.  Meanwhile the kernel keeps the library's handler
 * for H, and never blocks H.
 *
 * Deliveries that are not the library's (sigqueue) reach the program's
 * action as the kernel delivers R: a handler runs once, with its si_code
 * and value, errno as the interrupted code had it, the interrupted mask
 * plus its sa_mask plus the signal itself (not with SA_NODEFER); errno it
 * sets stays; SA_RESETHAND resets the action to SIG_DFL; SIG_IGN drops the
 * signal; SIG_DFL kills (a child) with the signal.
 *
 * Masks: a thread inherits its creator's view; a thread that blocked H
 * before H became the sampling signal really unblocks it at its next mask
 * call while its view keeps it blocked; sigtimedwait on a full set never
 * returns H while profiling runs beside it (the process-timer engine can
 * aim its signal at the waiting thread), a signalfd never lists H, and
 * sigwait stays a cancellation point.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "helpers/tprof.h"

/* ---- the calls, from the library (the program's) or from glibc ---- */

struct calls {
	int (*sigaction)(int, const struct sigaction *, struct sigaction *);
	sighandler_t (*signal)(int, sighandler_t);
	sighandler_t (*sysv_signal)(int, sighandler_t);
	sighandler_t (*sigset)(int, sighandler_t);
	int (*sigignore)(int);
	int (*siginterrupt)(int, int);
	int (*sigprocmask)(int, const sigset_t *, sigset_t *);
	int (*sighold)(int);
	int (*sigrelse)(int);
};

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static const struct calls ours = {
	sigaction, signal, sysv_signal, sigset, sigignore, siginterrupt, sigprocmask, sighold, sigrelse,
};

static struct calls glibc(void)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	T_OK(libc != NULL);
	struct calls c;
#define LOOK(name) T_OK((*(void **)&c.name = dlsym(libc, #name)) != NULL)
	LOOK(sigaction);
	LOOK(signal);
	LOOK(sysv_signal);
	LOOK(sigset);
	LOOK(sigignore);
	LOOK(siginterrupt);
	LOOK(sigprocmask);
	LOOK(sighold);
	LOOK(sigrelse);
#undef LOOK
	T_OK(c.sigaction != ours.sigaction);
	return c;
}

/* ---- the script and its log ---- */

struct log {
	char text[8192];
	size_t len;
};

static void note(struct log *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	l->len += vsnprintf(l->text + l->len, sizeof l->text - l->len, fmt, ap);
	va_end(ap);
	T_OK(l->len < sizeof l->text);
}

static void h1(int sig)
{
	(void)sig;
}

static void h2(int sig)
{
	(void)sig;
}

static const char *fn_name(void *p)
{
	return p == SIG_DFL ? "DFL" : p == SIG_IGN ? "IGN" : p == (void *)h1 ? "h1" : p == (void *)h2 ? "h2" : p == SIG_ERR ? "ERR" : p == (void *)SIG_HOLD ? "HOLD" : "?";
}

static uint64_t kmask_of(const sigset_t *set)
{
	uint64_t k;
	memcpy(&k, set, sizeof k);
	return k;
}

/* Masks are logged with the script's signal as "z", so that two signals'
 * logs compare. */
static unsigned long long portable(uint64_t k, int z)
{
	unsigned long long zbit = (k >> (z - 1)) & 1;
	return (k & ~TP_BIT(z)) | (zbit << 63);
}

static void note_action(struct log *l, const struct calls *c, int z, const char *when)
{
	struct sigaction sa;
	int r = c->sigaction(z, NULL, &sa);
	note(l, "%s: get %d handler %s flags %#x mask %#llx restorer %p\n", when, r,
	     fn_name((void *)sa.sa_handler), (unsigned)sa.sa_flags,
	     portable(kmask_of(&sa.sa_mask), z), (void *)sa.sa_restorer);
}

static void note_blocked(struct log *l, const struct calls *c, int z, const char *when)
{
	sigset_t set;
	int r = c->sigprocmask(SIG_BLOCK, NULL, &set);
	note(l, "%s: mask %d blocked %d\n", when, r, sigismember(&set, z));
}

static void script(const struct calls *c, int z, struct log *l)
{
	struct sigaction sa, old;
	sigset_t set, was;
	int r;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = h1;
	sa.sa_flags = SA_RESTART | SA_NODEFER | 0x400 /* unknown to the kernel */;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR1);
	sigaddset(&sa.sa_mask, SIGKILL);
	errno = 0;
	r = c->sigaction(z, &sa, &old);
	note(l, "sigaction set %d errno %d old %s\n", r, errno, fn_name((void *)old.sa_handler));
	note_action(l, c, z, "after sigaction");
	r = c->sigaction(z, &sa, &sa); /* the same struct in and out */
	note(l, "in-place %d handler %s flags %#x\n", r, fn_name((void *)sa.sa_handler),
	     (unsigned)sa.sa_flags);

	note(l, "signal %s\n", fn_name((void *)c->signal(z, h2)));
	note_action(l, c, z, "after signal");
	note(l, "siginterrupt %d\n", c->siginterrupt(z, 1));
	note_action(l, c, z, "after siginterrupt 1");
	note(l, "signal %s\n", fn_name((void *)c->signal(z, h1)));
	note_action(l, c, z, "after signal, interrupting");
	note(l, "siginterrupt %d\n", c->siginterrupt(z, 0));
	note(l, "sysv_signal %s\n", fn_name((void *)c->sysv_signal(z, h2)));
	note_action(l, c, z, "after sysv_signal");

	note(l, "sigset %s\n", fn_name((void *)c->sigset(z, h1)));
	note_action(l, c, z, "after sigset");
	note_blocked(l, c, z, "after sigset");
	note(l, "sigset hold %s\n", fn_name((void *)c->sigset(z, SIG_HOLD)));
	note_blocked(l, c, z, "after sigset hold");
	note(l, "sigset hold again %s\n", fn_name((void *)c->sigset(z, SIG_HOLD)));
	note(l, "sigset h2 %s\n", fn_name((void *)c->sigset(z, h2)));
	note_blocked(l, c, z, "after sigset h2");
	errno = 0;
	note(l, "sigset bad %s errno %d\n", fn_name((void *)c->sigset(z, SIG_ERR)), errno);
	note_action(l, c, z, "after sigset SIG_ERR");
	errno = 0;
	note(l, "sigset 0 %s errno %d\n", fn_name((void *)c->sigset(0, h1)), errno);
	errno = 0;
	note(l, "signal 0 %s errno %d\n", fn_name((void *)c->signal(0, h1)), errno);
	errno = 0;
	note(l, "sigaction 32 %d errno %d\n", c->sigaction(32, NULL, &old), errno);
	errno = 0;
	note(l, "siginterrupt 65 %d errno %d\n", c->siginterrupt(65, 1), errno);

	note(l, "sighold %d\n", c->sighold(z));
	note_blocked(l, c, z, "after sighold");
	note(l, "sigrelse %d\n", c->sigrelse(z));
	note_blocked(l, c, z, "after sigrelse");

	sigemptyset(&set);
	sigaddset(&set, z);
	r = c->sigprocmask(SIG_BLOCK, &set, &was);
	note(l, "block %d was %d\n", r, sigismember(&was, z));
	r = c->sigprocmask(SIG_BLOCK, &set, &was);
	note(l, "block again %d was %d\n", r, sigismember(&was, z));
	r = c->sigprocmask(SIG_UNBLOCK, &set, &was);
	note(l, "unblock %d was %d\n", r, sigismember(&was, z));
	sigfillset(&set);
	r = c->sigprocmask(SIG_SETMASK, &set, &was);
	note(l, "setmask full %d was %d\n", r, sigismember(&was, z));
	note_blocked(l, c, z, "after setmask full");
	errno = 0;
	r = c->sigprocmask(12345, &set, &was);
	note(l, "bad how %d errno %d\n", r, errno);
	note_blocked(l, c, z, "after bad how");
	sigemptyset(&set);
	r = c->sigprocmask(SIG_SETMASK, &set, NULL);
	note(l, "setmask empty %d\n", r);
	note_blocked(l, c, z, "after setmask empty");

	note(l, "sigignore %d\n", c->sigignore(z));
	note_action(l, c, z, "after sigignore");
	errno = 0;
	note(l, "signal bad %s errno %d\n", fn_name((void *)c->signal(z, SIG_ERR)), errno);
	note(l, "signal dfl %s\n", fn_name((void *)c->signal(z, SIG_DFL)));
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = 0;
	sigemptyset(&sa.sa_mask);
	T_OK(c->sigaction(z, &sa, NULL) == 0);
}

/* ---- deliveries ---- */

static struct {
	int calls, code, value, errno_in, z_blocked;
	unsigned long long mask;
	void *action_in; /* the program's action as its handler sees it */
	int set_errno;
} seen;

static void recorder(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	seen.calls++;
	seen.code = si->si_code;
	seen.value = si->si_value.sival_int;
	seen.errno_in = errno;
	uint64_t k = tp_kernel_mask();
	seen.z_blocked = (k & TP_BIT(sig)) != 0;
	seen.mask = k & ~TP_BIT(sig);
	struct sigaction now;
	sigaction(sig, NULL, &now);
	seen.action_in = (void *)now.sa_handler;
	if (seen.set_errno)
		errno = seen.set_errno;
}

static void deliver(int z, int flags, struct log *l, int set_errno)
{
	tp_handle(z, recorder, flags, SIGUSR1);
	memset(&seen, 0, sizeof seen);
	seen.set_errno = set_errno;
	errno = 4321;
	T_OK(sigqueue(getpid(), z, (union sigval){ .sival_int = 42 }) == 0);
	int after = errno;
	struct sigaction now;
	T_OK(sigaction(z, NULL, &now) == 0);
	note(l, "flags %#x: calls %d code %d value %d errno in %d after %d z blocked %d mask %#llx "
		"action in handler %s, after %s flags %#x\n",
	     flags, seen.calls, seen.code, seen.value, seen.errno_in, after, seen.z_blocked,
	     seen.mask, seen.action_in == (void *)recorder ? "recorder" : fn_name(seen.action_in),
	     now.sa_sigaction == recorder ? "recorder" : fn_name((void *)now.sa_handler),
	     (unsigned)now.sa_flags);
}

static void deliveries(int z, struct log *l)
{
	deliver(z, 0, l, 0);
	deliver(z, SA_NODEFER, l, 0);
	deliver(z, SA_RESETHAND, l, 0);
	deliver(z, 0, l, 777);
	T_OK(signal(z, SIG_IGN) != SIG_ERR);
	T_OK(sigqueue(getpid(), z, (union sigval){ .sival_int = 1 }) == 0);
	note(l, "ignored: still here\n");
	/* SIG_DFL: a child (which inherits the library's state) dies of z. */
	fflush(NULL);
	pid_t pid = fork();
	T_OK(pid >= 0);
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };
		setrlimit(RLIMIT_CORE, &no_core);
		signal(z, SIG_DFL);
		sigqueue(getpid(), z, (union sigval){ .sival_int = 2 });
		_exit(0);
	}
	int st;
	T_OK(waitpid(pid, &st, 0) == pid);
	note(l, "default: signalled %d by z %d\n", WIFSIGNALED(st),
	     WIFSIGNALED(st) && WTERMSIG(st) == z);
	T_OK(signal(z, SIG_DFL) != SIG_ERR);
}

static void same(const char *what, const struct log *want, const struct log *got)
{
	if (strcmp(want->text, got->text) == 0)
		return;
	fprintf(stderr, "%s differ; glibc on an unheld signal:\n%s\nthe library on its own:\n%s",
		what, want->text, got->text);
	T_FAIL("%s: the program's view of a held signal is not the kernel's", what);
}

/* ---- masks and threads ---- */

static int held_sig;

static void *inherits(void *arg)
{
	(void)arg;
	sigset_t set;
	T_OK(pthread_sigmask(SIG_BLOCK, NULL, &set) == 0);
	T_OK(sigismember(&set, held_sig));
	T_OK(!(tp_kernel_mask() & TP_BIT(held_sig)));
	return NULL;
}

static _Atomic int burning;

static void *burner(void *arg)
{
	tp_burn_thread(*(double *)arg);
	burning = 0;
	return NULL;
}

static void waits(int h)
{
	sigset_t all;
	sigfillset(&all);
	int fd = signalfd(-1, &all, SFD_NONBLOCK | SFD_CLOEXEC);
	T_OK(fd >= 0);
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
	FILE *f = fopen(path, "r");
	T_OK(f != NULL);
	unsigned long long sfd_mask = 0;
	while (fgets(line, sizeof line, f))
		sscanf(line, "sigmask: %llx", &sfd_mask);
	fclose(f);
	close(fd);
	T_OK(sfd_mask != 0);
	if (sfd_mask & TP_BIT(h))
		T_FAIL("a signalfd on a full set waits for the sampling signal %d: %#llx", h,
		       sfd_mask);

	sigset_t old;
	T_OK(pthread_sigmask(SIG_BLOCK, &all, &old) == 0);
	pthread_t t;
	double sec = 0.5;
	burning = 1;
	T_OK(pthread_create(&t, NULL, burner, &sec) == 0);
	struct timespec ts = { 0, 20000000 };
	int waited = 0;
	while (burning) {
		siginfo_t si;
		int r = sigtimedwait(&all, &si, &ts);
		if (r == h)
			T_FAIL("sigtimedwait on a full set returned the sampling signal %d", h);
		T_OK(r < 0 && (errno == EAGAIN || errno == EINTR));
		waited++;
	}
	T_OK(pthread_join(t, NULL) == 0);
	T_OK(waited > 0);
	T_OK(pthread_sigmask(SIG_SETMASK, &old, NULL) == 0);
}

/* sigwait is still a cancellation point. */
static void *waiter(void *arg)
{
	(void)arg;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	T_OK(pthread_sigmask(SIG_BLOCK, &set, NULL) == 0);
	int sig;
	sigwait(&set, &sig);
	return NULL;
}

static void cancel_wait(void)
{
	pthread_t t;
	void *ret;
	T_OK(pthread_create(&t, NULL, waiter, NULL) == 0);
	struct timespec ts = { 0, 50000000 };
	nanosleep(&ts, NULL);
	T_OK(pthread_cancel(t) == 0);
	T_OK(pthread_join(t, &ret) == 0);
	T_OK(ret == PTHREAD_CANCELED);
}

/* A thread that blocked every signal before profiling chose its signal. */
static _Atomic int step;

static void *early_blocker(void *arg)
{
	(void)arg;
	sigset_t all, set;
	sigfillset(&all);
	T_OK(pthread_sigmask(SIG_BLOCK, &all, NULL) == 0);
	step = 1;
	while (step != 2)
		sched_yield();
	int h = tp_sampling_signal();
	T_OK(tp_kernel_mask() & TP_BIT(h)); /* blocked before it was reserved */
	sigemptyset(&set);
	T_OK(pthread_sigmask(SIG_BLOCK, &set, NULL) == 0);
	T_OK(!(tp_kernel_mask() & TP_BIT(h)));
	T_OK(pthread_sigmask(SIG_BLOCK, NULL, &set) == 0);
	T_OK(sigismember(&set, h));
	return NULL;
}

static int early(void)
{
	static unsigned short buf[4];
	pthread_t t;
	T_OK(pthread_create(&t, NULL, early_blocker, NULL) == 0);
	while (step != 1)
		sched_yield();
	tp_profil_on(buf, sizeof buf, 0, 2);
	step = 2;
	T_OK(pthread_join(t, NULL) == 0);
	T_EQ(tp_profil_off(), 0);
	return 0;
}

static int view(void)
{
	if (TP_TSAN)
		T_SKIP(TP_TSAN_SIGNALS);
	static unsigned short buf[4];

	tp_profil_on(buf, sizeof buf, 0, 2);
	int h = tp_sampling_signal();
	int r = SIGRTMIN + 4;
	T_OK(h > 0 && h != r);
	held_sig = h;
	T_OK(tp_kernel_has_ours(h, NULL));

	struct calls libc = glibc();
	struct log want = { .len = 0 }, got = { .len = 0 };
	script(&libc, r, &want);
	script(&ours, h, &got);
	same("disposition and mask calls", &want, &got);
	T_OK(tp_kernel_has_ours(h, NULL));
	T_OK(!(tp_kernel_mask() & TP_BIT(h)));

	memset(&want, 0, sizeof want);
	memset(&got, 0, sizeof got);
	deliveries(r, &want);
	deliveries(h, &got);
	same("deliveries", &want, &got);
	T_OK(tp_kernel_has_ours(h, NULL));

	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, h);
	T_OK(sigprocmask(SIG_BLOCK, &set, &old) == 0);
	T_OK(!(tp_kernel_mask() & TP_BIT(h)));
	pthread_t t;
	T_OK(pthread_create(&t, NULL, inherits, NULL) == 0);
	T_OK(pthread_join(t, NULL) == 0);
	T_OK(sigprocmask(SIG_SETMASK, &old, NULL) == 0);

	waits(h);
	/* Under ASan a cancelled thread's unwound frames stay poisoned, and the
	 * library's thread-exit code then trips over them (a false
	 * stack-buffer-overflow, ASan's own hint says so). */
	if (!TP_ASAN)
		cancel_wait();
	T_EQ(tp_profil_off(), 0);
	T_OK(buf[0] > 0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "early") == 0)
		return early();
	if (argc > 1 && strcmp(argv[1], "view") == 0)
		return view();
	const char *forced[] = { "PROFIL_SIGNAL=RTMAX-2", NULL };
	tp_rerun_ok("view", forced);
	tp_rerun_ok("early", NULL);
	return 0;
}
