/*
 * cmd-report.c - `pcprof report [FILE]`: the profile as text, laid out like
 * gprof's flat profile plus a module column (ecosystem.md 1a, 1d), and the
 * per-line, per-module, per-process and per-thread views of the same
 * samples, the call tree, callers and callees (one file each: view.h).
 * Each view option adds its table; without one, functions.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "fewsignals.h"
#include "filteropt.h"
#include "model.h"
#include "util.h"
#include "view.h"

enum {
	V_FUNCTIONS = 1,
	V_LINES = 2,
	V_MODULES = 4,
	V_PROCESSES = 8,
	V_THREADS = 16,
	V_TREE = 32,
	V_TIMELINE = 64,
};

enum { OPT_CALLERS = 256, OPT_CALLEES, OPT_TIMELINE };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pcprof report [OPTIONS] [FILE]\n"
		"\n"
		"Print the profile recorded in FILE (default pcprof.data, or an archive of\n"
		"pcprof archive): self and total share, samples and seconds per function,\n"
		"with its module.  Self: samples in the function itself; total: samples\n"
		"whose call stack holds it.\n"
		"\n"
		"Views (each adds a table; default --functions):\n"
		"  -F, --functions      by function\n"
		"  -l, --lines          by source line (file:line)\n"
		"  -M, --modules        per module (executable, shared libraries)\n"
		"  -P, --processes      per process\n"
		"  -T, --threads        per thread, with its top function\n"
		"  -t, --tree           the call tree, top-down, by function\n"
		"      --callers FUNC   the callers of the functions matching FUNC (fnmatch)\n"
		"      --callees FUNC   the functions they call\n"
		"      --timeline       each thread's CPU use over time, as a row of characters\n"
		"\n"
		"Selection and order:\n" FILTER_USAGE("-f,") FILTER_PATH_USAGE
		"  -s, --sort KEY       samples (self, default), total, name, module or address\n"
		"  -n, --limit N        at most N rows per table (children per tree node);\n"
		"                       0, the default: all\n"
		"  -v, --all, --verbose  -P: every process, those without samples too; and\n"
		"                       the notes on modules without debug symbols in full\n"
		"                       (default: counted on one line, unless -p)\n"
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

/* The CPU time of the selected processes that has no samples, by cause
 * (profile.h, enum pp_gap; what pcprof run's summary says under "lost:"),
 * parts that round to 0.00 s left out. */
static void gaps_line(const struct model *f)
{
	static const char *const what[PP_GAP_N] = {
		[PP_GAP_UNSAMPLED] = "of threads no engine could sample",
		[PP_GAP_BLOCKED] = "of threads that blocked the sampling signal",
		[PP_GAP_IOURING] = "in io_uring workers (kernel threads)",
		[PP_GAP_FOREIGN] = "of threads made without pthread_create",
		[PP_GAP_BEFORE] = "of threads before an engine sampled them",
		[PP_GAP_TEARDOWN] = "of threads after their exit handlers",
		[PP_GAP_NOEXIT] = "of threads that ended without exit handlers",
		[PP_GAP_NOENGINE] = "of processes no engine could sample",
		[PP_GAP_UNKNOWN] = "cause unknown",
	};
	uint64_t ns[PP_GAP_N] = { 0 }, all = 0;
	for (size_t i = 0; i < f->nprocs; i++)
		for (int g = 0; g < PP_GAP_N; g++) {
			uint64_t v = f->procs[i].p->gap[g].ns;
			ns[g] = ns[g] > UINT64_MAX - v ? UINT64_MAX : ns[g] + v;
		}
	for (int g = 0; g < PP_GAP_N; g++)
		if (ns[g] >= 5000000u)
			all = all > UINT64_MAX - ns[g] ? UINT64_MAX : all + ns[g];
	if (!all)
		return;
	printf("%-10s %.2f s CPU without samples:", "missing", (double)all / 1e9);
	const char *sep = " ";
	for (int g = 0; g < PP_GAP_N; g++)
		if (ns[g] >= 5000000u) {
			printf("%s%.2f s %s", sep, (double)ns[g] / 1e9, what[g]);
			sep = "; ";
		}
	putchar('\n');
}

