/*
 * out-html-annotate.c - the HTML page's source view (out-html.c calls
 * out_html_annotate after the flame graph): a click on a function, in the
 * flame graph or the function table, shows its source lines with their
 * samples and shares, as `pcprof annotate FUNC` does and from the same
 * collection (annotate.h: ann_collect, ann_source_collect, ann_file_walk).
 * The data is JSON in <script id="ann-data">, drawn by cli/html-annotate.js
 * (built in as a string); docs/formats.md "HTML" describes it.
 *
 * The page stays small whatever the profile: only functions with samples
 * in their code, at most the ANN_TOP with most of them plus every one
 * above 1/ANN_SHARE of all samples, each line cut at ANN_TEXT bytes, and
 * no more than ANN_BUDGET bytes of it in all, hottest function first; for
 * every other function of the flame graph with samples, the page says
 * why it has no listing.  A listing larger than what is left of
 * ANN_BUDGET (one huge generated function is enough) is cut to fit
 * (fn_json): it leaves out what is farthest from the samples first, then
 * its sampled lines with fewest samples, each counted in a row where it
 * was, and says so.
 *
 * The cold stretches the listings collapse (as annotate prints them, "...")
 * carry their hidden lines and instructions, for the script to show on a
 * click: those of at most ANN_GAP lines or instructions each, hottest
 * functions first, until the lines add ANN_COLD bytes to the page and the
 * instructions as many (each their own bound: the lines, what a reader
 * wants most, are not crowded out); a longer or later one says how many
 * it hides and that annotate shows them.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "out.h"
#include "util.h"

#define ANN_TOP     50
#define ANN_SHARE   200 /* 0.5% */
#define ANN_CONTEXT 3
#define ANN_TEXT    240
#define ASM_CONTEXT 3
#define ASM_MAX     500 /* instructions shown per function */
#define ANN_BUDGET  (4u << 20)
#define ANN_GAP     1000 /* lines or instructions of one cold stretch */
#define ANN_COLD    (256u << 10)

static const char ann_js[] =
#include "html-annotate.inc"
	;

static const char ann_style[] =
	".ann{position:fixed;top:0;right:0;bottom:0;width:min(56rem,60vw);overflow:auto;"
	"background:Canvas;color:CanvasText;border-left:2px solid #868e96;"
	"box-shadow:-4px 0 12px rgba(0,0,0,.25);padding:.5rem 1rem;z-index:20}\n"
	".ann h3{margin:.2rem 2.5rem .4rem 0;font-size:1rem;overflow-wrap:anywhere}\n"
	".ann .close{position:absolute;top:.4rem;right:.6rem}\n"
	".ann p.why{font-style:italic}\n"
	".ann table{border-collapse:collapse;font:12px/1.35 ui-monospace,monospace;width:100%}\n"
	".ann td{padding:0 .4rem;white-space:pre;vertical-align:top}\n"
	".ann td.n{text-align:right;color:#495057}\n"
	".ann td.text{width:100%;tab-size:8}\n"
	".ann tr.file th{text-align:left;padding:.5rem .4rem .1rem;overflow-wrap:anywhere}\n"
	".ann tr.gap td{color:#868e96}\n"
	".ann .more{cursor:pointer;text-decoration:underline dotted}\n"
	".ann tr.cold td{background:rgba(134,142,150,.1)}\n"
	".ann tr.hot td{background:rgba(224,49,49,.28);font-weight:bold}\n"
	".ann .tabs{margin:.2rem 0 .5rem}\n"
	".ann .tab[aria-selected=true]{font-weight:bold;text-decoration:underline}\n";

struct ann_json {
	FILE *s;
	const struct ann_file *fl; /* every sampled line of the file */
	const bool *keep;          /* per fl->rows: in the page (NULL: all are) */
	bool comma;
	int prev;        /* the last line written */
	bool gap;        /* a cold stretch after it, written with the next row */
	size_t *cold;    /* the bytes of hidden lines in the page so far (NULL: none) */
	uint64_t out[2]; /* the sampled lines left out, and their samples */
};

/* Line `line` of path as the page shows it (NULL: no such line), cut at
 * ANN_TEXT bytes on a character's start. */
