/*
 * t-random.c - report's and every writer's code on random profiles that a
 * data file could hold (pp_read checks indexes and sizes, not sense): huge
 * and zero counts, rates of 0, biases and segments anywhere, build-ids of
 * any length that match nothing, modules named by real libraries, by this
 * program, by the vDSO, by a device, a directory, a relative path and by
 * nothing; call stacks of any depth and shape (deep chains, recursion,
 * [unknown]/[truncated] markers, samples with and without one), and
 * now and then hundreds of modules or thousands of threads.
 * Counts reach the bounds a data file holds (2^53 ticks, 2^62 ns of CPU
 * time, cli/data.h), exactly, and a profile one tick beyond them must be
 * refused by the encoder; within them no sum wraps, so a function's
 * total lies between its self samples and all samples, the rows add up
 * to all samples, and so do the threads.  Each
 * profile also goes through the data file's encoder and parser and must
 * come back the same.  Nothing may crash, hang, fail to write, write more than 64 MiB
 * into a file, or trip the sanitizers this test is built with (see the
 * Makefile); outputs go to a temporary directory.
 * Seeded, so a failure repeats: T_RANDOM_SEED=n T_RANDOM_N=k to explore.
 */
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "data.h"
#include "model.h"
#include "out.h"
#include "profile.h"
#include "record-format.h"
#include "test.h"
#include "view.h"

static uint64_t state;

static uint64_t rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static const char *paths[8];
static int keep_stderr;

#define CHECK(c, ...)                                                                              \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fflush(stderr);                                                            \
			dup2(keep_stderr, 2);                                                      \
			T_FAIL(__VA_ARGS__);                                                       \
		}                                                                                  \
	} while (0)

static int find_libc(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	if (strstr(info->dlpi_name, "/libc.so"))
		*(const char **)arg = info->dlpi_name;
	return 0;
}

/* A frame at a random place: a pc of a module or of none, a marker, or a
 * pc of an earlier frame (recursion). */
static struct pp_frame random_frame(const struct pp_process *pr, uint32_t parent)
{
	struct pp_frame f = { rnd(), PP_NO_MODULE, parent };
	uint64_t r = rnd() % 8;
	if (r == 0)
		f.pc = rnd() % 2 ? PCPROF_FRAME_UNKNOWN : PCPROF_FRAME_TRUNCATED;
	else if (r < 3 && pr->nframes)
		f = (struct pp_frame){ pr->frames[rnd() % pr->nframes].pc,
				       pr->frames[rnd() % pr->nframes].module, parent };
	else if (pr->nmodules && r < 7) {
		f.module = (uint32_t)(rnd() % pr->nmodules);
		f.pc = pr->modules[f.module].bias + rnd() % 0x200000;
	}
	if (PCPROF_FRAME_IS_MARKER(f.pc))
		f.module = PP_NO_MODULE;
	return f;
}

/* Stacks for most samples: callers from a random tree of frames, then a
 * leaf at the sample's pc.  deep: the callers are one chain of 20,000 to
 * 100,000 frames (no reader may recurse per frame), most samples under
 * its last frame. */
static void random_stacks(struct pp_process *pr, bool deep)
{
	size_t callers = deep ? 20000 + rnd() % 80001 : rnd() % 4 == 0 ? 0 : rnd() % 400;
	pr->frames = calloc(callers + pr->nsamples + 1, sizeof *pr->frames);
	for (size_t i = 0; i < callers; i++) {
		uint32_t parent = deep ? (i ? (uint32_t)i - 1 : PP_NO_FRAME)
			: i && rnd() % 8 ? (uint32_t)(rnd() % 2 ? i - 1 : rnd() % i)
					 : PP_NO_FRAME;
		pr->frames[i] = random_frame(pr, parent);
		pr->nframes++;
	}
	for (size_t k = 0; k < pr->nsamples; k++) {
		struct pp_sample *s = &pr->samples[k];
		if (rnd() % 5 == 0 || (PCPROF_FRAME_IS_MARKER(s->pc) && s->module != PP_NO_MODULE))
			continue;
		uint32_t parent = callers && rnd() % 6 ? (uint32_t)(rnd() % callers) : PP_NO_FRAME;
		if (deep && rnd() % 4)
			parent = (uint32_t)callers - 1;
		pr->frames[pr->nframes] = (struct pp_frame){ s->pc, s->module, parent };
		s->frame = (uint32_t)pr->nframes++;
	}
	/* times: mostly in the first few buckets, some far out, some none */
	for (size_t k = 0; k < pr->nsamples; k++) {
		uint64_t r = rnd() % 8;
		pr->samples[k].time = r == 0   ? PP_NO_TIME
				      : r == 1 ? (uint32_t)rnd()
						: 1 + (uint32_t)(rnd() % 500);
	}
	pr->tl_partial = rnd() % 4 ? 0 : (uint32_t)rnd();
	pp_sort_samples(pr);
}

