/*
 * sig-static - a program that calls every signal function libprofil
 * interposes, for tests/safety/t-static-signals.sh, which links it with
 * -static against libprofil.a (where our definitions must win over libc.a's
 * without a duplicate-symbol error) and runs it.  It resets every signal to
 * SIG_DFL while profil() runs, which kills the program at the first tick if
 * the library's handler is not kept; then the counts must follow the CPU
 * time.  Exit 0 on success.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <profil_ext.h>

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

extern sighandler_t bsd_signal(int, sighandler_t);

#define CHECK(c)                                                                   \
	do {                                                                       \
		if (!(c)) {                                                        \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c);    \
			return 1;                                                  \
		}                                                                  \
	} while (0)

static void h(int sig)
{
	(void)sig;
}

static double cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
	static unsigned short buf[4];
	struct sigaction sa;
	sigset_t set, old;

	double t0 = cpu();
	CHECK(profil(buf, sizeof buf, 0, 2) == 0);
	for (int s = 1; s < NSIG; s++)
		signal(s, SIG_DFL);
	CHECK(bsd_signal(SIGUSR1, h) == SIG_DFL);
	CHECK(ssignal(SIGUSR1, SIG_DFL) == h);
	CHECK(sysv_signal(SIGUSR2, h) == SIG_DFL);
	CHECK(__sysv_signal(SIGUSR2, SIG_DFL) == h);
	CHECK(sigset(SIGHUP, h) == SIG_DFL);
	CHECK(sigignore(SIGHUP) == 0);
	CHECK(siginterrupt(SIGHUP, 1) == 0);
	CHECK(sigaction(SIGHUP, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN);
	CHECK(sighold(SIGINT) == 0 && sigrelse(SIGINT) == 0);
	CHECK(sigblock(0) == sigsetmask(siggetmask()));
	sigfillset(&set);
	CHECK(sigprocmask(SIG_BLOCK, &set, &old) == 0);
	CHECK(pthread_sigmask(SIG_BLOCK, &set, NULL) == 0);
	int fd = signalfd(-1, &set, SFD_NONBLOCK);
	CHECK(fd >= 0);
	close(fd);
	struct timespec zero = { 0, 0 };
	CHECK(sigtimedwait(&set, NULL, &zero) < 0);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	CHECK(raise(SIGUSR1) == 0);
	int got = 0;
	CHECK(sigwait(&set, &got) == 0 && got == SIGUSR1);
	CHECK(raise(SIGUSR1) == 0);
	CHECK(sigwaitinfo(&set, NULL) == SIGUSR1);

	unsigned long x = 0;
	while (cpu() - t0 < 0.5)
		for (int i = 0; i < 100000; i++)
			__asm__ volatile("" : "+r"(x) : "r"(i));
	CHECK(sigprocmask(SIG_SETMASK, &old, NULL) == 0);
	unsigned short *volatile none = NULL; /* profil's buffer is declared nonnull */
	CHECK(profil(none, 0, 0, 0) == 0);
	double want = (cpu() - t0) * profil_hz();
	struct profil_stats st;
	CHECK(profil_stats(&st) == 0);
	if (buf[0] < 0.75 * want || buf[0] > 1.25 * want) {
		fprintf(stderr, "%u ticks counted, want [%.1f, %.1f] (%s: %s)\n", buf[0],
			0.75 * want, 1.25 * want, st.engine, st.why);
		return 1;
	}
	return 0;
}
