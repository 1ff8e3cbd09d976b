/*
 * util.h - helpers for the pcprof command (never linked into the library):
 * messages, dying, checked allocation.
 */
#ifndef PCPROF_UTIL_H
#define PCPROF_UTIL_H

#include <stddef.h>

extern const char *progname; /* "pcprof" or "pcprof CMD" for messages */

/* "pcprof: message" on stderr, then exit(status). */
__attribute__((noreturn, format(printf, 2, 3))) void die(int status, const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void warnx_(const char *fmt, ...);

/* The decimal number s, from lo to hi, or die(status) naming opt. */
unsigned long number_arg(int status, const char *opt, const char *s, unsigned long lo,
			 unsigned long hi);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#endif
