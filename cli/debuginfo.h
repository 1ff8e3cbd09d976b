/*
 * debuginfo.h - where pcprof report, export, annotate and archive find the
 * files of a recorded module: the ELF file with its code and the separate
 * debug file with its symbols and lines, each only if its GNU build id is
 * the one recorded, so that a rebuilt program never lends its names to an
 * old recording.
 *
 * The module's file, in this order:
 *   1. a loaded archive (pcprof archive) holding a file with the build id
 *   2. the recorded path, if its build id matches
 *   3. DIR/PATH for each --debug-dir DIR, if its build id matches
 *   4. debuginfod's executable for the build id, when DEBUGINFOD_URLS is set
 * Its debug file:
 *   1. a loaded archive's debug file with the build id
 *   2. each --debug-dir DIR: DIR/.build-id/xx/rest.debug, DIR/PATH.debug,
 *      DIR/PATH (an unstripped copy), DIR/<dir of PATH>/<debuglink>
 *   3. beside the module: <dir>/<debuglink>, <dir>/.debug/<debuglink>
 *   4. /usr/lib/debug/.build-id/xx/rest.debug, /usr/lib/debug/<dir>/<debuglink>
 *   5. debuginfod's debuginfo for the build id, when DEBUGINFOD_URLS is set
 * Every candidate's build id is read and compared; a candidate that differs
 * is skipped.  PCPROF_DEBUG_ROOT (for the tests) is put before
 * /usr/lib/debug.  Not thread-safe (the CLI is single-threaded).
 */
#ifndef PCPROF_DEBUGINFO_H
#define PCPROF_DEBUGINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The options every command that symbolizes takes (report, export,
 * annotate): put DEBUGINFO_LONGOPTS in the getopt_long table, give each
 * option character getopt returns to debuginfo_option first (true: it was
 * one of ours), and print DEBUGINFO_USAGE in the help text.
 */
#define DEBUGINFO_OPT_DIR 0x4401
#define DEBUGINFO_LONGOPTS                                                                         \
	{                                                                                          \
		"debug-dir", required_argument, NULL, DEBUGINFO_OPT_DIR                            \
	}
#define DEBUGINFO_USAGE                                                                            \
	"      --debug-dir DIR  look there too for modules and debug files, by build\n"            \
	"                       id (DIR/.build-id/xx/rest.debug, DIR/PATH); repeatable\n"
bool debuginfo_option(int c, const char *arg);

/* Why no module file was found (for the note). */
struct di_miss {
	bool exists;      /* the recorded path is a readable regular file */
	bool not_elf;     /* ... but not ELF */
	uint8_t now[40];  /* its build id, if it exists */
	uint32_t now_len; /* 0: none */
};

/*
 * The module's file (see above): an open descriptor, the caller's to close,
 * and in *where a malloc'd name for messages (a path, or "ARCHIVE:..." for
 * a member of an archive) and in *path the file's path when it is a file
 * one can open again (else NULL).  -1 if none matches, with *miss filled.
 */
int debuginfo_open_module(const char *path, const uint8_t *id, uint32_t idlen, char **where,
			  char **file, struct di_miss *miss);

/* The separate debug file of the module (see above); debuglink may be NULL.
 * As debuginfo_open_module, without the miss. */
int debuginfo_open_debug(const char *path, const uint8_t *id, uint32_t idlen, const char *debuglink,
			 char **where, char **file);

/* Where the searches looked beyond the recorded path, for notes: "--debug-dir
 * A, /usr/lib/debug, debuginfod (URLS)".  Valid until the next call.  The
 * first call also reads DEBUGINFOD_URLS, which symtab.c then hides from
 * libdwfl. */
const char *debuginfo_searched(void);

/* The build id of the ELF file open at fd into id (40 bytes): its length,
 * 0 if it has none, -1 if it is not ELF. */
int debuginfo_build_id(int fd, uint8_t *id);

/* Lower-case hex of n bytes; out holds 2n + 1. */
void debuginfo_hex(char *out, const uint8_t *b, size_t n);

#endif
