/*
 * sampler.h - the external sampler: pcprof samples another process's
 * threads with perf_event_open (software cpu-clock, user space only) and
 * reads the ring buffers itself, so the target runs unmodified: nothing is
 * injected, nothing is mapped or opened in it, and nothing stops it.
 *
 * The result is one pp_process (profile.h) per process, the target's and
 * those of the processes it forked while sampled, the same model the
 * preloaded library's recordings become, so report and every export read it as they
 * read any other.  Not thread-safe; never exits: every problem comes back
 * as a message.
 */
#ifndef PCPROF_SAMPLER_H
#define PCPROF_SAMPLER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile.h"

struct sampler;

/* What the sampler saw beyond the profile model, for the summary line. */
struct sampler_info {
	size_t events;          /* perf events opened directly (one per thread found) */
	size_t pages;           /* ring-buffer data pages per event */
	uint64_t lost;          /* samples the kernel dropped (PERF_RECORD_LOST) */
	uint64_t lost_records;  /* side-band records it dropped: mappings, execs,
				   thread and process births and ends, counts */
	uint64_t duplicates;    /* samples of a thread seen in a second buffer */
	uint64_t child_samples; /* samples of processes not followed */
	size_t children;        /* processes the target (or its followed children)
				   forked while attached */
	size_t execs;           /* times the target exec'd while attached */
	uint64_t attach_ns;     /* time to open every event */
	int exited;             /* the target ended while attached */
	int stacks_refused;     /* errno: the kernel refused callchains, pcs only */
	/* Threads (followed processes' included) that ended with a counted
	 * CPU time under one sample period and no sample, and that time: a
	 * perf event starts every thread with a whole period. */
	size_t short_threads;
	uint64_t short_ns;
	/* System time of the target and the children it waited for, while
	 * sampled (/proc/PID/stat before and after); 0: not known.  pcprof
	 * run puts its children's rusage here, which is exact. */
	uint64_t sys_ns;
	/* Followed processes still running at the end, and their CPU time
	 * then (/proc, in clock ticks). */
	size_t running;
	uint64_t running_ns;
	/* At least the kernel's CPU time of everything sampled (0: not known;
	 * sampler_bound_cpu).  sampler_shortfall never counts more: perf's
	 * counts also hold a virtual machine's steal time (sampler.c, cap_cpu). */
	uint64_t kernel_ns;
};

/*
 * Start sampling every thread of process pid at hz samples per CPU second,
 * with the user call stack of each sample if stacks is set (frame-pointer
 * walks, checked: see sampler.c).
 * Threads the process creates later are followed (the events are
 * inherited), and so are the processes it forks if follow is set (else
 * their samples are counted and dropped).  Returns NULL with a message in err: no such process,
 * permission refused (the message says which setting or capability is
 * missing), or a resource limit.
 */
struct sampler *sampler_open(pid_t pid, unsigned hz, bool stacks, bool follow, char *err,
			     size_t errlen);

/* What the sampler has seen so far (attach_ns and events are final once
 * sampler_open returned). */
void sampler_peek(const struct sampler *s, struct sampler_info *info);

/* Set in->kernel_ns from reaped_ns, the exact CPU time (rusage) of the
 * processes already reaped, and /proc's of those still running at the
 * end; reaped_ns 0 (not known) leaves it unknown. */
void sampler_bound_cpu(struct sampler_info *in, uint64_t reaped_ns);

/* Stamp samples with their time bucket of SAMPLER_BUCKET_NS (pp_sample.time,
 * counted from the first sample), or not (the default). */
#define SAMPLER_BUCKET_NS 10000000u
void sampler_timeline(struct sampler *s, bool on);

/*
 * Wait up to timeout_ms for data (ppoll with sigmask, which may be NULL)
 * and read every buffer.  Returns 1 once the process has ended (or is a
 * zombie), else 0; a signal ends the wait early and returns 0.
 */
int sampler_poll(struct sampler *s, int timeout_ms, const sigset_t *sigmask);

/*
 * Stop sampling, read what is left, close every event and unmap every
 * buffer, and fill *out with *nout processes (an array: free each with
 * pp_process_free, then the array), the target's first, then those it
 * forked in the order they were created, and *info.  s is freed.  The
 * target is as it was before sampler_open.
 */
void sampler_finish(struct sampler *s, struct pp_process **out, size_t *nout,
		    struct sampler_info *info);

/* How pr ended, from a wait status (waitpid's, or a zombie's exit_code
 * in /proc/PID/stat): an exit and its code, or a signal. */
void sampler_set_end(struct pp_process *pr, int status);

/*
 * Whether this process may open the sampler's kind of perf event on
 * itself: 0, or -1 with the reason in err.  What a preloaded perf engine
 * and an external sampler of one's own child need alike.
 */
int sampler_probe(char *err, size_t errlen);

/*
 * The CPU time of pr[0..n) that has no sample, by cause, as "lost:" items
 * ("0.35 s CPU of 398 threads shorter than a sample period (2000 us)",
 * "0.22 s CPU in the kernel (...)", "0.05 s CPU not sampled (...)") in
 * buf; each only beyond the noise of the count (sampler.c says which).
 * Returns the length written, 0 when nothing is missing.
 */
size_t sampler_shortfall(const struct pp_process *pr, size_t n, const struct sampler_info *in,
			 char *buf, size_t len);

/*
 * The summary line of an external sampling, on stderr: samples, CPU and
 * rate, mode ("external", or "external: why"), threads, the time opening
 * took when attached is set, the child processes followed (pr[1..n)),
 * losses (sampler_shortfall's, and `unsampled`, if not NULL: CPU time the
 * caller knows no event saw), children not followed, execs, and the data
 * file out.
 */
void sampler_summary(const struct pp_process *pr, size_t n, const struct sampler_info *in,
		     const char *mode, int attached, const char *unsampled, const char *out);

#endif
