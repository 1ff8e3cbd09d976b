/*
 * unwind-build.h - the set of loaded modules the stack walker reads (layer
 * L3, normal context; the handler's side is lib/sig/unwind-tables.h): each
 * module with its file, checked, a sample of its .eh_frame_hdr and an
 * empty row cache, published to the signal handler through
 * profil__unwind_set.  Under pcprof run recording stacks, the library
 * constructor makes it; the first pthread_create after a walk met a module
 * the set lacks makes it again.
 */
#ifndef PROFIL_UNWIND_BUILD_H
#define PROFIL_UNWIND_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* Make the set again for the modules loaded now; modules still loaded keep
 * their entry, cache included.  0 or -errno (-ENOMEM: the old set stays).
 * Normal context only; serialised internally.  Not AS-safe. */
PROFIL_HIDDEN int profil__unwind_refresh(void);

/* Refresh if a walk met code of a module the tables do not have (a
 * dlopen), or a table of a module closed since the last refresh.  Cheap
 * when nothing changed.  Normal context; not AS-safe. */
PROFIL_HIDDEN void profil__unwind_refresh_if_stale(void);

/* What the current set holds and what walks did (tests, bench): modules,
 * those read from their file, the entries of their row caches and how many
 * are filled, the functions whose rows are kept and the bytes they take,
 * the bytes mapped for all that; then profil__unwind_counts (sig/unwind-tables.h).  Normal
 * context. */
struct profil_unwind_stats {
	uint32_t modules, with_file;
	uint64_t cache_entries, cached, funcs, func_bytes, mapped;
	uint64_t func_rows, file_rows, memory_rows, opened, mismatched, lost;
};
PROFIL_HIDDEN void profil__unwind_stats(struct profil_unwind_stats *st);

/* Drop the current set; the modules the next refresh registers get no row
 * cache (off: every row then comes from the module's file) or do (tests
 * and bench).  Normal context. */
PROFIL_HIDDEN void profil__unwind_no_caches(bool off);

#endif