/* Names go through text_put (util.h), never printf's %s. */
static void header(const struct model *f, const char *file)
{
	printf("%-10s ", "file");
	text_put(stdout, file);
	printf("\n%-10s ", "command");
	text_put_command(stdout, f->prof->command);
	putchar('\n');
	/* Processes: an exec chain is one process of several images (-P
	 * lists the images); a pid used again is another process (util.h). */
	struct image_key *key = xmalloc((f->nprocs ? f->nprocs : 1) * sizeof *key);
	uint32_t *proc = xmalloc((f->nprocs ? f->nprocs : 1) * sizeof *proc);
	for (size_t i = 0; i < f->nprocs; i++) {
		const struct pp_process *p = f->procs[i].p;
		key[i] = (struct image_key){ p->pid, p->seq, p->end == PP_END_EXEC };
	}
	size_t nproc = number_processes(key, f->nprocs, proc), shown = 0;
	printf("%-10s %zu", "processes", nproc);
	if (nproc != f->nprocs)
		printf(" (%zu images, exec)", f->nprocs);
	putchar(':');
	/* each process's pid once, in file order */
	bool *listed = xcalloc(nproc ? nproc : 1, sizeof *listed);
	for (size_t i = 0; i < f->nprocs && shown < 8; i++)
		if (!listed[proc[i]]) {
			listed[proc[i]] = true;
			shown++;
			printf(" %d", (int)f->procs[i].p->pid);
		}
	if (nproc > shown)
		printf(" and %zu more", nproc - shown);
	putchar('\n');
	free(listed);
	free(proc);
	free(key);
	char *engines = model_distinct(f, false), *rates = model_distinct(f, true);
	printf("%-10s ", "engine");
	text_put(stdout, engines);
	printf("\n%-10s %s\n", "rate", rates);
	free(engines);
	free(rates);
	printf("%-10s %" PRIu64 " (%.2f s)", "samples", f->total, f->total_seconds);
	if (f->cpu_ns) {
		printf("; CPU time %.2f s", (double)f->cpu_ns / 1e9);
		printf("; achieved %.1f Hz", model_achieved_hz(f));
	}
	printf("; lost %" PRIu64 "\n", f->lost);
	/* As pcprof run's summary says it under "lost:" (raw.c). */
	if (f->nunsampled) {
		const char *why = f->unsampled_why;
		size_t skip = sizeof PP_WHY_NOT_RECORDED - 1;
		if (why && strncmp(why, PP_WHY_NOT_RECORDED, skip) == 0)
			why += skip;
		printf("%-10s %.2f s CPU of %zu image%s no engine sampled", "unsampled",
		       (double)f->unsampled_cpu_ns / 1e9, f->nunsampled,
		       f->nunsampled == 1 ? "" : "s");
		if (why && why[0]) {
			fputs(" (", stdout);
			text_put(stdout, why);
			fputs(f->nunsampled > 1 ? ", ...)" : ")", stdout);
		}
		fputs("; -P -v lists them\n", stdout);
	}
	/* As pcprof run's summary says it: CPU time after a recording stopped. */
	static const char *const stopped[PP_STOP_MAX + 1] = {
		[PP_STOP_SECCOMP] = "not sampled after seccomp filter",
		[PP_STOP_MANUAL] = "not sampled with the manual engine the program chose",
	};
	for (int k = 1; k <= PP_STOP_MAX; k++)
		if (f->nstopped[k])
			printf("%-10s %s: %.2f s CPU (%zu image%s)\n", "stopped", stopped[k],
			       (double)f->stopped_ns[k] / 1e9, f->nstopped[k],
			       f->nstopped[k] == 1 ? "" : "s");
	gaps_line(f);
	/* As pcprof run's summary says it (fewsignals.c). */
	struct fewsignals few = { 0 };
	for (size_t i = 0; i < f->nprocs; i++)
		fewsignals_add(&few, f->procs[i].p);
	char note[256];
	if (fewsignals_note(&few, "pcprof run ", note, sizeof note))
		printf("%-10s %s\n", "note", note);
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
	if (f->opts.time)
		view_time_header(f);
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "functions", no_argument, NULL, 'F' },
		{ "lines", no_argument, NULL, 'l' },
		{ "modules", no_argument, NULL, 'M' },
		{ "processes", no_argument, NULL, 'P' },
		{ "threads", no_argument, NULL, 'T' },
		{ "tree", no_argument, NULL, 't' },
		{ "callers", required_argument, NULL, OPT_CALLERS },
		{ "callees", required_argument, NULL, OPT_CALLEES },
		{ "timeline", no_argument, NULL, OPT_TIMELINE },
		{ "sort", required_argument, NULL, 's' },
		{ "limit", required_argument, NULL, 'n' },
		{ "all", no_argument, NULL, 'v' },
		{ "verbose", no_argument, NULL, 'v' },
		FILTER_LONGOPTS,
		FILTER_PATH_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct view_opts o = { 0 };
	unsigned views = 0;
	const char *callers = NULL, *callees = NULL;
	struct filter_opts fo = { 0 };
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "FlMPTts:n:vh" FILTER_SHORTOPTS, longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 't':
			views |= V_TREE;
			break;
		case OPT_CALLERS:
			filter_once("--callers", callers, optarg);
			callers = optarg;
			break;
		case OPT_CALLEES:
			filter_once("--callees", callees, optarg);
			callees = optarg;
			break;
		case OPT_TIMELINE:
			views |= V_TIMELINE;
			break;
		case 'F':
			views |= V_FUNCTIONS;
			break;
		case 'l':
			views |= V_LINES;
			break;
		case 'M':
			views |= V_MODULES;
			break;
		case 'P':
			views |= V_PROCESSES;
			break;
		case 'T':
			views |= V_THREADS;
			break;
		case 's': {
			int s = model_sort_parse(optarg);
			if (s < 0)
				die(2,
				    "bad sort key '%s' (samples, total, name, module or address)",
				    optarg);
			o.sort = (enum model_sort)s;
			break;
		}
		case 'n':
			o.limit = parse_limit(optarg);
			break;
		case 'v':
			o.all = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (filter_option(c, optarg, &fo))
				break;
			try_help(2); /* after getopt's message naming the option */
		}
	}
	if (argc - optind > 1)
		usage_error(2, "extra operand '%s': one data file at most", argv[optind + 1]);
	const char *file = optind < argc ? argv[optind] : "pcprof.data";
	o.paths = fo.paths;
	if (!views && !callers && !callees)
		views = V_FUNCTIONS;
	fo.model.threads = views & V_THREADS;
	if (fo.model.pid)
		o.all = true; /* the processes asked for, with or without samples */

	struct pp_profile prof;
	struct model *f = model_open(file, &fo.model, &prof);
	filter_check_match(f, file);
	header(f, file);
	int missing = 0;
	if (f->total == 0) {
		printf("\nno samples\n");
		if (views & V_PROCESSES) /* what ran, and how it ended */
			view_processes(f, &o);
	} else {
		if (views & V_FUNCTIONS)
			view_functions(f, &o);
		if (views & V_LINES)
			view_lines(f, &o);
		if (views & V_MODULES)
			view_modules(f, &o);
		if (views & V_PROCESSES)
			view_processes(f, &o);
		if (views & V_THREADS)
			view_threads(f, &o);
		if (views & V_TREE)
			view_tree(f, &o);
		if (views & V_TIMELINE)
			view_timeline(f, &o);
		if (callers && view_calls(f, &o, callers, false) < 0)
			missing |= 1;
		if (callees && view_calls(f, &o, callees, true) < 0)
			missing |= 2;
	}
	/* notes (symbols missing, binaries changed) after a blank line, if any */
	char *notes = model_notes_text(f, o.all);
	if (*notes)
		printf("\n%s", notes);
	free(notes);
	model_close(f, &prof);
	if (missing)
		die(1, "no function with samples matches '%s'", missing & 1 ? callers : callees);
	return 0;
}
