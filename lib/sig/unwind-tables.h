/*
 * unwind-tables.h - the handler's side of the loaded modules' unwind
 * information: the row in effect at a pc.
 *
 * Normal context (lib/unwind-build.c: at library start under pcprof run,
 * and again at the first pthread_create after a walk met a module loaded
 * or closed since, or whenever asked) lists the loaded modules in a set,
 * published here through one atomic pointer, profil__unwind_set.  Each
 * module of the set has:
 *
 *  - a row cache: the rows of the pcs walks have met, 64-bit entries in
 *    sets of eight (one cache line), which every thread of the process
 *    reads and fills.  A row is a function of the module and the pc
 *    alone, so an entry any thread wrote is right for every thread, and
 *    one atomic word holds it whole;
 *  - the rows of the functions walks read, kept whole in an arena;
 *  - the module's file, checked at registration to be the one loaded (its
 *    GNU build id), where a row neither has is read from: the first walk
 *    that needs it opens it and keeps the descriptor (a high number,
 *    close-on-exec); a walk finds the pc's group of 16 entries of
 *    .eh_frame_hdr's table through a sample of the table taken at
 *    registration (every 16th entry), reads the group from the file and
 *    checks its first entry against the sample (the descriptor is still
 *    that file's), reads the FDE (and its CIE, unless the last one) with
 *    pread, and interprets them up to the pc.  Reading the module's own
 *    memory instead would bring its .eh_frame pages, and the kernel's fault-around
 *    neighbours, into the program's resident memory: 3 MiB for cc1plus.
 *    Opening the file in every walk that needs a row cost more than the
 *    rows: 5-45 us an open in cc1plus, most of whose walks meet a pc no
 *    earlier walk did.
 *
 * A module without a usable file (the vDSO, a file replaced on disk since
 * it was loaded, no build id) and code the set does not cover yet (a
 * module loaded after the last refresh, found with glibc's lock-free,
 * async-signal-safe _dl_find_object) are read from memory instead: the
 * FDE and its CIE copied through the fault guard, the "direct path".
 * Code the set lacks raises profil__unwind_stale so that normal context
 * refreshes.
 *
 * Nothing a handler may still read is unmapped: a replaced set, and the
 * memory of modules no longer loaded, are unmapped only once
 * profil__unwind_walkers, the walks in progress, was seen at zero after
 * the swap.
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
	PROFIL_UFOUND_TABLE = 1,  /* a module of the set: its cache or its file */
	PROFIL_UFOUND_DIRECT = 2, /* the module's own .eh_frame in memory */
};

/* One element of a module's sample stands for this many entries of its
 * .eh_frame_hdr table: a lookup reads their FDEs from the file at once, or
 * the entries (128 bytes) and then the one FDE. */
#define PROFIL_USAMPLE 16

#define PROFIL_UID_MAX 32 /* longest build id kept (SHA-1's is 20 bytes) */

/* What fstat says of a module's file: a file another one replaced has
 * another inode, one written since another modification time.  (Not the
 * change time: unlinking a file a walk keeps open changes it.) */
struct profil_ufile {
	uint64_t dev, ino, size;
	int64_t mtime_s, mtime_ns;
};

/* What the walks of every thread learn of a module's file, at the start
 * of the module's memory (shared by the copies of its entry in later
 * sets): the descriptor the first walk that read the file opened and
 * kept (-1: none yet; -2: the program closed or replaced it: each walk
 * opens its own), and whether the file at the path is not the module's any
 * more (then it is read from memory). */
struct profil_ulive {
	_Atomic int fd;
	_Atomic bool file_bad;
	_Atomic uint64_t arena_used; /* bytes of the arena handed out */
};

