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
#include "filteropt.h"
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
	fprintf(f, "\n"
		   "Options:\n"
		   "  -f, --format FORMAT  one of the formats above\n"
		   "  -o, --output OUT     output file ('-': standard output), or directory for "
		   "gmon\n" FILTER_USAGE("   ") "  -h, --help           this text\n"
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
		FILTER_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *fmtname = NULL, *out = NULL;
	struct filter_opts fo = { 0 };
	int c;
	optind = 1;
	/* -f is --format here: --function has no short form */
	while ((c = getopt_long(argc, argv, "f:o:p:m:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			fmtname = optarg;
			break;
		case 'o':
			out = optarg;
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
	if (!fmtname)
		die(2, "no --format given (known: %s)", known());
	const struct out_format *fmt = NULL;
	for (size_t i = 0; i < NFORMATS; i++)
		if (strcmp(fmtname, formats[i]->name) == 0)
			fmt = formats[i];
	if (!fmt)
		die(2, "unknown format '%s' (known: %s)", fmtname, known());
	if (argc - optind > 1)
		usage_error(2, "extra operand '%s': one data file at most", argv[optind + 1]);
	const char *file = optind < argc ? argv[optind] : "pcprof.data";
	if (!out)
		out = fmt->default_out;
	fo.model.no_inline |= fmt->no_inline;

	struct pp_profile prof;
	struct model *f = model_open(file, &fo.model, &prof);
	filter_check_match(f, file);
	char err[512];
	if (fmt->write(f, out, err, sizeof err) != 0)
		die(1, "%s", err);
	model_notes(f, stderr, true);
	model_close(f, &prof);
	return 0;
}
