/*
 * aix-profil.c - AIX style: <mon.h>, an array of struct prof with the
 * range's counters in p_buff, p_scale -1 (let profil compute the scale)
 * and a terminating entry whose p_high is 0, started with
 * profil(ProfBuffer, -1, 0, 0) and stopped the same way with an array whose
 * first p_high is 0 (AIX ignores an "off" in the other syntax).
 *
 * With p_bufsize as large as the range, the computed scale is the finest
 * AIX allows (0xFFFF): about one HISTCOUNTER for every two bytes of text.
 * hash_words() is the hot spot.
 *
 *     cc aix-profil.c $(pkg-config --cflags --libs libprofil)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <mon.h>
#include <profil_ext.h> /* libprofil's own: profil_stats() */

extern char etext;

static char words[512][16];
static unsigned long digest;

/* FNV-1a over every word: the hot spot. */
static void hash_words(void)
{
	int w;

	for (w = 0; w < 512; w++) {
		unsigned long h = 14695981039346656037UL;
		const char *p;

		for (p = words[w]; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211UL;
		digest ^= h;
	}
}

static void make_words(void)
{
	int w, i;

	for (w = 0; w < 512; w++) {
		for (i = 0; i < 15; i++)
			words[w][i] = (char)('a' + (w * 7 + i * 13 + (int)(digest & 3)) % 26);
		words[w][15] = '\0';
	}
}

static void keep_busy(void (*routine)(void), double cpu)
{
	clock_t limit = clock() + (clock_t)(cpu * CLOCKS_PER_SEC);

	int i;

	/* clock() is a system call: asked once every 16 calls, the profile
	 * shows the work rather than the clock. */
	while (clock() < limit)
		for (i = 0; i < 16; i++)
			routine();
}

int main(void);

static struct routine {
	const char *name;
	caddr_t entry;
	unsigned long ticks;
} routines[] = {
	{ "hash_words", (caddr_t)hash_words, 0 },
	{ "make_words", (caddr_t)make_words, 0 },
	{ "keep_busy", (caddr_t)keep_busy, 0 },
	{ "main", (caddr_t)main, 0 },
};
#define NROUTINES (int)(sizeof routines / sizeof routines[0])

int main(void)
{
	struct prof ProfBuffer[2], Off[1];
	HISTCOUNTER *counters;
	caddr_t low, high;
	int bufsize, i, r, best;
	unsigned long total = 0;
	struct profil_stats st;

	low = routines[0].entry;
	for (r = 1; r < NROUTINES; r++)
		if (routines[r].entry < low)
			low = routines[r].entry;
	high = &etext;
	bufsize = (int)(high - low) + 2; /* bytes: one short per two bytes */
	counters = calloc(1, (size_t)bufsize);
	if (counters == NULL)
		return 1;

	ProfBuffer[0].p_low = low;
	ProfBuffer[0].p_high = high;
	ProfBuffer[0].p_buff = counters;
	ProfBuffer[0].p_bufsize = bufsize;
	ProfBuffer[0].p_scale = (unsigned int)-1; /* computed by profil */
	memset(&ProfBuffer[1], 0, sizeof ProfBuffer[1]); /* p_high 0 ends the array */
	memset(Off, 0, sizeof Off);

	make_words();
	profil(ProfBuffer, -1, 0, 0);
	keep_busy(make_words, 0.1);
	/* The hot spot last: see hpux-sprofil.c. */
	keep_busy(hash_words, 0.6);
	profil(Off, -1, 0, 0);
	profil_stats(&st); /* see hpux-sprofil.c */

	/* Counter i stands for the two bytes at low + 2i. */
	for (i = 0; i < bufsize / 2; i++) {
		caddr_t pc = low + 2 * i;

		for (best = -1, r = 0; r < NROUTINES; r++)
			if (routines[r].entry <= pc &&
			    (best < 0 || routines[r].entry > routines[best].entry))
				best = r;
		routines[best].ticks += counters[i];
		total += counters[i];
	}
	printf("AIX profil, struct prof array, automatic scale:\n");
	for (r = 0; r < NROUTINES; r++)
		printf("  %-12s %6lu\n", routines[r].name, routines[r].ticks);
	printf("  %-12s %6lu\n", "total", total);
	printf("  from %llu signals\n", st.signals);
	return 0;
}
