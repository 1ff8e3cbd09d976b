/*
 * T84 [RT] the program's signal dispositions are restored when profiling
 * stops, for every signal (the profiling signal and the SIGSEGV/SIGBUS
 * fault guard included): with SIGPROF at SIG_IGN (counts still arrive: the
 * library takes the signal while it runs), at SIG_DFL, and with a handler
 * of the program's own (the automatic stop is t-disposition-stop's).
 * Each cycle burns until a count arrived (the rate is t-rate's business)
 * and checks only that no more came than its CPU time allows.
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

static void cycle(void)
{
	static unsigned short buf[4];
	struct tp_dispositions before, after;

	tp_save_dispositions(&before);
	buf[0] = 0;
	double t0 = t_proc_cpu();
	tp_profil_on(buf, sizeof buf, 0, 2);
	tp_burn_until_counted(buf);
	T_EQ(tp_profil_off(), 0);
	T_COUNT_MAX(buf[0], (t_proc_cpu() - t0) * profil_hz());
	tp_save_dispositions(&after);
	tp_same_dispositions(&before, &after);
}

int main(void)
{
	set(SIGPROF, SIG_IGN, 0);
	cycle();
	set(SIGPROF, SIG_DFL, 0);
	cycle();
	set(SIGPROF, app_handler, SA_RESTART | SA_NODEFER);
	struct sigaction fault;
	memset(&fault, 0, sizeof fault);
	fault.sa_sigaction = app_fault;
	fault.sa_flags = SA_SIGINFO | SA_ONSTACK;
	T_OK(sigaction(SIGSEGV, &fault, NULL) == 0);
	cycle();
	return 0;
}
