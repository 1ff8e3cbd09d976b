/*
 * The profiling handler preserves errno.  Two threads (main and one more)
 * spin in a loop that stores a changing value in errno, spins a moment
 * (the window in which a signal lands), and checks that errno still holds
 * it, while profiling runs at 1000 Hz (profil_set_hz), until the handler
 * has run SIGNALS times (at most EVENT_CPU seconds of CPU each).  How many
 * handler runs a second of CPU brings depends on the kernel and the load
 * (a busy 2-core machine gave 24 a second where an idle one gives 250), so
 * the loop counts runs instead of burning a fixed time.  The ticks must
 * follow the CPU time (T_COUNT).  The fault path is t-errno-fault's.
 */
#include <pthread.h>
#include <unistd.h>

#include "errno-loop.h"

#define SIGNALS 200

static _Atomic int enough;

static int signalled_enough(void)
{
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	if (st.signals >= SIGNALS)
		enough = 1;
	return enough;
}

static int told_enough(void)
{
	return enough;
}

static void *other(void *arg)
{
	(void)arg;
	errno_loop(7000, TP_EVENT_CPU, told_enough);
	return NULL;
}

int main(void)
{
	static unsigned short buf[4];

	T_OK(profil_set_hz(1000) > 0);
	double t0 = t_proc_cpu();
	tp_profil_on(buf, sizeof buf, 0, 2);
	pthread_t t;
	T_OK(pthread_create(&t, NULL, other, NULL) == 0);
	double mine = errno_loop(3000, TP_EVENT_CPU, signalled_enough);
	enough = 1;
	T_OK(pthread_join(t, NULL) == 0);
	T_EQ(tp_profil_off(), 0);
	double cpu = t_proc_cpu() - t0;
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	T_NOTE("cpu %.3f s (main thread %.3f s)", cpu, mine);
	tp_note_stats();
	T_EQ(changed, 0);
	T_OK(st.signals >= SIGNALS); /* the handler really ran, often */
	T_COUNT(st.ticks, cpu * 1000);
	return 0;
}
