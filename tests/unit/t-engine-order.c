/*
 * The engines the library tries, in order, for a rate and a kernel tick
 * (session.c, profil__engine_order), on the kernels one meets: CONFIG_HZ
 * 100, 250, 300 and 1000, and a tick that could not be measured (0).
 *
 *   - At pcprof run's default rate (500 Hz, or the tick where that is
 *     lower: cli/util.c, run_default_hz) and at any rate up to the tick,
 *     thread-timer comes first: the default never puts perf first, whose
 *     events cost every context switch of the program (issue 19, item 3: a
 *     pipe ping-pong ran 4.3 times slower under perf at 500 Hz on a 250 Hz
 *     kernel, 1.0 under thread-timer).
 *   - Above the tick perf comes first, then thread-timer.
 *   - process-timer and manual are never in the list: they are chosen only
 *     by name (process-timer's signal can end a sleeping thread's system
 *     call with EINTR; issue 19, item 6).
 *
 * Exact: the order is a pure function of the rate and the tick.
 */
#include "engine.h"
#include "session.h"

#include "test.h"

static const char *names(const struct profil_engine **e, size_t n)
{
	static char buf[128];
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		strcat(buf, i ? "," : "");
		strcat(buf, e[i]->name);
	}
	return buf;
}

static void expect(unsigned hz, unsigned tick, const char *want)
{
	const struct profil_engine *e[8];
	struct profil_run run = { .hz = hz, .signo = SIGPROF };
	size_t n = profil__engine_order(&run, tick, e);
	if (strcmp(names(e, n), want) != 0)
		T_FAIL("%u Hz on a %u Hz tick: order %s, want %s", hz, tick, names(e, n), want);
	run.distinct = true; /* pcsample: the same order */
	n = profil__engine_order(&run, tick, e);
	if (strcmp(names(e, n), want) != 0)
		T_FAIL("pcsample at %u Hz on a %u Hz tick: order %s, want %s", hz, tick,
		       names(e, n), want);
}

int main(void)
{
	static const unsigned ticks[] = { 100, 250, 300, 1000 };
	for (size_t i = 0; i < sizeof ticks / sizeof ticks[0]; i++) {
		unsigned k = ticks[i];
		unsigned dflt = k < 500 ? k : 500; /* pcprof run's default */
		expect(dflt, k, "thread-timer,perf");
		expect(100, k, "thread-timer,perf");
		expect(1, k, "thread-timer,perf");
		expect(k, k, "thread-timer,perf");
		expect(k + 1, k, "perf,thread-timer");
		expect(10000, k, "perf,thread-timer");
	}
	expect(500, 0, "thread-timer,perf");
	expect(10000, 0, "thread-timer,perf");
	return 0;
}
