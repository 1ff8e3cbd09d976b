/*
 * out-folded.c - folded stacks (FlameGraph's stackcollapse format), which
 * flamegraph.pl, inferno and speedscope read: one line per distinct call
 * path of functions, root first, "main;a;b;hot count".  A one-frame stack
 * (a sample recorded without a stack) keeps its module as its root,
 * "module;function count", as before stacks were recorded
 * (docs/formats.md).  Lines by count, most first, then by text.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "util.h"

/* Readers split lines, then frames on ';' and the count off at the last
 * space: a name is escaped as for a terminal (no line breaks or control
 * characters; util.h) and its ';' become '_'. */
static void frame(FILE *f, const char *s)
{
	char *t = text_dup(s);
	for (const char *c = t; *c; c++)
		fputc(*c == ';' ? '_' : *c, f);
	free(t);
}

struct line {
	char *text;
	uint64_t count;
};

struct lines {
	const struct model *f;
	struct line *v;
	size_t n, cap;
};

static void add_stack(void *ctx, uint32_t node, const uint32_t *fns, size_t depth, uint64_t count)
{
	struct lines *l = ctx;
	const struct model *f = l->f;
	(void)node;
	struct membuf mb;
	FILE *s = membuf_open(&mb);
	if (depth == 1) {
		frame(s, model_mod_name(f, f->fns[fns[0]].mod));
		fputc(';', s);
	}
	for (size_t d = 0; d < depth; d++) {
		if (d)
			fputc(';', s);
		frame(s, f->fns[fns[d]].label);
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = (struct line){ membuf_close(&mb), count };
}

static int by_text(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
}

static int by_count(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->text, y->text);
}

static int write_folded(const struct model *f, const char *out, char *err, size_t errlen)
{
	struct ofile *o = ofile_open(out, err, errlen);
	if (!o)
		return -1;
	FILE *s = ofile_stream(o);
	/* stacks of different pcs may give the same functions: one line */
	struct lines l = { .f = f };
	model_each_stack(f, add_stack, &l);
	if (l.n) /* v is NULL when there are no samples */
		qsort(l.v, l.n, sizeof *l.v, by_text);
	size_t n = 0;
	for (size_t i = 0; i < l.n; i++) {
		if (n && strcmp(l.v[n - 1].text, l.v[i].text) == 0) {
			l.v[n - 1].count += l.v[i].count;
			free(l.v[i].text);
		} else {
			l.v[n++] = l.v[i];
		}
	}
	if (n)
		qsort(l.v, n, sizeof *l.v, by_count);
	for (size_t i = 0; i < n; i++) {
		fprintf(s, "%s %" PRIu64 "\n", l.v[i].text, l.v[i].count);
		free(l.v[i].text);
	}
	free(l.v);
	return ofile_close(o, err, errlen);
}

const struct out_format out_folded = {
	.name = "folded",
	.help = "folded stacks, \"main;a;b;hot count\" (flamegraph.pl, speedscope)",
	.default_out = "pcprof.folded",
	.write = write_folded,
};
