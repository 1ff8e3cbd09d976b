/*
 * timeline-cost.c - what the timeline (time buckets in the pc table's key,
 * lib/sig/sink.c) costs per sample and in recording memory.
 *
 * A raw file is made in DIR as pcprof run's library would make it
 * (profil__raw_create, stacks on), and profil__record, the handler's store,
 * is called N times as a thread sampled at 1 kHz would call it: one of 50
 * pcs, one of 8 stacks of 12 frames, and, with the timeline, a time 1 ms
 * later at each call (the test clock, __profil_inject_time's).  Four cells:
 *
 *   off        PCPROF_TIMELINE=0
 *   on         10 ms buckets, times from the test clock (the slots a 1 kHz
 *              thread makes; no clock read)
 *   on+clock   10 ms buckets, times from CLOCK_MONOTONIC (the clock read;
 *              a tight loop stays in few buckets, so few new slots)
 *   clock      clock_gettime(CLOCK_MONOTONIC) alone
 *
 * Prints ns per call (thread CPU time) and the file's allocated bytes.
 *
 *   timeline-cost DIR [N]      (default 200000: 200 s of one busy thread)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rawfile.h"
#include "sig/sink.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void levels(struct profil_levels *t, struct pcprof_raw_levels *l, const struct raw_map *m,
		   const struct raw_table *c, size_t entry)
{
	*t = (struct profil_levels){ l, (char *)m->h + c->off, c->base, c->max, entry };
}

static void cell(const char *name, const char *dir, pid_t pid, bool timeline, bool clock,
		 unsigned long n)
{
	struct raw_env env = { .follow = true, .slots = 1u << 20, .stacks = true };
	env.timeline = timeline;
	snprintf(env.dir, sizeof env.dir, "%s", dir);
	struct raw_map m;
	if (profil__raw_create(&env, pid, 0, &m) < 0) {
		perror("profil__raw_create");
		exit(1);
	}
	struct profil_rec r = { .h = m.h, .size = m.size, .page = m.page };
	levels(&r.thr, &m.h->thr, &m, &m.thr, sizeof(struct pcprof_raw_thread));
	levels(&r.slot, &m.h->slot, &m, &m.slot, sizeof(struct pcprof_raw_slot));
	levels(&r.node, &m.h->node, &m, &m.node, sizeof(struct pcprof_raw_node));
	r.tl_origin = m.h->tl_origin_ns;
	r.tl_bucket = m.h->tl_bucket_ns;
	uintptr_t stack[8][12];
	for (int s = 0; s < 8; s++)
		for (int d = 0; d < 12; d++)
			stack[s][d] = 0x400000 + 0x1000 * (uintptr_t)d + 0x40 * (uintptr_t)(s * (d > 8));
	uint64_t x = 88172645463325252u;
	double t0 = now();
	for (unsigned long i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		if (!clock)
			atomic_store_explicit(&profil__record_test_ns, 1 + i * 1000000,
					      memory_order_relaxed);
		uintptr_t *st = stack[x % 8];
		st[0] = 0x500000 + 16 * ((x >> 8) % 50);
		profil__record(&r, 1000, st[0], st, 12, 1, true);
	}
	double ns = (now() - t0) / (double)n;
	atomic_store(&profil__record_test_ns, 0);
	char path[4200];
	snprintf(path, sizeof path, "%s/%d.0.raw", dir, (int)pid);
	struct stat sb;
	stat(path, &sb);
	printf("| %s | %.0f | %llu | %llu | %llu |\n", name, ns,
	       (unsigned long long)sb.st_blocks * 512 / 1024,
	       (unsigned long long)m.h->tl_lost, (unsigned long long)m.h->lost);
	profil__raw_unmap(&m);
	unlink(path);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 200000;
	printf("%lu calls of profil__record, 50 pcs x 8 stacks of 12 frames, 1 thread\n\n", n);
	printf("| cell | ns per sample | recording KiB | timeline lost | lost |\n|---|---|---|---|---|\n");
	cell("off", argv[1], 101, false, false, n);
	cell("on", argv[1], 102, true, false, n);
	cell("on+clock", argv[1], 103, true, true, n);
	double t0 = now();
	struct timespec ts;
	for (unsigned long i = 0; i < n; i++)
		clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("| clock | %.0f | | | |\n", (now() - t0) / (double)n);
	return 0;
}
