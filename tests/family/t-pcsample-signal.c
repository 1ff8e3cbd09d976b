/*
 * T82 pcsample is async-signal-safe (Solaris attribute, spec 3.8): a
 * SIGALRM handler starts and stops a pcsample session 1000 times while the
 * main thread keeps starting and stopping its own.  No deadlock (a watchdog
 * thread fails the test when 60 s pass without a round: on a loaded machine
 * the whole run may take longer), no crash, every call succeeds, and no
 * call reports more samples than any session could hold.  Default engine,
 * so real profiling signals arrive as well.
 */
#include <pcsample.h>
#include <pthread.h>
#include <sys/time.h>

#include "family.h"

#define ROUNDS 1000
#define CAP    64

/* rounds is read by the watchdog thread too: atomic (lock-free, so usable
 * in the handler), not just volatile. */
static _Atomic int rounds;
static volatile sig_atomic_t bad;

static void on_alarm(int sig)
{
	static uintptr_t s[CAP];
	(void)sig;
	int saved = errno;
	long a = pcsample(s, CAP);
	long b = pcsample(s, 0);
	if (a < 0 || a > CAP || b < 0 || b > CAP)
		bad = 1;
	rounds++;
	errno = saved;
}

/* Runs with SIGALRM blocked, so that the alarm interrupts only main. */
static void *watchdog(void *arg)
{
	(void)arg;
	int last = -1;
	while (rounds != last) {
		last = rounds;
		struct timespec left = { 60, 0 };
		while (nanosleep(&left, &left) != 0)
			;
	}
	fprintf(stderr, "T82: no progress for 60 s (deadlock?), %d rounds\n", (int)rounds);
	_exit(1);
}

static void t82(void)
{
	static uintptr_t s[CAP];
	pthread_t w;
	sigset_t alrm, old;
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	T_EQ(pthread_sigmask(SIG_BLOCK, &alrm, &old), 0);
	T_EQ(pthread_create(&w, NULL, watchdog, NULL), 0);
	T_EQ(pthread_sigmask(SIG_SETMASK, &old, NULL), 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	T_OK(sigaction(SIGALRM, &sa, NULL) == 0);
	struct itimerval it = { { 0, 500 }, { 0, 500 } };
	T_OK(setitimer(ITIMER_REAL, &it, NULL) == 0);
	long calls = 0;
	volatile unsigned long x = 0;
	while (rounds < ROUNDS) {
		long a = pcsample(s, CAP);
		for (int i = 0; i < 2000; i++)
			x += (unsigned long)i;
		long b = pcsample(s, 0);
		T_OK(a >= 0 && a <= CAP);
		T_OK(b >= 0 && b <= CAP);
		calls++;
	}
	it = (struct itimerval){ { 0, 0 }, { 0, 0 } };
	T_OK(setitimer(ITIMER_REAL, &it, NULL) == 0);
	T_EQ(bad, 0);
	T_OK(calls > 0);
	pcsample(s, 0);
	T_EQ(profil_state(), PROFIL_OFF);
}

int main(void)
{
#if defined(__SANITIZE_THREAD__)
	/* ThreadSanitizer runs an asynchronous handler later, at the thread's
	 * next intercepted call, even one the library makes with the signal
	 * blocked and its lock held: the handler's pcsample then waits for
	 * that lock forever.  Not a property of the library. */
	T_SKIP("ThreadSanitizer defers signal handlers into the library's locked sections");
#endif
	fam_case("T82 async-signal safety", t82);
	return fam_status();
}
