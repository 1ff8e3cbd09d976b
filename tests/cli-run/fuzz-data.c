/*
 * fuzz-data - libFuzzer target for the pcprof.data reader (cli/data.c) and
 * for what reads the profiles it returns: the model (cli/model.c), every
 * view of pcprof report and the writers of pcprof export.  Built by
 * `make build/fuzz/fuzz-data` with clang's -fsanitize=fuzzer and run by
 * t-fuzz.sh.
 *
 * Each input is parsed twice: as it is (the checksums reject nearly every
 * mutation, which is the point of them) and with checksum verification off,
 * so the mutations reach the record parser behind them.  Whatever parses
 * must be usable: every string terminated, every index in range, and
 * encoding it again must give a file that parses.  Then the model is built
 * from it and every view and writer runs on it (module paths made to name
 * no file, so that no input waits for symbols).
 *
 * Byte flips rarely make what the readers' arithmetic depends on, so a
 * custom mutator (LLVMFuzzerCustomMutator) also parses its input and
 * changes it as a data file could: a count set to an extreme or to what is
 * left of its bound (data.h: 2^53 ticks, 2^62 ns), a stack made into a
 * chain thousands of frames deep, tables grown to thousands of samples,
 * threads or modules, times, rates and biases at their limits; then it
 * encodes it again, checksums right.  What the encoder refuses (beyond
 * the bounds) reaches the reader through libFuzzer's byte mutations.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "model.h"
#include "out.h"
#include "record-format.h"
#include "timeline.h"
#include "view.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);

static void use(const struct pp_profile *p)
{
	size_t n = strlen(p->command);
	for (size_t i = 0; i < p->nprocs; i++) {
		const struct pp_process *pr = &p->procs[i];
		n += strlen(pr->exe) + strlen(pr->cmdline) + strlen(pr->why) + strlen(pr->engine);
		for (size_t k = 0; k < pr->nmodules; k++)
			n += strlen(pr->modules[k].path);
		for (size_t k = 0; k < pr->nthreads; k++)
			n += strlen(pr->threads[k].name);
		for (size_t k = 0; k < pr->nsamples; k++) {
			const struct pp_sample *s = &pr->samples[k];
			if (s->thread >= pr->nthreads ||
			    (s->module != PP_NO_MODULE && s->module >= pr->nmodules))
				abort();
			n += pp_find_module(pr, s->pc, 0) == PP_NO_MODULE;
			/* a stack ends, at a root, within nframes steps */
			size_t depth = 0;
			for (uint32_t f = s->frame; f != PP_NO_FRAME; f = pr->frames[f].parent)
				if (f >= pr->nframes || ++depth > pr->nframes)
					abort();
		}
	}
	/* keep the loop from being optimised away */
	__asm__ volatile("" : : "r"(n));
}

/* The model, every view and every writer but gmon's (a directory) on p,
 * whose module paths are made to name no file first. */
static void read_all(struct pp_profile *p, unsigned salt)
{
	for (size_t i = 0; i < p->nprocs; i++)
		for (size_t k = 0; k < p->procs[i].nmodules; k++) {
			struct pp_module *m = &p->procs[i].modules[k];
			const char *b = strrchr(m->path, '/');
			char *path = malloc(strlen(m->path) + 16);
			if (!path)
				abort();
			sprintf(path, "/nonexistent/%s", b ? b + 1 : m->path);
			free(m->path);
			m->path = path;
			m->build_id_len = 0;
		}
	struct tl_range period = { (double)(salt % 4), (double)(1 + salt % 8) };
	struct tl_kept kept;
	char err[512];
	if (salt % 5 == 0)
		(void)tl_restrict(p, &period, &kept, err, sizeof err);
	struct model_opts o = { .threads = true, .no_inline = salt & 8 };
	struct model *f = model_build(p, &o, err, sizeof err);
	if (!f)
		return;
	uint64_t sum = 0;
	for (size_t i = 0; i < f->nfns; i++) {
		if (f->fns[i].total < f->fns[i].samples || f->fns[i].total > f->shown)
			abort(); /* a sum wrapped */
		sum += f->fns[i].samples;
	}
	if (sum != f->shown)
		abort();
	struct view_opts vo = { .sort = (enum model_sort)(salt % 5), .limit = salt % 3 };
	view_functions(f, &vo);
	view_lines(f, &vo);
	view_modules(f, &vo);
	view_processes(f, &vo);
	view_threads(f, &vo);
	view_tree(f, &vo);
	view_calls(f, &vo, "*", salt & 16);
	view_timeline(f, &vo);
	const struct out_format *fmt[] = { &out_pprof, &out_folded, &out_speedscope, &out_html };
	for (size_t i = 0; i < sizeof fmt / sizeof *fmt; i++)
		if (fmt[i]->write(f, "/dev/null", err, sizeof err) != 0)
			abort();
	model_free(f);
}

