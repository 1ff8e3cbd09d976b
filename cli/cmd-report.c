/*
 * cmd-report.c - `pcprof report [FILE]`: the flat profile as text, laid out
 * like gprof's flat profile plus a module column (ecosystem.md 1a, 1d), and
 * the per-line, per-module, per-process and per-thread views of the same
 * samples.  Each view option adds its table; without one, functions.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "flat.h"
#include "util.h"

enum { V_FUNCTIONS = 1, V_LINES = 2, V_MODULES = 4, V_PROCESSES = 8, V_THREADS = 16 };

struct ropts {
	unsigned views;
	enum flat_sort sort;
	size_t limit; /* 0: all */
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pcprof report [OPTIONS] [FILE]\n"
		   "\n"
		   "Print the flat profile recorded in FILE (default pcprof.data): self and\n"
		   "cumulative share, samples and seconds per function, with its module.\n"
		   "\n"
		   "Views (each adds a table; default --functions):\n"
		   "  -F, --functions      by function\n"
		   "  -l, --lines          by source line (file:line)\n"
		   "  -M, --modules        per module (executable, shared libraries)\n"
		   "  -P, --processes      per process\n"
		   "  -T, --threads        per thread, with its top function\n"
		   "\n"
		   "Selection and order:\n"
		   "  -p, --pid PID        only the process(es) with this pid\n"
		   "  -m, --module PAT     only modules whose path or name matches PAT (fnmatch)\n"
		   "  -f, --function PAT   only functions matching PAT (fnmatch)\n"
		   "  -s, --sort KEY       samples (default), name, module or address\n"
		   "  -n, --limit N        at most N rows per table\n"
		   "  -h, --help           this text\n"
		   "\n"
		   "Percentages are of all samples of the selected processes.\n"
		   "See pcprof-report(1).\n");
}

static size_t parse_limit(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < 0 || v > INT32_MAX)
		die(2, "bad limit '%s'", s);
	return (size_t)v;
}

/* Every name below comes from the profile, or from a program that named
 * itself: each goes through text_put/text_pad (util.h), never printf's %s,
 * and column widths count the characters text_put writes. */

static void header(const struct flat *f, const char *file)
{
	printf("%-10s ", "file");
	text_put(stdout, file);
	printf("\n%-10s ", "command");
	text_put(stdout, f->prof->command);
	putchar('\n');
	printf("%-10s %zu:", "processes", f->nprocs);
	for (size_t i = 0; i < f->nprocs && i < 8; i++)
		printf(" %d", (int)f->procs[i].p->pid);
	if (f->nprocs > 8)
		printf(" and %zu more", f->nprocs - 8);
	putchar('\n');
	char *engines = flat_distinct(f, false), *rates = flat_distinct(f, true);
	printf("%-10s ", "engine");
	text_put(stdout, engines);
	printf("\n%-10s %s\n", "rate", rates);
	free(engines);
	free(rates);
	printf("%-10s %" PRIu64 " (%.2f s)", "samples", f->total, f->total_seconds);
	if (f->cpu_ns) {
		printf("; CPU time %.2f s", (double)f->cpu_ns / 1e9);
		printf("; achieved %.1f Hz", flat_achieved_hz(f));
	}
	printf("; lost %" PRIu64 "\n", f->lost);
	if (f->opts.module || f->opts.function) {
		printf("%-10s %" PRIu64 " samples (%.2f%%) match", "shown", f->shown,
		       f->total ? 100.0 * (double)f->shown / (double)f->total : 0.0);
		if (f->opts.module) {
			fputs(" --module '", stdout);
			text_put(stdout, f->opts.module);
			putchar('\'');
		}
		if (f->opts.function) {
			fputs(" --function '", stdout);
			text_put(stdout, f->opts.function);
			putchar('\'');
		}
		putchar('\n');
	}
}

static double pct(const struct flat *f, uint64_t n)
{
	return f->total ? 100.0 * (double)n / (double)f->total : 0.0;
}

static int label_width(const struct flat *f, const uint32_t *ix, size_t n, bool lines)
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

static void functions(const struct flat *f, const struct ropts *o)
{
	size_t n;
	uint32_t *ix = flat_sorted_fns(f, o->sort, &n);
	if (o->limit && n > o->limit)
		n = o->limit;
	int w = label_width(f, ix, n, false);
	printf("\nFlat profile (functions):\n\n");
	printf(" self%%    cum%%    samples   seconds  %-*s  module\n", w, "function");
	uint64_t cum = 0;
	for (size_t i = 0; i < n; i++) {
		const struct flat_fn *fn = &f->fns[ix[i]];
		cum += fn->samples;
		printf("%6.2f  %6.2f  %9" PRIu64 "  %8.2f  ", pct(f, fn->samples), pct(f, cum),
		       fn->samples, fn->seconds);
		text_pad(stdout, fn->label, w);
		fputs("  ", stdout);
		text_put(stdout, flat_mod_name(f, fn->mod));
		putchar('\n');
	}
	free(ix);
}

