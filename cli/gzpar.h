/*
 * gzpar.h - a gzip stream compressed by a few threads.
 *
 * The data is cut into chunks of a few MiB; each chunk becomes a gzip
 * member of its own, compressed by whichever worker is free, and the
 * members are written in order.  A file of concatenated members is one
 * gzip file (RFC 1952, 2.2): gzip, zcat, Go's compress/gzip (which
 * go tool pprof reads with) and Python's gzip read it whole.  What it buys:
 * deflate was a third of an export of ten million pprof samples, and on
 * a machine with two cores it now runs beside the encoder.
 */
#ifndef PCPROF_GZPAR_H
#define PCPROF_GZPAR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct gzpar;

/* A writer into f at zlib level (1-9), with up to `threads` workers (0:
 * as many as the processors online, at most 4).  Dies on failure. */
struct gzpar *gzpar_open(FILE *f, int level, unsigned threads);

/* Hand over buf[0..n), which the writer owns from now on (it was
 * malloc'd; the writer frees it).  Blocks while every worker is busy and
 * the queue is full. */
void gzpar_put(struct gzpar *g, uint8_t *buf, size_t n);

/* Wait for every chunk, write what is left, free the writer.  0, or -1
 * if zlib failed (the stream's write errors are the caller's: ferror). */
int gzpar_close(struct gzpar *g);

#endif