/* The profile through the data file's encoder and parser: the same. */
static void round_trip(const struct pp_profile *a, int it)
{
	uint8_t *buf;
	size_t len;
	char err[256];
	struct pp_profile b;
	CHECK(pp_encode(a, &buf, &len, err, sizeof err) == 0, "iteration %d: encode: %s", it, err);
	CHECK(pp_parse(buf, len, 0, &b, err, sizeof err) == 0, "iteration %d: parse: %s", it, err);
	CHECK(a->nprocs == b.nprocs, "iteration %d: processes", it);
	for (size_t i = 0; i < a->nprocs; i++) {
		const struct pp_process *x = &a->procs[i], *y = &b.procs[i];
		CHECK(x->nframes == y->nframes && x->nsamples == y->nsamples,
		      "iteration %d: %zu/%zu frames, %zu/%zu samples", it, x->nframes, y->nframes,
		      x->nsamples, y->nsamples);
		CHECK(memcmp(x->frames, y->frames, x->nframes * sizeof *x->frames) == 0,
		      "iteration %d: frames differ", it);
		for (size_t k = 0; k < x->nsamples; k++) {
			const struct pp_sample *s = &x->samples[k], *t = &y->samples[k];
			CHECK(s->pc == t->pc && s->module == t->module && s->thread == t->thread &&
				      s->count == t->count && s->frame == t->frame &&
				      s->time == t->time,
			      "iteration %d: process %zu, sample %zu differs", it, i, k);
		}
	}
	pp_free(&b);
	free(buf);
}

static void random_process(struct pp_process *pr)
{
	pr->pid = 1 + (int)(rnd() % 3);
	pr->exe = strdup(paths[rnd() % 8]);
	pr->cmdline = strdup(rnd() % 2 ? "a\nb\t\"<&>'" : "");
	pr->hz = rnd() % 3 == 0 ? 0 : 1 + (uint32_t)(rnd() % 10000);
	pr->why = strdup("");
	strcpy(pr->engine, rnd() % 2 ? "perf" : "");
	pr->cpu_ns = rnd() % 3 ? rnd() % 10000000000ull : 0;
	pr->ticks = rnd() % 3 ? rnd() % 100000 : 0;
	pr->lost = rnd() % 2 ? rnd() % 100 : 0;
	/* now and then tables of hundreds or thousands (sizes) */
	pr->nmodules = rnd() % 40 == 0 ? rnd() % 300 : rnd() % 7;
	pr->modules = calloc(pr->nmodules + 1, sizeof *pr->modules);
	for (size_t m = 0; m < pr->nmodules; m++) {
		struct pp_module *md = &pr->modules[m];
		md->path = strdup(paths[rnd() % 8]);
		md->bias = rnd() % 2 ? rnd() : (rnd() % 0x100000) << 12;
		md->nsegs = (uint32_t)(rnd() % 9);
		md->build_id_len = rnd() % 2 ? 0 : (uint32_t)(rnd() % 41);
		for (int k = 0; k < 40; k++)
			md->build_id[k] = (uint8_t)rnd();
		for (uint32_t k = 0; k < md->nsegs; k++)
			md->seg[k] = (struct pp_segment){ rnd() % 2 ? rnd() : rnd() % 0x200000,
							  rnd() % 2 ? rnd() : rnd() % 0x100000,
							  rnd() % 0x100000, (uint32_t)(rnd() % 8) };
	}
	pr->nthreads = 1 + (rnd() % 40 == 0 ? rnd() % 5000 : rnd() % 3);
	pr->threads = calloc(pr->nthreads, sizeof *pr->threads);
	for (size_t t = 0; t < pr->nthreads; t++) {
		pr->threads[t].tid = rnd() % 4 ? (int32_t)(rnd() % 100) : (int32_t)rnd();
		memset(pr->threads[t].name, (int)('a' + t), 15);
	}
	/* a deep chain's few stacks are written whole by folded, pprof and
	 * speedscope: within the 64 MiB a file may have */
	bool deep = rnd() % 60 == 0;
	pr->nsamples = deep ? 1 + rnd() % 6 : rnd() % 300;
	pr->samples = calloc(pr->nsamples + 1, sizeof *pr->samples);
	for (size_t k = 0; k < pr->nsamples; k++) {
		uint32_t m =
			pr->nmodules && rnd() % 4 ? (uint32_t)(rnd() % pr->nmodules) : PP_NO_MODULE;
		uint64_t pc = rnd();
		if (m != PP_NO_MODULE && rnd() % 3) /* inside the module's first 2 MiB */
			pc = pr->modules[m].bias + rnd() % 0x200000;
		uint64_t count = rnd() % 5 == 0 ? rnd() % 200000 : 1 + rnd() % 10;
		if (rnd() % 50 == 0) /* fit_counts keeps the sums within the bound */
			count = PP_TICKS_MAX / (1 + rnd() % 4);
		pr->samples[k] = (struct pp_sample){ pc, m, (uint32_t)(rnd() % pr->nthreads), count,
						     PP_NO_FRAME, PP_NO_TIME };
	}
	random_stacks(pr, deep);
}

