/*
 * main.c - pcprof: the subcommand table and global options.
 * Each subcommand lives in cli/cmd-<name>.c and gets argv from its name on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "util.h"

static const struct command {
	const char *name;
	const char *help; /* one line */
	int (*fn)(int argc, char **argv);
	int failure; /* exit status when pcprof's own output cannot be written */
} commands[] = {
	{ "run", "run a program under the profiler and record pcprof.data", cmd_run, 125 },
	{ "attach", "profile a running process from outside into pcprof.data", cmd_attach, 1 },
	{ "report", "print a flat profile by function, line, module, process, thread", cmd_report,
	  1 },
	{ "export", "write gmon.out, pprof, folded, speedscope or HTML", cmd_export, 1 },
	{ "annotate", "a function's source lines or instructions with their samples", cmd_annotate,
	  1 },
	{ "diff", "compare two recordings: what changed, beyond sampling noise", cmd_diff, 1 },
	{ "merge", "combine recordings into one data file", cmd_merge, 1 },
	{ "archive", "pack a recording with its modules and debug files, by build id", cmd_archive,
	  1 },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pcprof [--version] [--help] COMMAND [ARGS]\n\n");
	fprintf(f, "Commands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-9s  %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'pcprof COMMAND --help' describes a command; see also pcprof(1).\n");
}

int main(int argc, char **argv)
{
	/* every subcommand's output is checked once more at exit: a full
	 * disk or a closed pipe is an error, not a silent success */
	atexit(close_stdout);
	/* a message or a note is one write, however many pieces it is
	 * printed in (notes can number thousands) */
	setvbuf(stderr, NULL, _IOLBF, BUFSIZ);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("pcprof %s\n", PCPROF_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		if (strcmp(argv[1], commands[i].name) == 0) {
			static char name[64];
			snprintf(name, sizeof name, "pcprof %s", commands[i].name);
			progname = name;
			exit_failure = commands[i].failure;
			argv[1] = name; /* getopt's messages: "pcprof report: ..." */
			return commands[i].fn(argc - 1, argv + 1);
		}
	}
	warnx_("unknown command '%s'", argv[1]);
	usage(stderr);
	return 2;
}
