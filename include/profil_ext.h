/*
 * <profil_ext.h> - libprofil's own extensions to profil(3), sprofil(3) and
 * pcsample(3): overflow policy, state and rate queries, engine choice,
 * statistics and the deterministic injection hook used by tests.
 *
 * Link with -lprofil (pkg-config --cflags --libs libprofil).
 * See libprofil(7) for the engines, environment variables and signals.
 */
#ifndef _PROFIL_EXT_H
#define _PROFIL_EXT_H 1

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What profil_state() returns: the kind of the process-wide profiling state. */
enum profil_kind {
	PROFIL_OFF = 0,         /* nothing installed, or stopped automatically */
	PROFIL_CLASSIC = 1,     /* profil() classic form */
	PROFIL_REGIONS = 2,     /* sprofil() */
	PROFIL_TRU64 = 3,       /* profil() Tru64 extended form (offset == -1) */
	PROFIL_AIX_CLASSIC = 4, /* <mon.h> profil(), classic syntax */
	PROFIL_AIX_ARRAY = 5,   /* AIX struct prof array (bufsiz == -1) */
	PROFIL_PCSAMPLE = 6     /* pcsample() */
};

/* Counter overflow policies (profil_overflow_policy, PROFIL_OVERFLOW). */
#define PROFIL_OVF_SATURATE 0 /* stay at the maximum (default) */
#define PROFIL_OVF_WRAP     1 /* modular addition */
#define PROFIL_OVF_STOP     2 /* leave the counter, turn all profiling off */
#define PROFIL_OVF_QUERY    3 /* only return the policy in force */

/*
 * Set the process-wide overflow policy for configurations installed from now
 * on; returns the previous policy, or -1 with errno EINVAL for an unknown
 * value.  Thread-safe.
 */
int profil_overflow_policy(int policy);

/* The kind of the current state (enum profil_kind).  Thread-safe and
 * async-signal-safe. */
int profil_state(void);

/* The base sampling rate in Hz: sysconf(_SC_CLK_TCK) unless PROFIL_HZ or
 * profil_set_hz() changed it.  Async-signal-safe. */
unsigned int profil_hz(void);

/*
 * Change the base rate (1 to 10000 Hz) for configurations installed from now
 * on.  Returns the previous base rate, or -1 with errno EINVAL.
 */
int profil_set_hz(unsigned int hz);

/*
 * Choose the sampling engine for the next time profiling starts: "auto"
 * (or NULL), "thread-timer", "perf", "process-timer" or "manual" (no timer
 * at all; only __profil_inject feeds samples).  Returns 0, or -1 with errno
 * EINVAL for an unknown name.  Overrides PROFIL_ENGINE.
 */
int profil_set_engine(const char *name);

/* Name of the engine running now, or of the last one that ran; NULL if
 * profiling never started.  The string is static. */
const char *profil_engine_name(void);

struct profil_stats {
	unsigned int hz;                  /* rate of the running engine, Hz; 0 if off */
	unsigned int base_hz;             /* profil_hz() */
	unsigned long long signals;       /* profiling signals taken (distinct samples) */
	unsigned long long ticks;         /* weighted ticks: signals plus overruns */
	unsigned long long counted;       /* ticks that reached a counter or pc slot */
	unsigned long long outside;       /* ticks whose pc matched no histogram */
	unsigned long long lost;          /* ticks dropped: fault, stop policy, full */
	unsigned long long threads;       /* threads attached since the engine started */
	unsigned long long thread_errors; /* threads not sampled, wholly or in part:
					     not attached (resource limits, errors),
					     or their timer or event closed by the
					     program; `why` says which */
	char engine[24];                  /* as profil_engine_name(), "" if none */
	char why[256];                    /* why this engine; why others were skipped */
	unsigned long long owed;          /* ticks included in `ticks` that no signal
					     brought: CPU time of a thread before its
					     first signal or after its last, credited
					     from its CPU clock (libprofil(7)) */
	int signo;                        /* signal the engine samples with (the
					     last run's if off; 0 if none) */
	int reserved_int;
	unsigned long long unsampled; /* ticks NOT in `ticks`: CPU time x rate
					 of threads the engine could not attach
					 to (thread_errors), or whose pc was never
					 known (libprofil(7)) */
	unsigned long long reserved[5];
};

/*
 * Fill *st with the statistics of the current (or last) profiling run.  The
 * counters restart each time profiling goes from off to on.  Returns 0, or
 * -1 with errno EFAULT if st is NULL.  Thread-safe.
 */
int profil_stats(struct profil_stats *st);

/*
 * Apply `ticks` ticks at `pc` to the current state through exactly the path a
 * timer signal takes (region selection, mapping, overflow policy, fault
 * handling, pcsample storage).  Returns 0 if a state was active, else -1
 * (errno is not changed).  Thread-safe.  For tests.
 */
int __profil_inject(uintptr_t pc, unsigned long ticks);

/*
 * __profil_inject with a call stack, as a signal's walk gives it: pcs[0] is
 * the sampled pc, pcs[1 .. n - 1] its callers, innermost first (return
 * addresses minus one), ending with a marker if the walk did (1 unknown, 2
 * truncated).  Only a `pcprof run` recording with stacks keeps the stack;
 * everything else sees __profil_inject(pcs[0], ticks).  At most 256 entries
 * are kept.  Returns 0 if a state was active, else -1 (errno not changed);
 * -1 with errno EINVAL if pcs is NULL or n < 1.  Thread-safe.  For tests.
 */
int __profil_inject_stack(const uintptr_t *pcs, int n, unsigned ticks);

/*
 * Stamp every sample this process records from now on, injected or not, as
 * taken `ns` nanoseconds after the start of the `pcprof run` recording
 * (its timeline, pcprof-run(1)) instead of reading the clock; ns < 0 goes
 * back to the clock.  Returns 0 if a recording with a timeline is active,
 * else -1 (the setting is kept either way).  Async-signal-safe.  For tests.
 */
int __profil_inject_time(long long ns);

#ifdef __cplusplus
}
#endif

#endif
