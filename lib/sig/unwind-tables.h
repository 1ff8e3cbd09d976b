/*
 * unwind-tables.h - the compact unwind tables of the loaded modules.
 *
 * Built in normal context (profil__unwind_refresh: at library start under
 * pcprof run, and again at the first pthread_create after a walk met a
 * module loaded or closed since, or whenever asked) from each
 * module's .eh_frame_hdr and .eh_frame (or read from the table an earlier
 * image of the run left in its recording directory: unwind-tables.c,
 * "tables shared"), into memory from mmap, and published to the signal
 * handler through one atomic pointer.  A table a
 * handler may still read is never unmapped: a replaced set is retired and
 * unmapped only once no walk is in progress.
 *
 * Code the tables do not cover yet (a module loaded after the last
 * refresh) is still unwound: the handler finds it with glibc's lock-free,
 * async-signal-safe _dl_find_object, copies the one FDE it needs through
 * the fault guard and interprets it on the spot (slower, same rows), and
 * asks for a refresh.
 */
#ifndef PROFIL_SIG_UNWIND_TABLES_H
#define PROFIL_SIG_UNWIND_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind-cfi.h"

/* How a row was found (tests and statistics). */
enum profil_ufound {
	PROFIL_UFOUND_NONE = 0,   /* in no module we know: no row */
	PROFIL_UFOUND_TABLE = 1,  /* a compact table */
	PROFIL_UFOUND_DIRECT = 2, /* the module's own .eh_frame, interpreted now */
};

/* Rebuild the tables for the modules loaded now; modules whose table
 * exists keep it.  0 or -errno (-ENOMEM: the old set stays).  Normal
 * context only; serialised internally.  Not AS-safe. */
PROFIL_HIDDEN int profil__unwind_refresh(void);

/* Refresh if a walk met code of a module the tables do not have (a
 * dlopen), or a table of a module closed since the last refresh.  Cheap
 * when nothing changed.  Normal context; not AS-safe. */
PROFIL_HIDDEN void profil__unwind_refresh_if_stale(void);

/* One walk: the set it reads, and the modules it checked are still the
 * ones loaded (after a dlclose, a table may describe code that is gone,
 * and the range may hold another object). */
#define PROFIL_UWALK_CHECKED 4
struct profil_uwalk {
	const void *set;
	const void *checked[PROFIL_UWALK_CHECKED];
	unsigned nchecked;
	const void *last; /* the module of the last row found, checked */
	bool tables_only; /* no direct path: it reads the module's memory */
	/* Where the direct path copies an FDE (PROFIL_UNWIND_FDE_MAX bytes)
	 * and its CIE (PROFIL_UNWIND_CIE_MAX, unwind.h); NULL: on the stack.
	 * Set after enter. */
	uint8_t *fde_buf, *cie_buf;
};

/* Begin and end a walk: tables read between them stay mapped.  A walk
 * that may not read program memory outside its stack sets tables_only
 * after enter.  AS-safe. */
PROFIL_HIDDEN void profil__unwind_enter(struct profil_uwalk *w);
PROFIL_HIDDEN void profil__unwind_leave(struct profil_uwalk *w);

/* The row in effect at pc; its off is unspecified.  A module of the set
 * is used once _dl_find_object says it is still loaded (where glibc has
 * it), once per walk.  Returns how it was found.  AS-safe. */
PROFIL_HIDDEN int profil__unwind_row(struct profil_uwalk *w, uintptr_t pc, struct profil_urow *row);

/* The row at pc by the direct path only (tests compare it with the
 * tables).  AS-safe. */
PROFIL_HIDDEN int profil__unwind_row_direct(uintptr_t pc, struct profil_urow *row);

/* Statistics: rows and modules in the current set.  Normal context. */
PROFIL_HIDDEN void profil__unwind_table_stats(uint32_t *modules, uint64_t *rows, uint64_t *bytes);

/* Tables shared between the process images of a run (unwind-tables.c):
 * how many this image read from the run's directory and wrote there, and
 * a digest of the current set's rows and page indexes (equal in two
 * images whose tables are equal, wherever they were loaded).  Tests.
 * Normal context. */
PROFIL_HIDDEN void profil__unwind_share_stats(uint32_t *in, uint32_t *out, uint64_t *digest);

/* The shared tables' checksum (tests make damaged tables that pass it).
 * AS-safe. */
PROFIL_HIDDEN uint64_t profil__unwind_checksum(const void *p, size_t n);

#endif
