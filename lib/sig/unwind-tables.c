/*
 * unwind-tables.c - the handler's side of the modules' unwind information
 * (see unwind-tables.h): the module of a pc, its row from the module's
 * cache, else from its file, else from its memory.  Normal context lists
 * the modules and publishes them (lib/unwind-build.c).  Every function
 * here is AS-safe: atomics, raw system calls, guarded reads.
 */
#include "unwind-tables.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "../arch/guard.h"
#include "../arch/sys6.h"

struct profil_uset *_Atomic profil__unwind_set;
_Atomic long profil__unwind_walkers;
_Atomic bool profil__unwind_stale;
profil_find_object_fn *profil__unwind_find_object;
struct profil_ucounts profil__unwind_counts;

void profil__unwind_enter(struct profil_uwalk *w)
{
	atomic_fetch_add(&profil__unwind_walkers, 1);
	w->set = atomic_load(&profil__unwind_set);
	w->nchecked = 0;
	w->last = NULL;
	w->tables_only = false;
	w->scratch = NULL;
	w->fd = -1;
	w->own = false;
	w->fd_mod = NULL;
}

static void drop_own(struct profil_uwalk *w)
{
	if (w->own) {
		int saved = errno;
		syscall(SYS_close, w->fd);
		errno = saved;
	}
	w->fd = -1;
	w->own = false;
}

void profil__unwind_leave(struct profil_uwalk *w)
{
	drop_own(w);
	w->set = NULL;
	atomic_fetch_sub(&profil__unwind_walkers, 1);
}

static const struct profil_umod *find_module(const struct profil_uset *set, uintptr_t pc)
{
	uint32_t lo = 0, hi = set ? set->n : 0;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct profil_umod *m = &set->m[mid];
		if (pc < m->lo)
			hi = mid;
		else if (pc >= m->hi)
			lo = mid + 1;
		else
			return m;
	}
	return NULL;
}

/* ---- the row cache ---- */

/*
 * A row in 32 bits: the rule (3), the caller's frame pointer (8: 0 same,
 * 1 lost, k + 1 saved at CFA - 8k, for k up to 254) and the CFA's offset
 * (21, signed).  A row that does not fit (a frame of a MiB or more) is not
 * cached: it is read again each time.
 */
#define CFA_BITS 21

static bool pack(const struct profil_urow *r, uint32_t *out)
{
	uint32_t fp;
	if (r->fp == PROFIL_FP_SAME || r->fp == PROFIL_FP_LOST)
		fp = (uint32_t)r->fp;
	else if (r->fp < 0 && !(r->fp & 7) && -r->fp / 8 <= 254)
		fp = (uint32_t)(-r->fp / 8) + 1;
	else
		return false;
	if (r->cfa < -(1 << (CFA_BITS - 1)) || r->cfa >= (1 << (CFA_BITS - 1)) || r->rule > 7)
		return false;
	*out = (uint32_t)r->rule | fp << 3 | ((uint32_t)r->cfa & ((1u << CFA_BITS) - 1)) << 11;
	return true;
}

static void unpack(uint32_t v, struct profil_urow *r)
{
	uint32_t fp = (v >> 3) & 0xff;
	r->off = 0;
	r->rule = (uint8_t)(v & 7);
	r->fp = fp <= 1 ? (int16_t)fp : (int16_t)(-8 * (int32_t)(fp - 1));
	r->cfa = (int32_t)(v & ~UINT32_C(0x7ff)) >> 11; /* the top 21 bits, signed */
	r->pad = 0;
}

/* The set of an offset, and the entry a new row takes in it when none is
 * free: two independent parts of one multiplicative hash. */
static _Atomic uint64_t *cache_set(const struct profil_umod *m, uint32_t off, unsigned *way)
{
	uint64_t h = (uint64_t)off * UINT64_C(0x9e3779b97f4a7c15);
	*way = (unsigned)(h >> 29) & 7;
	return m->cache + 8 * ((h >> 32) & (m->cache_sets - 1));
}

static bool cache_get(const struct profil_umod *m, uintptr_t pc, struct profil_urow *row)
{
	uintptr_t off = pc - m->bias;
	if (!m->cache_sets || off - 1 >= UINT32_MAX)
		return false;
	unsigned way;
	_Atomic uint64_t *s = cache_set(m, (uint32_t)off, &way);
	for (unsigned i = 0; i < 8; i++) {
		uint64_t e = atomic_load_explicit(&s[i], memory_order_relaxed);
		if ((e >> 32) == off) {
			unpack((uint32_t)e, row);
			return true;
		}
	}
	return false;
}

