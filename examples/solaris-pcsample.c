/*
 * solaris-pcsample.c - Solaris style: first the classic profil(2), called
 * as Solaris declares it (void: the result is not looked at) with the
 * scale cc -qp uses, 0x4000 (8 bytes of text per counter); then
 * pcsample(2) from <pcsample.h>, sized for two seconds of samples with
 * sysconf(_SC_CLK_TCK) as the page says, each raw pc looked up afterwards.
 *
 * sieve() is the hot spot.  Each phase prints the ticks per function.
 *
 *     cc solaris-pcsample.c $(pkg-config --cflags --libs libprofil)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <pcsample.h>
#include <profil_ext.h> /* libprofil's own: profil_stats() */

extern char etext;

#define LIMIT 30000
static char composite[LIMIT];
static unsigned long found;

static void sieve(void)
{
	long i, j;

	for (i = 2; i < LIMIT; i++)
		composite[i] = 0;
	for (i = 2; i * i < LIMIT; i++)
		if (!composite[i])
			for (j = i * i; j < LIMIT; j += i)
				composite[j] = 1;
}

static void count_primes(void)
{
	long i;

	for (i = 2; i < LIMIT; i++)
		found += !composite[i];
}

static void run_for(void (*work)(void), double cpu_seconds)
{
	clock_t stop = clock() + (clock_t)(cpu_seconds * CLOCKS_PER_SEC);

	int i;

	/* clock() is a system call: asked once every 16 calls, the profile
	 * shows the work rather than the clock. */
	while (clock() < stop)
		for (i = 0; i < 16; i++)
			work();
}

int main(void);

static struct {
	const char *name;
	uintptr_t start;
	long ticks;
} sym[] = {
	{ "sieve", (uintptr_t)sieve, 0 },
	{ "count_primes", (uintptr_t)count_primes, 0 },
	{ "run_for", (uintptr_t)run_for, 0 },
	{ "main", (uintptr_t)main, 0 },
};
#define NSYM (int)(sizeof sym / sizeof sym[0])

static uintptr_t text_lo, text_hi;
static long elsewhere;

static void account(uintptr_t pc, long ticks)
{
	int i, best = -1;

	if (pc < text_lo || pc >= text_hi) {
		elsewhere += ticks;
		return;
	}
	for (i = 0; i < NSYM; i++)
		if (sym[i].start <= pc && (best < 0 || sym[i].start > sym[best].start))
			best = i;
	if (best < 0)
		elsewhere += ticks;
	else
		sym[best].ticks += ticks;
}

static void print(const char *title)
{
	long total = elsewhere;
	int i;

	printf("%s:\n", title);
	for (i = 0; i < NSYM; i++) {
		printf("  %-14s %6ld\n", sym[i].name, sym[i].ticks);
		total += sym[i].ticks;
		sym[i].ticks = 0;
	}
	printf("  %-14s %6ld\n", "(elsewhere)", elsewhere);
	printf("  %-14s %6ld\n", "total", total);
	elsewhere = 0;
}

int main(void)
{
	unsigned short *buff;
	unsigned int bufsiz, i;
	uintptr_t *samples;
	long nsamples, n;
	struct profil_stats st;
	int k;

	text_lo = sym[0].start;
	for (k = 1; k < NSYM; k++)
		if (sym[k].start < text_lo)
			text_lo = sym[k].start;
	text_hi = (uintptr_t)&etext;

	/* profil: scale 0x4000, so the buffer is a quarter of the text. */
	bufsiz = (unsigned int)((text_hi - text_lo) / 4 + 2);
	buff = calloc(1, bufsiz);
	if (buff == NULL)
		return 1;
	profil(buff, bufsiz, text_lo, 0x4000);
	run_for(count_primes, 0.1);
	/* The hot spot last: see hpux-sprofil.c. */
	run_for(sieve, 0.6);
	profil(buff, bufsiz, text_lo, 0);
	profil_stats(&st); /* see hpux-sprofil.c */
	for (i = 0; i < bufsiz / 2; i++)
		account(text_lo + 8 * i, buff[i]);
	print("profil, scale 0x4000");
	printf("  from %llu signals\n", st.signals);

	/* pcsample: room for two seconds of process virtual time. */
	nsamples = 2 * sysconf(_SC_CLK_TCK);
	samples = calloc((size_t)nsamples, sizeof *samples);
	if (samples == NULL)
		return 1;
	if (pcsample(samples, nsamples) == -1) {
		perror("pcsample");
		return 1;
	}
	run_for(count_primes, 0.1);
	/* The hot spot last: see hpux-sprofil.c. */
	run_for(sieve, 0.6);
	n = pcsample(samples, 0); /* stop: the number stored */
	profil_stats(&st);
	if (n < 0) {
		perror("pcsample");
		return 1;
	}
	for (k = 0; k < n; k++)
		account(samples[k], 1);
	print("pcsample, raw pcs");
	printf("  from %llu signals\n", st.signals);
	return found == 0;
}
