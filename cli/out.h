/*
 * out.h - the export formats of `pcprof export` (one file each:
 * cli/out-<name>.c, described in docs/formats.md) and the helpers they
 * share.
 */
#ifndef PCPROF_OUT_H
#define PCPROF_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "flat.h"

struct out_format {
	const char *name;
	const char *help;        /* one line, for --help */
	const char *default_out; /* default -o */
	bool directory;          /* -o names a directory (one file per module) */
	/* Write f to out ("-": stdout, unless directory).  Returns 0, or -1
	 * with a one-line message in err. */
	int (*write)(const struct flat *f, const char *out, char *err, size_t errlen);
};

extern const struct out_format out_gmon, out_pprof, out_folded, out_speedscope, out_html;

/* Open path for writing ("-": stdout).  The data goes to a temporary file
 * beside it, which out_close renames into place, so that an interrupted
 * export never leaves half a file under the real name.  NULL with err set
 * on failure. */
struct out_file;
struct out_file *out_open(const char *path, char *err, size_t errlen);
FILE *out_stream(struct out_file *o);
/* Flush, check for write errors, rename into place; frees o.  0 or -1. */
int out_close(struct out_file *o, char *err, size_t errlen);

/* s as the body of a JSON string (without the quotes). */
void out_json_str(FILE *f, const char *s);
/* s with &, <, >, " and ' escaped for HTML text and attributes. */
void out_html_str(FILE *f, const char *s);

/* The module that the profile is "about": the executable of the first
 * selected process, else the module with most samples; FLAT_NO_MOD if
 * there is none. */
uint32_t out_main_module(const struct flat *f);

#endif
