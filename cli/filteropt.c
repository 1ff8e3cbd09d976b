/*
 * filteropt.c - the selection options report, export, diff and annotate
 * share (filteropt.h).
 */
#include "filteropt.h"

#include <inttypes.h>

#include "util.h"

void filter_check_match(const struct model *f, const char *file)
{
	if (!f->total || f->shown || (!f->opts.module && !f->opts.function))
		return;
	const char *m = f->opts.module, *fn = f->opts.function;
	die(1,
	    "%s: none of its %" PRIu64
	    " samples match%s%s%s%s%s%s ('pcprof report -%c %s' lists the %s)",
	    file, f->total, m ? " --module '" : "", m ? m : "", m ? "'" : "",
	    fn ? " --function '" : "", fn ? fn : "", fn ? "'" : "", fn ? 'F' : 'M', file,
	    fn ? "functions" : "modules");
}

void filter_once(const char *opt, const char *was, const char *arg)
{
	if (was)
		usage_error(2, "%s given twice ('%s', then '%s'): one value only", opt, was, arg);
}

bool filter_option(int c, const char *arg, struct filter_opts *o)
{
	switch (c) {
	case 'p':
	case FILTER_OPT_PID:
		filter_once("--pid", o->pid_arg, arg);
		o->model.pid = model_parse_pid(arg);
		o->pid_arg = arg;
		return true;
	case 'm':
	case FILTER_OPT_MODULE:
		filter_once("--module", o->model.module, arg);
		o->model.module = arg;
		return true;
	case 'f':
	case FILTER_OPT_FUNCTION:
		filter_once("--function", o->model.function, arg);
		o->model.function = arg;
		return true;
	case FILTER_OPT_TIME:
		filter_once("--time", o->time_arg, arg);
		o->model.time = tl_parse_arg(arg, &o->period);
		o->time_arg = arg;
		return true;
	case FILTER_OPT_NO_DEMANGLE:
		o->model.no_demangle = true;
		return true;
	case FILTER_OPT_NO_INLINE:
		o->model.no_inline = true;
		return true;
	case FILTER_OPT_SOURCE_ROOT:
		o->paths.source_root = arg;
		return true;
	case FILTER_OPT_FULL_PATHS:
		o->paths.full = true;
		return true;
	default:
		return debuginfo_option(c, arg);
	}
}
