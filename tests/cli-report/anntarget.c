/*
 * anntarget.c - the target of t-annotate*.sh, built there with -O1 -g (as C,
 * and as C++ for mangled names): a
 * loop whose lines the tests find by the marks at their ends (HOT, WARM),
 * and a step inlined from annstep.h (STEP).
 *
 *   anntarget spin N          run the loop N times (real samples)
 *   anntarget inject A:T...   no CPU time: T ticks at each link-time
 *                             address A (hex) of this program, through
 *                             libprofil's test hook __profil_inject (run
 *                             it under pcprof run with PROFIL_ENGINE=manual)
 */
#ifndef _GNU_SOURCE /* g++ defines it */
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annstep.h"

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long hot_loop(unsigned long n)
{
	unsigned long x = n, y = 0;
	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL; /* HOT */
		y += mix_step(x) >> 7;                                   /* WARM */
	}
	return y;
}

static int first_bias(struct dl_phdr_info *info, size_t size, void *out)
{
	(void)size;
	*(uintptr_t *)out = info->dlpi_addr;
	return 1; /* the first object is the program */
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "spin") == 0) {
		sink = hot_loop(strtoul(argv[2], NULL, 10));
		return 0;
	}
	if (argc < 2 || strcmp(argv[1], "inject") != 0) {
		fprintf(stderr, "usage: anntarget spin N | inject ADDR:TICKS...\n");
		return 2;
	}
	int (*inject)(uintptr_t, unsigned long) =
		(int (*)(uintptr_t, unsigned long))dlsym(RTLD_DEFAULT, "__profil_inject");
	if (!inject) {
		fprintf(stderr, "anntarget: no __profil_inject (not under pcprof run?)\n");
		return 1;
	}
	uintptr_t bias = 0;
	dl_iterate_phdr(first_bias, &bias);
	for (int i = 2; i < argc; i++) {
		char *end;
		uintptr_t a = strtoull(argv[i], &end, 16);
		unsigned long t = *end == ':' ? strtoul(end + 1, NULL, 10) : 0;
		if (!t || inject(a + bias, t) < 0) {
			fprintf(stderr, "anntarget: cannot inject '%s'\n", argv[i]);
			return 1;
		}
	}
	sink = hot_loop(3);
	return 0;
}