/*
 * The counts within a data file's bounds (data.h): each sample's count at
 * most what is left of 2^53 after those before it.  With fill, the last
 * sample takes what is left, and the first process's ticks, signals, lost
 * ticks and CPU time what the others leave: every sum is exactly its
 * bound.
 */
static void fit_counts(struct pp_profile *p, bool fill)
{
	uint64_t left = PP_TICKS_MAX, ticks = 0, signals = 0, lost = 0, cpu = 0;
	struct pp_sample *last = NULL;
	for (size_t i = 0; i < p->nprocs; i++) {
		const struct pp_process *pr = &p->procs[i];
		for (size_t k = 0; k < pr->nsamples; k++) {
			struct pp_sample *s = &pr->samples[k];
			if (s->count > left)
				s->count = left;
			left -= s->count;
			last = s;
		}
		if (i) {
			ticks += pr->ticks;
			signals += pr->signals;
			lost += pr->lost;
			cpu += pr->cpu_ns;
		}
	}
	if (!fill)
		return;
	if (last)
		last->count += left;
	struct pp_process *first = &p->procs[0];
	first->ticks = PP_TICKS_MAX - ticks;
	first->signals = PP_TICKS_MAX - signals;
	first->lost = PP_TICKS_MAX - lost;
	first->cpu_ns = PP_NS_MAX - cpu;
}

/* One tick beyond a bound (a sample's, the first process's ticks or its
 * CPU time, which fill left at their bounds): refused, then put back. */
static void beyond(struct pp_profile *p, int it)
{
	struct pp_process *pr = &p->procs[0];
	uint64_t *v = &pr->ticks;
	for (size_t i = 0; i < p->nprocs && rnd() % 2; i++)
		if (p->procs[i].nsamples)
			v = &p->procs[i].samples[rnd() % p->procs[i].nsamples].count;
	if (rnd() % 4 == 0)
		v = &pr->cpu_ns;
	char err[256];
	uint8_t *buf;
	size_t len;
	(*v)++;
	CHECK(pp_check_counts(p, err, sizeof err) == -1 && strstr(err, "add up to more than 2^"),
	      "iteration %d: counts beyond the bound pass: '%s'", it, err);
	CHECK(pp_encode(p, &buf, &len, err, sizeof err) == -1,
	      "iteration %d: counts beyond the bound encoded", it);
	(*v)--;
}

