/*
 * sig/seal.h - sealing the library after a seccomp filter (layer L1, the
 * AS-safe zone; docs/design.md, "Seccomp filters").  Whether the library
 * is sealed, profil__sealed(), is in lib/internal.h for every layer.
 *
 * A filter the program installs may answer any system call of ours with
 * SECCOMP_RET_KILL_* or SECCOMP_RET_TRAP.  It is found before the library
 * makes its calls, in the thread about to make them (the filter is per
 * thread): here, by the control paths (ctl.c, before the lock) and by the
 * handler before the one call it makes that a filter is likely to refuse
 * (rt_sigaction, to see that the fault guard is still ours).
 */
#ifndef PROFIL_SIG_SEAL_H
#define PROFIL_SIG_SEAL_H

#include <stdbool.h>

#include "../internal.h"

/* The filters that are not the program's (filters.h): set by the library
 * constructor (session.c) from pcprof run's PCPROF_SECCOMP or what is in
 * force then; until then, those in force at the first check. */
PROFIL_HIDDEN void profil__filter_base(int base);

/* Is the library sealed, or the calling thread under a filter that is not
 * the program's?  Then it is sealed (PROFIL_SEALED_FOUND) and true.  One
 * prctl, and with thorough and a base filter the status file (filters.h).
 * Before anything is held: the check itself is a system call.  AS-safe. */
PROFIL_HIDDEN bool profil__filter_check(bool thorough);

/* Seal for `why` (internal.h) in memory only: the recording stops at its
 * last stored CPU time (sink.h).  The first reason stays.  AS-safe. */
PROFIL_HIDDEN void profil__seal(int why);

#endif
