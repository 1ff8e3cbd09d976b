/*
 * rtowner - a program that uses SIGRTMAX itself, the signal libprofil
 * samples with by default, for tests/engines/t-run-rt-owner.sh.  Built
 * without libprofil; pcprof preloads it.
 *
 *   rtowner wait N ITERATIONS     blocks SIGRTMAX (pthread_sigmask), then N
 *                                 times: works, sends itself SIGRTMAX with
 *                                 sigqueue and the value i, and collects it
 *                                 with sigtimedwait (even i) or sigwaitinfo
 *                                 (odd i) while its disposition is SIG_DFL
 *   rtowner handler N ITERATIONS  installs its own SA_SIGINFO handler for
 *                                 SIGRTMAX, then N times: works and sends
 *                                 itself SIGRTMAX with sigqueue and the
 *                                 value i (the handler runs before sigqueue
 *                                 returns); inside it, SIGRTMAX reads as
 *                                 blocked, as the kernel sets it
 *   rtowner all N ITERATIONS      the same, after giving every real-time
 *                                 signal a handler, SIGRTMAX first
 *
 * Each value must arrive exactly once, in order, as SI_QUEUE from this
 * process, and nothing else may arrive on SIGRTMAX.  On success it prints a
 * checksum of the work (the same on every run) and "N values"; exit status
 * 4, so that a test sees it pass through.  On any difference it says what
 * and exits 1.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static unsigned long work(unsigned long n)
{
	unsigned long x = 0;
	for (unsigned long i = 0; i < n; i++) {
		x += i ^ (x >> 3);
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static volatile sig_atomic_t got, bad, last;

static void on_rt(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	sigset_t now;
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	if (!sigismember(&now, SIGRTMAX)) {
		bad++; /* the kernel blocks the signal while its handler runs */
		last = -100;
		return;
	}
	if (sig != SIGRTMAX || si->si_code != SI_QUEUE || si->si_pid != getpid() ||
	    si->si_value.sival_int != got) {
		bad++;
		last = si->si_code;
		return;
	}
	got++;
}

static int fail(const char *what, int i, const siginfo_t *si)
{
	fprintf(stderr, "rtowner: %s at value %d (si_code %d, value %d, errno %s)\n", what, i,
		si ? si->si_code : 0, si ? si->si_value.sival_int : 0, strerror(errno));
	return 1;
}

static int wait_mode(int n, unsigned long iters)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMAX);
	if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0)
		return fail("pthread_sigmask", 0, NULL);
	unsigned long sum = 0;
	for (int i = 0; i < n; i++) {
		sum += work(iters);
		if (sigqueue(getpid(), SIGRTMAX, (union sigval){ .sival_int = i }) < 0)
			return fail("sigqueue", i, NULL);
		siginfo_t si;
		memset(&si, 0, sizeof si);
		struct timespec ts = { 5, 0 };
		int r = i % 2 ? sigwaitinfo(&set, &si) : sigtimedwait(&set, &si, &ts);
		if (r != SIGRTMAX)
			return fail("wait did not return SIGRTMAX", i, &si);
		if (si.si_code != SI_QUEUE || si.si_pid != getpid() || si.si_value.sival_int != i)
			return fail("wrong delivery", i, &si);
		/* Nothing else is pending: exactly once. */
		struct timespec zero = { 0, 0 };
		if (sigtimedwait(&set, &si, &zero) >= 0 || errno != EAGAIN)
			return fail("a second delivery", i, &si);
	}
	printf("%lu\n%d values\n", sum, n);
	return 4;
}

static int handler_mode(int n, unsigned long iters, int all)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_rt;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGRTMAX, &sa, NULL) < 0)
		return fail("sigaction", 0, NULL);
	for (int s = SIGRTMAX - 1; all && s >= SIGRTMIN; s--)
		if (sigaction(s, &sa, NULL) < 0)
			return fail("sigaction", s, NULL);
	unsigned long sum = 0;
	for (int i = 0; i < n; i++) {
		sum += work(iters);
		if (sigqueue(getpid(), SIGRTMAX, (union sigval){ .sival_int = i }) < 0)
			return fail("sigqueue", i, NULL);
		if (bad) {
			siginfo_t si = { .si_code = last };
			return fail("a delivery that was not the program's", i, &si);
		}
		if (got != i + 1)
			return fail("value not delivered once", i, NULL);
	}
	printf("%lu\n%d values\n", sum, n);
	return 4;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: rtowner wait|handler|all N ITERATIONS\n");
		return 2;
	}
	int n = atoi(argv[2]);
	unsigned long iters = strtoul(argv[3], NULL, 10);
	if (strcmp(argv[1], "wait") == 0)
		return wait_mode(n, iters);
	if (strcmp(argv[1], "handler") == 0 || strcmp(argv[1], "all") == 0)
		return handler_mode(n, iters, argv[1][0] == 'a');
	fprintf(stderr, "rtowner: unknown mode %s\n", argv[1]);
	return 2;
}
