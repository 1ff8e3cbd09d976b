/*
 * view-tree.c - `pcprof report --tree`: the call tree top-down, one line
 * per call path of functions (a path's locations merged by function),
 * with the share of samples whose stack begins with that path (total) and
 * of those that end there (self).  Children by total, most first.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "view.h"

struct tnode {
	uint32_t fn;
	uint32_t first, next; /* first child, next sibling (index + 1; 0: none) */
	uint64_t total, self;
};

struct tree {
	struct tnode *v;
	size_t n, cap;
	uint32_t roots; /* first root (index + 1) */
};

/* The child for fn of parent (index + 1; 0: none, a root), added if new. */
static uint32_t child(struct tree *t, uint32_t parent, uint32_t fn)
{
	uint32_t head = parent ? t->v[parent - 1].first : t->roots;
	for (uint32_t c = head; c; c = t->v[c - 1].next)
		if (t->v[c - 1].fn == fn)
			return c;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->v = xrealloc(t->v, t->cap * sizeof *t->v);
	}
	t->v[t->n] = (struct tnode){ .fn = fn, .next = head };
	uint32_t c = (uint32_t)++t->n;
	if (parent)
		t->v[parent - 1].first = c;
	else
		t->roots = c;
	return c;
}

static const struct model *sort_model;
static const struct tree *sort_tree;

static int by_total(const void *a, const void *b)
{
	const struct tnode *x = &sort_tree->v[*(const uint32_t *)a - 1];
	const struct tnode *y = &sort_tree->v[*(const uint32_t *)b - 1];
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(sort_model->fns[x->fn].label, sort_model->fns[y->fn].label);
}

static void print(const struct model *f, const struct tree *t, uint32_t head, int depth,
		  const struct view_opts *o)
{
	size_t n = 0;
	for (uint32_t c = head; c; c = t->v[c - 1].next)
		n++;
	uint32_t *ix = xmalloc((n ? n : 1) * sizeof *ix);
	n = 0;
	for (uint32_t c = head; c; c = t->v[c - 1].next)
		ix[n++] = c;
	sort_model = f;
	sort_tree = t;
	qsort(ix, n, sizeof *ix, by_total);
	if (o->limit && n > o->limit)
		n = o->limit;
	for (size_t i = 0; i < n; i++) {
		const struct tnode *tn = &t->v[ix[i] - 1];
		const struct model_fn *fn = &f->fns[tn->fn];
		printf("%6.2f  %6.2f  %9" PRIu64 "  %*s", view_pct(f, tn->total),
		       view_pct(f, tn->self), tn->total, 2 * depth, "");
		text_put(stdout, fn->label);
		fputs("  ", stdout);
		text_put(stdout, model_mod_name(f, fn->mod));
		putchar('\n');
		print(f, t, tn->first, depth + 1, o);
	}
	free(ix);
}

/* One stack into the tree: each function of its path gets its samples. */
static void add_stack(void *ctx, uint32_t node, const uint32_t *fns, size_t depth, uint64_t count)
{
	struct tree *t = ctx;
	(void)node;
	uint32_t at = 0;
	for (size_t d = 0; d < depth; d++) {
		at = child(t, at, fns[d]);
		t->v[at - 1].total += count;
	}
	if (at)
		t->v[at - 1].self += count;
}

void view_tree(const struct model *f, const struct view_opts *o)
{
	struct tree t = { 0 };
	model_each_stack(f, add_stack, &t);
	printf("\nCall tree:\n\n");
	printf("total%%   self%%    samples  function  module\n");
	print(f, &t, t.roots, 0, o);
	free(t.v);
}
