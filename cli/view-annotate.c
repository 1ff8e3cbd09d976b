/*
 * view-annotate.c - `pcprof annotate`'s source listing (annotate.h): a
 * function's lines with their samples and shares, file by file (its own
 * file first, then the files of code inlined into it), and what the
 * listing and the disassembly (cmd-annotate.c) share: which addresses are
 * the function's, the counts columns, the colours, the source files.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "annotate.h"
#include "srcpath.h"
#include "util.h"
#include "view.h"

#define HOT_ON  "\033[1;31m"
#define HOT_OFF "\033[0m"

/* Does the inline chain of location pc, up to (not including) k, hold
 * fn?  (A function inlined into itself recursively is there twice.) */
static bool chain_has(const struct model *f, uint32_t pc, uint32_t k, uint32_t fn)
{
	for (; pc != k; pc = f->pcs[pc].inl_caller)
		if (f->pcs[pc].fn == fn)
			return true;
	return false;
}

/* Call each(ctx, fn, pc) once for every function fn whose code holds the
 * sampled innermost location pc. */
static void each_fn_pc(const struct model *f, void (*each)(void *, uint32_t, uint32_t), void *ctx)
{
	for (uint32_t i = 0; i < f->npcs; i++) {
		if (!f->pcs[i].samples || f->pcs[i].inl_outer)
			continue;
		for (uint32_t k = i; k != MODEL_NO_PC; k = f->pcs[k].inl_caller)
			if (!chain_has(f, i, k, f->pcs[k].fn))
				each(ctx, f->pcs[k].fn, i);
	}
}

static void count_pc(void *ctx, uint32_t fn, uint32_t pc)
{
	struct ann_index *x = ctx;
	x->first[fn + 1]++;
	x->code[fn] += x->f->pcs[pc].samples;
}

static void place_pc(void *ctx, uint32_t fn, uint32_t pc)
{
	struct ann_index *x = ctx;
	x->pc[x->next[fn]++] = pc;
}

void ann_index_build(const struct model *f, struct ann_index *x)
{
	*x = (struct ann_index){ .f = f };
	x->first = xcalloc(f->nfns + 2, sizeof *x->first);
	x->code = xcalloc(f->nfns + 1, sizeof *x->code);
	each_fn_pc(f, count_pc, x);
	for (size_t i = 0; i < f->nfns; i++)
		x->first[i + 1] += x->first[i];
	x->pc = xmalloc((x->first[f->nfns] + 1) * sizeof *x->pc);
	x->next = xmalloc((f->nfns + 1) * sizeof *x->next);
	memcpy(x->next, x->first, (f->nfns + 1) * sizeof *x->next);
	each_fn_pc(f, place_pc, x);
	free(x->next);
	x->next = NULL;
}

void ann_index_free(struct ann_index *x)
{
	free(x->first);
	free(x->code);
	free(x->pc);
}

static int hit_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct ann_hit *)a)->addr, y = ((const struct ann_hit *)b)->addr;
	return (x > y) - (x < y);
}

void ann_collect(const struct ann_index *x, uint32_t fn, struct ann_fn *a)
{
	const struct model *f = x->f;
	*a = (struct ann_fn){ .f = f, .fn = fn };
	size_t n = x->first[fn + 1] - x->first[fn];
	a->hits = xmalloc((n + 1) * sizeof *a->hits);
	for (size_t i = 0; i < n; i++) {
		const struct model_pc *p = &f->pcs[x->pc[x->first[fn] + i]];
		a->hits[a->nhits++] =
			(struct ann_hit){ p->addr, x->pc[x->first[fn] + i], p->samples };
		a->samples += p->samples;
	}
	qsort(a->hits, a->nhits, sizeof *a->hits, hit_cmp);
}

void ann_free(struct ann_fn *a)
{
	free(a->hits);
	a->hits = NULL;
	a->nhits = 0;
}

