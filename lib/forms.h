/*
 * forms.h - builders for the calling forms of profil() and their
 * configurations.  Each *_cfg function validates its arguments and returns
 * 0 with *out set (NULL meaning "turn profiling off"), or -errno with *out
 * NULL; nothing is installed, so the caller decides under which lock.
 * Not AS-safe.
 */
#ifndef PROFIL_FORMS_H
#define PROFIL_FORMS_H

#include <errno.h>
#include <stdbool.h>

#include "sig/sample.h"

/* Classic form; kind is PROFIL_CLASSIC or PROFIL_AIX_CLASSIC, round the
 * index rule; scale as given, any value valid (the AIX entry masks it to
 * its low 16 bits first). */
PROFIL_HIDDEN int profil__classic_cfg(unsigned short *buf, size_t bufsiz, size_t offset,
				      unsigned int scale, int kind, int round,
				      struct profil_cfg **out);

/* Tru64 extended form: args is a struct profil_args array of count entries
 * (count read as int), flags must be 0. */
PROFIL_HIDDEN int profil__tru64_cfg(const void *args, size_t count, unsigned long flags,
				    struct profil_cfg **out);

/* AIX struct prof array, terminated by p_high == 0.  aix_rules: the AIX
 * entry (round-up index); otherwise generic rules.  A first entry with
 * p_high == 0 means off. */
PROFIL_HIDDEN int profil__aix_array_cfg(const void *array, bool aix_rules, struct profil_cfg **out);

/* Install the result of a builder (r, c): returns r on error, else the
 * install result; frees c if it was not installed. */
PROFIL_HIDDEN int profil__install_built(int r, struct profil_cfg *c);

/* Once the library is sealed (a seccomp filter, internal.h), a call
 * returns this before anything else: 0 for one that turns profiling off
 * (it is off), else -EAGAIN (no timer may be made).  AS-safe. */
static inline int profil__sealed_answer(bool off)
{
	return off ? 0 : -EAGAIN;
}

#endif
