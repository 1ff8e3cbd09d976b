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

/*
 * The tree in preorder.  Not recursive: a recorded stack may be as deep as
 * the data file allows (a crafted one of 100,000 frames overflowed the C
 * stack), so the path from the root is a stack of its own, on the heap.
 * Lines are indented by two columns a level down to INDENT_MAX levels,
 * and deeper ones no further but with their depth in brackets, so that
 * the output stays linear in the nodes however deep the tree.
 */
#define INDENT_MAX 64

struct level {
	uint32_t at, end; /* the next child to print, and the end of the list */
};

/* The children of node k (nnodes: the roots), at most o->limit of them. */
static struct level level(const struct model_ftree *t, size_t k, const struct view_opts *o)
{
	uint32_t end = t->first[k + 1];
	if (o->limit && end - t->first[k] > o->limit)
		end = t->first[k] + (uint32_t)o->limit;
	return (struct level){ t->first[k], end };
}

static void print(const struct model *f, const struct model_ftree *t, const struct view_opts *o)
{
	size_t n = f->nnodes, top = 0, cap = 64;
	struct level *path = xmalloc(cap * sizeof *path);
	path[0] = level(t, n, o);
	for (;;) {
		struct level *l = &path[top];
		if (l->at == l->end) {
			if (top-- == 0)
				break;
			continue;
		}
		uint32_t k = t->kids[l->at++];
		const struct model_fn *fn = &f->fns[f->pcs[f->nodes[k].pc].fn];
		printf("%6.2f  %6.2f  %9" PRIu64 "  %*s", view_pct(f, t->total[k]),
		       view_pct(f, t->self[k]), t->total[k],
		       2 * (int)(top < INDENT_MAX ? top : INDENT_MAX), "");
		if (top > INDENT_MAX)
			printf("[%zu] ", top);
		view_fn_put(fn, 0);
		fputs("  ", stdout);
		text_put(stdout, model_mod_name(f, fn->mod));
		putchar('\n');
		if (top + 1 == cap)
			path = xrealloc(path, (cap *= 2) * sizeof *path);
		path[++top] = level(t, k, o);
	}
	free(path);
}

void view_tree(const struct model *f, const struct view_opts *o)
{
	struct model_ftree t;
	model_ftree(f, &t);
	printf("\nCall tree:\n\n");
	printf("total%%   self%%    samples  function  module\n");
	print(f, &t, o);
	model_ftree_free(&t);
}
