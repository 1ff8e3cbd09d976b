/*
 * out-speedscope.c - speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json), "sampled" profiles:
 * every sample is its call stack, root first, one frame per function,
 * weighted by its CPU seconds; a one-frame stack (a sample recorded
 * without a stack) is module then function, as in the folded export.  The
 * first profile holds every selected process; when there are several, one
 * profile per process follows (docs/formats.md).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "out.h"
#include "util.h"

/*
 * What the profiles share.  A profile lists its stacks in the order of
 * their leaf functions in model_sorted_fns; each per-process profile looks
 * only at that process's hits (contiguous in f->hits, in process order)
 * and the stacks they touch, so that 40,000 processes cost 40,000 small
 * profiles, not 40,000 passes over everything.
 */
struct ctx {
	const struct model *f;
	const uint32_t *modframe, *fnframe;
	uint32_t *rank;   /* function -> its place in model_sorted_fns */
	uint32_t *canon;  /* node -> the first node of its functions' stack */
	double *w;        /* seconds per stack (canonical leaf node), for the profile */
	uint32_t *touch;  /* the stacks with w set, to sort and to clear */
	size_t *proc_hit; /* first hit of each process; [nprocs] = nhits */
	uint32_t *fns;    /* a stack's functions (model_stack_fns) */
	size_t cap;
};

static const struct ctx *sort_ctx;

/* By the leaf's rank, then by node: the same order every time. */
static int rank_cmp(const void *a, const void *b)
{
	uint32_t p = *(const uint32_t *)a, q = *(const uint32_t *)b;
	const struct model *f = sort_ctx->f;
	uint32_t x = sort_ctx->rank[f->pcs[f->nodes[p].pc].fn];
	uint32_t y = sort_ctx->rank[f->pcs[f->nodes[q].pc].fn];
	if (x != y)
		return (x > y) - (x < y);
	return (p > q) - (p < q);
}

/* One stack as speedscope frame indexes, root first. */
static void stack(FILE *s, struct ctx *c, uint32_t node)
{
	const struct model *f = c->f;
	size_t depth = model_stack_fns(f, node, &c->fns, &c->cap);
	fputc('[', s);
	if (depth == 1) {
		uint32_t m = f->fns[c->fns[0]].mod;
		fprintf(s, "%" PRIu32 ",", c->modframe[m == MODEL_NO_MOD ? f->nmods : m]);
	}
	for (size_t d = 0; d < depth; d++)
		fprintf(s, "%s%" PRIu32, d ? "," : "", c->fnframe[c->fns[d]]);
	fputc(']', s);
}

/* One profile: every process's hits (proc UINT32_MAX) or one process's. */
static void profile(FILE *s, struct ctx *c, uint32_t proc)
{
	const struct model *f = c->f;
	fputs("{\"type\":\"sampled\",\"name\":\"", s);
	if (proc == UINT32_MAX) {
		out_json_str(s, f->prof->command);
	} else {
		const struct pp_process *p = f->procs[proc].p;
		fprintf(s, "pid %d: ", (int)p->pid);
		out_json_str(s, p->cmdline[0] ? p->cmdline : p->exe);
	}
	fputs("\",\"unit\":\"seconds\",\"startValue\":0,\"samples\":[", s);
	/* one sample per stack (the hits of a stack are summed) */
	size_t lo = proc == UINT32_MAX ? 0 : c->proc_hit[proc];
	size_t hi = proc == UINT32_MAX ? f->nhits : c->proc_hit[proc + 1];
	size_t n = 0;
	for (size_t i = lo; i < hi; i++) {
		const struct model_hit *h = &f->hits[i];
		unsigned hz = f->procs[h->proc].p->hz;
		uint32_t node = c->canon[h->node];
		if (c->w[node] == 0)
			c->touch[n++] = node;
		c->w[node] += hz ? (double)h->count / hz : 0;
		if (c->w[node] == 0) /* a hit of weight 0: never listed */
			n--;
	}
	sort_ctx = c;
	qsort(c->touch, n, sizeof *c->touch, rank_cmp);
	const char *sep = "";
	for (size_t i = 0; i < n; i++) {
		uint32_t k = c->touch[i];
		if (c->w[k] <= 0)
			continue;
		fputs(sep, s);
		stack(s, c, k);
		sep = ",";
	}
	fputs("],\"weights\":[", s);
	sep = "";
	double total = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t k = c->touch[i];
		if (c->w[k] > 0) {
			fprintf(s, "%s%.9g", sep, c->w[k]);
			total += c->w[k];
			sep = ",";
		}
		c->w[k] = 0;
	}
	fprintf(s, "],\"endValue\":%.9g}", total);
}