static void lines(const struct flat *f, const struct ropts *o)
{
	size_t n;
	uint32_t *ix = flat_sorted_lines(f, o->sort, &n);
	if (o->limit && n > o->limit)
		n = o->limit;
	int w = label_width(f, ix, n, true);
	int lw = 12;
	char buf[512];
	for (size_t i = 0; i < n; i++) {
		const struct flat_line *l = &f->lines[ix[i]];
		int k = 2;
		if (l->file) {
			snprintf(buf, sizeof buf, "%s:%d", basename(l->file), l->line);
			k = text_width(buf);
		}
		if (k > lw)
			lw = k > 40 ? 40 : k;
	}
	printf("\nFlat profile (source lines):\n\n");
	printf(" self%%    cum%%    samples   seconds  %-*s  %-*s  module\n", lw, "line", w,
	       "function");
	uint64_t cum = 0;
	for (size_t i = 0; i < n; i++) {
		const struct flat_line *l = &f->lines[ix[i]];
		const struct flat_fn *fn = &f->fns[l->fn];
		cum += l->samples;
		if (l->file)
			snprintf(buf, sizeof buf, "%s:%d", basename(l->file), l->line);
		else
			snprintf(buf, sizeof buf, "??");
		printf("%6.2f  %6.2f  %9" PRIu64 "  %8.2f  ", pct(f, l->samples), pct(f, cum),
		       l->samples, l->seconds);
		text_pad(stdout, buf, lw);
		fputs("  ", stdout);
		text_pad(stdout, fn->label, w);
		fputs("  ", stdout);
		text_put(stdout, flat_mod_name(f, fn->mod));
		putchar('\n');
	}
	free(ix);
}

