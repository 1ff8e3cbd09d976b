/*
 * cmd-export.c - `pcprof export --format FORMAT [-o OUT] [FILE]`: the flat
 * profile in another tool's format.  The formats are a table; each lives in
 * its own cli/out-<name>.c and is described in docs/formats.md.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "debuginfo.h"
#include "model.h"
#include "out.h"
#include "util.h"

static const struct out_format *const formats[] = {
	&out_gmon, &out_pprof, &out_folded, &out_speedscope, &out_html,
};
#define NFORMATS (sizeof formats / sizeof formats[0])

static void usage(FILE *f)
{
	fprintf(f, "usage: pcprof export --format FORMAT [-o OUT] [OPTIONS] [FILE]\n"
		   "\n"
		   "Write the profile recorded in FILE (default pcprof.data, or an archive of\n"
		   "pcprof archive) for another tool.\n"
		   "\n"
		   "Formats:\n");
	for (size_t i = 0; i < NFORMATS; i++)
		fprintf(f, "  %-11s %s\n  %-11s (default -o %s)\n", formats[i]->name,
			formats[i]->help, "", formats[i]->default_out);
	fprintf(f,
		"\n"
		"Options:\n"
		"  -f, --format FORMAT  one of the formats above\n"
		"  -o, --output OUT     output file ('-': standard output), or directory for gmon\n"
		"  -p, --pid PID        only the process(es) with this pid\n"
		"      --module PAT     only modules whose path or name matches PAT (fnmatch)\n"
		"      --function PAT   only functions matching PAT (fnmatch; the name as\n"
		"                       shown or as in the binary)\n"
		"      --no-demangle    C++ and Rust names as in the binary (mangled)\n"
		"      --no-inline      inlined code is the function it was inlined "
		"into\n"
		"      --time FROM-TO   only samples of that period, in seconds since the run\n"
		"                       started (1.5-3, 2- or -0.5)\n" DEBUGINFO_USAGE
		"  -h, --help           this text\n"
		"\n"
		"See pcprof-export(1) and docs/formats.md.\n");
}

static const char *known(void)
{
	static char buf[128];
	buf[0] = '\0';
	for (size_t i = 0; i < NFORMATS; i++) {
		if (i)
			strcat(buf, ", ");
		strcat(buf, formats[i]->name);
	}
	return buf;
}

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "module", required_argument, NULL, 'm' },
		{ "function", required_argument, NULL, 'F' },
		{ "no-demangle", no_argument, NULL, 'D' },
		{ "no-inline", no_argument, NULL, 'I' },
		{ "time", required_argument, NULL, 'T' },
		DEBUGINFO_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *fmtname = NULL, *out = NULL;
	struct model_opts fo = { 0 };
	struct tl_range period;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:p:h", longopts, NULL)) != -1) {
		if (debuginfo_option(c, optarg))
			continue;
		switch (c) {
		case 'f':
			fmtname = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'p':
			fo.pid = model_parse_pid(optarg);
			break;
		case 'm':
			fo.module = optarg;
			break;
		case 'F':
			fo.function = optarg;
			break;
		case 'D':
			fo.no_demangle = true;
			break;
		case 'I':
			fo.no_inline = true;
			break;
		case 'T':
			fo.time = tl_parse_arg(optarg, &period);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!fmtname)
		die(2, "no --format given (known: %s)", known());
	const struct out_format *fmt = NULL;
	for (size_t i = 0; i < NFORMATS; i++)
		if (strcmp(fmtname, formats[i]->name) == 0)
			fmt = formats[i];
	if (!fmt)
		die(2, "unknown format '%s' (known: %s)", fmtname, known());
	if (argc - optind > 1) {
		usage(stderr);
		return 2;
	}
	const char *file = optind < argc ? argv[optind] : "pcprof.data";
	if (!out)
		out = fmt->default_out;
	fo.no_inline |= fmt->no_inline;

	struct pp_profile prof;
	struct model *f = model_open(file, &fo, &prof);
	char err[512];
	if (fmt->write(f, out, err, sizeof err) != 0)
		die(1, "%s", err);
	model_notes(f, stderr);
	model_close(f, &prof);
	return 0;
}
