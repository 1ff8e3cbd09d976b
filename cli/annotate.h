/*
 * annotate.h - `pcprof annotate`: one function's samples per source line
 * (view-annotate.c) and per instruction (cmd-annotate.c, with Capstone).
 *
 * A function's code is every address whose inline chain (model.h) holds
 * it: for a function of its own, its whole range, the code inlined into it
 * included; for an inlined one, its code in every function it was inlined
 * into.  Each address's samples are those whose leaf it is (self samples),
 * at the innermost source line: inlined lines are counted at their own
 * file and line.
 *
 * Not thread-safe; prints to stdout; names go through text_put (util.h).
 */
#ifndef PCPROF_ANNOTATE_H
#define PCPROF_ANNOTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

/* One sampled address of the function: its innermost location. */
struct ann_hit {
	uint64_t addr; /* link-time */
	uint32_t pc;   /* index in the model's pcs */
	uint64_t samples;
};

struct ann_fn {
	const struct model *f;
	uint32_t fn;
	struct ann_hit *hits; /* by address */
	size_t nhits;
	uint64_t samples; /* in its code */
};

struct ann_style {
	bool color;  /* ANSI bold red for hot rows */
	int context; /* source lines shown around each sampled line */
};

/* Which sampled locations are each function's code: built once, in one
 * pass over the locations (per function, a scan of all of them would be
 * quadratic: minutes for every function of a large profile). */
struct ann_index {
	const struct model *f;
	uint32_t *first; /* function i's locations: pc[first[i] .. first[i + 1]) */
	uint32_t *pc;
	uint32_t *next; /* (while building) */
	uint64_t *code; /* per function: the samples in its code */
};
void ann_index_build(const struct model *f, struct ann_index *x);
void ann_index_free(struct ann_index *x);

/* The sampled addresses of function fn (a new a->hits; ann_free frees). */
void ann_collect(const struct ann_index *x, uint32_t fn, struct ann_fn *a);
void ann_free(struct ann_fn *a);

/* "name [inline] (module): N samples in its code, P% of all" and a blank
 * line; in is the function whose code is shown, if not a's own
 * (UINT32_MAX: a's own). */
void ann_title(const struct ann_fn *a, const char *what, uint32_t in);

/* The counts columns of one row (blank for 0), and the escape that starts
 * a hot row's colour (hot: a tenth or more of the function's samples). */
void ann_counts(const struct ann_fn *a, uint64_t n);
bool ann_hot_on(const struct ann_fn *a, uint64_t n, const struct ann_style *st);
void ann_hot_off(bool on);

/* Print line `line` (1-based) of source file path as text_put shows it,
 * tabs expanded, its indentation dropped if trim; false if the file
 * cannot be read or is shorter.  Files are read once and kept.
 * ann_source_missing says whether path cannot be read, and is true only
 * the first time it is asked (to say so once). */
bool ann_source_line(const char *path, int line, bool trim);
bool ann_source_missing(const char *path);
void ann_sources_free(void);

/* The source listing of a: per line, its samples and shares, sampled lines
 * with st->context lines around them, long cold stretches as "...". */
void view_annotate_source(const struct ann_fn *a, const struct ann_style *st);

#endif
