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

/*
 * Every call edge of the tree at once, whatever the number of functions
 * asked for: one function's rows took a walk of every stack, so '*' on
 * 200,000 functions took 200,000 walks.  An edge (caller, callee) holds
 * the samples whose stack makes that call at least once: the sum, over
 * the nodes where the edge first appears on the way down from a root, of
 * the samples under the node (model_walk), as model.c sums totals.
 */
struct edge {
	uint32_t caller, callee; /* functions; caller nfns: [root] */
	uint32_t on;             /* the walk's path holds it this many times */
	uint64_t sum;
};

struct edges {
	struct edge *v;
	size_t n, cap;
	uint32_t *slot; /* open addressing: index + 1, 0 empty */
	size_t nslot;
};

static uint64_t edge_hash(uint32_t caller, uint32_t callee)
{
	uint64_t x = (uint64_t)caller << 32 | callee;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	return x ^ (x >> 33);
}

static uint32_t edge_of(struct edges *e, uint32_t caller, uint32_t callee)
{
	if (2 * (e->n + 1) > e->nslot) {
		size_t nslot = e->nslot ? 2 * e->nslot : 1024;
		uint32_t *slot = xcalloc(nslot, sizeof *slot);
		for (size_t i = 0; i < e->n; i++) {
			size_t j = edge_hash(e->v[i].caller, e->v[i].callee) & (nslot - 1);
			while (slot[j])
				j = (j + 1) & (nslot - 1);
			slot[j] = (uint32_t)i + 1;
		}
		free(e->slot);
		e->slot = slot;
		e->nslot = nslot;
	}
	size_t j = edge_hash(caller, callee) & (e->nslot - 1);
	for (; e->slot[j]; j = (j + 1) & (e->nslot - 1)) {
		const struct edge *x = &e->v[e->slot[j] - 1];
		if (x->caller == caller && x->callee == callee)
			return e->slot[j] - 1;
	}
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 1024;
		e->v = xrealloc(e->v, e->cap * sizeof *e->v);
	}
	e->v[e->n] = (struct edge){ caller, callee, 0, 0 };
	e->slot[j] = (uint32_t)++e->n;
	return (uint32_t)e->n - 1;
}

static uint32_t node_fn(const struct model *f, uint32_t v)
{
	return f->pcs[f->nodes[v].pc].fn;
}

/* Every edge of the tree with its samples. */
static void find_edges(const struct model *f, struct edges *e)
{
	struct model_walk w = model_walk(f);
	size_t n = f->nnodes, depth = 0, maxdepth = 0;
	for (size_t v = 0; v < n; v++)
		if (f->nodes[v].depth > maxdepth)
			maxdepth = f->nodes[v].depth;
	uint32_t *path = xmalloc((maxdepth + 1) * sizeof *path); /* its edges */
	for (size_t i = 0; i < n; i++) {
		uint32_t v = w.pre[i];
		/* leave the nodes that are not above v */
		for (; depth >= f->nodes[v].depth; depth--)
			e->v[path[depth - 1]].on--;
		uint32_t p = f->nodes[v].parent;
		uint32_t k = edge_of(e, p == MODEL_NO_NODE ? (uint32_t)f->nfns : node_fn(f, p),
				     node_fn(f, v));
		if (e->v[k].on++ == 0)
			e->v[k].sum += w.sub[v];
		path[depth++] = k;
	}
	free(path);
	model_walk_free(&w);
}

struct row {
	uint32_t fn; /* nfns: [root] or [self] */
	uint64_t sum;
};

static const struct model *sort_model;

/* Rows by samples (most first), then label, then function; [root]/[self]
 * (nfns) last. */
static int by_sum(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->sum != y->sum)
		return x->sum > y->sum ? -1 : 1;
	if (x->fn == sort_model->nfns || y->fn == sort_model->nfns)
		return x->fn == sort_model->nfns ? 1 : -1;
	int c = strcmp(sort_model->fns[x->fn].label, sort_model->fns[y->fn].label);
	return c ? c
		 : (x->fn > y->fn) - (x->fn < y->fn); /* (an inlined copy's label is the same) */
}

