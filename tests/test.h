/*
 * test.h - the whole test harness.  A test is a program: silent on success
 * (exit 0), prints file:line, the expression and both values on failure
 * (exit 1), exits 77 with a reason for SKIP.  tests/run-one turns that into
 * TAP for prove and applies the timeout.  The conventions every test
 * follows (exact tests, statistical bounds, CPU time rather than wall time,
 * sanitizer builds) are in tests/README.md.
 */
#ifndef TEST_H
#define TEST_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

/*
 * What a failure message should also show: the measured values behind a
 * check (CPU time, rate, statistics).  T_NOTE("cpu %.3f s", cpu) adds to
 * it; every T_FAIL prints it after its own line.
 */
static __attribute__((unused)) char t_note_buf[1024];

static inline __attribute__((format(printf, 1, 2))) void T_NOTE(const char *fmt, ...)
{
	size_t len = strlen(t_note_buf);
	if (len && len + 2 < sizeof t_note_buf)
		memcpy(t_note_buf + len, "; ", 3), len += 2;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t_note_buf + len, sizeof t_note_buf - len, fmt, ap);
	va_end(ap);
}

static inline __attribute__((noreturn)) void t_fail_end(void)
{
	fputc('\n', stderr);
	if (t_note_buf[0])
		fprintf(stderr, "  measured: %s\n", t_note_buf);
	exit(1);
}

#define T_FAIL(...)                                                                    \
	do {                                                                           \
		fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                        \
		fprintf(stderr, __VA_ARGS__);                                          \
		t_fail_end();                                                          \
	} while (0)

#define T_OK(c)                                                                        \
	do {                                                                           \
		if (!(c))                                                              \
			T_FAIL("check failed: %s (errno %d %s)", #c, errno, strerror(errno)); \
	} while (0)

#define T_EQ(a, b)                                                                     \
	do {                                                                           \
		long long a_ = (long long)(a), b_ = (long long)(b);                    \
		if (a_ != b_)                                                          \
			T_FAIL("%s == %s: %lld != %lld", #a, #b, a_, b_);              \
	} while (0)

/* lo <= v <= hi */
#define T_RANGE(v, lo, hi)                                                             \
	do {                                                                           \
		double v_ = (double)(v), lo_ = (double)(lo), hi_ = (double)(hi);       \
		if (!(v_ >= lo_ && v_ <= hi_))                                         \
			T_FAIL("%s = %g, not in [%g, %g]", #v, v_, lo_, hi_);          \
	} while (0)

/*
 * Counts of real timer ticks.  `expect` is the count the test's own
 * measurement predicts: CPU seconds (t_proc_cpu, t_thread_cpu; never wall
 * time) x rate.  A count is a random variable; it passes within
 * T_COUNT_SD standard deviations, sd = sqrt(expect) as for a Poisson count,
 * plus T_COUNT_SLACK ticks for the periods in progress when profiling
 * started and stopped.  With 5 sd a correct library fails about once in
 * 1.7 million runs, whatever the load.  The expectation must be at least
 * T_COUNT_MIN: below it the lower bound falls under a quarter of the
 * expectation and the check could hardly fail by counting too little, so
 * such a test must burn longer or raise the rate instead.
 */
#define T_COUNT_SD    5.0
#define T_COUNT_SLACK 2.0
#define T_COUNT_MIN   50.0

static inline double t_count_dev(double expect)
{
	return T_COUNT_SD * __builtin_sqrt(expect > 0 ? expect : 0) + T_COUNT_SLACK;
}

/* expect - dev <= v <= expect + dev */
#define T_COUNT(v, expect)                                                             \
	do {                                                                           \
		double v_ = (double)(v), e_ = (double)(expect), d_ = t_count_dev(e_);  \
		if (e_ < T_COUNT_MIN)                                                  \
			T_FAIL("%s: expected count %g is below %g: the test must "      \
			       "burn longer or sample faster",                          \
			       #v, e_, T_COUNT_MIN);                                   \
		if (!(v_ >= e_ - d_ && v_ <= e_ + d_))                                 \
			T_FAIL("%s = %g, expected %g within %g (5 sd + %g): [%g, %g]", \
			       #v, v_, e_, d_, T_COUNT_SLACK, e_ - d_, e_ + d_);       \
	} while (0)

/* v <= expect + dev, for counts that should be near zero (sleeping, or
 * profiling off): any expectation, however small. */
#define T_COUNT_MAX(v, expect)                                                         \
	do {                                                                           \
		double v_ = (double)(v), e_ = (double)(expect), d_ = t_count_dev(e_);  \
		if (!(v_ <= e_ + d_))                                                  \
			T_FAIL("%s = %g, expected at most %g + %g (5 sd + %g)", #v, v_, \
			       e_, d_, T_COUNT_SLACK);                                 \
	} while (0)

#define T_SKIP(...)                                                                    \
	do {                                                                           \
		printf("SKIP: ");                                                      \
		printf(__VA_ARGS__);                                                   \
		putchar('\n');                                                         \
		exit(77);                                                              \
	} while (0)

/* Seconds of CPU time used by the process / the calling thread. */
static inline double t_cpu(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
#define t_proc_cpu()   t_cpu(CLOCK_PROCESS_CPUTIME_ID)
#define t_thread_cpu() t_cpu(CLOCK_THREAD_CPUTIME_ID)

/*
 * The same clock read with the system call made from the caller itself
 * (x86-64), so that the CPU time the read takes, and every tick delivered
 * on its return, is charged to the calling function rather than to libc.
 * A hot loop whose share of the samples a test checks reads its clock this
 * way: a loaded (virtual) machine can make a clock_gettime call slow, and a
 * thread timer's signal, which may carry many ticks, is often delivered on
 * the return from a system call.
 */
static inline __attribute__((always_inline)) double t_cpu_here(clockid_t clk)
{
#if defined(__x86_64__)
	struct timespec ts;
	long r;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "0"((long)SYS_clock_gettime), "D"((long)clk), "S"(&ts)
			 : "rcx", "r11", "memory");
	if (r != 0)
		return t_cpu(clk);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#else
	return t_cpu(clk);
#endif
}

#endif
