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

#define INLINE_MARK " [inline]"

int view_fn_width(const struct model_fn *fn)
{
	return text_width(fn->label) + (fn->inlined ? (int)strlen(INLINE_MARK) : 0);
}

void view_fn_put(const struct model_fn *fn, int width)
{
	int n = text_put(stdout, fn->label);
	if (fn->inlined) {
		fputs(INLINE_MARK, stdout);
		n += (int)strlen(INLINE_MARK);
	}
	for (; n < width; n++)
		putchar(' ');
}

static int label_width(const struct model *f, const uint32_t *ix, size_t n, bool lines)
{
	int w = 8;
	for (size_t i = 0; i < n; i++) {
		int l = view_fn_width(&f->fns[lines ? f->lines[ix[i]].fn : ix[i]]);
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
		view_fn_put(fn, w);
		fputs("  ", stdout);
		text_put(stdout, model_mod_name(f, fn->mod));
		putchar('\n');
	}
	free(ix);
}

/* The rest of file after dir and a '/', or NULL if file is not under
 * dir ("/a/b" is not under "/a/bc"; trailing slashes of dir ignored). */
static const char *under(const char *file, const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/')
		return file[0] == '/' && file[1] ? file + 1 : NULL;
	if (n == 0 || strncmp(file, dir, n) != 0 || file[n] != '/' || !file[n + 1])
		return NULL;
	return file + n + 1;
}

char *view_line_text(const struct view_paths *vp, const char *file, const char *comp_dir, int line)
{
	char *s, *full = NULL;
	if (!file)
		return xstrdup("??");
	/* a relative name (as the compiler was given it) is the unit's */
	if (file[0] != '/' && comp_dir && asprintf(&full, "%s/%s", comp_dir, file) < 0)
		die(1, "out of memory");
	const char *path = full ? full : file, *rel = NULL;
	if (!vp->full && vp->source_root)
		rel = under(path, vp->source_root);
	else if (!vp->full && comp_dir)
		rel = under(path, comp_dir);
	if (asprintf(&s, "%s:%d", rel ? rel : path, line) < 0)
		die(1, "out of memory");
	free(full);
	return s;
}

void view_lines(const struct model *f, const struct view_opts *o)
{
	size_t n;
	uint32_t *ix = model_sorted_lines(f, o->sort, &n);
	if (o->limit && n > o->limit)
		n = o->limit;
	int w = label_width(f, ix, n, true);
	int lw = 12;
	char **text = xmalloc((n ? n : 1) * sizeof *text);
	for (size_t i = 0; i < n; i++) {
		const struct model_line *l = &f->lines[ix[i]];
		text[i] = view_line_text(&o->paths, l->file, l->comp_dir, l->line);
		int k = text_width(text[i]);
		if (k > lw)
			lw = k > 60 ? 60 : k;
	}
	printf("\nFlat profile (source lines):\n\n");
	printf(" self%%  total%%    samples   seconds  %-*s  %-*s  module\n", lw, "line", w,
	       "function");
	for (size_t i = 0; i < n; i++) {
		const struct model_line *l = &f->lines[ix[i]];
		const struct model_fn *fn = &f->fns[l->fn];
		printf("%6.2f  %6.2f  %9" PRIu64 "  %8.2f  ", view_pct(f, l->samples),
		       view_pct(f, l->total), l->samples, l->seconds);
		text_pad(stdout, text[i], lw);
		free(text[i]);
		fputs("  ", stdout);
		view_fn_put(fn, w);
		fputs("  ", stdout);
		text_put(stdout, model_mod_name(f, fn->mod));
		putchar('\n');
	}
	free(text);
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
