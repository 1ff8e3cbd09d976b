/*
 * file.h - how pcprof writes every file it writes (the data file of
 * `pcprof run -o`, every export): one writer, so that the rules below hold
 * for all of them.
 *
 * What "-o PATH" does, by what PATH is when the writer opens it:
 *   "-"                 standard output.
 *   absent, or a regular file
 *                       a new file, written whole or not at all: the data
 *                       goes to a temporary file created in PATH's directory
 *                       with O_CREAT|O_EXCL|O_NOFOLLOW and a random name
 *                       (mkostemp), which is given PATH's permissions (or
 *                       0666 & ~umask), fsync'd and renamed over PATH.  A
 *                       name planted in advance is never followed, and
 *                       readers see the old file or the new one.
 *   a device, a FIFO, a socket
 *                       written in place, as the shell's ">" would: never
 *                       replaced by a regular file (/dev/null, /dev/full, a
 *                       named pipe, a terminal).
 *   a symbolic link     followed, and what it leads to written in place
 *                       (O_TRUNC) like ">": /dev/stdout, /dev/fd/N and links
 *                       of one's own work.  Not atomic.  A link is only
 *                       followed where Linux's fs.protected_symlinks would
 *                       follow it, whatever that setting is: a link in a
 *                       sticky world-writable directory (/tmp) that belongs
 *                       neither to us nor to the directory's owner is refused.
 *   a directory         an error.
 *
 * Every failure (open, write, flush, fsync, close, rename) is reported
 * once, "PATH: reason" or "PATH: write failed: reason", and a failed write never leaves a partial
 * file under PATH when PATH is written atomically.
 *
 * The CLI is single-threaded; nothing here is meant for the library.
 * Messages go to err, never to stderr, and allocation failure is an error,
 * not an exit: data.c's reader and fuzzer link this file too.
 */
#ifndef PCPROF_FILE_H
#define PCPROF_FILE_H

#include <stddef.h>
#include <stdio.h>

struct ofile;

/* Whether ofile_open(path) can be expected to succeed later, checked
 * before a long job whose result path will hold (a run, an attach): not a
 * directory; what is written in place (a device, a FIFO, a link's target)
 * writable; for a new or regular file, a directory that takes a new file
 * (write and search permission, not mounted read-only).  "-" passes.  0,
 * or -1 with err set: "PATH: is a directory", "PATH: reason", "PATH:
 * cannot write in DIR: reason". */
int ofile_check(const char *path, char *err, size_t errlen);

/* Open path for writing as described above.  NULL with err set. */
struct ofile *ofile_open(const char *path, char *err, size_t errlen);

/* The stream to write to (stdout for "-"). */
FILE *ofile_stream(struct ofile *o);

/* Flush and check every write, then put the file in place (fsync and
 * rename, for a new file).  Frees o.  0, or -1 with err set; on failure
 * the temporary file is removed and PATH left as it was. */
int ofile_close(struct ofile *o, char *err, size_t errlen);

/* Give up: remove the temporary file, free o. */
void ofile_discard(struct ofile *o);

#endif