/* One module. */
struct profil_umod {
	uintptr_t lo, hi, bias;   /* code [lo, hi); run-time = link-time + bias */
	uintptr_t eh_hdr;         /* .eh_frame_hdr, 0 if none */
	uintptr_t seg_lo, seg_hi; /* the file-backed part of its segment */
	uint32_t nfde;            /* entries of .eh_frame_hdr's table (file) */
	uint32_t serial;          /* unique in the process: this registration */
	/* Its GNU build id, as loaded: where it is and what it says.  A walk
	 * finds it there again before it uses what it learned of the module
	 * (an object dlopen()ed where a closed one was may have its
	 * .eh_frame_hdr at the same address).  id_len 0: none, and then
	 * nothing of the module is kept, its rows are read from memory each
	 * time. */
	uintptr_t id_at;
	uint32_t id_len;
	uint8_t id[PROFIL_UID_MAX];
	/* The module's file, or path NULL: read from memory only.  Offset in
	 * the file of address a (in [seg_lo, seg_hi)): a - seg_lo + seg_off. */
	const char *path;
	struct profil_ufile file;
	uint64_t seg_off;
	/* sample[2i], sample[2i + 1]: the table's entry i * PROFIL_USAMPLE
	 * (start and FDE, as in the table: from eh_hdr), for i below nfde /
	 * PROFIL_USAMPLE rounded up. */
	const int32_t *sample;
	/* groups[p]: the last sampled entry starting at or before lo + p *
	 * 4 KiB, for p below npages (NULL: none); a search of the sample
	 * read half a dozen cache lines. */
	const uint32_t *groups;
	uint32_t npages;
	/* The rows of the functions walks read (unwind-tables.c, "a module's
	 * function rows"): nfuncs entries (a power of two; 0: none) and the
	 * arena, arena_size bytes. */
	_Atomic uint64_t *funcs;
	uint32_t nfuncs;
	char *arena;
	uint64_t arena_size;
	/* The row cache: cache_sets sets of 8 entries (a power of two; 0: no
	 * cache), each entry (pc - bias) << 32 | the packed row, 0 if free. */
	_Atomic uint64_t *cache;
	uint32_t cache_sets;
	struct profil_ulive *live; /* NULL: path is NULL */
	void *mem;       /* the one mapping that holds live, cache, funcs, sample, path, arena */
	size_t mem_size; /* its bytes */
};

/* A set of modules, sorted by lo; only the modules' live parts and caches
 * change once it is published. */
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

/* Counts since start (tests, statistics): rows the caches lacked, found in
 * the rows kept of their function, read from a module's file, or from
 * memory; files opened by walks; files that were not the module's any
 * more; descriptors kept that the program closed or replaced. */
struct profil_ucounts {
	_Atomic uint64_t func_rows, file_rows, memory_rows, opened, mismatched, lost;
};
PROFIL_HIDDEN extern struct profil_ucounts profil__unwind_counts;

/* Where a walk reads a module's records: a group of .eh_frame_hdr's
 * entries (hdr), an FDE (its first 256 bytes at most, which hold most
 * FDEs whole; the rest of a long one window by window: fde, fde_size
 * bytes) and a CIE, and which CIE that is (a module's FDEs share a few),
 * kept from walk to walk.  The handler's walk reads into its walk buffer
 * (2 KiB windows, unwind.h); a walk without one (tests, bench) has its
 * records on the stack, 384-byte windows, under 1 KiB in all
 * (tests/abi/t-frames.sh). */
#define PROFIL_UNWIND_FDE_MAX   2048
#define PROFIL_UNWIND_FDE_STACK 384
#define PROFIL_UNWIND_CIE_MAX   128
#define PROFIL_UNWIND_FUNC_ROWS 128 /* rows of a function kept whole, at most */
/* What reading a row from records needs besides its buffers: the parsed
 * CIE and FDE, the reader of the rest of a long FDE, and what collects the
 * rows (unwind-tables.c, read_row).  Kept in the walk buffer, not on the
 * stack the handler runs on (a budget: docs/signal-safety.md). */
struct profil_uwork {
	struct profil_cie cie;
	struct profil_fde fde;
	struct profil_cfi_more more;
	_Alignas(8) unsigned char gather[80];
};

struct profil_uscratch {
	uint8_t hdr[8 * PROFIL_USAMPLE];
	uint8_t *fde;
	uint32_t fde_size;
	uint64_t *rows; /* PROFIL_UNWIND_FUNC_ROWS, or NULL: no function is kept */
	struct profil_uwork *work;
	struct profil_cfi_state *run; /* the interpreter's state; NULL: its stack */
	uint8_t cie[PROFIL_UNWIND_CIE_MAX];
	uintptr_t cie_at; /* the CIE cie[] holds: its address, */
	uint32_t cie_mod; /* its module's serial (0: none), */
	uint32_t cie_len; /* its bytes */
};

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
	/* Where records are read into; NULL: on the stack, for each row the
	 * cache lacks.  Set after enter. */
	struct profil_uscratch *scratch;
	/* The module file this walk reads: the module's kept descriptor,
	 * checked, or one it opened itself (own: closed by leave); -1: none. */
	int fd;
	bool own;
	const void *fd_mod;
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

/* The row at pc from its module's file only, bypassing the cache: 0, or
 * -1 if the module has no usable file (tests).  AS-safe. */
PROFIL_HIDDEN int profil__unwind_row_file(uintptr_t pc, struct profil_urow *row);

#endif