static void one(const uint8_t *data, size_t size, unsigned flags)
{
	struct pp_profile p;
	char err[256];
	if (pp_parse(data, size, flags, &p, err, sizeof err) < 0) {
		if (!err[0] || strchr(err, '\n') || p.procs || p.command)
			abort();
		return;
	}
	use(&p);
	uint8_t *buf;
	size_t len;
	if (pp_encode(&p, &buf, &len, err, sizeof err) < 0)
		abort();
	struct pp_profile q;
	if (pp_parse(buf, len, 0, &q, err, sizeof err) < 0 || q.nprocs != p.nprocs)
		abort();
	free(buf);
	pp_free(&q);
	if (flags & PP_PARSE_NO_CRC)
		read_all(&p, (unsigned)(size * 2654435761u >> 7));
	pp_free(&p);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* the views print: not into libFuzzer's log */
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one(data, size, 0);
	one(data, size, PP_PARSE_NO_CRC);
	return 0;
}

/* ---- the custom mutator ---------------------------------------------------- */

static uint64_t state;

static uint64_t rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static void *grow(void *p, size_t n, size_t size)
{
	void *q = realloc(p, (n ? n : 1) * size);
	if (!q)
		abort();
	return q;
}

/* A count at an edge: small, a power of two, or at the bound. */
static uint64_t extreme(uint64_t max)
{
	static const uint64_t v[] = { 0, 1, 2, 0xffff, 0xffffffffu, 1ull << 32, 1ull << 52 };
	uint64_t r = rnd() % 10;
	return r < 7 ? v[r] % (max + 1) : r == 7 ? max - 1 : max;
}

static struct pp_process *some_process(struct pp_profile *p)
{
	return p->nprocs ? &p->procs[rnd() % p->nprocs] : NULL;
}

/* Every sum at its bound (data.h): the samples' counts in the order they
 * come, the last one taking what is left; the first process's ticks,
 * signals, lost and untimed ticks and CPU time what the others leave. */
static void fill(struct pp_profile *p)
{
	uint64_t left = PP_TICKS_MAX, rest[5] = { 0 };
	struct pp_sample *last = NULL;
	for (size_t i = 0; i < p->nprocs; i++) {
		struct pp_process *pr = &p->procs[i];
		for (size_t k = 0; k < pr->nsamples; k++) {
			struct pp_sample *s = &pr->samples[k];
			s->count = s->count > left ? left : s->count;
			left -= s->count;
			last = s;
		}
		uint64_t thr = PP_TICKS_MAX;
		for (size_t k = 0; k < pr->nthreads; k++) {
			pr->threads[k].ticks = thr / 2;
			thr -= thr / 2;
		}
		if (i) {
			rest[0] += pr->ticks;
			rest[1] += pr->signals;
			rest[2] += pr->lost;
			rest[3] += pr->tl_lost;
			rest[4] += pr->cpu_ns;
		}
	}
	if (last)
		last->count += left;
	if (p->nprocs) {
		struct pp_process *pr = &p->procs[0];
		pr->ticks = PP_TICKS_MAX - rest[0];
		pr->signals = PP_TICKS_MAX - rest[1];
		pr->lost = PP_TICKS_MAX - rest[2];
		pr->tl_lost = PP_TICKS_MAX - rest[3];
		pr->cpu_ns = PP_NS_MAX - rest[4];
	}
}

