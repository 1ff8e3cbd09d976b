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

#include "file.h"
#include "model.h"

struct out_format {
	const char *name;
	const char *help;        /* one line, for --help */
	const char *default_out; /* default -o */
	bool directory;          /* -o names a directory (one file per module) */
	bool no_inline;          /* its readers know no inline functions (--no-inline) */
	/* Write f to out ("-": stdout, unless directory).  Returns 0, or -1
	 * with a one-line message in err. */
	int (*write)(const struct model *f, const char *out, char *err, size_t errlen);
};

extern const struct out_format out_gmon, out_pprof, out_folded, out_speedscope, out_html;

/* The HTML page of f with its flame graph coloured by the change of each
 * frame's share since base (named base_name on the page): pcprof diff
 * --html.  Returns 0, or -1 with err set. */
int out_html_diff(const struct model *base, const char *base_name, const struct model *f,
		  const char *out, char *err, size_t errlen);

/* Every writer opens its files with ofile_open (file.h): the same rules
 * for -o everywhere. */

/* s as the body of a JSON string (without the quotes): quotes, backslashes
 * and control characters escaped; bytes that are not UTF-8 become U+FFFD,
 * since JSON text is UTF-8 and strict readers reject anything else. */
void out_json_str(FILE *f, const char *s);
/* The same, for JSON inside an HTML <script> element: <, >, & and the
 * line separators U+2028/U+2029 as \u escapes too. */
void out_json_html_str(FILE *f, const char *s);
/* s as HTML text or attribute value: shown as text_put shows it to a
 * terminal (util.h: a name's newline is "\n" there too), then &, <, >, "
 * and ' escaped. */
void out_html_str(FILE *f, const char *s);
/* Text that text_put already made safe (notes), with only &, <, >, " and '
 * escaped. */
void out_html_safe(FILE *f, const char *s);
/* The HTML page's source view of its functions (out-html-annotate.c);
 * fnix: per function, its index in the flame graph's data + 1. */
void out_html_annotate(FILE *s, const struct model *f, const uint32_t *fnix);
/* s as valid UTF-8, each stray byte replaced by U+FFFD (a malloc'd
 * string): for formats whose strings must be UTF-8 (pprof's proto3). */
char *out_utf8(const char *s);

/* A set of strings, each with its index in the order they came (pprof's
 * string_table, gmon's file names): hashed, since a profile of many
 * processes can have thousands. */
struct strtab {
	char **s; /* the strings, in order */
	size_t n, cap;
	uint32_t *slot; /* open addressing: index + 1 */
	size_t nslot;
};
/* s's index, a copy of s added if it is new (*added says which; may be
 * NULL). */
uint64_t strtab_add(struct strtab *t, const char *s, bool *added);
void strtab_free(struct strtab *t);

/* The module that the profile is "about": the executable of the first
 * selected process, else the module with most samples; MODEL_NO_MOD if
 * there is none. */
uint32_t out_main_module(const struct model *f);

#endif