static void modules(const struct flat *f, const struct ropts *o)
{
	size_t n;
	uint32_t *ix = flat_sorted_mods(f, o->sort, &n);
	uint64_t outside = 0;
	double outside_s = 0;
	for (size_t i = 0; i < f->nfns; i++)
		if (f->fns[i].mod == FLAT_NO_MOD) {
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
	printf(" self%%    samples   seconds  %-*s  path\n", w, "module");
	for (size_t i = 0; i < n; i++) {
		const struct flat_mod *m = &f->mods[ix[i]];
		printf("%6.2f  %9" PRIu64 "  %8.2f  ", pct(f, m->samples), m->samples, m->seconds);
		text_pad(stdout, m->name, w);
		fputs("  ", stdout);
		text_put(stdout, m->path);
		putchar('\n');
	}
	if (outside)
		printf("%6.2f  %9" PRIu64 "  %8.2f  %-*s  (pcs outside every mapped file)\n",
		       pct(f, outside), outside, outside_s, w, "[unknown]");
	free(ix);
}

static const struct flat_proc *sort_procs; /* qsort has no context argument */

static const char *end_text(const struct pp_process *p, char *buf, size_t n)
{
	switch (p->end) {
	case PP_END_EXIT:
		snprintf(buf, n, "exit %d", (int)p->exit_status);
		break;
	case PP_END_EXEC:
		snprintf(buf, n, "exec");
		break;
	case PP_END_SIGNAL:
		snprintf(buf, n, "signal %d", (int)p->exit_status);
		break;
	default:
		snprintf(buf, n, "?");
		break;
	}
	return buf;
}

/* By samples (most first), then in file order, the order they started. */
static int proc_order(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t sx = sort_procs[x].samples, sy = sort_procs[y].samples;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void processes(const struct flat *f, const struct ropts *o)
{
	size_t n = f->nprocs;
	uint32_t *ix = xmalloc(n * sizeof *ix);
	for (size_t i = 0; i < n; i++)
		ix[i] = (uint32_t)i;
	if (o->sort == FLAT_SORT_SAMPLES) {
		sort_procs = f->procs;
		qsort(ix, n, sizeof *ix, proc_order);
	}
	if (o->limit && n > o->limit)
		n = o->limit;
	printf("\nProcesses:\n\n");
	printf("    pid     ppid  self%%    samples   seconds    cpu s  achieved  engine        "
	       "lost  end        command\n");
	char eb[32];
	for (size_t i = 0; i < n; i++) {
		const struct flat_proc *fp = &f->procs[ix[i]];
		const struct pp_process *p = fp->p;
		double cpu = (double)p->cpu_ns / 1e9;
		uint64_t ticks = p->ticks ? p->ticks : fp->samples;
		printf("%7d  %7d  %5.1f  %9" PRIu64 "  %8.2f  %7.2f  %5.0f Hz  ", (int)p->pid,
		       (int)p->ppid, pct(f, fp->samples), fp->samples, fp->seconds, cpu,
		       cpu > 0 ? (double)ticks / cpu : 0.0);
		text_pad(stdout, p->engine, 12);
		printf("  %4" PRIu64 "  %-9s  ", p->lost, end_text(p, eb, sizeof eb));
		text_put(stdout, p->cmdline[0] ? p->cmdline : p->exe);
		putchar('\n');
	}
	free(ix);
}

static int thread_cmp(const void *a, const void *b)
{
	const struct flat_thread *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return (x->t ? x->t->tid : 0) - (y->t ? y->t->tid : 0);
}

static void threads(const struct flat *f, const struct ropts *o)
{
	size_t n = f->nthreads;
	struct flat_thread *t = xmalloc((n ? n : 1) * sizeof *t);
	memcpy(t, f->threads, n * sizeof *t);
	if (o->sort == FLAT_SORT_SAMPLES)
		qsort(t, n, sizeof *t, thread_cmp);
	if (o->limit && n > o->limit)
		n = o->limit;
	printf("\nThreads:\n\n");
	printf("    pid      tid  name              self%%    samples   seconds  top function\n");
	for (size_t i = 0; i < n; i++) {
		const struct pp_process *p = f->procs[t[i].proc].p;
		const struct flat_fn *fn = &f->fns[t[i].top_fn];
		char name[17];
		/* samples of threads beyond the recorder's thread table */
		snprintf(name, sizeof name, "%.16s", t[i].t ? t[i].t->name : "(untracked)");
		printf("%7d  %7d  ", (int)p->pid, t[i].t ? (int)t[i].t->tid : 0);
		text_pad(stdout, name, 16);
		printf("  %5.1f  %9" PRIu64 "  %8.2f  ", pct(f, t[i].samples), t[i].samples,
		       t[i].seconds);
		text_put(stdout, fn->label);
		fputs(" (", stdout);
		text_put(stdout, flat_mod_name(f, fn->mod));
		printf(", %.0f%%)\n",
		       t[i].samples ? 100.0 * (double)t[i].top_samples / (double)t[i].samples
				    : 0.0);
	}
	free(t);
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "functions", no_argument, NULL, 'F' },
		{ "lines", no_argument, NULL, 'l' },
		{ "modules", no_argument, NULL, 'M' },
		{ "processes", no_argument, NULL, 'P' },
		{ "threads", no_argument, NULL, 'T' },
		{ "pid", required_argument, NULL, 'p' },
		{ "module", required_argument, NULL, 'm' },
		{ "function", required_argument, NULL, 'f' },
		{ "sort", required_argument, NULL, 's' },
		{ "limit", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ropts o = { 0 };
	struct flat_opts fo = { 0 };
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "FlMPTp:m:f:s:n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			o.views |= V_FUNCTIONS;
			break;
		case 'l':
			o.views |= V_LINES;
			break;
		case 'M':
			o.views |= V_MODULES;
			break;
		case 'P':
			o.views |= V_PROCESSES;
			break;
		case 'T':
			o.views |= V_THREADS;
			break;
		case 'p':
			fo.pid = flat_parse_pid(optarg);
			break;
		case 'm':
			fo.module = optarg;
			break;
		case 'f':
			fo.function = optarg;
			break;
		case 's': {
			int s = flat_sort_parse(optarg);
			if (s < 0)
				die(2, "bad sort key '%s' (samples, name, module or address)",
				    optarg);
			o.sort = (enum flat_sort)s;
			break;
		}
		case 'n':
			o.limit = parse_limit(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind > 1) {
		usage(stderr);
		return 2;
	}
	const char *file = optind < argc ? argv[optind] : "pcprof.data";
	if (!o.views)
		o.views = V_FUNCTIONS;

	struct pp_profile prof;
	struct flat *f = flat_open(file, &fo, &prof);
	header(f, file);
	if (f->total == 0)
		printf("\nno samples\n");
	else {
		if (o.views & V_FUNCTIONS)
			functions(f, &o);
		if (o.views & V_LINES)
			lines(f, &o);
		if (o.views & V_MODULES)
			modules(f, &o);
		if (o.views & V_PROCESSES)
			processes(f, &o);
		if (o.views & V_THREADS)
			threads(f, &o);
	}
	/* notes (symbols missing, binaries changed) after a blank line, if any */
	char *notes = flat_notes_text(f);
	if (*notes)
		printf("\n%s", notes);
	free(notes);
	flat_close(f, &prof);
	return 0;
}
