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
 * no more than ANN_BUDGET bytes of it in all; for every other function
 * of the flame graph with samples, the page says why it has no listing.
 */
#include <inttypes.h>
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
	".ann tr.hot td{background:rgba(224,49,49,.28);font-weight:bold}\n"
	".ann .tabs{margin:.2rem 0 .5rem}\n"
	".ann .tab[aria-selected=true]{font-weight:bold;text-decoration:underline}\n";

struct ann_json {
	FILE *s;
	const char *path;
	bool comma;
};

/* One row: [line, samples, "text"], [line, samples] without text, [0]
 * for a cold stretch. */
static void json_row(void *ctx, int line, uint64_t n, const char *text)
{
	struct ann_json *j = ctx;
	fputs(j->comma ? "," : "", j->s);
	j->comma = true;
	if (!line) {
		fputs("[0]", j->s);
		return;
	}
	fprintf(j->s, "[%d,%" PRIu64, line, n);
	char *t = text ? ann_source_dup(j->path, line, false) : NULL;
	if (t) {
		size_t len = strlen(t);
		if (len > ANN_TEXT) { /* cut at a character's start */
			len = ANN_TEXT;
			while (len && (t[len] & 0xc0) == 0x80)
				len--;
			strcpy(t + len, "\xe2\x80\xa6");
		}
		fputs(",\"", j->s);
		out_json_html_str(j->s, t);
		fputc('"', j->s);
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
		     bool open_end);

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
 * each sampled one (cold stretches of more than two as [0]), each run's
 * source line before it as [1, "file:line", "text"], and its samples
 * outside its extent; "asmwhy" when there are none. */
static void asm_json(FILE *s, const struct ann_fn *a)
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
		asm_rows(s, &l, shown, out, hi == 0);
	for (size_t i = 0; i < l.n; i++)
		free(l.in[i].text);
	free(l.in);
	free(shown);
}

static void asm_rows(FILE *s, const struct asm_list *lp, const bool *shown, uint64_t out,
		     bool open_end)
{
	const struct asm_list l = *lp;
	fprintf(s, ",\"asmout\":%" PRIu64 ",\"asmend\":%d,\"asm\":[", out, open_end);
	const char *pfile = NULL;
	int pline = 0;
	bool comma = false;
	for (size_t i = 0; i < l.n;) {
		size_t end = i;
		while (end < l.n && !shown[end])
			end++;
		if (end - i > 2) {
			fputs(comma ? ",[0]" : "[0]", s);
			comma = true;
			i = end;
			continue;
		}
		const struct insn *in = &l.in[i];
		if (in->file && (in->line != pline || !pfile || strcmp(in->file, pfile) != 0)) {
			char *w = text_dup(basename(in->file));
			fputs(comma ? ",[1,\"" : "[1,\"", s);
			out_json_html_str(s, w);
			fprintf(s, ":%d\"", in->line);
			free(w);
			char *t = ann_source_dup(in->file, in->line, true);
			if (t) {
				fputs(",\"", s);
				out_json_html_str(s, t);
				fputc('"', s);
				free(t);
			}
			fputc(']', s);
			comma = true;
			pfile = in->file;
			pline = in->line;
		}
		fprintf(s, "%s[\"%" PRIx64 "\",%" PRIu64 ",\"", comma ? "," : "", in->addr,
			in->samples);
		out_json_html_str(s, in->text);
		fputs("\"]", s);
		comma = true;
		i++;
	}
	fputc(']', s);
}

/* Function fn's listing as a JSON object. */
static void fn_json(FILE *s, const struct ann_index *x, uint32_t fn)
{
	const struct model *f = x->f;
	struct ann_fn a;
	struct ann_src src;
	ann_collect(x, fn, &a);
	ann_source_collect(&a, &src);
	fprintf(s,
		"{\"s\":%" PRIu64 ",\"self\":%" PRIu64 ",\"inl\":%d,\"nomod\":%d,\"nol\":%" PRIu64
		",\"files\":[",
		a.samples, f->fns[fn].samples, f->fns[fn].inlined, f->fns[fn].mod == MODEL_NO_MOD,
		src.nolines);
	for (size_t i = 0; i < src.nfiles; i++) {
		const struct ann_file *fl = &src.files[i];
		char *p = text_dup(fl->path);
		fputs(i ? ",{\"p\":\"" : "{\"p\":\"", s);
		out_json_html_str(s, p);
		free(p);
		fprintf(s, "\",\"s\":%" PRIu64 ",\"own\":%d,\"miss\":%d,\"r\":[", fl->samples,
			fl->decl > 0, !ann_source_readable(fl->path));
		struct ann_json j = { s, fl->path, false };
		ann_file_walk(fl, ANN_CONTEXT, json_row, &j);
		fputs("]}", s);
	}
	fputc(']', s);
	asm_json(s, &a);
	fputc('}', s);
	ann_source_free(&src);
	ann_free(&a);
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
		"\"context\":%d,\"fns\":{",
		ann_style, ANN_TOP, 100.0 / ANN_SHARE, ANN_CONTEXT);
	size_t used = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t fn = list[i];
		fprintf(s, "%s\"%" PRIu32 "\":", i ? "," : "", fnix[fn] - 1);
		const char *why = NULL;
		if (i >= ANN_TOP && x.code[fn] * ANN_SHARE < f->total)
			why = "top";
		else if (used >= ANN_BUDGET)
			why = "size";
		if (why) {
			fprintf(s, "{\"s\":%" PRIu64 ",\"why\":\"%s\"}", x.code[fn], why);
			continue;
		}
		struct membuf m;
		FILE *b = membuf_open(&m);
		fn_json(b, &x, fn);
		char *t = membuf_close(&m);
		used += strlen(t);
		fputs(t, s);
		free(t);
	}
	fprintf(s, "}}</script>\n<script>\n%s</script>\n", ann_js);
	free(list);
	ann_index_free(&x);
	ann_sources_free();
}
