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
 * characters; util.h) and its ';' become '_'.  Each function's is made
 * once (a large profile has millions of stacks over a few thousand
 * functions: cleaning every frame of every stack was most of the export). */
static char *clean(const char *s)
{
	char *t = text_dup(s);
	for (char *c = t; *c; c++)
		if (*c == ';')
			*c = '_';
	return t;
}

struct line {
	char *text;
	uint64_t count;
};

struct lines {
	const struct model *f;
	char **fn_text; /* per function, made on first use */
	size_t *fn_len;
	char **mod_text; /* per module, for one-frame stacks */
	struct line *v;
	size_t n, cap;
};

static const char *fn_text(struct lines *l, uint32_t fn, size_t *len)
{
	if (!l->fn_text[fn]) {
		l->fn_text[fn] = clean(l->f->fns[fn].label);
		l->fn_len[fn] = strlen(l->fn_text[fn]);
	}
	*len = l->fn_len[fn];
	return l->fn_text[fn];
}

static void add_stack(void *ctx, uint32_t node, const uint32_t *fns, size_t depth, uint64_t count)
{
	struct lines *l = ctx;
	const struct model *f = l->f;
	(void)node;
	const char *root = NULL;
	size_t len = 1, rlen = 0, n;
	if (depth == 1) {
		uint32_t m = f->fns[fns[0]].mod;
		size_t k = m == MODEL_NO_MOD ? f->nmods : m; /* the last entry: [unknown] */
		if (!l->mod_text[k])
			l->mod_text[k] = clean(model_mod_name(f, m));
		root = l->mod_text[k];
		rlen = strlen(root);
		len += rlen + 1;
	}
	for (size_t d = 0; d < depth; d++) {
		fn_text(l, fns[d], &n);
		len += n + 1;
	}
	char *t = xmalloc(len), *p = t;
	if (root) {
		memcpy(p, root, rlen);
		p += rlen;
		*p++ = ';';
	}
	for (size_t d = 0; d < depth; d++) {
		const char *s = fn_text(l, fns[d], &n);
		if (d)
			*p++ = ';';
		memcpy(p, s, n);
		p += n;
	}
	*p = '\0';
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = (struct line){ t, count };
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
	struct lines l = { .f = f,
			   .fn_text = xcalloc(f->nfns + 1, sizeof(char *)),
			   .fn_len = xcalloc(f->nfns + 1, sizeof(size_t)),
			   .mod_text = xcalloc(f->nmods + 1, sizeof(char *)) };
	model_each_stack(f, add_stack, &l);
	for (size_t i = 0; i < f->nfns; i++)
		free(l.fn_text[i]);
	for (size_t i = 0; i <= f->nmods; i++)
		free(l.mod_text[i]);
	free(l.fn_text);
	free(l.fn_len);
	free(l.mod_text);
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
