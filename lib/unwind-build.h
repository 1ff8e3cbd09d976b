/*
 * unwind-build.h - building the compact unwind tables of the loaded
 * modules (layer L3, normal context; the handler's side is
 * lib/sig/unwind-tables.h).
 *
 * Built from each module's .eh_frame_hdr and .eh_frame (or read from the
 * table an earlier image of the run left in its recording directory:
 * unwind-build.c, "tables shared"), into memory from mmap, and published
 * to the signal handler through profil__unwind_set.  Under pcprof run
 * recording stacks, the library constructor builds them; the first
 * pthread_create after a walk met a module the set lacks rebuilds.
 */
#ifndef PROFIL_UNWIND_BUILD_H
#define PROFIL_UNWIND_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* Rebuild the tables for the modules loaded now; modules whose table
 * exists keep it.  0 or -errno (-ENOMEM: the old set stays).  Normal
 * context only; serialised internally.  Not AS-safe. */
PROFIL_HIDDEN int profil__unwind_refresh(void);

/* Refresh if a walk met code of a module the tables do not have (a
 * dlopen), or a table of a module closed since the last refresh.  Cheap
 * when nothing changed.  Normal context; not AS-safe. */
PROFIL_HIDDEN void profil__unwind_refresh_if_stale(void);

/* Statistics: rows and modules in the current set.  Normal context. */
PROFIL_HIDDEN void profil__unwind_table_stats(uint32_t *modules, uint64_t *rows, uint64_t *bytes);

/* Tables shared between the process images of a run (unwind-build.c):
 * how many this image read from the run's directory and wrote there, and
 * a digest of the current set's rows and page indexes (equal in two
 * images whose tables are equal, wherever they were loaded).  Tests.
 * Normal context. */
PROFIL_HIDDEN void profil__unwind_share_stats(uint32_t *in, uint32_t *out, uint64_t *digest);

/* The shared tables' checksum (tests make damaged tables that pass it).
 * AS-safe. */
PROFIL_HIDDEN uint64_t profil__unwind_checksum(const void *p, size_t n);

#endif
