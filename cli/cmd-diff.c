/*
 * cmd-diff.c - `pcprof diff BASE NEW`: what changed between two
 * recordings, per function (or per source line with --lines): the change
 * of its self and total share and of its self time, with the sampling
 * noise of each change, so that a real change can be told from chance.
 *
 * Rows are matched by what survives a rebuild: a function by its label
 * (demangled name, unless --no-demangle) and its module's base name, a
 * line by its function, file and line number; never by address.  Rows
 * with the same key in one file (static functions of the same name in
 * one module) are summed.
 *
 * The noise: a function's share p of a file's n samples is an estimate
 * of a proportion from n draws, with standard error sqrt(p(1-p)/n), and
 * two independent files' estimates differ by chance with standard error
 * se = sqrt(p1(1-p1)/n1 + p2(1-p2)/n2).  A change beyond 3 se happens by
 * chance in about 0.3% of rows (normal approximation), so it is marked as
 * real ("grew", "shrank"); within 3 se it is marked "~".  Samples are not
 * quite independent draws: a timer samples a steady loop more evenly than
 * chance would (less noise than the estimate), while a program's phases
 * and the machine's state from run to run add variation that no sample
 * count shows (more).
 *
 * --html OUT writes NEW's flame graph coloured by the change of each
 * frame's share (out-html.c, out_html_diff).
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "filteropt.h"
#include "model.h"
#include "out.h"
#include "util.h"
#include "view.h"

#define NOISE_SE 3.0 /* a change beyond this many standard errors is real */

enum { OPT_HTML = 256 };

static void usage(FILE *f)
{
	fprintf(f, "usage: pcprof diff [OPTIONS] BASE NEW\n"
		   "\n"
		   "Compare two recordings: per function, the change of its self and total\n"
		   "share and of its self time from BASE to NEW, largest change first, with\n"
		   "the standard error of each change from the sample counts.  Status: grew,\n"
		   "shrank (beyond 3 standard errors), ~ (within sampling noise), new or gone\n"
		   "(in one file only; new~ and gone~ within noise).\n"
		   "\n"
		   "Options:\n"
		   "  -l, --lines          by source line instead of by function\n"
		   "  -s, --sort KEY       self (change of self share, default; or samples) or\n"
		   "                       total\n"
		   "  -n, --limit N        at most N rows (0, the default: all)\n"
		   "      --html OUT       write NEW's flame graph coloured by the change of each\n"
		   "                       frame's share (red grew, blue shrank) to OUT\n"
		   "  -v, --verbose        the notes on modules without debug symbols in full\n"
		   "\n"
		   "Selection (in both files):\n" FILTER_USAGE("-f,") FILTER_PATH_USAGE
		"  -h, --help           this text\n"
		"\n"
		"Functions are matched by name and module file name, not by address, so a\n"
		"rebuilt program compares with its old self.  See pcprof-diff(1).\n");
}

/* One row of the comparison: one key, its counts in each file ([0] BASE,
 * [1] NEW). */
struct drow {
	char *key;
	uint64_t hash;
	const struct model *f; /* the file whose fn/line names the row */
	uint32_t ix;           /* its fn (or line) there */
	uint64_t self[2], total[2];
	double seconds[2];
	double dself, dtotal, seself, setotal; /* changes of shares, in %, and their se */
};

struct dtab {
	struct drow *r;
	size_t n, cap;
	uint32_t *slot; /* open addressing: index + 1 */
	size_t nslot;
};

static struct drow *dtab_get(struct dtab *t, char *key)
{
	uint64_t h = hash_bytes(key, strlen(key), HASH_INIT);
	if (2 * (t->n + 1) > t->nslot) {
		size_t ns = t->nslot ? 2 * t->nslot : 1024;
		uint32_t *s = xcalloc(ns, sizeof *s);
		for (size_t i = 0; i < t->n; i++) {
			size_t k = t->r[i].hash & (ns - 1);
			while (s[k])
				k = (k + 1) & (ns - 1);
			s[k] = (uint32_t)i + 1;
		}
		free(t->slot);
		t->slot = s;
		t->nslot = ns;
	}
	size_t k = h & (t->nslot - 1);
	for (; t->slot[k]; k = (k + 1) & (t->nslot - 1)) {
		struct drow *r = &t->r[t->slot[k] - 1];
		if (r->hash == h && strcmp(r->key, key) == 0) {
			free(key);
			return r;
		}
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->r = xrealloc(t->r, t->cap * sizeof *t->r);
	}
	t->slot[k] = (uint32_t)t->n + 1;
	struct drow *r = &t->r[t->n++];
	memset(r, 0, sizeof *r);
	r->key = key;
	r->hash = h;
	return r;
}

