/*
 * T84 [RT] the kernel's signal dispositions are restored when profiling
 * stops, for every signal (the sampling signal and the SIGSEGV/SIGBUS
 * fault guard included): with the sampling signal at SIG_IGN (counts still
 * arrive: the library holds the signal while it runs), at SIG_DFL, and
 * with a handler of the program's own; and after an automatic stop (a
 * buffer made read-only), once the next profil() call has settled it.
 * While profiling runs, the kernel has the library's handler for the
 * sampling signal, SIGSEGV and SIGBUS, and sigaction() shows the program
 * what it set.  All of it with the default sampling signal, and again
 * (in a child) with PROFIL_SIGNAL=SIGPROF.  Each cycle burns until a count
 * arrived (the rate is t-rate's business) and checks only that no more
 * came than its CPU time allows.
 */
#include <unistd.h>

#include "helpers/tprof.h"

static void app_handler(int sig)
{
	(void)sig;
}

static void app_fault(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	_exit(3);
}

static void set(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR1);
	T_OK(sigaction(sig, &sa, NULL) == 0);
}

/* sigaction() shows the program the handler it set for sig. */
static void view_is(int sig, void *handler)
{
	struct sigaction sa;
	T_OK(sigaction(sig, NULL, &sa) == 0);
	if ((void *)sa.sa_handler != handler)
		T_FAIL("signal %d: sigaction shows %p, the program set %p", sig,
		       (void *)sa.sa_handler, handler);
}

/* The signal the library samples with in this process (chosen at the
 * first start). */
static int sampling_signal(void)
{
	static unsigned short buf[4];
	tp_profil_on(buf, sizeof buf, 0, 2);
	int sig = tp_sampling_signal();
	T_EQ(tp_profil_off(), 0);
	T_OK(sig > 0);
	return sig;
}

static void cycle(int sig, void *set_to)
{
	static unsigned short buf[4];
	struct tp_dispositions before, after;

	tp_save_dispositions(&before);
	buf[0] = 0;
	double t0 = t_proc_cpu();
	tp_profil_on(buf, sizeof buf, 0, 2);
	int now = tp_sampling_signal();
	T_OK(tp_kernel_has_ours(now, set_to));
	T_OK(tp_kernel_has_ours(SIGSEGV, NULL));
	T_OK(tp_kernel_has_ours(SIGBUS, NULL));
	view_is(sig, set_to);
	tp_burn_until_counted(buf);
	view_is(sig, set_to);
	T_EQ(tp_profil_off(), 0);
	T_COUNT_MAX(buf[0], (t_proc_cpu() - t0) * profil_hz());
	tp_save_dispositions(&after);
	tp_same_dispositions(&before, &after);
}

static int run(void)
{
	int sig = sampling_signal();
	set(sig, SIG_IGN, 0);
	cycle(sig, SIG_IGN);
	set(sig, SIG_DFL, 0);
	cycle(sig, SIG_DFL);
	set(sig, app_handler, SA_RESTART | SA_NODEFER);
	struct sigaction fault;
	memset(&fault, 0, sizeof fault);
	fault.sa_sigaction = app_fault;
	fault.sa_flags = SA_SIGINFO | SA_ONSTACK;
	T_OK(sigaction(SIGSEGV, &fault, NULL) == 0);
	cycle(sig, (void *)app_handler);
	view_is(SIGSEGV, (void *)app_fault);

	/* Automatic stop, settled by the next call. */
	size_t page;
	unsigned short *buf = tp_page(&page);
	set(sig, SIG_IGN, 0);
	struct tp_dispositions before, after;
	tp_save_dispositions(&before);
	tp_profil_on(buf, page, 0, 2);
	T_OK(mprotect(buf, page, PROT_READ) == 0);
	tp_burn_until_off();
	T_EQ(tp_profil_off(), 0);
	tp_save_dispositions(&after);
	tp_same_dispositions(&before, &after);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "forced") == 0) {
		int sig = sampling_signal();
		/* perf's sigtrap variant samples with SIGTRAP whatever
		 * PROFIL_SIGNAL says. */
		T_OK(sig == SIGPROF || (tp_engine_is("perf") && sig == SIGTRAP));
		return run();
	}
	run();
	const char *env[] = { "PROFIL_SIGNAL=SIGPROF", NULL };
	tp_rerun_ok("forced", env);
	return 0;
}