int main(void)
{
	char self[4096], dir[] = "/tmp/t-random.XXXXXX", out[4200], gm[4200];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	T_OK(n > 0);
	self[n] = '\0';
	const char *libc = "/nonexistent/libc.so.6";
	dl_iterate_phdr(find_libc, &libc);
	const char *p[8] = { self,        libc, "[vdso]", "/nonexistent/x.so",
			     "/dev/null", "/",  "rel.so", "" };
	memcpy(paths, p, sizeof p);
	/* A writer that runs away must fail here, not fill the disk: files
	 * above 64 MiB get EFBIG (no SIGXFSZ), which the writers report. */
	struct rlimit fsize = { 64u << 20, 64u << 20 };
	T_OK(setrlimit(RLIMIT_FSIZE, &fsize) == 0);
	signal(SIGXFSZ, SIG_IGN);
	T_OK(mkdtemp(dir));
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(gm, sizeof gm, "%s/gmon", dir);
	/* the writers' and notes' chatter is not what this test is about;
	 * failures restore stderr first */
	T_OK(freopen("/dev/null", "w", stdout));
	keep_stderr = dup(2);
	T_OK(keep_stderr >= 0 && freopen("/dev/null", "w", stderr));
	FILE *devnull = fopen("/dev/null", "w");
	T_OK(devnull);

	const char *s = getenv("T_RANDOM_SEED"), *k = getenv("T_RANDOM_N");
	state = s ? strtoull(s, NULL, 0) : 0x9e3779b97f4a7c15ull;
	int iterations = k ? atoi(k) : 120;
	for (int it = 0; it < iterations; it++) {
		struct pp_profile prof = { 0 };
		prof.command = strdup(rnd() % 2 ? "cmd" : "x;\n\"<>&'");
		prof.start_ns = rnd();
		prof.end_ns = rnd();
		prof.nprocs = 1 + rnd() % 3;
		prof.procs = calloc(prof.nprocs, sizeof *prof.procs);
		for (size_t i = 0; i < prof.nprocs; i++)
			random_process(&prof.procs[i]);
		prof.bucket_ns = rnd() % 4 ? 10000000 : rnd() % 3 ? 0 : rnd();
		bool fill = rnd() % 4 == 0;
		fit_counts(&prof, fill);
		if (fill)
			beyond(&prof, it);
		round_trip(&prof, it);
		/* now and then a period (report/export --time): any outcome but
		 * a crash */
		struct tl_range period = { (double)(rnd() % 8), (double)(1 + rnd() % 8) };
		struct tl_kept kept;
		char terr[256];
		if (rnd() % 3 == 0)
			(void)tl_restrict(&prof, &period, &kept, terr, sizeof terr);
		struct model_opts o = { .threads = true }; /* view_threads below reads them */
		if (rnd() % 4 == 0)
			o.pid = 1 + (int32_t)(rnd() % 3);
		if (rnd() % 4 == 0)
			o.module = "*.so*";
		if (rnd() % 4 == 0)
			o.function = "*0x*";
		o.no_demangle = rnd() % 2;
		char err[512];
		struct model *f = model_build(&prof, &o, err, sizeof err);
		if (!f) {
			/* only a pid that matches nothing fails */
			CHECK(o.pid != 0, "iteration %d: %s", it, err);
		} else {
			const struct out_format *fmt[] = { &out_pprof, &out_folded, &out_speedscope,
							   &out_html, &out_gmon };
			for (int i = 0; i < 5; i++)
				CHECK(fmt[i]->write(f, fmt[i]->directory ? gm : out, err,
						    sizeof err) == 0,
				      "iteration %d, %s: %s", it, fmt[i]->name, err);
			model_notes(f, devnull, it & 1);
			size_t c;
			for (int by = 0; by < 5; by++) {
				free(model_sorted_fns(f, (enum model_sort)by, &c));
				free(model_sorted_lines(f, (enum model_sort)by, &c));
				free(model_sorted_mods(f, (enum model_sort)by, &c));
			}
			/* every view of pcprof report, into /dev/null */
			struct view_opts vo = { .sort = (enum model_sort)(rnd() % 5),
						.limit = rnd() % 3 };
			view_functions(f, &vo);
			view_lines(f, &vo);
			view_modules(f, &vo);
			view_processes(f, &vo);
			view_threads(f, &vo);
			view_tree(f, &vo);
			view_calls(f, &vo, "*", rnd() % 2);
			view_timeline(f, &vo);
			/* a function's total holds its self samples, and no more
			 * than all shown samples */
			for (size_t i = 0; i < f->nfns; i++)
				CHECK(f->fns[i].total >= f->fns[i].samples &&
					      f->fns[i].total <= f->shown,
				      "iteration %d: %s: self %llu, total %llu of %llu", it,
				      f->fns[i].label, (unsigned long long)f->fns[i].samples,
				      (unsigned long long)f->fns[i].total,
				      (unsigned long long)f->shown);
			uint64_t sum = 0;
			for (size_t i = 0; i < f->nfns; i++)
				sum += f->fns[i].samples;
			/* every shown sample is in exactly one row */
			CHECK(sum == f->shown, "iteration %d: rows hold %llu of %llu samples", it,
			      (unsigned long long)sum, (unsigned long long)f->shown);
			/* and in one thread, whose top function has no more */
			sum = 0;
			for (size_t i = 0; i < f->nthreads; i++) {
				const struct model_thread *t = &f->threads[i];
				CHECK(t->top_samples <= t->samples,
				      "iteration %d: thread %zu: top %llu of %llu samples", it, i,
				      (unsigned long long)t->top_samples,
				      (unsigned long long)t->samples);
				sum += t->samples;
			}
			CHECK(sum == f->shown, "iteration %d: threads hold %llu of %llu samples",
			      it, (unsigned long long)sum, (unsigned long long)f->shown);
			model_free(f);
		}
		pp_free(&prof);
	}
	fclose(devnull);
	char cmd[4400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0, "%s", cmd);
	return 0;
}