/* A key: its parts joined by a byte no name holds after text_dup. */
static char *key_of(const struct model *f, const struct model_fn *fn, const struct model_line *l)
{
	char *k;
	int n;
	if (l)
		n = asprintf(&k, "%s%s\x01%s\x01%s\x01%d", fn->label,
			     fn->inlined ? " [inline]" : "", model_mod_name(f, fn->mod),
			     l->file ? l->file : "??", l->line);
	else
		n = asprintf(&k, "%s%s\x01%s", fn->label, fn->inlined ? " [inline]" : "",
			     model_mod_name(f, fn->mod));
	if (n < 0)
		die(1, "out of memory");
	return k;
}

static void add_side(struct dtab *t, const struct model *f, int side, bool lines)
{
	size_t n;
	uint32_t *ix = lines ? model_sorted_lines(f, MODEL_SORT_SAMPLES, &n)
			     : model_sorted_fns(f, MODEL_SORT_SAMPLES, &n);
	for (size_t i = 0; i < n; i++) {
		const struct model_line *l = lines ? &f->lines[ix[i]] : NULL;
		const struct model_fn *fn = &f->fns[lines ? l->fn : ix[i]];
		struct drow *r = dtab_get(t, key_of(f, fn, l));
		if (!r->f || side == 1) { /* NEW names the row when it has it */
			r->f = f;
			r->ix = ix[i];
		}
		r->self[side] += lines ? l->samples : fn->samples;
		r->total[side] += lines ? l->total : fn->total;
		r->seconds[side] += lines ? l->seconds : fn->seconds;
	}
	free(ix);
}

static double share(uint64_t k, uint64_t n)
{
	return n ? (double)k / (double)n : 0.0;
}

/* The standard error of the difference of the two shares, in %. */
static double noise(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2)
{
	double p1 = share(k1, n1), p2 = share(k2, n2), v = 0;
	if (n1)
		v += p1 * (1 - p1) / (double)n1;
	if (n2)
		v += p2 * (1 - p2) / (double)n2;
	return 100.0 * sqrt(v);
}

static bool by_total;

static int drow_cmp(const void *a, const void *b)
{
	const struct drow *x = a, *y = b;
	double dx = fabs(by_total ? x->dtotal : x->dself);
	double dy = fabs(by_total ? y->dtotal : y->dself);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->key, y->key);
}

static const char *status(const struct drow *r)
{
	double d = by_total ? r->dtotal : r->dself, se = by_total ? r->setotal : r->seself;
	bool real = fabs(d) > NOISE_SE * se;
	if (!r->total[0] && !r->self[0])
		return real ? "new" : "new~";
	if (!r->total[1] && !r->self[1])
		return real ? "gone" : "gone~";
	if (!real)
		return "~";
	return d > 0 ? "grew" : "shrank";
}

/* Names go through text_put (util.h), never printf's %s. */
static void side_header(const char *what, const char *file, const struct model *f)
{
	printf("%-8s ", what);
	text_put(stdout, file);
	printf(": %" PRIu64 " samples (%.2f s)", f->total, f->total_seconds);
	if (f->cpu_ns)
		printf(", CPU time %.2f s", (double)f->cpu_ns / 1e9);
	size_t nproc = model_processes(f);
	printf(", %zu process%s", nproc, nproc == 1 ? "" : "es");
	if (nproc != f->nprocs) /* as report's header says it */
		printf(" (%zu images, exec)", f->nprocs);
	printf("\n%-8s command ", "");
	text_put_command(stdout, f->prof->command);
	putchar('\n');
	if (f->opts.time) /* --time: what the period kept of this file */
		view_time_header(f);
}

