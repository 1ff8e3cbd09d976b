/*
 * filteropt.c - the selection options report, export, diff and annotate
 * share (filteropt.h).
 */
#include "filteropt.h"

bool filter_option(int c, const char *arg, struct filter_opts *o)
{
	switch (c) {
	case 'p':
	case FILTER_OPT_PID:
		o->model.pid = model_parse_pid(arg);
		return true;
	case 'm':
	case FILTER_OPT_MODULE:
		o->model.module = arg;
		return true;
	case 'f':
	case FILTER_OPT_FUNCTION:
		o->model.function = arg;
		return true;
	case FILTER_OPT_TIME:
		o->model.time = tl_parse_arg(arg, &o->period);
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