/* A chain of n frames under a random frame (or a root), each at the pc
 * and module of a random frame or of none, and a sample at its leaf. */
static void chain(struct pp_process *pr, size_t n)
{
	if (!pr->nthreads) {
		pr->threads = grow(pr->threads, 1, sizeof *pr->threads);
		pr->threads[0] = (struct pp_thread){ .tid = 1, .name = "t" };
		pr->nthreads = 1;
	}
	size_t base = pr->nframes;
	pr->frames = grow(pr->frames, base + n, sizeof *pr->frames);
	uint32_t parent = base && rnd() % 2 ? (uint32_t)(rnd() % base) : PP_NO_FRAME;
	for (size_t i = 0; i < n; i++) {
		struct pp_frame f = { 0x1000 + 16 * (rnd() % 4096), PP_NO_MODULE, parent };
		if (base && rnd() % 2) {
			f.pc = pr->frames[rnd() % base].pc;
			f.module = pr->frames[rnd() % base].module;
		}
		if (PCPROF_FRAME_IS_MARKER(f.pc) || f.module >= pr->nmodules)
			f.module = PP_NO_MODULE;
		pr->frames[base + i] = f;
		parent = (uint32_t)(base + i);
	}
	pr->nframes = base + n;
	const struct pp_frame *leaf = &pr->frames[pr->nframes - 1];
	pr->samples = grow(pr->samples, pr->nsamples + 1, sizeof *pr->samples);
	pr->samples[pr->nsamples++] =
		(struct pp_sample){ leaf->pc,	 leaf->module, (uint32_t)(rnd() % pr->nthreads),
				    1 + rnd() % 4, parent, (uint32_t)(rnd() % 3) };
}

/* n copies of a random sample, each in a time bucket of its own. */
static void more_samples(struct pp_process *pr, size_t n)
{
	if (!pr->nsamples)
		return;
	const struct pp_sample s = pr->samples[rnd() % pr->nsamples];
	pr->samples = grow(pr->samples, pr->nsamples + n, sizeof *pr->samples);
	for (size_t i = 0; i < n; i++) {
		pr->samples[pr->nsamples + i] = s;
		pr->samples[pr->nsamples + i].time = (uint32_t)(s.time + 1 + i);
	}
	pr->nsamples += n;
}

/* n more threads, and the samples spread over them. */
static void more_threads(struct pp_process *pr, size_t n)
{
	pr->threads = grow(pr->threads, pr->nthreads + n, sizeof *pr->threads);
	for (size_t i = 0; i < n; i++)
		pr->threads[pr->nthreads + i] =
			(struct pp_thread){ .tid = (int32_t)rnd(), .name = "x", .ticks = rnd() % 8 };
	pr->nthreads += n;
	for (size_t k = 0; k < pr->nsamples; k++)
		pr->samples[k].thread = (uint32_t)(rnd() % pr->nthreads);
}

/* n more modules, with biases and segments anywhere. */
static void more_modules(struct pp_process *pr, size_t n)
{
	pr->modules = grow(pr->modules, pr->nmodules + n, sizeof *pr->modules);
	for (size_t i = 0; i < n; i++) {
		struct pp_module *m = &pr->modules[pr->nmodules + i];
		*m = (struct pp_module){ .path = strdup(rnd() % 2 ? "/x.so" : "[vdso]"),
					 .bias = rnd() % 2 ? rnd() : 0,
					 .epoch_loaded = (uint32_t)(rnd() % 3),
					 .nsegs = (uint32_t)(rnd() % 9) };
		for (uint32_t k = 0; k < m->nsegs; k++)
			m->seg[k] = (struct pp_segment){ rnd() % 2 ? rnd() : 0x1000,
							 rnd() % 2 ? rnd() : 0x10000,
							 rnd() % 0x10000, (uint32_t)(rnd() % 8) };
	}
	pr->nmodules += n;
}

