/*
 * unwind-cost.c - what one stack walk (profil__unwind) costs, by depth.
 *
 * The chain (bench/unwind-chain.c) is dlopen()ed after the library
 * started, so its first walks take the direct path (one FDE copied through
 * the guard and interpreted); after profil__unwind_refresh() without row
 * caches, every row is read from the module's file; after one with caches,
 * walks find their rows cached (after the first): the three ways a row is
 * found, on the same frames.  A context is taken with getcontext() at the
 * bottom of the chain and walked `reps` times; thread CPU time per walk.
 * "cold" walks after evicting the CPU's caches (64 MiB touched), as a
 * sample in a large program does.  The same chain built with frame
 * pointers gives the cost of a guarded frame-pointer walk.
 *
 *   unwind-cost DIR [reps]   (DIR holds unwind-chain.so, unwind-chain-fp.so)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <x86intrin.h>

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

/* Evict the CPU's caches: a sample in a large program finds the walk's
 * lines gone (cc1plus touches megabytes between two samples). */
static volatile char *evict_buf;
#define EVICT (64u << 20)
static void evict(void)
{
	for (size_t i = 0; i < EVICT; i += 64)
		evict_buf[i]++;
}

/* ns per walk of uc with the caches evicted before each walk: the median
 * of the walks' time-stamp counter deltas, converted with the counter's
 * rate over the whole loop. */
static int cold_reps = 101;
static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}
static double cold_ns(int *n)
{
	uint64_t t[101];
	struct timespec m0, m1;
	clock_gettime(CLOCK_MONOTONIC, &m0);
	uint64_t c0 = __rdtsc();
	for (int i = 0; i < cold_reps; i++) {
		evict();
		uint64_t a = __rdtsc();
		*n = profil__unwind(&uc, pcs, PROFIL_STACK_MAX);
		t[i] = __rdtsc() - a;
	}
	uint64_t c1 = __rdtsc();
	clock_gettime(CLOCK_MONOTONIC, &m1);
	double ns_per_tick =
		((m1.tv_sec - m0.tv_sec) * 1e9 + (m1.tv_nsec - m0.tv_nsec)) / (double)(c1 - c0);
	qsort(t, cold_reps, sizeof t[0], by_value);
	return t[cold_reps / 2] * ns_per_tick;
}

static void stats(const char *when)
{
	struct profil_unwind_stats st;
	profil__unwind_stats(&st);
	printf("%s: %u modules (%u read from their file), %llu cache entries (%llu filled), "
	       "%llu KiB mapped; rows read from files %llu, from memory %llu; files opened %llu\n",
	       when, st.modules, st.with_file, (unsigned long long)st.cache_entries,
	       (unsigned long long)st.cached, (unsigned long long)st.mapped / 1024,
	       (unsigned long long)st.file_rows, (unsigned long long)st.memory_rows,
	       (unsigned long long)st.opened);
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
	evict_buf = calloc(1, EVICT);
	chain_t *plain = load(argv[1], "unwind-chain.so");
	chain_t *fp = load(argv[1], "unwind-chain-fp.so");
	static const int depths[] = { 10, 50, 200 };
	printf("| depth | frames | direct path ns/walk | file ns/walk | cached ns/walk | "
	       "cached ns/frame | cached, cold CPU caches ns/walk | frame pointers ns/walk |\n"
	       "|---|---|---|---|---|---|---|---|\n");
	/* The chain was loaded after the library started: no set has it, and
	 * its walks read memory. */
	double direct[3];
	measure = walk_ns;
	for (int i = 0; i < 3; i++) {
		plain(depths[i], take);
		direct[i] = result;
	}
	/* Registered without caches: every row from the module's file. */
	profil__unwind_no_caches(true);
	profil__unwind_refresh();
	double file[3];
	int old_reps = reps;
	reps = reps / 10 > 100 ? reps / 10 : 100;
	for (int i = 0; i < 3; i++) {
		plain(depths[i], take);
		file[i] = result;
	}
	reps = old_reps;
	/* Registered again, with caches. */
	profil__unwind_no_caches(false);
	double b0 = now();
	profil__unwind_refresh();
	double reg_ms = (now() - b0) / 1e6;
	stats("after the refresh without caches");
	for (int i = 0; i < 3; i++) {
		measure = walk_ns;
		plain(depths[i], take);
		double t = result;
		int n = frames;
		measure = cold_ns;
		plain(depths[i], take);
		double cold = result;
		measure = fp_ns;
		fp(depths[i], take);
		printf("| %d | %d | %.0f | %.0f | %.0f | %.1f | %.0f | %.0f (%d frames) |\n", depths[i],
		       n, direct[i], file[i], t, t / n, cold, result, frames);
	}
	stats("after the walks");
	printf("registering the modules again (those of the set kept): %.3f ms CPU\n", reg_ms);

	/* One row lookup at scattered pcs of libc, cached or read. */
	Dl_info di;
	if (dladdr((void *)qsort, &di)) {
		uintptr_t base = (uintptr_t)qsort & ~(uintptr_t)0xfffff;
		struct profil_uwalk w;
		struct profil_urow row;
		int lookups = reps, found = 0;
		for (int pass = 0; pass < 2; pass++) {
			double t0 = now();
			profil__unwind_enter(&w);
			for (int i = 0; i < lookups; i++) {
				uintptr_t pc = base + ((uintptr_t)i * 7919 * 64) % 0x100000;
				found += profil__unwind_row(&w, pc, &row) == PROFIL_UFOUND_TABLE;
			}
			profil__unwind_leave(&w);
			printf("row lookup at %d scattered libc pcs, %s: %.1f ns\n", lookups,
			       pass ? "again (cached where the cache holds them)" : "first (read)",
			       (now() - t0) / lookups);
		}
	}
	double t0 = now();
	if (dlopen("libstdc++.so.6", RTLD_NOW)) {
		profil__unwind_refresh();
		printf("libstdc++.so.6: dlopen and register %.2f ms CPU\n", (now() - t0) / 1e6);
	}
	stats("at the end");
	return 0;
}
