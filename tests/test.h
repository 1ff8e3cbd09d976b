/*
 * test.h - the whole test harness.  A test is a program: silent on success
 * (exit 0), prints file:line, the expression and both values on failure
 * (exit 1), exits 77 with a reason for SKIP.  tests/run-one turns that into
 * TAP for prove and applies the timeout.
 */
#ifndef TEST_H
#define TEST_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define T_FAIL(...)                                                                    \
	do {                                                                           \
		fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                        \
		fprintf(stderr, __VA_ARGS__);                                          \
		fputc('\n', stderr);                                                   \
		exit(1);                                                               \
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

#endif
