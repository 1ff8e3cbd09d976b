/*
 * unwind-cost.c - what one stack walk (profil__unwind) costs, by depth.
 *
 * The chain (bench/unwind-chain.c) is dlopen()ed after the library
 * started, so its first walks take the direct path (one FDE copied through
 * the guard and interpreted), and after profil__unwind_refresh() the
 * table path: both designs' lookups on the same frames.  A context is
 * taken with getcontext() at the bottom of the chain and walked `reps`
 * times; thread CPU time per walk.  The same chain built with frame
 * pointers gives the cost of a guarded frame-pointer walk, the fast path
 * we would add if it were worth it.  Also: the time to build the tables of
 * a large module (libstdc++, when present) and the tables' size.
 *
 *   unwind-cost DIR [reps]   (DIR holds unwind-chain.so, unwind-chain-fp.so)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#include "arch/guard.h"
#include "sig/unwind-tables.h"
#include "unwind-build.h"
#include "sig/unwind.h"
#include "profil_ext.h"

typedef void chain_fn(void);
typedef int chain_t(int, chain_fn *);

static ucontext_t uc;
static double (*measure)(int *);
static double result;
static int frames;

/* At the bottom of the chain, while its frames are live. */
static void take(void)
{
	getcontext(&uc);
	result = measure(&frames);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int reps = 20000;
static uintptr_t pcs[PROFIL_STACK_MAX];

/* ns per walk of uc; n: frames of the last walk */
static double walk_ns(int *n)
{
	double t0 = now();
	for (int i = 0; i < reps; i++)
		*n = profil__unwind(&uc, pcs, PROFIL_STACK_MAX);
	return (now() - t0) / reps;
}

/* A frame-pointer walk through the guard: rbp chain, bounded like ours. */
static int fp_walk(const ucontext_t *u, uintptr_t *out, int max)
{
	uintptr_t fp = (uintptr_t)u->uc_mcontext.gregs[REG_RBP];
	uintptr_t sp = (uintptr_t)u->uc_mcontext.gregs[REG_RSP];
	int n = 0;
	out[n++] = (uintptr_t)u->uc_mcontext.gregs[REG_RIP];
	while (n < max - 1) {
		uint64_t next, ra;
		if (fp <= sp || (fp & 7) || profil__gload((void *)fp, 8, &next) < 0 ||
		    profil__gload((void *)(fp + 8), 8, &ra) < 0 || ra == 0)
			break;
		out[n++] = ra - 1;
		sp = fp;
		fp = next;
	}
	return n;
}

static double fp_ns(int *n)
{
	double t0 = now();
	for (int i = 0; i < reps; i++)
		*n = fp_walk(&uc, pcs, PROFIL_STACK_MAX);
	return (now() - t0) / reps;
}

static chain_t *load(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	void *h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "unwind-cost: %s\n", dlerror());
		exit(2);
	}
	return (chain_t *)dlsym(h, "chain");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: unwind-cost DIR [reps]\n");
		return 2;
	}
	if (argc > 2)
		reps = atoi(argv[2]);
	/* the fault guard is installed while profiling is on */
	static unsigned short buf[16];
	if (profil_set_engine("manual") != 0 || profil(buf, sizeof buf, 0, 0x10000) != 0) {
		perror("profil");
		return 2;
	}
	chain_t *plain = load(argv[1], "unwind-chain.so");
	chain_t *fp = load(argv[1], "unwind-chain-fp.so");
	static const int depths[] = { 10, 50, 200 };
	printf("| depth | frames | direct path ns/walk | table ns/walk | table ns/frame | "
	       "frame pointers ns/walk |\n|---|---|---|---|---|---|\n");
	double direct[3];
	measure = walk_ns;
	for (int i = 0; i < 3; i++) {
		plain(depths[i], take);
		direct[i] = result;
	}
	double b0 = now();
	profil__unwind_refresh(); /* the first: every module loaded */
	double build_ms = (now() - b0) / 1e6;
	for (int i = 0; i < 3; i++) {
		measure = walk_ns;
		plain(depths[i], take);
		double t = result;
		int n = frames;
		measure = fp_ns;
		fp(depths[i], take);
		printf("| %d | %d | %.0f | %.0f | %.1f | %.0f (%d frames) |\n", depths[i], n,
		       direct[i], t, t / n, result, frames);
	}

	/* One row lookup at scattered pcs of libc (its table is the largest
	 * most programs have): the search, cache misses included. */
	Dl_info di;
	if (dladdr((void *)qsort, &di)) {
		uintptr_t base = (uintptr_t)qsort & ~(uintptr_t)0xfffff;
		struct profil_uwalk w;
		struct profil_urow row;
		int lookups = reps * 10, found = 0;
		double t0 = now();
		profil__unwind_enter(&w);
		for (int i = 0; i < lookups; i++) {
			uintptr_t pc = base + ((uintptr_t)i * 7919 * 64) % 0x100000;
			found += profil__unwind_row(&w, pc, &row) == PROFIL_UFOUND_TABLE;
		}
		profil__unwind_leave(&w);
		printf("\nrow lookup at scattered libc pcs: %.1f ns (%d of %d in a table)\n",
		       (now() - t0) / lookups, found, lookups);
	}

	uint32_t mods;
	uint64_t rows, bytes;
	profil__unwind_table_stats(&mods, &rows, &bytes);
	printf("tables: %u modules, %llu rows, %llu KiB, built in %.2f ms CPU\n", mods,
	       (unsigned long long)rows, (unsigned long long)bytes / 1024, build_ms);
	double t0 = now();
	if (dlopen("libstdc++.so.6", RTLD_NOW)) {
		profil__unwind_refresh();
		uint64_t rows2, bytes2;
		profil__unwind_table_stats(&mods, &rows2, &bytes2);
		printf("libstdc++.so.6: table built in %.2f ms CPU (dlopen included), %llu rows, "
		       "%llu KiB\n",
		       (now() - t0) / 1e6, (unsigned long long)(rows2 - rows),
		       (unsigned long long)(bytes2 - bytes) / 1024);
	}
	return 0;
}