static int write_speedscope(const struct model *f, const char *out, char *err, size_t errlen)
{
	struct ofile *o = ofile_open(out, err, errlen);
	if (!o)
		return -1;
	FILE *s = ofile_stream(o);
	uint32_t *modframe = xcalloc(f->nmods + 1, sizeof *modframe);
	uint32_t *fnframe = xcalloc(f->nfns, sizeof *fnframe);
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n", s);
	fputs("\"name\":\"", s);
	out_json_str(s, f->prof->command);
	fprintf(s, "\",\"exporter\":\"pcprof %s\",\"activeProfileIndex\":0,\n", PCPROF_VERSION);
	fputs("\"shared\":{\"frames\":[\n", s);
	uint32_t k = 0;
	for (uint32_t m = 0; m <= f->nmods; m++) {
		if (m < f->nmods && !f->mods[m].samples)
			continue;
		modframe[m] = k++;
		fputs(k > 1 ? ",\n{\"name\":\"" : "{\"name\":\"", s);
		out_json_str(s, m < f->nmods ? f->mods[m].name : "[unknown]");
		if (m < f->nmods) {
			fputs("\",\"file\":\"", s);
			out_json_str(s, f->mods[m].path);
		}
		fputs("\"}", s);
	}
	for (uint32_t i = 0; i < f->nfns; i++) {
		const struct model_fn *fn = &f->fns[i];
		if (!fn->samples && !fn->total)
			continue;
		fnframe[i] = k++;
		fputs(k > 1 ? ",\n{\"name\":\"" : "{\"name\":\"", s);
		out_json_str(s, fn->label);
		fputc('"', s);
		if (fn->file) {
			fputs(",\"file\":\"", s);
			out_json_str(s, fn->file);
			fprintf(s, "\",\"line\":%d", fn->line);
		}
		fputc('}', s);
	}
	fputs("]},\n\"profiles\":[\n", s);
	struct ctx c = { .f = f, .modframe = modframe, .fnframe = fnframe };
	size_t n;
	uint32_t *ix = model_sorted_fns(f, MODEL_SORT_SAMPLES, &n);
	c.rank = xcalloc(f->nfns, sizeof *c.rank);
	for (size_t i = 0; i < n; i++)
		c.rank[ix[i]] = (uint32_t)i;
	c.canon = model_fn_stacks(f);
	c.w = xcalloc(f->nnodes + 1, sizeof *c.w);
	c.touch = xcalloc(f->nnodes + 1, sizeof *c.touch);
	c.proc_hit = xcalloc(f->nprocs + 1, sizeof *c.proc_hit);
	for (size_t i = 0, p = 0; p <= f->nprocs; p++) {
		while (i < f->nhits && f->hits[i].proc < p)
			i++;
		c.proc_hit[p] = i;
	}
	profile(s, &c, UINT32_MAX);
	for (uint32_t p = 0; f->nprocs > 1 && p < f->nprocs; p++) {
		fputs(",\n", s);
		profile(s, &c, p);
	}
	fputs("]}\n", s);
	free(ix);
	free(c.rank);
	free(c.w);
	free(c.touch);
	free(c.proc_hit);
	free(c.fns);
	free(c.canon);
	free(modframe);
	free(fnframe);
	return ofile_close(o, err, errlen);
}

const struct out_format out_speedscope = {
	.name = "speedscope",
	.help = "speedscope JSON (https://www.speedscope.app)",
	.default_out = "pcprof.speedscope.json",
	.write = write_speedscope,
};