static void mutate(struct pp_profile *p, size_t room)
{
	struct pp_process *pr = some_process(p);
	switch (rnd() % 9) {
	case 0: /* one count at an edge */
		if (pr && pr->nsamples)
			pr->samples[rnd() % pr->nsamples].count = extreme(PP_TICKS_MAX);
		if (pr && pr->nthreads)
			pr->threads[rnd() % pr->nthreads].ticks = extreme(PP_TICKS_MAX);
		break;
	case 1:
		fill(p);
		break;
	case 2: /* a process's figures at their edges */
		if (!pr)
			break;
		pr->ticks = extreme(PP_TICKS_MAX);
		pr->signals = extreme(PP_TICKS_MAX);
		pr->lost = extreme(PP_TICKS_MAX);
		pr->tl_lost = extreme(PP_TICKS_MAX);
		pr->cpu_ns = extreme(PP_NS_MAX);
		pr->hz = rnd() % 3 == 0 ? 0 : rnd() % 2 ? 1 : UINT32_MAX;
		pr->start_ns = rnd() % 2 ? 0 : UINT64_MAX;
		pr->end_ns = rnd() % 2 ? 0 : UINT64_MAX;
		pr->tl_partial = (uint32_t)extreme(UINT32_MAX);
		break;
	case 3: /* a deep stack: up to 65536 frames of 16 bytes, as room allows */
		if (pr && room > 64)
			chain(pr, 1 + rnd() % (room / 16 < 65536 ? room / 16 : 65536));
		break;
	case 4:
		if (pr && room > 64)
			more_samples(pr, 1 + rnd() % (room / 32 < 20000 ? room / 32 : 20000));
		break;
	case 5:
		if (pr && room > 64)
			more_threads(pr, 1 + rnd() % (room / 32 < 5000 ? room / 32 : 5000));
		break;
	case 6:
		if (pr && room > 256)
			more_modules(pr, 1 + rnd() % (room / 256 < 300 ? room / 256 : 300));
		break;
	case 7: /* times at their edges */
		p->bucket_ns = rnd() % 3 == 0 ? 0 : rnd() % 2 ? 1 : UINT64_MAX;
		for (size_t k = 0; pr && k < pr->nsamples; k++)
			if (rnd() % 2)
				pr->samples[k].time = (uint32_t)extreme(UINT32_MAX);
		break;
	default: /* biases at their edges */
		for (size_t k = 0; pr && k < pr->nmodules; k++)
			if (rnd() % 2)
				pr->modules[k].bias = rnd() % 2 ? UINT64_MAX - rnd() % 4096 : rnd();
		break;
	}
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned seed)
{
	state = seed * 0x9e3779b97f4a7c15ull + 1;
	struct pp_profile p;
	char err[256];
	if (rnd() % 3 == 0 || pp_parse(data, size, PP_PARSE_NO_CRC, &p, err, sizeof err) < 0)
		return LLVMFuzzerMutate(data, size, max);
	mutate(&p, max > size ? max - size : 0);
	uint8_t *buf;
	size_t len;
	int r = pp_encode(&p, &buf, &len, err, sizeof err);
	pp_free(&p);
	if (r < 0) /* beyond a bound, or frames that break the rules */
		return LLVMFuzzerMutate(data, size, max);
	if (len > max) {
		free(buf);
		return LLVMFuzzerMutate(data, size, max);
	}
	memcpy(data, buf, len);
	free(buf);
	return len;
}
