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
/* When path was modified after module (the file the samples' module was
 * read from), the line numbers its debug information gives are those of
 * the text it was built from: ann_source_newer says so ("PATH is newer
 * than MODULE: ...", malloc'd, the names as text_put shows them; NULL if
 * not newer, or either cannot be read), ann_source_check_age as a note on
 * stderr, once per source file. */
char *ann_source_newer(const char *path, const char *module);
void ann_source_check_age(const char *path, const char *module);
void ann_sources_free(void);
/* Line `line` of path as it is in the file (NULL: not readable or not
 * there; kept until ann_sources_free), and as ann_source_line shows it
 * (malloc'd; NULL likewise). */
const char *ann_source_text(const char *path, int line);
bool ann_source_readable(const char *path);
char *ann_source_dup(const char *path, int line, bool trim);

/* What the source listing of a function holds, for every view of it (the
 * text here, the HTML page's source view in out-html.c): its sampled
 * lines, one per file and line, grouped by file, the function's own file
 * first and then by samples. */
struct ann_line {
	const char *file; /* as srcpath_find gives it */
	int line;
	uint64_t samples;
};
struct ann_file {
	const char *path;
	const struct ann_line *rows; /* by line */
	size_t n;
	uint64_t samples;
	int decl; /* the function's first line if this is its own file, else 0 */
};
struct ann_src {
	struct ann_line *rows;
	struct ann_file *files;
	size_t nfiles;
	uint64_t nolines; /* samples at addresses without line information */
};
void ann_source_collect(const struct ann_fn *a, struct ann_src *s);
void ann_source_free(struct ann_src *s);
/* The rows of one file's listing, in order: each sampled line and decl
 * with `context` lines around them, each(ctx, line, samples, text) with
 * the line's text as in the file (NULL: the file cannot be read, or the
 * line is past its end: it changed since the build); a cold stretch of
 * more than two lines between them as one call with line 0. */
void ann_file_walk(const struct ann_file *fl, int context,
		   void (*each)(void *ctx, int line, uint64_t n, const char *text), void *ctx);

/* One instruction of a function (annotate-asm.c). */
struct ann_insn {
	uint64_t addr; /* link-time */
	uint64_t samples;
	const char *mnemonic, *ops; /* valid during the call */
	const char *file;           /* its source line, if not the previous instruction's: */
	int line;                   /* file NULL if the same, or none */
};
/* The instructions of link-time [lo, hi) of a's module with a's samples
 * (hi 0: the function's end is unknown: up to its last sampled address),
 * read from the module's file (the recorded one: build id) and
 * disassembled with Capstone: each(ctx, NULL) once the code is read, then
 * each(ctx, insn) per instruction.  0, or -1 with a message in err. */
int ann_disasm(const struct ann_fn *a, uint64_t lo, uint64_t hi,
	       void (*each)(void *ctx, const struct ann_insn *in), void *ctx, char *err,
	       size_t errlen);

/* The code of a function of its own to disassemble: link-time [lo, hi)
 * (hi 0: its end is unknown), and the samples of a outside it. */
void ann_extent(const struct ann_fn *a, uint64_t *lo, uint64_t *hi, uint64_t *outside);

/* The source listing of a: per line, its samples and shares, sampled lines
 * with st->context lines around them, long cold stretches as "...". */
void view_annotate_source(const struct ann_fn *a, const struct ann_style *st);

#endif