void ann_title(const struct ann_fn *a, const char *what, uint32_t in)
{
	const struct model *f = a->f;
	const struct model_fn *fn = &f->fns[a->fn];
	printf("%s of ", what);
	view_fn_put(fn, 0);
	if (in != UINT32_MAX && in != a->fn) {
		fputs(" in ", stdout);
		view_fn_put(&f->fns[in], 0);
	}
	fputs(" (", stdout);
	text_put(stdout, model_mod_name(f, fn->mod));
	printf("): %" PRIu64 " samples in its code, %.2f%% of all", a->samples,
	       view_pct(f, a->samples));
	if (fn->samples != a->samples)
		printf(" (%" PRIu64 " in code inlined into it)", a->samples - fn->samples);
	printf("\n\n");
}

void ann_counts(const struct ann_fn *a, uint64_t n)
{
	if (!n)
		printf("%9s  %6s  %6s", "", "", "");
	else
		printf("%9" PRIu64 "  %6.2f  %6.2f", n, 100.0 * (double)n / (double)a->samples,
		       view_pct(a->f, n));
}

bool ann_hot_on(const struct ann_fn *a, uint64_t n, const struct ann_style *st)
{
	if (!st->color || !n || n * 10 < a->samples)
		return false;
	fputs(HOT_ON, stdout);
	return true;
}

void ann_hot_off(bool on)
{
	if (on)
		fputs(HOT_OFF, stdout);
}

/* ---- source files ------------------------------------------------------------ */

struct src {
	char *path;
	char **line; /* line[i] is line i + 1, without its newline */
	int n;
	bool missing, said;
	bool aged; /* ann_source_check_age said its note */
	struct src *next;
};

static struct src *sources;

static struct src *src_get(const char *path)
{
	for (struct src *s = sources; s; s = s->next)
		if (strcmp(s->path, path) == 0)
			return s;
	struct src *s = xcalloc(1, sizeof *s);
	s->path = xstrdup(path);
	s->next = sources;
	sources = s;
	FILE *in = fopen(path, "re");
	if (!in) {
		s->missing = true;
		return s;
	}
	char *buf = NULL;
	size_t bcap = 0;
	ssize_t len;
	int cap = 0;
	while ((len = getline(&buf, &bcap, in)) >= 0) {
		if (len > 0 && buf[len - 1] == '\n')
			buf[len - 1] = '\0';
		if (s->n == cap) {
			cap = cap ? cap * 2 : 256;
			s->line = xrealloc(s->line, (size_t)cap * sizeof *s->line);
		}
		s->line[s->n++] = xstrdup(buf);
	}
	free(buf);
	fclose(in);
	return s;
}

bool ann_source_missing(const char *path)
{
	struct src *s = src_get(path);
	if (!s->missing || s->said)
		return false;
	s->said = true;
	return true;
}

char *ann_source_newer(const char *path, const char *module)
{
	struct stat sst, mst;
	if (!module || stat(path, &sst) != 0 || !S_ISREG(sst.st_mode) || stat(module, &mst) != 0 ||
	    !S_ISREG(mst.st_mode))
		return NULL;
	/* The module's mtime is when it was linked (or copied, which only
	 * makes it later): no build time is recorded to do better. */
	if (sst.st_mtim.tv_sec < mst.st_mtim.tv_sec || (sst.st_mtim.tv_sec == mst.st_mtim.tv_sec &&
							sst.st_mtim.tv_nsec <= mst.st_mtim.tv_nsec))
		return NULL;
	struct membuf m;
	FILE *f = membuf_open(&m);
	text_put(f, path);
	fputs(" is newer than ", f);
	text_put(f, module);
	fputs(": its lines may not match the samples", f);
	return membuf_close(&m);
}

void ann_source_check_age(const char *path, const char *module)
{
	struct src *s = src_get(path);
	if (s->missing || s->aged)
		return;
	char *note = ann_source_newer(path, module);
	if (!note)
		return;
	s->aged = true;
	fprintf(stderr, "note: %s\n", note);
	free(note);
}

bool ann_source_readable(const char *path)
{
	return !src_get(path)->missing;
}

