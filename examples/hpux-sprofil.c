/*
 * hpux-sprofil.c - HP-UX style: sprofil(2) over the program's text with
 * 64-bit counters (PROF_UINT64) and an overflow bin as the last array entry,
 * compiled in HP-UX's strict mode (_HPUX_SOURCE: the array must be sorted by
 * pr_offset, the bin last and exactly one counter long).
 *
 * checksum() is the hot spot; the program prints how many ticks fell in
 * each of its functions and in the overflow bin (everything outside the
 * program: libc, the kernel's syscall return points).
 *
 *     cc hpux-sprofil.c $(pkg-config --cflags --libs libprofil)
 */
#define _HPUX_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/profil.h>
#include <profil_ext.h> /* libprofil's own: profil_stats() */
#include <sys/time.h>

extern char etext; /* end of the program's text, from the linker */

static unsigned char block[8192];
static unsigned long result;

/* Fletcher-32 over the block: the hot spot. */
static void checksum(void)
{
	unsigned long a = 1, b = 0;
	int i;

	for (i = 0; i < (int)sizeof block; i++) {
		a = (a + block[i]) % 65535;
		b = (b + a) % 65535;
	}
	result += (b << 16) | a;
}

static void refill(void)
{
	int i;

	for (i = 0; i < (int)sizeof block; i++)
		block[i] = (unsigned char)(block[i] * 31 + i);
}

/* Call fn over and over for the given CPU seconds. */
static void spend(void (*fn)(void), double seconds)
{
	clock_t end = clock() + (clock_t)(seconds * CLOCKS_PER_SEC);

	int i;

	/* clock() is a system call: asked once every 16 calls, the profile
	 * shows the work rather than the clock. */
	while (clock() < end)
		for (i = 0; i < 16; i++)
			fn();
}

struct func {
	const char *name;
	unsigned long addr;
	unsigned long long ticks;
};

static int by_addr(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int main(void)
{
	struct func funcs[] = {
		{ "checksum", (unsigned long)checksum, 0 },
		{ "refill", (unsigned long)refill, 0 },
		{ "spend", (unsigned long)spend, 0 },
		{ "by_addr", (unsigned long)by_addr, 0 },
		{ "main", (unsigned long)main, 0 },
	};
	const int nfuncs = sizeof funcs / sizeof funcs[0];
	unsigned long low, high;
	unsigned long long *counts, overflow = 0, total;
	size_t ncounts, i;
	struct prof prof[2];
	struct timeval tick;
	struct profil_stats st;
	int f;

	qsort(funcs, nfuncs, sizeof funcs[0], by_addr);
	low = funcs[0].addr;
	high = (unsigned long)&etext;

	/* pr_scale 0x8000 with PROF_UINT64: one counter for every 16 bytes
	 * (four PA-RISC instructions) of text. */
	ncounts = (high - low + 15) / 16;
	counts = calloc(ncounts, sizeof *counts);
	if (counts == NULL) {
		perror("calloc");
		return 1;
	}
	prof[0].pr_base = counts;
	prof[0].pr_size = ncounts * sizeof *counts;
	prof[0].pr_offset = low;
	prof[0].pr_scale = 0x8000;
	/* The overflow bin: pr_offset 0, pr_scale 2, one element, last. */
	prof[1].pr_base = &overflow;
	prof[1].pr_size = sizeof overflow;
	prof[1].pr_offset = 0;
	prof[1].pr_scale = 2;

	if (sprofil(prof, 2, &tick, PROF_UINT64) == -1) {
		perror("sprofil");
		return 1;
	}
	/* The hot spot runs last.  A signal the kernel delivers late (on a
	 * busy machine, a fifth of a second of CPU late or more) stands for
	 * every tick since the one before, at the pc where it lands: ticks
	 * move into later work, never into earlier. */
	spend(refill, 0.1);
	spend(checksum, 0.6);
	if (sprofil(prof, 0, NULL, PROF_UINT64) == -1) {
		perror("sprofil off");
		return 1;
	}
	/* Not HP-UX: libprofil also says how many signals brought the
	 * ticks.  Each is one independent sample; the ticks it carries all
	 * go where it landed.  A table that rests on a handful of signals
	 * (a busy machine) says little about where the time went. */
	profil_stats(&st);

	/* Each counter goes to the function that starts at or below it. */
	for (i = 0; i < ncounts; i++) {
		unsigned long pc = low + 16 * i;

		for (f = nfuncs - 1; f > 0 && funcs[f].addr > pc; f--)
			;
		funcs[f].ticks += counts[i];
	}
	printf("HP-UX sprofil, 64-bit counters, one tick = %ld us:\n", (long)tick.tv_usec);
	total = overflow;
	for (f = 0; f < nfuncs; f++) {
		printf("  %-12s %8llu\n", funcs[f].name, funcs[f].ticks);
		total += funcs[f].ticks;
	}
	printf("  %-12s %8llu\n", "(overflow)", overflow);
	printf("  %-12s %8llu\n", "total", total);
	printf("  from %llu signals\n", st.signals);
	(void)result;
	return 0;
}
