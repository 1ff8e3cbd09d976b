/*
 * irix-profil.c - IRIX style: first profil(2) with 16-bit counters at scale
 * 0x8000 (one counter per 4-byte instruction, as the IRIX page suggests),
 * then sprofil(2) over the same text with 32-bit counters (PROF_UINT), the
 * region's start in pr_off and an overflow bin as the last entry.  IRIX
 * turns both off with a scale of 0.
 *
 * matmul() is the hot spot.  Each phase prints the ticks per function.
 *
 *     cc irix-profil.c $(pkg-config --cflags --libs libprofil)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/profil.h>
#include <profil_ext.h> /* libprofil's own: profil_stats() */

extern char etext;

#define N 48
static double a[N][N], b[N][N], c[N][N];

static void matmul(void)
{
	int i, j, k;

	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++) {
			double s = 0;
			for (k = 0; k < N; k++)
				s += a[i][k] * b[k][j];
			c[i][j] = s;
		}
}

static void transpose(void)
{
	int i, j;

	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			b[j][i] = a[i][j] + c[i][j] * 1e-9;
}

static void burn(void (*fn)(void), double seconds)
{
	clock_t end = clock() + (clock_t)(seconds * CLOCKS_PER_SEC);

	int i;

	/* clock() is a system call: asked once every 16 calls, the profile
	 * shows the work rather than the clock. */
	while (clock() < end)
		for (i = 0; i < 16; i++)
			fn();
}

int main(void);

static struct {
	char *name;
	unsigned long pc;
	unsigned long ticks;
} fn[] = {
	{ "matmul", (unsigned long)matmul, 0 },
	{ "transpose", (unsigned long)transpose, 0 },
	{ "burn", (unsigned long)burn, 0 },
	{ "main", (unsigned long)main, 0 },
};
#define NFN (int)(sizeof fn / sizeof fn[0])

static unsigned long lowpc, highpc;

/* Charge `ticks` to the function whose entry is the closest below pc. */
static void charge(unsigned long pc, unsigned long ticks)
{
	int i, best = -1;

	for (i = 0; i < NFN; i++)
		if (fn[i].pc <= pc && (best < 0 || fn[i].pc > fn[best].pc))
			best = i;
	if (best >= 0)
		fn[best].ticks += ticks;
}

static void report(char *what, unsigned long other)
{
	unsigned long total = other;
	int i;

	printf("%s:\n", what);
	for (i = 0; i < NFN; i++) {
		printf("  %-12s %6lu\n", fn[i].name, fn[i].ticks);
		total += fn[i].ticks;
		fn[i].ticks = 0;
	}
	printf("  %-12s %6lu\n", "(other)", other);
	printf("  %-12s %6lu\n", "total", total);
}

int main(void)
{
	unsigned short *sbuf;
	unsigned int *ibuf, overflow = 0;
	unsigned int bufsiz, i;
	struct prof prof[2];
	struct timeval tv;
	struct profil_stats st;
	int k;

	lowpc = fn[0].pc;
	for (k = 1; k < NFN; k++)
		if (fn[k].pc < lowpc)
			lowpc = fn[k].pc;
	highpc = (unsigned long)&etext;
	for (i = 0; i < N * N; i++)
		a[i / N][i % N] = b[i / N][i % N] = (double)(i % 7);

	/* profil: 0x8000 maps each 4-byte instruction to a 2-byte counter,
	 * so the buffer is half the size of the text. */
	bufsiz = (unsigned int)((highpc - lowpc) / 2 + 2);
	sbuf = calloc(1, bufsiz);
	if (sbuf == NULL)
		return 1;
	profil(sbuf, bufsiz, lowpc, 0x8000);
	burn(transpose, 0.1);
	/* The hot spot last: see hpux-sprofil.c. */
	burn(matmul, 0.6);
	profil(sbuf, bufsiz, lowpc, 0); /* scale 0: off */
	profil_stats(&st); /* see hpux-sprofil.c */
	for (i = 0; i < bufsiz / 2; i++)
		charge(lowpc + 4 * i, sbuf[i]);
	report("profil, 16-bit counters", 0);
	printf("  from %llu signals\n", st.signals);

	/* sprofil: 32-bit counters, one per 4-byte instruction (scale 0x10000),
	 * and an overflow bin for every pc outside the program. */
	ibuf = calloc((highpc - lowpc) / 4 + 1, sizeof *ibuf);
	if (ibuf == NULL)
		return 1;
	prof[0].pr_base = ibuf;
	prof[0].pr_size = ((highpc - lowpc) / 4 + 1) * sizeof *ibuf;
	prof[0].pr_off = lowpc;
	prof[0].pr_scale = 0x10000;
	prof[1].pr_base = &overflow;
	prof[1].pr_size = sizeof overflow;
	prof[1].pr_off = 0;
	prof[1].pr_scale = 2;
	if (sprofil(prof, 2, &tv, PROF_UINT) < 0) {
		perror("sprofil");
		return 1;
	}
	burn(transpose, 0.1);
	/* The hot spot last: see hpux-sprofil.c. */
	burn(matmul, 0.6);
	prof[0].pr_scale = prof[1].pr_scale = 0; /* no active entry: off */
	sprofil(prof, 2, NULL, PROF_UINT);
	profil_stats(&st);
	for (i = 0; i < (highpc - lowpc) / 4 + 1; i++)
		charge(lowpc + 4 * i, ibuf[i]);
	printf("sprofil tick: %ld us\n", (long)tv.tv_usec);
	report("sprofil, 32-bit counters", overflow);
	printf("  from %llu signals\n", st.signals);
	return 0;
}