const char *ann_source_text(const char *path, int line)
{
	struct src *s = src_get(path);
	if (s->missing || line < 1 || line > s->n)
		return NULL;
	return s->line[line - 1];
}

char *ann_source_dup(const char *path, int line, bool trim)
{
	const char *t = ann_source_text(path, line);
	if (!t)
		return NULL;
	/* tabs to spaces (8 columns), the rest as text_put shows it: a
	 * source file is as untrusted as any name in a profile */
	while (trim && (*t == ' ' || *t == '\t'))
		t++;
	char *out = xmalloc(strlen(t) * 8 + 1);
	size_t col = 0;
	for (; *t; t++) {
		if (*t == '\t')
			do
				out[col++] = ' ';
			while (col % 8);
		else
			out[col++] = *t;
	}
	out[col] = '\0';
	char *shown = text_dup(out);
	free(out);
	return shown;
}

bool ann_source_line(const char *path, int line, bool trim)
{
	char *t = ann_source_dup(path, line, trim);
	if (!t)
		return false;
	fputs(t, stdout);
	free(t);
	return true;
}

void ann_sources_free(void)
{
	srcpath_free();
	while (sources) {
		struct src *s = sources;
		sources = s->next;
		for (int i = 0; i < s->n; i++)
			free(s->line[i]);
		free(s->line);
		free(s->path);
		free(s);
	}
}

/* ---- the listing: what it holds (ann_source_collect) ------------------------ */

static int line_cmp(const void *a, const void *b)
{
	const struct ann_line *x = a, *y = b;
	int c = strcmp(x->file ? x->file : "", y->file ? y->file : "");
	if (c)
		return c;
	return (x->line > y->line) - (x->line < y->line);
}

void ann_source_collect(const struct ann_fn *a, struct ann_src *out)
{
	const struct model *f = a->f;
	const struct model_fn *fn = &f->fns[a->fn];
	struct ann_line *rows = xcalloc(a->nhits + 1, sizeof *rows);
	size_t n = 0;
	uint64_t nolines = 0;
	for (size_t i = 0; i < a->nhits; i++) {
		const struct model_pc *p = &f->pcs[a->hits[i].pc];
		if (!p->file || p->line <= 0) {
			nolines += a->hits[i].samples;
			continue;
		}
		rows[n++] = (struct ann_line){ srcpath_find(f, p->mod, p->addr, p->file), p->line,
					       a->hits[i].samples };
	}
	qsort(rows, n, sizeof *rows, line_cmp);
	/* one row per line */
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && rows[m - 1].line == rows[i].line &&
		    strcmp(rows[m - 1].file, rows[i].file) == 0)
			rows[m - 1].samples += rows[i].samples;
		else
			rows[m++] = rows[i];
	}
	n = m;
	const char *own = srcpath_find(f, fn->mod, fn->start, fn->file);
	/* the files: the function's own first, then by samples */
	struct ann_file *files = xcalloc(n + 1, sizeof *files);
	size_t nf = 0;
	for (size_t i = 0; i < n; i++) {
		if (!nf || strcmp(files[nf - 1].path, rows[i].file) != 0)
			files[nf++] = (struct ann_file){ rows[i].file, rows + i, 0, 0, 0 };
		files[nf - 1].n++;
		files[nf - 1].samples += rows[i].samples;
	}
	for (size_t i = 1; i < nf; i++) /* few files: insertion sort */
		for (size_t j = i; j > 0; j--) {
			const struct ann_file *x = &files[j], *y = &files[j - 1];
			bool xown = own && strcmp(x->path, own) == 0;
			bool yown = own && strcmp(y->path, own) == 0;
			if (yown || (!xown && x->samples <= y->samples))
				break;
			struct ann_file t = files[j];
			files[j] = files[j - 1];
			files[j - 1] = t;
		}
	for (size_t i = 0; i < nf; i++)
		if (own && strcmp(files[i].path, own) == 0)
			files[i].decl = fn->line;
	*out = (struct ann_src){ rows, files, nf, nolines };
}

