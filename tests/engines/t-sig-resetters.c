/*
 * Programs that reset every signal (daemons, shells, test harnesses do):
 * signal(s, SIG_DFL) or signal(s, SIG_IGN) for s = 1 .. NSIG-1, before
 * profil() or while it runs.  The program lives, reads back what it set
 * for every signal, and profil() still counts its CPU time: the buffer and
 * profil_stats() ticks within [0.75, 1.25] x CPU seconds x rate (the timer
 * engines count CPU time to within a tick or two, so this is well over 5
 * standard deviations of their error), nothing lost.  Before the library
 * held its signals, the SIG_DFL reset killed the program at the first tick
 * and the SIG_IGN reset lost every tick.  With SIG_DFL for SIGSEGV, the
 * fault guard still turns profiling off when the buffer becomes read-only
 * instead of letting the program crash.  Each case in its own process.
 */
#include <unistd.h>

#include "helpers/tprof.h"

static int reset_all(void (*to)(int))
{
	int failed = 0;
	for (int s = 1; s < NSIG; s++)
		if (signal(s, to) == SIG_ERR)
			failed++; /* SIGKILL, SIGSTOP and glibc's 32 and 33 */
	T_EQ(failed, 4);
	return 0;
}

static void all_read_back(void (*to)(int))
{
	for (int s = 1; s < NSIG; s++) {
		struct sigaction sa;
		if (sigaction(s, NULL, &sa) < 0)
			continue;
		if (s != SIGKILL && s != SIGSTOP && sa.sa_handler != to)
			T_FAIL("signal %d reads back %p, the program set %p", s,
			       (void *)sa.sa_handler, (void *)to);
	}
}

static int run(void (*to)(int), int before)
{
	static unsigned short buf[4];

	if (before)
		reset_all(to);
	double t0 = t_proc_cpu();
	tp_profil_on(buf, sizeof buf, 0, 2);
	if (!before)
		reset_all(to);
	int sig = tp_sampling_signal();
	T_OK(tp_kernel_has_ours(sig, NULL));
	T_OK(tp_kernel_has_ours(SIGSEGV, NULL));
	tp_burn(0.6);
	T_OK(tp_kernel_has_ours(sig, NULL));
	T_EQ(tp_profil_off(), 0);
	double want = (t_proc_cpu() - t0) * profil_hz();
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	T_RANGE(buf[0], 0.75 * want, 1.25 * want);
	T_RANGE(st.ticks, 0.75 * want, 1.25 * want);
	T_EQ(st.lost, 0);
	all_read_back(to);

	/* The fault guard is still the kernel's SIGSEGV/SIGBUS handler. */
	size_t page;
	unsigned short *ro = tp_counting_page(&page);
	T_OK(mprotect(ro, page, PROT_READ) == 0);
	tp_burn(0.2);
	T_EQ(profil_state(), PROFIL_OFF);
	T_EQ(tp_profil_off(), 0);
	all_read_back(to);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		void (*to)(int) = strncmp(argv[1], "dfl", 3) == 0 ? SIG_DFL : SIG_IGN;
		return run(to, strstr(argv[1], "before") != NULL);
	}
	const char *cases[] = { "dfl-after", "ign-after", "dfl-before", "ign-before" };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		tp_rerun_ok(cases[i], NULL);
	return 0;
}