static char *line_dup(const char *path, int line, bool trim)
{
	char *t = ann_source_dup(path, line, trim);
	if (t && strlen(t) > ANN_TEXT) {
		size_t len = ANN_TEXT;
		while (len && (t[len] & 0xc0) == 0x80)
			len--;
		/* "..." is 3 bytes: more than the cut may free (a line of
		 * ANN_TEXT + 1 bytes has room for 1), so into a new buffer */
		char *c = xmalloc(len + 4);
		memcpy(c, t, len);
		memcpy(c + len, "\xe2\x80\xa6", 4);
		free(t);
		t = c;
	}
	return t;
}

/* Write text as a JSON string into the page. */
static void json_text(FILE *s, const char *text)
{
	fputc('"', s);
	out_json_html_str(s, text);
	fputc('"', s);
}

/* Append the hidden rows t (a JSON array, freed) of a cold stretch if
 * they fit the page's ANN_COLD bound (cold NULL: never). */
static void cold_put(FILE *s, char *t, size_t *cold)
{
	size_t len = strlen(t);
	if (cold && *cold + len <= ANN_COLD) {
		fprintf(s, ",%s", t);
		*cold += len;
	}
	free(t);
}

/* The first of fl's sampled lines at or after line `line`. */
static size_t row_from(const struct ann_file *fl, int line)
{
	size_t lo = 0, hi = fl->n;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (fl->rows[m].line < line)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* The sampled lines from..to of j's file that the page leaves out: how
 * many, their samples, the first and the last. */
static uint64_t left_out(const struct ann_json *j, int from, int to, uint64_t *samples, int *first,
			 int *last)
{
	uint64_t k = 0;
	*samples = 0;
	for (size_t i = j->keep ? row_from(j->fl, from) : j->fl->n;
	     i < j->fl->n && j->fl->rows[i].line <= to; i++) {
		if (j->keep[i])
			continue;
		if (!k++)
			*first = j->fl->rows[i].line;
		*last = j->fl->rows[i].line;
		*samples += j->fl->rows[i].samples;
	}
	return k;
}

/* Count k sampled lines and their samples as left out, and say so at the
 * end of a stretch's row: [0, first, n, 0, k, samples]. */
static void json_out(struct ann_json *j, uint64_t k, uint64_t samples)
{
	fprintf(j->s, ",0,%" PRIu64 ",%" PRIu64 "]", k, samples);
	j->out[0] += k;
	j->out[1] += samples;
}

/* The cold stretch of j's file from j->prev + 1 up to line `to` (or the
 * file's end): [0, first line, lines, ["text", ...]], without the texts
 * when over the bounds; [0, first, lines, 0, k, samples] when it holds
 * sampled lines left out of the page. */
static void json_gap(struct ann_json *j, int to)
{
	int from = j->prev + 1, n = 0;
	while (from + n <= to && ann_source_text(j->fl->path, from + n))
		n++;
	fprintf(j->s, "%s[0,%d,%d", j->comma ? "," : "", from, n);
	j->comma = true;
	j->gap = false;
	if (n > 0)
		j->prev = from + n - 1;
	uint64_t ks;
	int f0, f1;
	uint64_t k = n > 0 ? left_out(j, from, from + n - 1, &ks, &f0, &f1) : 0;
	if (k) {
		json_out(j, k, ks);
		return;
	}
	if (n > 0 && n <= ANN_GAP && j->cold) {
		struct membuf m;
		FILE *b = membuf_open(&m);
		for (int l = from; l < from + n; l++) {
			char *t = line_dup(j->fl->path, l, false);
			fputs(l > from ? "," : "[", b);
			json_text(b, t ? t : "");
			free(t);
		}
		fputc(']', b);
		cold_put(j->s, membuf_close(&m), j->cold);
	}
	fputc(']', j->s);
}

/* The sampled lines left out after j->prev up to line `to` that no cold
 * stretch holds (before the first row, after the last, between the rows
 * of a file that cannot be read) as one stretch of their own, from the
 * first of them to the last. */
static void json_drop(struct ann_json *j, int to)
{
	uint64_t ks;
	int f0, f1;
	uint64_t k = left_out(j, j->prev + 1, to, &ks, &f0, &f1);
	if (!k)
		return;
	fprintf(j->s, "%s[0,%d,%d", j->comma ? "," : "", f0, f1 - f0 + 1);
	j->comma = true;
	json_out(j, k, ks);
	j->prev = f1;
}

/* One row: [line, samples, "text"], [line, samples] without text; a cold
 * stretch (line 0) is written before the row after it (json_gap). */
static void json_row(void *ctx, int line, uint64_t n, const char *text)
{
	struct ann_json *j = ctx;
	if (!line) {
		j->gap = true;
		return;
	}
	if (j->gap)
		json_gap(j, line - 1);
	json_drop(j, line - 1);
	if (j->keep && !n) { /* a sampled line left out but shown as context */
		size_t i = row_from(j->fl, line);
		if (i < j->fl->n && j->fl->rows[i].line == line)
			n = j->fl->rows[i].samples;
	}
	j->prev = line;
	fputs(j->comma ? "," : "", j->s);
	j->comma = true;
	fprintf(j->s, "[%d,%" PRIu64, line, n);
	char *t = text ? line_dup(j->fl->path, line, false) : NULL;
	if (t) {
		fputc(',', j->s);
		json_text(j->s, t);
		free(t);
	}
	fputc(']', j->s);
}

/* ---- instructions ---------------------------------------------------------- */

struct insn {
	uint64_t addr, samples;
	char *text;
	const char *file; /* its source line (srcpath's) */
	int line;
};

struct asm_list {
	struct insn *in;
	size_t n, cap;
	const char *file;
	int line;
};

static void keep_insn(void *ctx, const struct ann_insn *in)
{
	struct asm_list *l = ctx;
	if (!in)
		return;
	if (in->file) {
		l->file = in->file;
		l->line = in->line;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->in = xrealloc(l->in, l->cap * sizeof *l->in);
	}
	char buf[256];
	if (*in->ops)
		snprintf(buf, sizeof buf, "%-7s %s", in->mnemonic, in->ops);
	else
		snprintf(buf, sizeof buf, "%s", in->mnemonic);
	l->in[l->n++] = (struct insn){ in->addr, in->samples, xstrdup(buf), l->file, l->line };
}

static void asm_rows(FILE *s, const struct asm_list *l, const bool *shown, uint64_t out,
		     bool open_end, size_t *cold);

/* Mark the instructions within c of a sampled one; how many. */
static size_t asm_mark(const struct asm_list *l, bool *shown, size_t c)
{
	memset(shown, 0, l->n * sizeof *shown);
	for (size_t i = 0; i < l->n; i++)
		if (l->in[i].samples)
			for (size_t j = i > c ? i - c : 0; j < l->n && j <= i + c; j++)
				shown[j] = true;
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += shown[i];
	return n;
}

/* "asm": the instructions of a function of its own, ASM_CONTEXT around
 * each sampled one (cold stretches of more than two as [0, n, [rows]]),
 * each run's source line before it as [1, "file:line", "text"], and its
 * samples outside its extent; "asmwhy" when there are none. */
static void asm_json(FILE *s, const struct ann_fn *a, size_t *cold)
{
	const struct model_fn *fn = &a->f->fns[a->fn];
	if (fn->mod == MODEL_NO_MOD) {
		fputs(",\"asmwhy\":\"outside every mapped file: no instructions\"", s);
		return;
	}
	if (fn->inlined) {
		fputs(",\"asmwhy\":\"an inlined function: its instructions are those of the "
		      "functions it was inlined into (pcprof annotate --asm shows them)\"",
		      s);
		return;
	}
	uint64_t lo, hi, out;
	ann_extent(a, &lo, &hi, &out);
	struct asm_list l = { 0 };
	char err[4096];
	if (ann_disasm(a, lo, hi, keep_insn, &l, err, sizeof err) < 0) {
		char *t = text_dup(err);
		fputs(",\"asmwhy\":\"", s);
		out_json_html_str(s, t);
		fputc('"', s);
		free(t);
		return;
	}
	/* ASM_CONTEXT instructions around each sampled one, or only the
	 * sampled ones if that is too many */
	bool *shown = xcalloc(l.n + 1, sizeof *shown);
	size_t nshown = asm_mark(&l, shown, ASM_CONTEXT);
	if (nshown > ASM_MAX)
		nshown = asm_mark(&l, shown, 0);
	if (nshown > ASM_MAX)
		fprintf(s,
			",\"asmwhy\":\"%zu instructions with samples, more than this page shows "
			"(%d): pcprof annotate --asm shows them\"",
			nshown, ASM_MAX);
	else
		asm_rows(s, &l, shown, out, hi == 0, cold);
	for (size_t i = 0; i < l.n; i++)
		free(l.in[i].text);
	free(l.in);
	free(shown);
}

/* Where a run of instructions is in the JSON: its source line so far. */
struct asm_at {
	const char *file;
	int line;
	bool comma;
};

/* Instruction in as ["address", samples, "text"], its source line before
 * it as [1, "file:line", "text"] if that is not at's; in a cold stretch
 * (no samples), shorter: "address text" and ["file:line", "text"]. */
static void asm_row(FILE *s, const struct insn *in, struct asm_at *at, bool cold)
{
	if (in->file && (in->line != at->line || !at->file || strcmp(in->file, at->file) != 0)) {
		char *w = text_dup(basename(in->file));
		fprintf(s, "%s[%s\"", at->comma ? "," : "", cold ? "" : "1,");
		out_json_html_str(s, w);
		fprintf(s, ":%d\"", in->line);
		free(w);
		char *t = line_dup(in->file, in->line, true);
		if (t) {
			fputc(',', s);
			json_text(s, t);
			free(t);
		}
		fputc(']', s);
		at->comma = true;
		at->file = in->file;
		at->line = in->line;
	}
	fputs(at->comma ? "," : "", s);
	at->comma = true;
	if (cold) {
		fprintf(s, "\"%" PRIx64 " ", in->addr);
		out_json_html_str(s, in->text);
		fputc('"', s);
		return;
	}
	fprintf(s, "[\"%" PRIx64 "\",%" PRIu64 ",", in->addr, in->samples);
	json_text(s, in->text);
	fputc(']', s);
}

static void asm_rows(FILE *s, const struct asm_list *lp, const bool *shown, uint64_t out,
		     bool open_end, size_t *cold)
{
	const struct asm_list l = *lp;
	fprintf(s, ",\"asmout\":%" PRIu64 ",\"asmend\":%d,\"asm\":[", out, open_end);
	struct asm_at at = { 0 };
	for (size_t i = 0; i < l.n;) {
		size_t end = i;
		while (end < l.n && !shown[end])
			end++;
		if (end - i <= 2) {
			asm_row(s, &l.in[i++], &at, false);
			continue;
		}
		/* a cold stretch: [0, instructions, [its rows]] */
		fprintf(s, "%s[0,%zu", at.comma ? "," : "", end - i);
		at.comma = true;
		if (end - i <= ANN_GAP) {
			struct membuf m;
			FILE *b = membuf_open(&m);
			struct asm_at h = { at.file, at.line, false };
			fputc('[', b);
			for (size_t k = i; k < end; k++)
				asm_row(b, &l.in[k], &h, true);
			fputc(']', b);
			cold_put(s, membuf_close(&m), cold);
		}
		fputc(']', s);
		i = end;
		at.file = NULL; /* the source line again after it */
	}
	fputc(']', s);
}

/* How much of a function's listing the page holds (fn_text). */
struct cut {
	int context; /* source lines around each sampled one */
	bool cold;   /* the rows of cold stretches (within ANN_COLD) */
	size_t keep; /* sampled lines, the hottest first (view's nrows: all) */
	bool insns;  /* the instructions */
};

/* A function's listing, collected once, written with fn_text as much of
 * it as a cut says. */
struct view {
	const struct model *f;
	struct ann_fn a;
	struct ann_src src;
	size_t nrows;         /* src.rows */
	uint32_t *rank;       /* src.rows, most samples first (ties: by file, line) */
	bool *keep;           /* per src.rows: in the page */
	struct ann_line *sub; /* (one file's rows in the page) */
};

static const struct ann_line *rank_rows;

static int by_samples(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (rank_rows[x].samples != rank_rows[y].samples)
		return rank_rows[x].samples > rank_rows[y].samples ? -1 : 1;
	return (x > y) - (x < y);
}

static void view_open(struct view *v, const struct ann_index *x, uint32_t fn)
{
	v->f = x->f;
	ann_collect(x, fn, &v->a);
	ann_source_collect(&v->a, &v->src);
	v->nrows = 0;
	for (size_t i = 0; i < v->src.nfiles; i++)
		v->nrows += v->src.files[i].n;
	v->rank = xmalloc((v->nrows + 1) * sizeof *v->rank);
	for (size_t i = 0; i < v->nrows; i++)
		v->rank[i] = (uint32_t)i;
	rank_rows = v->src.rows;
	qsort(v->rank, v->nrows, sizeof *v->rank, by_samples);
	v->keep = xcalloc(v->nrows + 1, sizeof *v->keep);
	v->sub = xmalloc((v->nrows + 1) * sizeof *v->sub);
}

static void view_close(struct view *v)
{
	free(v->rank);
	free(v->keep);
	free(v->sub);
	ann_source_free(&v->src);
	ann_free(&v->a);
}

/* The function's listing as a JSON object, as much as cut says, its
 * instructions asm_text (asm: "asm", "asmwhy" and so on, from asm_json);
 * cold: the bytes of hidden lines in the page so far. */
static char *fn_text(struct view *v, const struct cut *cut, size_t *cold, const char *asm_text)
{
	const struct model_fn *fn = &v->f->fns[v->a.fn];
	for (size_t r = 0; r < v->nrows; r++)
		v->keep[v->rank[r]] = r < cut->keep;
	struct membuf m;
	FILE *s = membuf_open(&m);
	uint64_t out[2] = { 0, 0 };
	for (size_t i = 0; i < v->src.nfiles; i++) {
		const struct ann_file *fl = &v->src.files[i];
		const bool *keep = v->keep + (fl->rows - v->src.rows);
		char *p = text_dup(fl->path);
		fputs(i ? ",{\"p\":\"" : "{\"p\":\"", s);
		out_json_html_str(s, p);
		free(p);
		fprintf(s, "\",\"s\":%" PRIu64 ",\"own\":%d,\"miss\":%d,", fl->samples,
			fl->decl > 0, !ann_source_readable(fl->path));
		/* pcprof annotate's note, said where the file's lines are */
		char *newer = fn->mod == MODEL_NO_MOD || !ann_source_readable(fl->path)
				      ? NULL
				      : ann_source_newer(fl->path, v->f->mods[fn->mod].path);
		if (newer) {
			fputs("\"newer\":\"", s);
			out_json_html_str(s, newer);
			fputs("\",", s);
			free(newer);
		}
		fputs("\"r\":[", s);
		/* the walk over the sampled lines in the page; the others in
		 * the stretches between them, or in stretches of their own */
		struct ann_file in = *fl;
		in.rows = v->sub;
		in.n = 0;
		for (size_t k = 0; k < fl->n; k++)
			if (keep[k])
				v->sub[in.n++] = fl->rows[k];
		struct ann_json j = { s, fl,    in.n < fl->n ? keep : NULL, false,
				      0, false, cut->cold ? cold : NULL,    { 0, 0 } };
		if (in.n)
			ann_file_walk(&in, cut->context, json_row, &j);
		if (j.gap) /* (ann_file_walk ends on a line) */
			json_gap(&j, INT_MAX);
		json_drop(&j, INT_MAX);
		fputs("]}", s);
		out[0] += j.out[0];
		out[1] += j.out[1];
	}
	char *files = membuf_close(&m);
	s = membuf_open(&m);
	fprintf(s,
		"{\"s\":%" PRIu64 ",\"self\":%" PRIu64 ",\"inl\":%d,\"nomod\":%d,\"nol\":%" PRIu64,
		v->a.samples, fn->samples, fn->inlined, fn->mod == MODEL_NO_MOD, v->src.nolines);
	/* what is left out: "cut":[context, sampled lines, their samples,
	 * 1 without the instructions] */
	if (!cut->cold || cut->context < ANN_CONTEXT || cut->keep < v->nrows || !cut->insns)
		fprintf(s, ",\"cut\":[%d,%" PRIu64 ",%" PRIu64 ",%d]", cut->context, out[0], out[1],
			!cut->insns);
	fprintf(s, ",\"files\":[%s]", files);
	if (cut->insns)
		fputs(asm_text, s);
	else
		fprintf(s,
			",\"asmwhy\":\"not in this page: it keeps at most %u MB of listings "
			"(pcprof annotate --asm shows them)\"",
			ANN_BUDGET >> 20);
	fputc('}', s);
	free(files);
	return membuf_close(&m);
}

/* Function fn's instructions for fn_text (cold: as there). */
static char *asm_text(const struct ann_fn *a, size_t *cold)
{
	struct membuf m;
	FILE *s = membuf_open(&m);
	asm_json(s, a, cold);
	return membuf_close(&m);
}

/* Function fn's listing as a JSON object of at most room bytes (NULL:
 * not even its first line fits), whole or not; cold: the bytes of hidden
 * lines and of hidden instructions in the page so far.  A listing over room leaves
 * out, until it fits: the rows of its cold stretches, the lines of
 * context (3, 2, 1, 0 around each sampled line), its instructions, then
 * the sampled lines with fewest samples (as many as a binary search finds
 * room for).  Each try writes it again: only a function too large for
 * the page pays for them. */
static char *fn_json(const struct ann_index *x, uint32_t fn, size_t room, size_t cold[2],
		     bool *whole)
{
	*whole = false;
	struct view v;
	view_open(&v, x, fn);
	size_t c[2] = { cold[0], cold[1] };
	char *ins = asm_text(&v.a, &c[1]);
	struct cut cut = { ANN_CONTEXT, true, v.nrows, true };
	char *t = fn_text(&v, &cut, &c[0], ins);
	free(ins);
	if (strlen(t) <= room) {
		cold[0] = c[0];
		cold[1] = c[1];
		*whole = true;
		goto done;
	}
	free(t);
	ins = asm_text(&v.a, NULL);
	cut.cold = false;
	/* no context first: if the sampled lines alone do not fit, no more
	 * context will */
	cut.context = 0;
	t = fn_text(&v, &cut, NULL, ins);
	if (strlen(t) <= room) {
		for (cut.context = ANN_CONTEXT; cut.context > 0; cut.context--) {
			char *u = fn_text(&v, &cut, NULL, ins);
			if (strlen(u) <= room) {
				free(t);
				t = u;
				break;
			}
			free(u);
		}
		goto cut_done;
	}
	free(t);
	/* then without the instructions (the second tab), and then without
	 * the sampled lines with fewest samples: t holds lo of them and
	 * fits, hi do not */
	cut.insns = false;
	cut.keep = 0;
	t = fn_text(&v, &cut, NULL, ins);
	if (strlen(t) > room) {
		free(t);
		t = NULL;
		goto cut_done;
	}
	size_t lo = 0, hi = v.nrows + 1;
	while (hi - lo > 1) {
		cut.keep = lo + (hi - lo) / 2;
		char *u = fn_text(&v, &cut, NULL, ins);
		if (strlen(u) <= room) {
			free(t);
			t = u;
			lo = cut.keep;
		} else {
			free(u);
			hi = cut.keep;
		}
	}
cut_done:
	free(ins);
done:
	view_close(&v);
	return t;
}

static const uint64_t *sort_code;

static int by_code(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (sort_code[x] != sort_code[y])
		return sort_code[x] > sort_code[y] ? -1 : 1;
	return (x > y) - (x < y);
}

void out_html_annotate(FILE *s, const struct model *f, const uint32_t *fnix)
{
	struct ann_index x;
	ann_index_build(f, &x);
	uint32_t *list = xmalloc((f->nfns + 1) * sizeof *list);
	size_t n = 0;
	for (uint32_t i = 0; i < f->nfns; i++)
		if (fnix[i] && x.code[i] && !f->fns[i].marker)
			list[n++] = i;
	sort_code = x.code;
	qsort(list, n, sizeof *list, by_code);
	fprintf(s,
		"<style>\n%s</style>\n<aside class=\"ann\" id=\"ann\" hidden "
		"aria-label=\"source view\"></aside>\n"
		"<script type=\"application/json\" id=\"ann-data\">{\"top\":%d,\"share\":%g,"
		"\"context\":%d,\"budget\":%u,\"fns\":{",
		ann_style, ANN_TOP, 100.0 / ANN_SHARE, ANN_CONTEXT, ANN_BUDGET >> 20);
	/* used: the bytes of listings so far, at most ANN_BUDGET: each one
	 * gets what is left, cut to fit (fn_json); after one that had to be
	 * cut, the rest get none: what the cut left is less than a row or
	 * two, and each try would write a whole listing again */
	size_t used = 0, cold[2] = { 0, 0 };
	for (size_t i = 0; i < n; i++) {
		uint32_t fn = list[i];
		fprintf(s, "%s\"%" PRIu32 "\":", i ? "," : "", fnix[fn] - 1);
		const char *why = NULL;
		char *t = NULL;
		bool whole = true;
		if (i >= ANN_TOP && x.code[fn] * ANN_SHARE < f->total)
			why = "top";
		else if (used >= ANN_BUDGET ||
			 !(t = fn_json(&x, fn, ANN_BUDGET - used, cold, &whole)))
			why = "size";
		if (!whole)
			used = ANN_BUDGET;
		if (why) {
			fprintf(s, "{\"s\":%" PRIu64 ",\"why\":\"%s\"}", x.code[fn], why);
			continue;
		}
		used += whole ? strlen(t) : 0;
		fputs(t, s);
		free(t);
	}
	fprintf(s, "}}</script>\n<script>\n%s</script>\n", ann_js);
	free(list);
	ann_index_free(&x);
	ann_sources_free();
}
