/*
 * archive.h - the pcprof archive (`pcprof archive`): a recording packed with
 * the module files and debug files its samples need, each named by its
 * recorded path and build id, so that report and every export give the
 * recording's own names on a machine where those files differ or are
 * missing.  The layout is in docs/formats.md ("pcprof archive"):
 *
 *   header   16 bytes: magic "\x89PCPRAR\n", u32 version (1), u32 flags (0)
 *   members  each a zlib stream (RFC 1950) of one file, back to back
 *   table    one entry per member (kind, build id, path, crc32, offset,
 *            stored and real size)
 *   trailer  24 bytes: u64 table offset, u32 entries, u32 crc32 of the
 *            table, magic "\x89PCPEND\n"
 *
 * Written front to back, so that it can go to a pipe.  Little-endian.
 * Not thread-safe (the CLI is single-threaded).
 */
#ifndef PCPROF_ARCHIVE_H
#define PCPROF_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"

#define AR_MAGIC        "\x89PCPRAR\n"
#define AR_END_MAGIC    "\x89PCPEND\n"
#define AR_VERSION      1
#define AR_HEADER_SIZE  16
#define AR_TRAILER_SIZE 24
#define AR_ENTRY_SIZE   40 /* fixed part of a table entry */

/*
 * How large a member may unpack: at most AR_SMALL bytes plus AR_RATIO
 * times the bytes it is stored in, whatever its entry declares.  Deflate
 * can pack 1032 bytes in one, so an archive of 4 MB could declare a
 * member of 4 GiB and fill that much memory as it is unpacked (a deflate
 * bomb); files compress 2 to 10 times, and a data file of 40,000 alike
 * processes 48 times.  A reader refuses what lies beyond before it
 * unpacks a byte; the writer keeps every member within it, switching a
 * member's compression to Huffman codes alone (at most 8 bytes in one)
 * when it would pass it.
 */
#define AR_SMALL (16u << 20)
#define AR_RATIO 64

enum ar_kind {
	AR_DATA = 1,   /* the recording (pcprof.data), exactly one */
	AR_MODULE = 2, /* a module's ELF file, as it was mapped */
	AR_DEBUG = 3,  /* a module's separate debug file */
};

/*
 * Read the profile in file, a data file or an archive.  An archive's module
 * and debug files then become the first place symbolization looks
 * (debuginfo.h) until the process ends.  0, or -1 with err set (the caller
 * adds the file name).
 */
int archive_read_profile(const char *file, struct pp_profile *out, char *err, size_t errlen);

/* Is file an archive (by its first bytes)?  false if it cannot be read. */
bool archive_is(const char *file);

/*
 * A loaded archive's member of kind for a module: the one with this build
 * id, or when idlen is 0 the one with this path.  A descriptor of an
 * anonymous file with its contents (the caller closes it) and *where
 * "ARCHIVE(PATH)", malloc'd; -1 and *where NULL if no loaded archive
 * holds one.  A member
 * whose contents fail their check is not used: a "warning: ..." on stderr,
 * once, says so and that the caller looks elsewhere.
 */
int archive_open_member(enum ar_kind kind, const char *path, const uint8_t *id, uint32_t idlen,
			char **where);

/* The loaded archives, "the archive A, the archive B", or "".  Valid until
 * the next call. */
const char *archive_names(void);

/* ---- writing ---- */

struct ar_writer;

/* Start an archive on f (positioned at its start). */
struct ar_writer *ar_writer_begin(FILE *f);

/* Append the file open at fd (read from offset 0 to its end) as a member.
 * 0, or -1 with err set (a read error; a write error shows at
 * ar_writer_end, through the stream). */
int ar_writer_add(struct ar_writer *w, enum ar_kind kind, const char *path, const uint8_t *id,
		  uint32_t idlen, int fd, char *err, size_t errlen);

/* Write the table and the trailer; frees w.  The bytes written so far
 * (members compressed) in *size. */
void ar_writer_end(struct ar_writer *w, uint64_t *size);

#endif
