/*
 * view-calls.c - `pcprof report --callers FUNC` and `--callees FUNC`: for
 * each function matching FUNC, the functions that called it (or that it
 * called) in the recorded stacks, with the share of samples whose stack
 * holds that call.  Each sample counts once per row however often its
 * stack makes the call (recursion), so rows may add up to more than the
 * function's total.  [root]: the function was the outermost frame;
 * [self]: it was the leaf.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "view.h"

static const uint64_t *sort_sum;
static const struct model *sort_model;

/* Rows by samples (most first), then label; [root]/[self] (nfns) last. */
static int by_sum(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (sort_sum[x] != sort_sum[y])
		return sort_sum[x] > sort_sum[y] ? -1 : 1;
	if (x == sort_model->nfns || y == sort_model->nfns)
		return x == sort_model->nfns ? 1 : -1;
	return strcmp(sort_model->fns[x].label, sort_model->fns[y].label);
}

static bool matches(const struct model_fn *fn, const char *pat)
{
	return fnmatch(pat, fn->label, 0) == 0 || (fn->name && fnmatch(pat, fn->name, 0) == 0);
}

struct calls {
	uint32_t target, nfns; /* nfns: the [root] or [self] row */
	bool callees;
	uint64_t *sum;   /* per function, its samples */
	uint32_t *stamp; /* per function, the stack that last counted it */
};

static void add_stack(void *ctx, uint32_t node, const uint32_t *fns, size_t depth, uint64_t count)
{
	struct calls *c = ctx;
	for (size_t d = 0; d < depth; d++) {
		if (fns[d] != c->target)
			continue;
		uint32_t other = c->callees ? (d + 1 < depth ? fns[d + 1] : c->nfns)
					    : (d ? fns[d - 1] : c->nfns);
		if (c->stamp[other] != node) {
			c->stamp[other] = node;
			c->sum[other] += count;
		}
	}
}

/* One function's callers or callees. */
static void calls(const struct model *f, const struct view_opts *o, uint32_t target, bool callees)
{
	struct calls c = { target, (uint32_t)f->nfns, callees, xcalloc(f->nfns + 1, sizeof *c.sum),
			   xmalloc((f->nfns + 1) * sizeof *c.stamp) };
	memset(c.stamp, 0xff, (f->nfns + 1) * sizeof *c.stamp);
	model_each_stack(f, add_stack, &c);
	uint64_t *sum = c.sum;
	uint32_t *ix = xmalloc((f->nfns + 1) * sizeof *ix);
	size_t k = 0;
	for (uint32_t i = 0; i <= f->nfns; i++)
		if (sum[i])
			ix[k++] = i;
	sort_sum = sum;
	sort_model = f;
	qsort(ix, k, sizeof *ix, by_sum);
	if (o->limit && k > o->limit)
		k = o->limit;

	const struct model_fn *t = &f->fns[target];
	printf("\n%s of ", callees ? "Callees" : "Callers");
	text_put(stdout, t->label);
	fputs(" (", stdout);
	text_put(stdout, model_mod_name(f, t->mod));
	printf("): total %.2f%%, self %.2f%%\n\n", view_pct(f, t->total), view_pct(f, t->samples));
	printf("total%%    samples  %s  module\n", callees ? "callee" : "caller");
	for (size_t i = 0; i < k; i++) {
		printf("%6.2f  %9" PRIu64 "  ", view_pct(f, sum[ix[i]]), sum[ix[i]]);
		if (ix[i] == f->nfns) {
			fputs(callees ? "[self]" : "[root]", stdout);
		} else {
			text_put(stdout, f->fns[ix[i]].label);
			fputs("  ", stdout);
			text_put(stdout, model_mod_name(f, f->fns[ix[i]].mod));
		}
		putchar('\n');
	}
	free(ix);
	free(c.stamp);
	free(sum);
}

int view_calls(const struct model *f, const struct view_opts *o, const char *pat, bool callees)
{
	size_t n;
	uint32_t *ix = model_sorted_fns(f, MODEL_SORT_TOTAL, &n);
	int found = -1;
	for (size_t i = 0; i < n; i++)
		if (matches(&f->fns[ix[i]], pat)) {
			calls(f, o, ix[i], callees);
			found = 0;
		}
	free(ix);
	return found;
}
