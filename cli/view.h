/*
 * view.h - the views of `pcprof report`, one file each: the flat tables
 * (view-flat.c), processes and threads (view-procs.c), the call tree
 * (view-tree.c), callers and callees (view-calls.c).  Each prints to
 * stdout from the model (model.h); percentages are of all samples of the
 * selected processes.
 */
#ifndef PCPROF_VIEW_H
#define PCPROF_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* How --lines shows a source file (view_line_text). */
struct view_paths {
	const char *source_root; /* --source-root DIR, or NULL */
	bool full;               /* --full-paths */
};

struct view_opts {
	enum model_sort sort;
	size_t limit; /* rows per table, children per tree node; 0: all */
	struct view_paths paths;
	bool all; /* -P: list processes without samples too (else one line) */
};

/* "path:line" of a source line as --lines shows it (a malloc'd string;
 * "??" for an unknown file): the full path with vp->full; else relative
 * to vp->source_root when given, else to comp_dir (the DWARF compilation
 * directory), when the file is under it; else the full path. */
char *view_line_text(const struct view_paths *vp, const char *file, const char *comp_dir, int line);

static inline double view_pct(const struct model *f, uint64_t n)
{
	return f->total ? 100.0 * (double)n / (double)f->total : 0.0;
}

/* A function as every view names it: its label, then " [inline]" if it
 * is code inlined into other functions.  view_fn_put pads it to width
 * columns (0: none). */
int view_fn_width(const struct model_fn *fn);
void view_fn_put(const struct model_fn *fn, int width);

void view_functions(const struct model *f, const struct view_opts *o);
void view_lines(const struct model *f, const struct view_opts *o);
void view_modules(const struct model *f, const struct view_opts *o);
void view_processes(const struct model *f, const struct view_opts *o);
void view_threads(const struct model *f, const struct view_opts *o);
void view_tree(const struct model *f, const struct view_opts *o);
/* Callers (callees false) or callees of each function whose label or
 * symbol name matches the fnmatch pattern pat; 0, or -1 if none does. */
int view_calls(const struct model *f, const struct view_opts *o, const char *pat, bool callees);
/* view-timeline.c: each thread's samples over time (--timeline), and the
 * header line of a report restricted with --time. */
void view_timeline(const struct model *f, const struct view_opts *o);
void view_time_header(const struct model *f);

#endif