void ann_source_free(struct ann_src *s)
{
	free(s->rows);
	free(s->files);
	*s = (struct ann_src){ 0 };
}

void ann_file_walk(const struct ann_file *fl, int c,
		   void (*each)(void *ctx, int line, uint64_t n, const char *text), void *ctx)
{
	const struct ann_line *rows = fl->rows;
	size_t n = fl->n;
	int decl = fl->decl;
	struct src *s = src_get(fl->path);
	if (s->missing) {
		for (size_t i = 0; i < n; i++)
			each(ctx, rows[i].line, rows[i].samples, NULL);
		return;
	}
	int lo = rows[0].line - c, hi = rows[n - 1].line + c;
	if (decl > 0 && decl < lo)
		lo = decl;
	if (lo < 1)
		lo = 1;
	if (hi > s->n)
		hi = s->n;
	bool *shown = xcalloc((size_t)(hi >= lo ? hi - lo + 1 : 1), sizeof *shown);
	for (size_t i = 0; i <= n; i++) {
		int from = i < n ? rows[i].line - c : decl,
		    to = i < n ? rows[i].line + c : decl + c;
		if (i == n && decl <= 0)
			break;
		for (int l = from < lo ? lo : from; l <= to && l <= hi; l++)
			shown[l - lo] = true;
	}
	size_t r = 0;
	for (int l = lo; l <= hi;) {
		int end = l;
		while (end <= hi && !shown[end - lo])
			end++;
		if (end - l > 2) {
			each(ctx, 0, 0, NULL);
			l = end;
			continue;
		}
		while (r < n && rows[r].line < l)
			r++;
		each(ctx, l, r < n && rows[r].line == l ? rows[r].samples : 0, s->line[l - 1]);
		l++;
	}
	/* sampled lines past the end of the file: it changed since the build */
	for (; r < n; r++)
		if (rows[r].line > hi)
			each(ctx, rows[r].line, rows[r].samples, NULL);
	free(shown);
}

/* ---- the listing as text ------------------------------------------------------- */

struct print_ctx {
	const struct ann_fn *a;
	const char *path;
	const struct ann_style *st;
};

static void print_row(void *ctx, int l, uint64_t n, const char *text)
{
	const struct print_ctx *p = ctx;
	if (!l) {
		printf("%9s  %6s  %6s  %6s\n", "", "", "", "...");
		return;
	}
	bool hot = ann_hot_on(p->a, n, p->st);
	ann_counts(p->a, n);
	printf("  %6d  ", l);
	if (text)
		ann_source_line(p->path, l, false);
	ann_hot_off(hot);
	putchar('\n');
}

void view_annotate_source(const struct ann_fn *a, const struct ann_style *st)
{
	struct ann_src src;
	ann_source_collect(a, &src);
	uint32_t mod = a->f->fns[a->fn].mod;
	const char *module = mod == MODEL_NO_MOD ? NULL : a->f->mods[mod].path;
	printf("%9s  %6s  %6s  %6s  %s\n", "samples", "fn%", "all%", "line", "source");
	for (size_t i = 0; i < src.nfiles; i++) {
		const char *path = src.files[i].path;
		fputs("  ", stdout);
		text_put(stdout, path);
		putchar('\n');
		if (ann_source_missing(path))
			printf("  (source file not found: its lines are shown without their "
			       "text)\n");
		else
			ann_source_check_age(path, module);
		struct print_ctx p = { a, path, st };
		ann_file_walk(&src.files[i], st->context, print_row, &p);
	}
	if (src.nolines && a->f->fns[a->fn].mod == MODEL_NO_MOD) {
		ann_counts(a, src.nolines);
		printf("  %6s  (outside every mapped file: no lines, no instructions)\n", "??");
	} else if (src.nolines) {
		ann_counts(a, src.nolines);
		printf("  %6s  (no line information: the module has no DWARF lines here,\n", "??");
		printf("%9s  %6s  %6s  %6s  stripped or built without -g; --asm shows its "
		       "instructions)\n",
		       "", "", "", "");
	}
	ann_source_free(&src);
}
