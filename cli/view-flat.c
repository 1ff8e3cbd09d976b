/*
 * view-flat.c - the tables of `pcprof report` by function (-F), source
 * line (-l) and module (-M): self and total share, samples and seconds
 * per row, laid out like gprof's flat profile plus a module column.
 *
 * Every name comes from the profile, or from a program that named itself:
 * each goes through text_put/text_pad (util.h), never printf's %s, and
 * column widths count the characters text_put writes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "view.h"

static int label_width(const struct model *f, const uint32_t *ix, size_t n, bool lines)
{
	int w = 8;
	for (size_t i = 0; i < n; i++) {
		const char *s = f->fns[lines ? f->lines[ix[i]].fn : ix[i]].label;
		int l = text_width(s);
		if (l > w)
			w = l;
	}
	return w > 40 ? 40 : w;
}

void view_functions(const struct model *f, const struct view_opts *o)
{
	size_t n;
	uint32_t *ix = model_sorted_fns(f, o->sort, &n);
	if (o->limit && n > o->limit)
		n = o->limit;
	int w = label_width(f, ix, n, false);
	printf("\nFlat profile (functions):\n\n");
	printf(" self%%  total%%    samples   seconds  %-*s  module\n", w, "function");
	for (size_t i = 0; i < n; i++) {
		const struct model_fn *fn = &f->fns[ix[i]];
		printf("%6.2f  %6.2f  %9" PRIu64 "  %8.2f  ", view_pct(f, fn->samples),
		       view_pct(f, fn->total), fn->samples, fn->seconds);
		text_pad(stdout, fn->label, w);
		fputs("  ", stdout);
		text_put(stdout, model_mod_name(f, fn->mod));
		putchar('\n');
	}
	free(ix);
}

void view_lines(const struct model *f, const struct view_opts *o)
{
	size_t n;
	uint32_t *ix = model_sorted_lines(f, o->sort, &n);
	if (o->limit && n > o->limit)
		n = o->limit;
	int w = label_width(f, ix, n, true);
	int lw = 12;
	char buf[512];
	for (size_t i = 0; i < n; i++) {
		const struct model_line *l = &f->lines[ix[i]];
		int k = 2;
		if (l->file) {
			snprintf(buf, sizeof buf, "%s:%d", basename(l->file), l->line);
			k = text_width(buf);
		}
		if (k > lw)
			lw = k > 40 ? 40 : k;
	}
	printf("\nFlat profile (source lines):\n\n");
	printf(" self%%  total%%    samples   seconds  %-*s  %-*s  module\n", lw, "line", w,
	       "function");
	for (size_t i = 0; i < n; i++) {
		const struct model_line *l = &f->lines[ix[i]];
		const struct model_fn *fn = &f->fns[l->fn];
		if (l->file)
			snprintf(buf, sizeof buf, "%s:%d", basename(l->file), l->line);
		else
			snprintf(buf, sizeof buf, "??");
		printf("%6.2f  %6.2f  %9" PRIu64 "  %8.2f  ", view_pct(f, l->samples),
		       view_pct(f, l->total), l->samples, l->seconds);
		text_pad(stdout, buf, lw);
		fputs("  ", stdout);
		text_pad(stdout, fn->label, w);
		fputs("  ", stdout);
		text_put(stdout, model_mod_name(f, fn->mod));
		putchar('\n');
	}
	free(ix);
}

void view_modules(const struct model *f, const struct view_opts *o)
{
	size_t n;
	uint32_t *ix = model_sorted_mods(f, o->sort, &n);
	uint64_t outside = 0;
	double outside_s = 0;
	for (size_t i = 0; i < f->nfns; i++)
		if (f->fns[i].mod == MODEL_NO_MOD) {
			outside += f->fns[i].samples;
			outside_s += f->fns[i].seconds;
		}
	if (o->limit && n > o->limit)
		n = o->limit;
	int w = 8;
	for (size_t i = 0; i < n; i++)
		if (text_width(f->mods[ix[i]].name) > w)
			w = text_width(f->mods[ix[i]].name);
	printf("\nModules:\n\n");
	printf(" self%%  total%%    samples   seconds  %-*s  path\n", w, "module");
	for (size_t i = 0; i < n; i++) {
		const struct model_mod *m = &f->mods[ix[i]];
		printf("%6.2f  %6.2f  %9" PRIu64 "  %8.2f  ", view_pct(f, m->samples),
		       view_pct(f, m->total), m->samples, m->seconds);
		text_pad(stdout, m->name, w);
		fputs("  ", stdout);
		text_put(stdout, m->path);
		putchar('\n');
	}
	if (outside)
		printf("%6.2f  %6s  %9" PRIu64 "  %8.2f  %-*s  (pcs outside every mapped file)\n",
		       view_pct(f, outside), "-", outside, outside_s, w, "[unknown]");
	free(ix);
}
