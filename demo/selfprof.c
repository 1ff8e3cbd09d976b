/*
 * selfprof - a multi-threaded program that profiles its own text with
 * profil() and prints its hottest bins, each with the function it falls in.
 * Two worker threads spend CPU in different functions (about 2:1), and the
 * main thread in a third, smaller one.
 *
 * Build: cc -O2 -rdynamic selfprof.c $(pkg-config --cflags --libs libprofil) -pthread
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <profil_ext.h>

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Three functions with the same loop; they differ only in how long they run. */
#define BURN(name)                                                                      \
	__attribute__((noinline, noipa)) double name(double seconds)                    \
	{                                                                               \
		double x = 1.0, t0 = cpu_now();                                         \
		while (cpu_now() - t0 < seconds)                                        \
			for (int i = 0; i < 20000; i++)                                 \
				x = x * 1.0000001 + 1e-9;                               \
		return x;                                                               \
	}
BURN(matrix_multiply)
BURN(parse_records)
BURN(checksum_block)

extern char __executable_start[], etext[];

static void *worker(void *arg)
{
	double s = *(double *)arg;
	return (void *)(intptr_t)(s > 1.0 ? matrix_multiply(s) : parse_records(s));
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	uintptr_t lo = (uintptr_t)__executable_start, hi = (uintptr_t)etext;
	size_t bins = (hi - lo) / 4 + 1; /* scale 0x8000: one counter per 4 bytes */
	unsigned short *buf = calloc(bins, sizeof *buf);
	if (!buf || profil(buf, bins * sizeof *buf, lo, 0x8000) != 0) {
		perror("profil");
		return 1;
	}

	double long_s = 2 * seconds, short_s = seconds;
	pthread_t a, b;
	pthread_create(&a, NULL, worker, &long_s);
	pthread_create(&b, NULL, worker, &short_s);
	checksum_block(seconds / 2);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	profil(buf, 0, 0, 0); /* scale 0: off (glibc declares buf nonnull) */

	struct profil_stats st;
	profil_stats(&st);
	unsigned long total = 0;
	for (size_t i = 0; i < bins; i++)
		total += buf[i];
	printf("selfprof: %lu samples at %u Hz (engine %s, %llu threads sampled)\n",
	       total, st.base_hz, st.engine, st.threads);
	printf("%8s %6s  %-18s %s\n", "samples", "share", "address", "function");
	for (int k = 0; k < 8; k++) {
		size_t best = 0;
		for (size_t i = 1; i < bins; i++)
			if (buf[i] > buf[best])
				best = i;
		if (!buf[best])
			break;
		uintptr_t pc = lo + best * 4;
		Dl_info di;
		const char *fn = dladdr((void *)pc, &di) && di.dli_sname ? di.dli_sname : "?";
		printf("%8u %5.1f%%  %#-18lx %s\n", buf[best], 100.0 * buf[best] / (double)total,
		       (unsigned long)pc, fn);
		buf[best] = 0;
	}
	return 0;
}