static void table(struct dtab *t, const struct model *m[2], bool lines, const struct view_paths *vp,
		  size_t limit)
{
	size_t n = t->n;
	if (limit && n > limit)
		n = limit;
	int w = 8, lw = 12;
	for (size_t i = 0; i < n; i++) {
		const struct drow *r = &t->r[i];
		const struct model_line *l = lines ? &r->f->lines[r->ix] : NULL;
		const struct model_fn *fn = &r->f->fns[lines ? l->fn : r->ix];
		int k = view_fn_width(fn);
		if (k > w)
			w = k > 40 ? 40 : k;
		if (lines) {
			char *s = view_line_text(vp, l->file, l->comp_dir, l->line);
			k = text_width(s);
			if (k > lw)
				lw = k > 60 ? 60 : k;
			free(s);
		}
	}
	printf("\n%s (shares in %% of each file's samples; se: standard error of the change):"
	       "\n\n",
	       lines ? "Change by source line" : "Change by function");
	printf("  self%%   self%%  change     se   total%%  total%%  change     se    self s\n");
	printf("   base     new   self%%           base     new  total%%            change  "
	       "        ");
	if (lines)
		printf("%-*s  ", lw, "line");
	printf("%-*s  module\n", w, "function");
	for (size_t i = 0; i < n; i++) {
		const struct drow *r = &t->r[i];
		const struct model_line *l = lines ? &r->f->lines[r->ix] : NULL;
		const struct model_fn *fn = &r->f->fns[lines ? l->fn : r->ix];
		printf("%7.2f %7.2f %+7.2f %6.2f  %7.2f %7.2f %+7.2f %6.2f  %+8.2f  %-6s  ",
		       100 * share(r->self[0], m[0]->total), 100 * share(r->self[1], m[1]->total),
		       r->dself, r->seself, 100 * share(r->total[0], m[0]->total),
		       100 * share(r->total[1], m[1]->total), r->dtotal, r->setotal,
		       r->seconds[1] - r->seconds[0], status(r));
		if (lines) {
			char *s = view_line_text(vp, l->file, l->comp_dir, l->line);
			text_pad(stdout, s, lw);
			free(s);
			fputs("  ", stdout);
		}
		view_fn_put(fn, w);
		fputs("  ", stdout);
		text_put(stdout, model_mod_name(r->f, fn->mod));
		putchar('\n');
	}
	size_t real = 0;
	for (size_t i = 0; i < t->n; i++) {
		const char *s = status(&t->r[i]);
		real += strchr(s, '~') == NULL;
	}
	printf("\n%zu of %zu rows changed beyond %g standard errors (sorted by %s share)\n", real,
	       t->n, NOISE_SE, by_total ? "total" : "self");
}

int cmd_diff(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "lines", no_argument, NULL, 'l' },
		{ "sort", required_argument, NULL, 's' },
		{ "limit", required_argument, NULL, 'n' },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "verbose", no_argument, NULL, 'v' },
		FILTER_LONGOPTS,
		FILTER_PATH_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct filter_opts fo = { 0 };
	bool lines = false, verbose = false;
	const char *html = NULL;
	size_t limit = 0;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ls:n:vh" FILTER_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			lines = true;
			break;
		case 's':
			if (strcmp(optarg, "total") == 0)
				by_total = true;
			else if (strcmp(optarg, "self") == 0 || strcmp(optarg, "samples") == 0)
				by_total = false;
			else
				die(2, "bad sort key '%s' (self or total)", optarg);
			break;
		case 'n':
			limit = number_arg(2, "--limit", optarg, 0, INT32_MAX);
			break;
		case OPT_HTML:
			html = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (filter_option(c, optarg, &fo))
				break;
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 2) {
		usage(stderr);
		return 2;
	}
	const char *file[2] = { argv[optind], argv[optind + 1] };
	struct pp_profile prof[2];
	const struct model *m[2];
	struct model *mm[2];
	for (int i = 0; i < 2; i++)
		m[i] = mm[i] = model_open(file[i], &fo.model, &prof[i]);
	/* A filter may match in one file only (a function that is new or
	 * gone); matching in neither is a mistyped pattern, as in report. */
	if (!m[0]->shown || !m[1]->total)
		filter_check_match(m[1], file[1]);
	if (!m[1]->shown || !m[0]->total)
		filter_check_match(m[0], file[0]);

	if (html) {
		char err[512];
		if (out_html_diff(m[0], file[0], m[1], html, err, sizeof err) != 0)
			die(1, "%s", err);
		if (strcmp(html, "-") == 0) { /* the page is the output */
			for (int i = 0; i < 2; i++)
				model_close(mm[i], &prof[i]);
			return 0;
		}
	}
	side_header("base", file[0], m[0]);
	side_header("new", file[1], m[1]);
	struct dtab t = { 0 };
	add_side(&t, m[0], 0, lines);
	add_side(&t, m[1], 1, lines);
	for (size_t i = 0; i < t.n; i++) {
		struct drow *r = &t.r[i];
		r->dself = 100 * (share(r->self[1], m[1]->total) - share(r->self[0], m[0]->total));
		r->dtotal =
			100 * (share(r->total[1], m[1]->total) - share(r->total[0], m[0]->total));
		r->seself = noise(r->self[0], m[0]->total, r->self[1], m[1]->total);
		r->setotal = noise(r->total[0], m[0]->total, r->total[1], m[1]->total);
	}
	qsort(t.r, t.n, sizeof *t.r, drow_cmp);
	if (!t.n)
		printf("\nno samples in either file\n");
	else
		table(&t, m, lines, &fo.paths, limit);
	for (int i = 0; i < 2; i++) {
		char *notes = model_notes_text(m[i], verbose);
		if (*notes)
			printf("\n%s", notes);
		free(notes);
	}
	for (size_t i = 0; i < t.n; i++)
		free(t.r[i].key);
	free(t.r);
	free(t.slot);
	for (int i = 0; i < 2; i++)
		model_close(mm[i], &prof[i]);
	return 0;
}
