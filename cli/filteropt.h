/*
 * filteropt.h - the options that choose which samples a command reads and
 * how it names them, parsed in one place for report, export, diff and
 * annotate, so that each spelling means the same everywhere:
 *
 *   -p, --pid PID         only the process(es) with this pid
 *   -m, --module PAT      only modules whose path or name matches PAT
 *   -f, --function PAT    only functions matching PAT (export: --function
 *                         only, its -f is --format)
 *       --time FROM-TO    only samples of that period
 *       --no-demangle     names as in the binary
 *       --no-inline       inlined code is its caller's
 *       --debug-dir DIR   debuginfo.h
 * and, for the commands with a --lines view (report, diff):
 *       --source-root DIR, --full-paths
 *
 * Use: put FILTER_LONGOPTS (and FILTER_PATH_LONGOPTS) in the getopt_long
 * table and FILTER_SHORTOPTS in the short options (export: its own), give
 * each option character getopt returns that the command does not handle
 * itself to filter_option (true: it was one of these), and print
 * FILTER_USAGE (FILTER_PATH_USAGE) in the help text.  A command that gives
 * one of the letters p, m, f another meaning handles it before calling
 * filter_option.
 */
#ifndef PCPROF_FILTEROPT_H
#define PCPROF_FILTEROPT_H

#include <stdbool.h>

#include "debuginfo.h"
#include "model.h"
#include "timeline.h"
#include "view.h"

/* What the options set.  model.time points into the struct (period): pass
 * &model to model_open, do not copy the struct. */
struct filter_opts {
	struct model_opts model;
	struct view_paths paths;
	struct tl_range period;
	const char *pid_arg, *time_arg; /* as given, to refuse a second one */
};

enum {
	FILTER_OPT_PID = 0x4601,
	FILTER_OPT_MODULE,
	FILTER_OPT_FUNCTION,
	FILTER_OPT_TIME,
	FILTER_OPT_NO_DEMANGLE,
	FILTER_OPT_NO_INLINE,
	FILTER_OPT_SOURCE_ROOT,
	FILTER_OPT_FULL_PATHS,
};

#define FILTER_SHORTOPTS "p:m:f:"
#define FILTER_LONGOPTS                                                                            \
	{ "pid", required_argument, NULL, FILTER_OPT_PID },                                        \
		{ "module", required_argument, NULL, FILTER_OPT_MODULE },                          \
		{ "function", required_argument, NULL, FILTER_OPT_FUNCTION },                      \
		{ "time", required_argument, NULL, FILTER_OPT_TIME },                              \
		{ "no-demangle", no_argument, NULL, FILTER_OPT_NO_DEMANGLE },                      \
		{ "no-inline", no_argument, NULL, FILTER_OPT_NO_INLINE }, DEBUGINFO_LONGOPTS
#define FILTER_PATH_LONGOPTS                                                                       \
	{ "source-root", required_argument, NULL, FILTER_OPT_SOURCE_ROOT },                        \
	{                                                                                          \
		"full-paths", no_argument, NULL, FILTER_OPT_FULL_PATHS                             \
	}

/* The help lines; F is the short form of --function: "-f," or "   ". */
#define FILTER_USAGE(F)                                                                            \
	"  -p, --pid PID        only the process(es) with this pid\n"                              \
	"  -m, --module PAT     only modules whose path or name matches PAT (fnmatch)\n"           \
	"  " F " --function PAT   only functions matching PAT (fnmatch; the name as\n"             \
	"                       shown or as in the binary)\n"                                      \
	"      --time FROM-TO   only samples of that period, in seconds since the run\n"           \
	"                       started (1.5-3, 2- or -0.5)\n"                                     \
	"      --no-demangle    C++ and Rust names as in the binary (mangled)\n"                   \
	"      --no-inline      inlined code is the function it was inlined into\n"                \
	"                       (default: a function of its own, marked "                          \
	"[inline])\n" DEBUGINFO_USAGE
#define FILTER_PATH_USAGE                                                                          \
	"      --source-root DIR  --lines: source paths relative to DIR (default: to\n"            \
	"                       the compilation directory, when under it)\n"                       \
	"      --full-paths     --lines: full source paths\n"

/* Take option c (getopt_long's return) with its argument into o if it is
 * one of the above: true; else false and o is unchanged.  A bad argument,
 * or --pid, --module, --function or --time given twice, exits 2 with a
 * message. */
bool filter_option(int c, const char *arg, struct filter_opts *o);

/* An option that holds one value, given again: a second value would
 * silently replace the first (`-f 'a*' -f 'b*'` showing b alone, read as
 * a and b), so exit 2 with a usage message naming opt and both values.
 * was: the first value as given, NULL when there was none (return). */
void filter_once(const char *opt, const char *was, const char *arg);

/* Exit 1 with a message when f has samples but --module/--function leave
 * none of them: an empty table or file would look like a result.  (diff
 * checks its two files together: a function may be gone from one.) */
void filter_check_match(const struct model *f, const char *file);

#endif