static void cache_put(const struct profil_umod *m, uintptr_t pc, const struct profil_urow *row)
{
	uintptr_t off = pc - m->bias;
	uint32_t v;
	if (!m->cache_sets || off - 1 >= UINT32_MAX || !pack(row, &v))
		return;
	unsigned way;
	_Atomic uint64_t *s = cache_set(m, (uint32_t)off, &way);
	for (unsigned i = 0; i < 8; i++)
		if (atomic_load_explicit(&s[i], memory_order_relaxed) == 0) {
			way = i;
			break;
		}
	atomic_store_explicit(&s[way], (uint64_t)off << 32 | v, memory_order_relaxed);
}

/* ---- reading a module's records, from its file or its memory ---- */

/* Where a module's bytes are read: its file (fd >= 0; the offset of
 * address a is a - lo + off), or its memory through the fault guard.
 * Only [lo, hi). */
struct src {
	int fd;
	uintptr_t lo, hi;
	uint64_t off;
};

/* Exactly n bytes at offset off of fd: n, or -EIO.  The instruction
 * itself where we have it: the deepest call of a walk, on the interrupted
 * stack (a budget: docs/signal-safety.md), needs no libc frame nor errno
 * then. */
static long file_read(int fd, uint8_t *buf, uintptr_t n, uint64_t off)
{
	uintptr_t got = 0;
#ifdef PROFIL_HAVE_SYS6
	while (got < n) {
		long r = profil_sys6(SYS_pread64, fd, (long)(buf + got), (long)(n - got),
				     (long)(off + got), 0, 0);
		if (r == -EINTR)
			continue;
		if (r <= 0)
			break;
		got += (uintptr_t)r;
	}
#else
	int saved = errno;
	while (got < n) {
		long r = syscall(SYS_pread64, fd, buf + got, n - got, (long)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (uintptr_t)r;
	}
	errno = saved;
#endif
	return got == n ? (long)n : -EIO;
}

static long src_read(void *ctx, uintptr_t addr, uint8_t *buf, uintptr_t n)
{
	const struct src *s = ctx;
	if (addr < s->lo || addr >= s->hi)
		return -EFAULT;
	if (n > s->hi - addr)
		n = s->hi - addr;
	if (s->fd < 0)
		return profil__gcopy(buf, (const void *)addr, n) < 0 ? -EFAULT : (long)n;
	return file_read(s->fd, buf, n, addr - s->lo + s->off);
}

/* Exactly n bytes at addr. */
static bool src_get(const struct src *s, uintptr_t addr, void *buf, uintptr_t n)
{
	return src_read((void *)s, addr, buf, n) == (long)n;
}

struct pick {
	uintptr_t target;
	struct profil_urow row;
	bool have;
};

/*
 * Not inlined where its locals (struct stat, record buffers' bounds) would
 * stay in the frame of a caller that goes on to interpret instructions: a
 * walk's deepest path is within a budget of the interrupted stack
 * (docs/signal-safety.md, tests/engines/t-run-small-stacks.sh).
 */
#define NOINLINE __attribute__((noinline))

static int emit_pick(void *ctx, uintptr_t pc, const struct profil_urow *row)
{
	struct pick *k = ctx;
	if (pc > k->target)
		return 1;
	k->row = *row;
	k->have = true;
	return 0;
}

/* A CIE or FDE record at `at` into buf (max bytes, at least 8): its
 * length field's value in *len, and how much of it buf holds in *have
 * (all of it for a CIE). */
static bool get_record(const struct src *s, uintptr_t at, uint8_t *buf, uint32_t max, uint32_t *len,
		       uint32_t *have)
{
	long n = src_read((void *)s, at, buf, max);
	if (n < 8)
		return false;
	uint32_t l = profil__cfi_rd32(buf);
	if (l < 4 || l == 0xffffffffu) /* 0xffffffff: 64-bit DWARF, not in .eh_frame */
		return false;
	*len = l;
	*have = (uint64_t)l + 4 <= (uint64_t)n ? l + 4 : (uint32_t)n;
	return true;
}

#define UNREAD   (-1)
#define NOT_OURS (-2) /* what was read is not the sampled entries': another file */

/* x's CIE is the one at cie_at of module mod (0: no module's): read it if
 * not.  0, UNREAD, or 1 if it is malformed or longer than x keeps. */
static int get_cie(const struct src *s, uintptr_t cie_at, uint32_t mod, struct profil_uscratch *x)
{
	if (mod && x->cie_mod == mod && x->cie_at == cie_at)
		return 0;
	uint32_t clen, chave;
	x->cie_mod = 0;
	if (!get_record(s, cie_at, x->cie, sizeof x->cie, &clen, &chave))
		return UNREAD;
	if (chave != clen + 4 || profil__cfi_rd32(x->cie + 4) != 0)
		return 1;
	x->cie_at = cie_at;
	x->cie_len = clen;
	x->cie_mod = mod;
	return 0;
}

/* Parse the FDE at fde_at, of which buf holds have bytes (len: its length
 * field), and its CIE into x. */
static NOINLINE int parse_fde(const struct src *s, uintptr_t fde_at, const uint8_t *buf,
			      uint32_t have, uint32_t mod, struct profil_uscratch *x,
			      struct profil_cie *cie, struct profil_fde *fde)
{
	uint32_t id = profil__cfi_rd32(buf + 4);
	if (id == 0)
		return 1; /* a CIE where an FDE should be */
	int e = get_cie(s, fde_at + 4 - id, mod, x);
	if (e)
		return e;
	struct profil_cfi_buf cb = { x->cie + 8, x->cie + 4 + x->cie_len, x->cie_at + 8 };
	struct profil_cfi_buf fb = { buf + 8, buf + have, fde_at + 8 };
	return profil__cfi_pair(&cb, &fb, cie, fde) < 0 ? 1 : 0;
}

/* A module's table as its file is read: its sample, and the module
 * (its function rows, if any). */
struct entries {
	uint32_t n; /* entries */
	const int32_t *sample;
	const struct profil_umod *m; /* its function rows, if any */
};

/* ---- a module's function rows ----
 *
 * The rows of a function whose FDE a walk read, all of them, kept in the
 * module's arena (memory mapped at registration, handed out in order) and
 * found by the FDE's place in a small open-addressing table: another pc
 * of the function (a leaf sampled elsewhere in it, another call site) then
 * needs no read of the file.  A block: the function's length, its number
 * of rows, then each row's offset from the function's start and packed
 * row; an entry of the table: the FDE's offset from .eh_frame_hdr << 32 |
 * the block's place in the arena + 1, written once the block is.
 */
#define FUNC_PROBES 16

static const uint32_t *func_get(const struct profil_umod *m, uint32_t fde)
{
	uint64_t h = (uint64_t)fde * UINT64_C(0x9e3779b97f4a7c15);
	for (uint32_t i = 0; i < FUNC_PROBES; i++) {
		uint64_t e =
			atomic_load_explicit(&m->funcs[(uint32_t)((h >> 32) + i) & (m->nfuncs - 1)],
					     memory_order_acquire);
		if (!e)
			return NULL;
		if ((e >> 32) == fde)
			return (const uint32_t *)(m->arena + (uint32_t)e - 1);
	}
	return NULL;
}

/* The row at off (from the function's start) of block b: false if off is
 * past the function. */
static bool func_row(const uint32_t *b, uint32_t off, struct profil_urow *row)
{
	uint32_t len = b[0], n = b[1], lo = 0, hi = n;
	if (off >= len || !n || b[2] > off)
		return false;
	while (hi - lo > 1) { /* the last row at or before off */
		uint32_t mid = lo + (hi - lo) / 2;
		if (b[2 + 2 * mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	unpack(b[3 + 2 * lo], row);
	return true;
}

/* Keep the n rows of x (a function of len bytes) for the function whose
 * FDE is at fde: nothing if the arena or the table has no room. */
static NOINLINE void func_put(const struct profil_umod *m, uint32_t fde, uint32_t len,
			      const struct profil_uscratch *x, uint32_t n)
{
	uint32_t size = 8 + 8 * n; /* 8-byte aligned blocks */
	uint64_t at = atomic_fetch_add_explicit(&m->live->arena_used, size, memory_order_relaxed);
	if (at + size > m->arena_size)
		return;
	uint32_t *b = (uint32_t *)(m->arena + at);
	b[0] = len;
	b[1] = n;
	for (uint32_t i = 0; i < n; i++) {
		b[2 + 2 * i] = (uint32_t)(x->rows[i] >> 32);
		b[3 + 2 * i] = (uint32_t)x->rows[i];
	}
	uint64_t h = (uint64_t)fde * UINT64_C(0x9e3779b97f4a7c15),
		 e = (uint64_t)fde << 32 | (at + 1);
	for (uint32_t i = 0; i < FUNC_PROBES; i++) {
		_Atomic uint64_t *slot = &m->funcs[(uint32_t)((h >> 32) + i) & (m->nfuncs - 1)];
		uint64_t none = 0;
		if (atomic_compare_exchange_strong_explicit(slot, &none, e, memory_order_release,
							    memory_order_relaxed) ||
		    (none >> 32) == fde)
			return; /* kept, or another walk kept it first */
	}
}

/* Every row of a function, packed, into x->rows (with the one at target);
 * in the walk's work area (struct profil_uwork). */
struct gather {
	struct pick pick;
	struct profil_uscratch *x;
	uintptr_t begin;
	uint32_t n;
	bool whole; /* every row fits and packs */
	bool have_last;
	uint32_t last;
};

_Static_assert(sizeof(struct gather) <= sizeof(((struct profil_uwork *)0)->gather),
	       "struct profil_uwork holds a struct gather");

static int emit_gather(void *ctx, uintptr_t pc, const struct profil_urow *row)
{
	struct gather *g = ctx;
	if (pc <= g->pick.target) {
		g->pick.row = *row;
		g->pick.have = true;
	}
	uint32_t v;
	if (!g->whole || !pack(row, &v) || pc - g->begin > UINT32_MAX) {
		g->whole = false;
		return pc > g->pick.target; /* only the target's row left to find */
	}
	if (g->have_last && v == g->last)
		return 0;
	if (g->n && (uint32_t)(g->x->rows[g->n - 1] >> 32) == (uint32_t)(pc - g->begin))
		g->n--; /* the same address again: the later row wins */
	if (g->n == PROFIL_UNWIND_FUNC_ROWS) {
		g->whole = false;
		return pc > g->pick.target;
	}
	g->x->rows[g->n++] = (uint64_t)(pc - g->begin) << 32 | v;
	g->have_last = true;
	g->last = v;
	return 0;
}

/*
 * The row at pc of the module whose .eh_frame_hdr is at hdr, reading from
 * s into x; e (NULL: none) has the table's sample; n entries;
 * mod (0: none) names the module for x's CIE.  TABLE and the row (UNKNOWN
 * where the instructions say nothing we follow, or the records are
 * malformed); NONE if no FDE covers pc; UNREAD if a record could not be
 * read (a file that cannot be, memory that faults); NOT_OURS if what was
 * read through the module's descriptor is not the module's file.
 */
static int read_row(const struct src *s, uintptr_t hdr, uint32_t n, const struct entries *e,
		    uint32_t mod, uintptr_t pc, struct profil_urow *row, struct profil_uscratch *x)
{
	if (pc < hdr && hdr - pc > (uintptr_t)INT32_MAX + 1)
		return PROFIL_UFOUND_NONE;
	intptr_t rel = (intptr_t)(pc - hdr); /* entries hold starts as offsets from hdr */
	uintptr_t table = hdr + 12;
	uint32_t lo = 0, hi = n;
	const int32_t *ent; /* entries [lo, hi) */
	if (e) {
		/* The sampled entry at or before pc: its group of entries.  The
		 * group index gives the one at the start of pc's page of code;
		 * a page of code has one or two groups. */
		uint32_t a = 0, b = (n + PROFIL_USAMPLE - 1) / PROFIL_USAMPLE;
		if (rel < e->sample[0])
			return PROFIL_UFOUND_NONE;
		uintptr_t page = (pc - e->m->lo) >> 12;
		if (e->m->groups && pc >= e->m->lo && page < e->m->npages) {
			a = e->m->groups[page];
			while (a + 1 < b && e->sample[2 * (a + 1)] <= rel)
				a++;
		} else {
			while (b - a > 1) {
				uint32_t mid = a + (b - a) / 2;
				if (e->sample[2 * mid] <= rel)
					a = mid;
				else
					b = mid;
			}
		}
		lo = a * PROFIL_USAMPLE;
		hi = lo + PROFIL_USAMPLE < n ? lo + PROFIL_USAMPLE : n;
		/* The group's entries, read from the file (128 bytes: cheaper
		 * than a copy of the table in the program's memory, which
		 * cc1plus filled 300 KiB of), the sampled one first: another
		 * file would not have it where the module's has it. */
		if (!src_get(s, table + 8 * (uintptr_t)lo, x->hdr, 8 * (uintptr_t)(hi - lo)))
			return UNREAD;
		ent = (const int32_t *)x->hdr;
		if (ent[0] != e->sample[2 * a] || ent[1] != e->sample[2 * a + 1])
			return NOT_OURS;
	} else {
		while (hi - lo > PROFIL_USAMPLE) { /* narrow to a window of entries */
			uint32_t mid = lo + (hi - lo) / 2;
			int32_t start;
			if (!src_get(s, table + 8 * (uintptr_t)mid, &start, 4))
				return UNREAD;
			if (start <= rel)
				lo = mid;
			else
				hi = mid;
		}
		if (lo >= hi)
			return PROFIL_UFOUND_NONE;
		if (!src_get(s, table + 8 * (uintptr_t)lo, x->hdr, 8 * (uintptr_t)(hi - lo)))
			return UNREAD;
		ent = (const int32_t *)x->hdr;
	}
	int k = -1; /* the last entry starting at or before pc */
	for (uint32_t i = 0; i < hi - lo; i++) {
		if (ent[2 * i] > rel)
			break;
		k = (int)i;
	}
	if (k < 0)
		return PROFIL_UFOUND_NONE;
	uintptr_t fde_at = hdr + (uintptr_t)(intptr_t)ent[2 * k + 1];
	uintptr_t start = hdr + (uintptr_t)(intptr_t)ent[2 * k];
	bool keep = e && e->m->nfuncs && x->rows;
	if (keep) {
		const uint32_t *b = func_get(e->m, (uint32_t)ent[2 * k + 1]);
		if (b) {
			atomic_fetch_add_explicit(&profil__unwind_counts.func_rows, 1,
						  memory_order_relaxed);
			return func_row(b, (uint32_t)(pc - start), row) ? PROFIL_UFOUND_TABLE
									: PROFIL_UFOUND_NONE;
		}
	}
	if (e)
		atomic_fetch_add_explicit(&profil__unwind_counts.file_rows, 1,
					  memory_order_relaxed);
	uint32_t flen, fhave; /* most FDEs are under 128 bytes; a longer one reads on */
	if (!get_record(s, fde_at, x->fde, x->fde_size < 256 ? x->fde_size : 256, &flen, &fhave))
		return UNREAD;
	*row = PROFIL_UROW_UNKNOWN;
	struct profil_uwork *wk = x->work;
	const struct profil_fde *fde = &wk->fde;
	int bad = parse_fde(s, fde_at, x->fde, fhave, mod, x, &wk->cie, &wk->fde);
	if (bad)
		return bad == UNREAD ? UNREAD : PROFIL_UFOUND_TABLE;
	if (e && fde->pc_begin != start)
		return NOT_OURS; /* not the FDE the table names */
	if (pc < fde->pc_begin || pc >= fde->pc_end)
		return PROFIL_UFOUND_NONE;
	/* The rest of a long FDE comes into its buffer, window by window. */
	wk->more = (struct profil_cfi_more){ src_read,    (void *)s,         x->fde,
					     x->fde_size, fde_at + 4 + flen, x->run };
	struct gather *g = (struct gather *)(void *)wk->gather;
	*g = (struct gather){ { .target = pc }, x, fde->pc_begin, 0, keep, false, 0 };
	if (keep) { /* all its rows, kept for its other pcs */
		bool done = profil__cfi_run_more(&wk->cie, fde, &wk->more, emit_gather, g) == 0;
		if (done && g->whole && fde->pc_end - fde->pc_begin <= UINT32_MAX)
			func_put(e->m, (uint32_t)ent[2 * k + 1],
				 (uint32_t)(fde->pc_end - fde->pc_begin), x, g->n);
	} else {
		profil__cfi_run_more(&wk->cie, fde, &wk->more, emit_pick, &g->pick);
	}
	*row = g->pick.have ? g->pick.row : PROFIL_UROW_UNKNOWN;
	return PROFIL_UFOUND_TABLE;
}

/* The direct path: the object glibc has at pc, read from memory. */
static int memory_row(uintptr_t hdr, uintptr_t pc, struct profil_urow *row,
		      struct profil_uscratch *x)
{
	uint8_t h[12];
	if (!hdr || profil__gcopy(h, (const void *)hdr, sizeof h) < 0 || h[0] != 1 ||
	    h[3] != PROFIL_EH_HDR_TABLE_ENC || h[2] != 0x03 /* udata4 */)
		return PROFIL_UFOUND_NONE;
	/* h[4..8) is the .eh_frame pointer (unused): 4 bytes, or the count
	 * is not at 8. */
	if ((h[1] & 0x0f) != 0x0b && (h[1] & 0x0f) != 0x03)
		return PROFIL_UFOUND_NONE;
	const struct src mem = { -1, 0, UINTPTR_MAX, 0 };
	atomic_fetch_add_explicit(&profil__unwind_counts.memory_rows, 1, memory_order_relaxed);
	x->cie_mod = 0; /* its CIE is kept for no module */
	int how = read_row(&mem, hdr, profil__cfi_rd32(h + 8), NULL, 0, pc, row, x);
	return how == PROFIL_UFOUND_TABLE ? PROFIL_UFOUND_DIRECT : PROFIL_UFOUND_NONE;
}

/* Scratch on the stack, for a walk without a walk buffer: fde holds
 * PROFIL_UNWIND_FDE_STACK bytes; no function's rows are kept. */
static void stack_scratch(struct profil_uscratch *x, uint8_t *fde, struct profil_uwork *work)
{
	x->fde = fde;
	x->fde_size = PROFIL_UNWIND_FDE_STACK;
	x->rows = NULL;
	x->work = work;
	x->run = NULL;
	x->cie_mod = 0;
}

/* The same with the scratch on the stack.  Not inlined: its buffers are
 * on the stack only while it runs, not in every walk's frame. */
static __attribute__((noinline)) int memory_row_stack(uintptr_t hdr, uintptr_t pc,
						      struct profil_urow *row)
{
	struct profil_uscratch x;
	uint8_t fde[PROFIL_UNWIND_FDE_STACK];
	struct profil_uwork work;
	stack_scratch(&x, fde, &work);
	return memory_row(hdr, pc, row, &x);
}

static int direct_row(struct profil_uwalk *w, uintptr_t hdr, uintptr_t pc, struct profil_urow *row)
{
	return w->scratch ? memory_row(hdr, pc, row, w->scratch) : memory_row_stack(hdr, pc, row);
}

/* ---- a module's file ---- */

/* Is fd the file m was registered with? */
static NOINLINE bool is_file(int fd, const struct profil_umod *m)
{
	struct stat st;
	return syscall(SYS_fstat, fd, &st) == 0 && (uint64_t)st.st_dev == m->file.dev &&
	       (uint64_t)st.st_ino == m->file.ino && (uint64_t)st.st_size == m->file.size &&
	       st.st_mtim.tv_sec == m->file.mtime_s && st.st_mtim.tv_nsec == m->file.mtime_ns;
}

/*
 * A descriptor of m's file, opened now: -1 if it cannot be (out of
 * descriptors, say), or it is not the file m was loaded from any more
 * (then m's file is bad for good).  Kept for every walk: moved above the
 * numbers a program uses first (half its descriptor limit, at most 1024),
 * so that a program that closed its standard input and opens /dev/null to
 * get descriptor 0 back still gets it.  *kept: it is m's from now on.
 */
static NOINLINE int open_file(const struct profil_umod *m, bool *kept)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, m->path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	*kept = false;
	if (fd < 0)
		return -1;
	atomic_fetch_add_explicit(&profil__unwind_counts.opened, 1, memory_order_relaxed);
	if (!is_file(fd, m)) {
		atomic_store_explicit(&m->live->file_bad, true, memory_order_relaxed);
		atomic_fetch_add_explicit(&profil__unwind_counts.mismatched, 1,
					  memory_order_relaxed);
		syscall(SYS_close, fd);
		return -1;
	}
	struct rlimit lim;
	if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &lim) != 0 || lim.rlim_cur < 16)
		return fd;
	long low = lim.rlim_cur / 2 < 1024 ? (long)(lim.rlim_cur / 2) : 1024;
	int high = (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, low);
	if (high < 0)
		return fd; /* for this walk only */
	syscall(SYS_close, fd);
	int none = atomic_load_explicit(&m->live->fd, memory_order_relaxed);
	if (none < 0 && atomic_compare_exchange_strong(&m->live->fd, &none, high)) {
		*kept = true;
		return high;
	}
	return high; /* another walk kept one first: this one is the walk's */
}

/* The descriptor kept for m read another file: the program closed ours
 * and may use the number for a file of its own.  Never ours again, never
 * closed by us; the next walk that needs the file opens it again. */
static void lost_file(struct profil_uwalk *w, const struct profil_umod *m)
{
	int fd = w->fd;
	if (!w->own && atomic_compare_exchange_strong(&m->live->fd, &fd, -2))
		atomic_fetch_add_explicit(&profil__unwind_counts.lost, 1, memory_order_relaxed);
	drop_own(w);
	w->fd_mod = NULL;
}

/*
 * The file of m for this walk: -1 if it has none or it is not the one m
 * was loaded from any more.  The descriptor kept is checked with fstat,
 * once a walk: the program may have closed it and put a file of its own at
 * its number (dup2), and that file could even be another build of the
 * module with the same layout, whose entries and FDEs would pass for m's
 * (tests/stacks/t-unwind-cache).
 */
static NOINLINE int walk_file(struct profil_uwalk *w, const struct profil_umod *m)
{
	if (w->fd_mod == m)
		return w->fd;
	int saved = errno;
	drop_own(w);
	w->fd_mod = m;
	int fd = atomic_load_explicit(&m->live->fd, memory_order_acquire);
	if (fd >= 0 && !is_file(fd, m)) {
		w->fd = fd;
		lost_file(w, m);
		w->fd_mod = m;
		fd = -1;
	}
	if (fd < 0) {
		bool kept;
		fd = open_file(m, &kept); /* kept again after -2: the program closed the last */
		w->own = fd >= 0 && !kept;
	}
	w->fd = fd;
	errno = saved;
	return fd;
}

/* The row at pc of m (pc in m's code) from its file: NONE if it has no
 * usable file now (open failed: out of descriptors, say) or the file could
 * not be read, else TABLE. */
static int file_row_in(struct profil_uwalk *w, const struct profil_umod *m, uintptr_t pc,
		       struct profil_urow *row, struct profil_uscratch *x)
{
	if (!m->path || atomic_load_explicit(&m->live->file_bad, memory_order_relaxed))
		return PROFIL_UFOUND_NONE;
	int how = NOT_OURS;
	for (int tries = 0; how == NOT_OURS && tries < 2; tries++) {
		int fd = walk_file(w, m);
		if (fd < 0)
			return PROFIL_UFOUND_NONE;
		const struct src f = { fd, m->seg_lo, m->seg_hi, m->seg_off };
		const struct entries e = { m->nfde, m->sample, m };
		how = read_row(&f, m->eh_hdr, m->nfde, &e, m->serial, pc, row, x);
		if (how == UNREAD && !w->own)
			how = NOT_OURS; /* a kept descriptor the program closed, say */
		if (how == NOT_OURS)
			lost_file(w, m);
	}
	if (how == UNREAD || how == NOT_OURS)
		return PROFIL_UFOUND_NONE;
	if (how == PROFIL_UFOUND_NONE)
		*row = PROFIL_UROW_UNKNOWN; /* code of a module we know, without CFI */
	return PROFIL_UFOUND_TABLE;
}

static __attribute__((noinline)) int file_row_stack(struct profil_uwalk *w,
						    const struct profil_umod *m, uintptr_t pc,
						    struct profil_urow *row)
{
	struct profil_uscratch x;
	uint8_t fde[PROFIL_UNWIND_FDE_STACK];
	struct profil_uwork work;
	stack_scratch(&x, fde, &work);
	return file_row_in(w, m, pc, row, &x);
}

static int file_row(struct profil_uwalk *w, const struct profil_umod *m, uintptr_t pc,
		    struct profil_urow *row)
{
	return w->scratch ? file_row_in(w, m, pc, row, w->scratch) : file_row_stack(w, m, pc, row);
}

/* The row at pc of m, a module of the set still loaded: its cache, else
 * its file, else its memory (where the walk may read it). */
static int module_row(struct profil_uwalk *w, const struct profil_umod *m, uintptr_t pc,
		      struct profil_urow *row)
{
	if (cache_get(m, pc, row))
		return PROFIL_UFOUND_TABLE;
	int how = file_row(w, m, pc, row);
	if (how == PROFIL_UFOUND_NONE && !w->tables_only) {
		how = direct_row(w, m->eh_hdr, pc, row);
		if (how == PROFIL_UFOUND_NONE) { /* code of a module we know, without CFI */
			*row = PROFIL_UROW_UNKNOWN;
			how = PROFIL_UFOUND_TABLE;
		}
	}
	if (how != PROFIL_UFOUND_NONE)
		cache_put(m, pc, row);
	return how;
}

/* Is m still the object loaded at pc?  Once per walk and module. */
static bool still_loaded(struct profil_uwalk *w, const struct profil_umod *m, uintptr_t pc,
			 struct dl_find_object *fo, bool *have_fo)
{
	for (unsigned i = 0; i < w->nchecked; i++)
		if (w->checked[i] == m)
			return true;
	if (!profil__unwind_find_object)
		return true; /* no way to tell: trust the last refresh */
	*have_fo = profil__unwind_find_object((void *)pc, fo) == 0;
	if (!*have_fo || (uintptr_t)fo->dlfo_eh_frame != m->eh_hdr)
		return false;
	uint8_t id[PROFIL_UID_MAX];
	if (m->id_len && (profil__gcopy(id, (const void *)m->id_at, m->id_len) < 0 ||
			  __builtin_memcmp(id, m->id, m->id_len) != 0))
		return false; /* another object where m was */
	w->checked[w->nchecked++ % PROFIL_UWALK_CHECKED] = m;
	if (w->nchecked > PROFIL_UWALK_CHECKED)
		w->nchecked = PROFIL_UWALK_CHECKED;
	return true;
}

/* The module of the set pc is in, still loaded (then w->last), or else
 * the .eh_frame_hdr of the object glibc has at pc into *hdr (0: none).
 * Not inlined: its struct dl_find_object is not in the frame of the row's
 * reading. */
static NOINLINE const struct profil_umod *locate(struct profil_uwalk *w, uintptr_t pc,
						 uintptr_t *hdr)
{
	const struct profil_umod *m = find_module(w->set, pc);
	struct dl_find_object fo;
	bool have_fo = false;
	*hdr = 0;
	if (m && still_loaded(w, m, pc, &fo, &have_fo)) {
		w->last = m;
		return m;
	}
	if (m) /* closed since the last refresh, or replaced */
		atomic_store_explicit(&profil__unwind_stale, true, memory_order_relaxed);
	else if (profil__unwind_find_object)
		have_fo = profil__unwind_find_object((void *)pc, &fo) == 0;
	if (have_fo) {
		atomic_store_explicit(&profil__unwind_stale, true, memory_order_relaxed);
		*hdr = (uintptr_t)fo.dlfo_eh_frame;
	}
	return NULL;
}

int profil__unwind_row(struct profil_uwalk *w, uintptr_t pc, struct profil_urow *row)
{
	const struct profil_umod *m = w->last;
	if (m && pc >= m->lo && pc < m->hi) /* callers are often in the same module */
		return module_row(w, m, pc, row);
	uintptr_t hdr;
	m = locate(w, pc, &hdr);
	if (m)
		return module_row(w, m, pc, row);
	if (!hdr || w->tables_only)
		return PROFIL_UFOUND_NONE;
	return direct_row(w, hdr, pc, row);
}

int profil__unwind_row_direct(uintptr_t pc, struct profil_urow *row)
{
	struct dl_find_object fo;
	if (!profil__unwind_find_object || profil__unwind_find_object((void *)pc, &fo) != 0)
		return PROFIL_UFOUND_NONE;
	return memory_row_stack((uintptr_t)fo.dlfo_eh_frame, pc, row);
}

int profil__unwind_row_file(uintptr_t pc, struct profil_urow *row)
{
	struct profil_uwalk w;
	profil__unwind_enter(&w);
	const struct profil_umod *m = find_module(w.set, pc);
	int how = m ? file_row(&w, m, pc, row) : PROFIL_UFOUND_NONE;
	profil__unwind_leave(&w);
	return how == PROFIL_UFOUND_TABLE ? 0 : -1;
}
