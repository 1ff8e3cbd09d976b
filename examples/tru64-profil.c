/*
 * tru64-profil.c - Tru64 style: the extended profil(2) form, which profiles
 * "multiple discontiguous address ranges, such as those in an executable
 * and its shared libraries".  <sys/resource.h> declares struct profil_args;
 * the call is profil(args, count, (void *)-1, 0); the ranges are ordered by
 * decreasing lowpc; counters are 32-bit.  (Where Tru64 programs asked the
 * loader for the text ranges, this one walks dl_iterate_phdr.)
 *
 * crc() is the hot spot.  The program prints the ticks per function of its
 * own and per shared object.
 *
 *     cc tru64-profil.c $(pkg-config --cflags --libs libprofil)
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <profil_ext.h> /* libprofil's own: profil_stats() */

#define MAXRANGES 64
#define SCALE     0x4000 /* a 4-byte counter for every 16 bytes of text */

static struct range {
	struct profil_args args;
	const char *name; /* NULL for the program itself */
} ranges[MAXRANGES];
static int nranges;

static unsigned int crc_table[256];
static unsigned char message[4096];
static unsigned int crc_value;

static void make_table(void)
{
	unsigned int i, k, c;

	for (i = 0; i < 256; i++) {
		for (c = i, k = 0; k < 8; k++)
			c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

static void crc(void)
{
	unsigned int c = 0xFFFFFFFFu;
	size_t i;

	for (i = 0; i < sizeof message; i++)
		c = crc_table[(c ^ message[i]) & 0xFF] ^ (c >> 8);
	crc_value ^= c;
	message[crc_value % sizeof message]++;
}

static void cpu_loop(void (*f)(void), double secs)
{
	clock_t until = clock() + (clock_t)(secs * CLOCKS_PER_SEC);

	int i;

	/* clock() is a system call: asked once every 16 calls, the profile
	 * shows the work rather than the clock. */
	while (clock() < until)
		for (i = 0; i < 16; i++)
			f();
}

/* One range per executable segment of every loaded object. */
static int add_object(struct dl_phdr_info *info, size_t size, void *data)
{
	int i;

	(void)size, (void)data;
	for (i = 0; i < info->dlpi_phnum && nranges < MAXRANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		char *lo, *hi;
		size_t n;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		lo = (char *)(info->dlpi_addr + ph->p_vaddr);
		hi = lo + ph->p_memsz;
		n = (size_t)(hi - lo) / 16 + 1;
		ranges[nranges].args.buffer = calloc(n, sizeof(unsigned int));
		if (ranges[nranges].args.buffer == NULL)
			return 1;
		ranges[nranges].args.highpc = hi;
		ranges[nranges].args.lowpc = lo;
		ranges[nranges].args.offset = lo;
		ranges[nranges].args.scale = SCALE;
		ranges[nranges].name = info->dlpi_name[0] ? info->dlpi_name : NULL;
		nranges++;
	}
	return 0;
}

static int by_lowpc_down(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	char *xl = x->args.lowpc, *yl = y->args.lowpc;

	return xl > yl ? -1 : xl < yl;
}

int main(void);

static struct {
	const char *name;
	char *pc;
	unsigned long ticks;
} fns[] = {
	{ "crc", (char *)crc, 0 },
	{ "make_table", (char *)make_table, 0 },
	{ "cpu_loop", (char *)cpu_loop, 0 },
	{ "add_object", (char *)add_object, 0 },
	{ "by_lowpc_down", (char *)by_lowpc_down, 0 },
	{ "main", (char *)main, 0 },
};
#define NFNS (int)(sizeof fns / sizeof fns[0])

int main(void)
{
	struct profil_args args[MAXRANGES];
	unsigned long total = 0, ticks, startup = 0;
	struct profil_stats st;
	int r, f, best;
	size_t i, n;

	if (dl_iterate_phdr(add_object, NULL) != 0 || nranges == 0) {
		fprintf(stderr, "no text ranges\n");
		return 1;
	}
	/* Tru64 wants the ranges by decreasing lowpc. */
	qsort(ranges, (size_t)nranges, sizeof ranges[0], by_lowpc_down);
	for (r = 0; r < nranges; r++)
		args[r] = ranges[r].args;

	make_table();
	profil(args, nranges, (void *)-1, 0);
	cpu_loop(make_table, 0.1);
	/* The hot spot last: see hpux-sprofil.c. */
	cpu_loop(crc, 0.6);
	profil(0, 0, 0, 0);
	profil_stats(&st); /* see hpux-sprofil.c */

	printf("Tru64 extended profil, %d ranges:\n", nranges);
	for (r = 0; r < nranges; r++) {
		n = (size_t)((char *)args[r].highpc - (char *)args[r].lowpc) / 16 + 1;
		if (ranges[r].name != NULL) {
			const char *base = strrchr(ranges[r].name, '/');

			for (ticks = 0, i = 0; i < n; i++)
				ticks += args[r].buffer[i];
			printf("  %-22s %6lu\n", base ? base + 1 : ranges[r].name, ticks);
			total += ticks;
			continue;
		}
		/* The program itself: charge each counter to its function. */
		for (i = 0; i < n; i++) {
			char *pc = (char *)args[r].lowpc + 16 * i;

			for (best = -1, f = 0; f < NFNS; f++)
				if (fns[f].pc <= pc && (best < 0 || fns[f].pc > fns[best].pc))
					best = f;
			if (best >= 0)
				fns[best].ticks += args[r].buffer[i];
			else
				startup += args[r].buffer[i];
			total += args[r].buffer[i];
		}
	}
	for (f = 0; f < NFNS; f++)
		printf("  %-22s %6lu\n", fns[f].name, fns[f].ticks);
	printf("  %-22s %6lu\n", "(program-startup)", startup);
	printf("  %-22s %6lu\n", "total", total);
	printf("  from %llu signals\n", st.signals);
	return 0;
}
