/*
 * cmd-merge.c - `pcprof merge A B... -o OUT`: several recordings as one
 * data file, for a profile of many runs (a benchmark repeated, the same
 * program on several inputs or machines).
 *
 * The processes of all inputs are kept side by side, each exactly as it
 * was recorded (its modules, threads, samples and stacks), in the order of
 * the inputs.  Nothing is summed in the file: every view sums already,
 * since a function of the same file (path and build-id) is one row
 * however many processes ran it (model.h), so merging two runs of one
 * program gives the report of their sum, while `report -P` still tells the
 * runs apart.  The merged file's command is the inputs' command if they
 * share it, else theirs joined by " + "; its time span covers theirs.
 *
 * Recordings of different programs merge too, with a warning: the
 * executable of each input's first process, compared by build-id (by
 * path when a build-id is missing), names the program.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "profile.h"
#include "util.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: pcprof merge -o OUT FILE...\n"
		   "\n"
		   "Write the recordings FILE... as one data file OUT: the processes of\n"
		   "every input side by side, as recorded.  Reports of OUT sum them (a\n"
		   "function counts once however many processes ran it); report -P tells\n"
		   "them apart.  Warns when the inputs recorded different programs.\n"
		   "\n"
		   "Options:\n"
		   "  -o, --output OUT     the merged data file (required; replaced atomically)\n"
		   "  -h, --help           this text\n"
		   "\n"
		   "See pcprof-merge(1).\n");
}

/* The module that is the executable of a profile's first process, or
 * NULL: the program a recording is of. */
static const struct pp_module *exe_module(const struct pp_profile *p)
{
	if (!p->nprocs)
		return NULL;
	const struct pp_process *pr = &p->procs[0];
	for (size_t i = 0; i < pr->nmodules; i++)
		if (strcmp(pr->modules[i].path, pr->exe) == 0)
			return &pr->modules[i];
	return NULL;
}

static void build_id_hex(const struct pp_module *m, char *buf, size_t n)
{
	buf[0] = '\0';
	for (uint32_t i = 0; m && i < m->build_id_len && 2 * i + 3 <= n; i++)
		snprintf(buf + 2 * i, 3, "%02x", m->build_id[i]);
}

/* "warning: ..." on stderr, like the symbolization warnings; paths and
 * names go through text_put (util.h). */
__attribute__((format(printf, 1, 2))) static void warning(const char *fmt, ...)
{
	va_list ap;
	char *msg;
	va_start(ap, fmt);
	int n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		die(1, "out of memory");
	fputs("warning: ", stderr);
	text_put(stderr, msg);
	fputc('\n', stderr);
	free(msg);
}

/* Warn if input b records another program than input a. */
static void check_program(const char *fa, const struct pp_profile *a, const char *fb,
			  const struct pp_profile *b)
{
	if (!a->nprocs || !b->nprocs)
		return;
	const struct pp_module *ma = exe_module(a), *mb = exe_module(b);
	char ha[81], hb[81];
	build_id_hex(ma, ha, sizeof ha);
	build_id_hex(mb, hb, sizeof hb);
	bool same_path = strcmp(a->procs[0].exe, b->procs[0].exe) == 0;
	if (*ha && *hb) {
		if (strcmp(ha, hb) == 0)
			return;
		if (same_path)
			warning("%s and %s record different builds of %s (build-id %s, %s)", fa, fb,
				a->procs[0].exe, ha, hb);
		else
			warning("%s and %s record different programs: %s (build-id %s) "
				"and %s (build-id %s)",
				fa, fb, a->procs[0].exe, ha, b->procs[0].exe, hb);
	} else if (!same_path) {
		warning("%s and %s record different programs: %s and %s", fa, fb, a->procs[0].exe,
			b->procs[0].exe);
	}
}

/* Whether a and b hold one recording (a file given twice, or a copy of
 * it): the same processes, started and ended at the same instants, with
 * the same samples.  Merged, it would count twice, and report -P would
 * show each process twice as if it had exec'd. */
static bool same_recording(const struct pp_profile *a, const struct pp_profile *b)
{
	if (!a->nprocs || a->nprocs != b->nprocs || a->start_ns != b->start_ns ||
	    a->end_ns != b->end_ns)
		return false;
	for (size_t i = 0; i < a->nprocs; i++) {
		const struct pp_process *p = &a->procs[i], *q = &b->procs[i];
		if (p->pid != q->pid || p->seq != q->seq || p->start_ns != q->start_ns ||
		    p->ticks != q->ticks || p->cpu_ns != q->cpu_ns)
			return false;
	}
	return true;
}

int cmd_merge(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			try_help(2); /* after getopt's message naming the option */
		}
	}
	if (!out)
		die(2, "no -o OUT given");
	if (argc - optind < 1)
		usage_error(2, "no data file to merge");
	size_t nin = (size_t)(argc - optind);
	struct pp_profile *in = xcalloc(nin, sizeof *in);
	char err[512];
	size_t nprocs = 0;
	for (size_t i = 0; i < nin; i++) {
		const char *file = argv[optind + i];
		if (pp_read(file, &in[i], err, sizeof err) != 0)
			die(1, "%s: %s", file, err);
		nprocs += in[i].nprocs;
		if (i)
			check_program(argv[optind], &in[0], file, &in[i]);
		for (size_t j = 0; j < i; j++)
			if (same_recording(&in[j], &in[i])) {
				warning("%s and %s hold the same recording: its samples count "
					"twice",
					argv[optind + j], file);
				break;
			}
	}

	/* the processes move into the merged profile; each input keeps
	 * only its (now empty) list */
	struct pp_profile m = { 0 };
	m.procs = xcalloc(nprocs ? nprocs : 1, sizeof *m.procs);
	bool same_cmd = true;
	size_t cmdlen = 1;
	for (size_t i = 0; i < nin; i++) {
		same_cmd &= strcmp(in[i].command, in[0].command) == 0;
		cmdlen += strlen(in[i].command) + 3;
		if (!i || in[i].start_ns < m.start_ns)
			m.start_ns = in[i].start_ns;
		if (in[i].end_ns > m.end_ns)
			m.end_ns = in[i].end_ns;
		/* one timeline if they share a bucket length (each run's from its
		 * own start), else none */
		m.bucket_ns = !i || in[i].bucket_ns == m.bucket_ns ? in[i].bucket_ns : 0;
		memcpy(m.procs + m.nprocs, in[i].procs, in[i].nprocs * sizeof *m.procs);
		m.nprocs += in[i].nprocs;
		in[i].nprocs = 0;
	}
	m.command = xmalloc(cmdlen);
	m.command[0] = '\0';
	for (size_t i = 0; i < (same_cmd ? 1 : nin); i++) {
		if (i)
			strcat(m.command, " + ");
		strcat(m.command, in[i].command);
	}
	if (pp_write(out, &m, err, sizeof err) != 0)
		die(1, "%s: %s", out, err);
	pp_free(&m);
	for (size_t i = 0; i < nin; i++)
		pp_free(&in[i]);
	free(in);
	return 0;
}
