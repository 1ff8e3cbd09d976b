/*
 * unwind-tables.h - the handler's side of the loaded modules' compact
 * unwind tables: finding the row in effect at a pc.
 *
 * The tables are built in normal context (lib/unwind-build.c: at library
 * start under pcprof run, and again at the first pthread_create after a
 * walk met a module loaded or closed since, or whenever asked) and
 * published here through one atomic pointer, profil__unwind_set.  A table
 * a handler may still read is never unmapped: a replaced set is retired
 * and unmapped only once profil__unwind_walkers, the walks in progress,
 * was seen at zero after the swap.
 *
 * Code the tables do not cover yet (a module loaded after the last
 * refresh) is still unwound: the handler finds it with glibc's lock-free,
 * async-signal-safe _dl_find_object, copies the one FDE it needs through
 * the fault guard and interprets it on the spot (slower, same rows), and
 * raises profil__unwind_stale so that normal context rebuilds.
 *
 * Everything declared here is AS-safe.
 */
#ifndef PROFIL_SIG_UNWIND_TABLES_H
#define PROFIL_SIG_UNWIND_TABLES_H

#include <dlfcn.h>
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

/* A page of code, for the tables' page index. */
#define PROFIL_UPAGE_SHIFT 12

/* One module: its code [lo, hi), and its rows sorted by off (pc - bias),
 * the last one UNKNOWN at the end of the last FDE. */
struct profil_umod {
	uintptr_t lo, hi, bias;
	uintptr_t eh_hdr; /* .eh_frame_hdr, 0 if none */
	struct profil_urow *rows;
	uint32_t nrows;
	/* page[p]: the last row starting at or before lo + p * PAGE, so that
	 * a lookup searches the few rows of one page of code */
	uint32_t *page, npages;
	void *mem;        /* the one mapping that holds rows and pages */
	size_t rows_size; /* its bytes */
};

/* A set of modules, sorted by lo; never changed once published. */
struct profil_uset {
	size_t size; /* bytes mapped for this object */
	struct profil_uset *retired_next;
	uint32_t n;
	struct profil_umod m[];
};

/* What normal context publishes (lib/unwind-build.c) and the handler
 * reads: the current set; the walks between enter and leave (a retired
 * set is unmapped only once this was seen at zero after the swap); the
 * flag a walk raises when it meets a module the set lacks; and glibc's
 * _dl_find_object (2.35, documented AS-safe; NULL before that), looked up
 * at library start. */
typedef int profil_find_object_fn(void *pc, struct dl_find_object *out);
PROFIL_HIDDEN extern struct profil_uset *_Atomic profil__unwind_set;
PROFIL_HIDDEN extern _Atomic long profil__unwind_walkers;
PROFIL_HIDDEN extern _Atomic bool profil__unwind_stale;
PROFIL_HIDDEN extern profil_find_object_fn *profil__unwind_find_object;

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

#endif
