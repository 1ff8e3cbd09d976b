/*
 * perf-switch.c - what one perf cpu-clock event per thread costs a context
 * switch, by the event's attributes and period, without libprofil: for
 * bench/switch-cost's "events" table (issue 19, item 3).
 *
 *   perf-switch KIND PERIOD_NS ROUNDS
 *
 * Two threads of this process, pinned to one CPU, hand a futex word back
 * and forth ROUNDS times (two context switches per round trip), each
 * thread with a PERF_COUNT_SW_CPU_CLOCK event on itself, opened as KIND:
 *
 *   none          no event (the baseline)
 *   sigtrap       sampling, sigtrap + remove_on_exec, one event per thread
 *                 (the perf engine on kernels before 6.12)
 *   inherit-read  sampling, sigtrap + inherit + inherit_thread +
 *                 PERF_SAMPLE_READ: the peer thread inherits the main
 *                 thread's event (the perf engine's sigtrap variant)
 *   inherit       the same without PERF_SAMPLE_READ
 *   sample        sampling, no signal (as fasync's event before F_SETSIG)
 *   user          sigtrap with exclude_kernel (perf_event_paranoid 2)
 *   count         counting only (no sample_period)
 *
 * SIGTRAP is handled (and does nothing).  Prints one line:
 *   "perf-switch KIND PERIOD_NS ns_per_round_trip=N cpu_ns_per_round_trip=C"
 * (wall, and the process's CPU time, which other load on the CPU disturbs
 * less: the switches between the two threads are charged to them).
 * Exit 77 with a line "SKIP reason" when perf_event_open refuses the event.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const char *kind;
static long period, rounds;
static _Atomic int word;

static void on_trap(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
}

/* Open the event of kind on the calling thread (nothing for "none", and
 * nothing in the peer for the inherited kinds, which it got at clone). */
static void open_event(int peer)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = (unsigned long long)period;
	a.exclude_hv = 1;
	if (strcmp(kind, "none") == 0)
		return;
	if (strncmp(kind, "inherit", 7) == 0) {
		if (peer)
			return;
		a.inherit = a.inherit_thread = 1;
		a.sigtrap = a.remove_on_exec = 1;
		if (strcmp(kind, "inherit-read") == 0)
			a.sample_type = PERF_SAMPLE_READ | PERF_SAMPLE_TID;
	} else if (strcmp(kind, "sigtrap") == 0 || strcmp(kind, "user") == 0) {
		a.sigtrap = a.remove_on_exec = 1;
		a.exclude_kernel = strcmp(kind, "user") == 0;
	} else if (strcmp(kind, "count") == 0) {
		a.sample_period = 0;
	} else if (strcmp(kind, "sample") != 0) {
		fprintf(stderr, "perf-switch: unknown kind %s\n", kind);
		exit(2);
	}
	if (syscall(SYS_perf_event_open, &a, 0, -1, -1, 0) < 0) {
		printf("SKIP perf_event_open (%s): %s\n", kind, strerror(errno));
		exit(77);
	}
}

static void await_not(int v)
{
	while (atomic_load(&word) == v)
		syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void hand(int v)
{
	atomic_store(&word, v);
	syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *peer(void *arg)
{
	open_event(1);
	for (long i = 0; i < rounds; i++) {
		await_not(0);
		hand(0);
	}
	return arg;
}

static double now(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: perf-switch KIND PERIOD_NS ROUNDS\n");
		return 2;
	}
	kind = argv[1];
	period = atol(argv[2]);
	rounds = atol(argv[3]);
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set)) {
				CPU_ZERO(&set);
				CPU_SET(c, &set);
				sched_setaffinity(0, sizeof set, &set);
				break;
			}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGTRAP, &sa, NULL);
	open_event(0);
	double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	pthread_t t;
	if (pthread_create(&t, NULL, peer, NULL) != 0)
		return 1;
	for (long i = 0; i < rounds; i++) {
		hand(1);
		await_not(1);
	}
	pthread_join(t, NULL);
	printf("perf-switch %s %ld ns_per_round_trip=%.0f cpu_ns_per_round_trip=%.0f\n", kind,
	       period, (now(CLOCK_MONOTONIC) - w0) / (double)rounds * 1e9,
	       (now(CLOCK_PROCESS_CPUTIME_ID) - c0) / (double)rounds * 1e9);
	return 0;
}