static bool matches(const struct model_fn *fn, const char *pat)
{
	return fnmatch(pat, fn->label, 0) == 0 || (fn->name && fnmatch(pat, fn->name, 0) == 0);
}

/* One function's callers or callees: rows[0..n). */
static void print(const struct model *f, const struct view_opts *o, uint32_t target, bool callees,
		  struct row *rows, size_t n)
{
	sort_model = f;
	qsort(rows, n, sizeof *rows, by_sum);
	if (o->limit && n > o->limit)
		n = o->limit;
	const struct model_fn *t = &f->fns[target];
	printf("\n%s of ", callees ? "Callees" : "Callers");
	view_fn_put(t, 0);
	fputs(" (", stdout);
	text_put(stdout, model_mod_name(f, t->mod));
	printf("): total %.2f%%, self %.2f%%\n\n", view_pct(f, t->total), view_pct(f, t->samples));
	printf("total%%    samples  %s  module\n", callees ? "callee" : "caller");
	for (size_t i = 0; i < n; i++) {
		printf("%6.2f  %9" PRIu64 "  ", view_pct(f, rows[i].sum), rows[i].sum);
		if (rows[i].fn == f->nfns) {
			fputs(callees ? "[self]" : "[root]", stdout);
		} else {
			view_fn_put(&f->fns[rows[i].fn], 0);
			fputs("  ", stdout);
			text_put(stdout, model_mod_name(f, f->fns[rows[i].fn].mod));
		}
		putchar('\n');
	}
}

int view_calls(const struct model *f, const struct view_opts *o, const char *pat, bool callees)
{
	size_t n, nf = f->nfns;
	uint32_t *ix = model_sorted_fns(f, MODEL_SORT_TOTAL, &n);
	struct edges e = { 0 };
	find_edges(f, &e);
	/* each function's rows together: a counting sort of the edges by the
	 * function they are rows of, then its [self] (callees) */
	size_t *first = xcalloc(nf + 2, sizeof *first);
	uint64_t *self = xcalloc(nf + 1, sizeof *self);
	if (callees)
		for (size_t i = 0; i < f->nhits; i++)
			self[f->pcs[f->hits[i].pc].fn] += f->hits[i].count;
	for (size_t i = 0; i < e.n; i++) /* (an edge of hidden samples only: none) */
		if (e.v[i].sum && (!callees || e.v[i].caller != nf))
			first[(callees ? e.v[i].caller : e.v[i].callee) + 1]++;
	for (size_t k = 0; k < nf; k++)
		first[k + 1] += first[k] + (self[k] != 0);
	struct row *rows = xmalloc((first[nf] ? first[nf] : 1) * sizeof *rows);
	size_t *next = xmalloc((nf + 1) * sizeof *next);
	memcpy(next, first, (nf + 1) * sizeof *next);
	for (size_t i = 0; i < e.n; i++) {
		const struct edge *x = &e.v[i];
		if (!x->sum)
			continue;
		if (callees && x->caller != nf)
			rows[next[x->caller]++] = (struct row){ x->callee, x->sum };
		else if (!callees)
			rows[next[x->callee]++] = (struct row){ x->caller, x->sum };
	}
	for (size_t k = 0; k < nf; k++)
		if (self[k])
			rows[next[k]++] = (struct row){ (uint32_t)nf, self[k] };
	int found = -1;
	for (size_t i = 0; i < n; i++)
		if (matches(&f->fns[ix[i]], pat)) {
			print(f, o, ix[i], callees, rows + first[ix[i]],
			      first[ix[i] + 1] - first[ix[i]]);
			found = 0;
		}
	free(rows);
	free(next);
	free(first);
	free(self);
	free(e.v);
	free(e.slot);
	free(ix);
	return found;
}
