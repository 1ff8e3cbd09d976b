/*
 * unwind-tables.c - the handler's side of the compact unwind tables (see
 * unwind-tables.h): the module of a pc, its row, and the direct path for
 * code the tables lack.  Normal context builds and publishes the tables
 * (lib/unwind-build.c).  Every function here is AS-safe.
 */
#include "unwind-tables.h"

#include "../arch/guard.h"
#include "unwind.h"

struct profil_uset *_Atomic profil__unwind_set;
_Atomic long profil__unwind_walkers;
_Atomic bool profil__unwind_stale;
profil_find_object_fn *profil__unwind_find_object;

void profil__unwind_enter(struct profil_uwalk *w)
{
	atomic_fetch_add(&profil__unwind_walkers, 1);
	w->set = atomic_load(&profil__unwind_set);
	w->nchecked = 0;
	w->last = NULL;
	w->tables_only = false;
	w->fde_buf = w->cie_buf = NULL;
}

void profil__unwind_leave(struct profil_uwalk *w)
{
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

static int table_row(const struct profil_umod *m, uintptr_t pc, struct profil_urow *row)
{
	uintptr_t off = pc - m->bias;
	if (!m->nrows || pc < m->bias || off > UINT32_MAX || off < m->rows[0].off) {
		*row = PROFIL_UROW_UNKNOWN; /* code of a module we know, without CFI */
		return PROFIL_UFOUND_TABLE;
	}
	uint32_t lo = 0, hi = m->nrows; /* the last row with row.off <= off */
	uintptr_t p = (pc - m->lo) >> PROFIL_UPAGE_SHIFT;
	if (pc >= m->lo && p < m->npages) {
		lo = m->page[p];
		if (p + 1 < m->npages)
			hi = m->page[p + 1] + 1;
	}
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->rows[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	*row = m->rows[lo];
	return PROFIL_UFOUND_TABLE;
}

/* ---- the direct path: one FDE copied through the guard ---- */

/* The handler's walk copies into its thread's walk buffer (unwind.h),
 * others onto their stack: the largest FDE of libc is 192 bytes, of
 * python3.11 376, of libstdc++ 756 (4 of 4867 above 512, unwound by their
 * table only). */
#define FDE_MAX PROFIL_UNWIND_FDE_MAX
#define CIE_MAX PROFIL_UNWIND_CIE_MAX

struct pick {
	uintptr_t target;
	struct profil_urow row;
	bool have;
};

static int emit_pick(void *ctx, uintptr_t pc, const struct profil_urow *row)
{
	struct pick *k = ctx;
	if (pc > k->target)
		return 1;
	k->row = *row;
	k->have = true;
	return 0;
}

static int copy_record(uintptr_t at, uint8_t *buf, uint32_t max, uint32_t *len)
{
	uint32_t l;
	if (profil__gcopy(&l, (const void *)at, 4) < 0 || l < 4 || l > max - 4)
		return -EINVAL;
	if (profil__gcopy(buf, (const void *)at, l + 4) < 0)
		return -EFAULT;
	*len = l;
	return 0;
}

/* The row at pc from the module's own .eh_frame_hdr at hdr, the FDE and
 * CIE copied into fbuf (FDE_MAX bytes) and cbuf (CIE_MAX). */
static int direct_row_in(uintptr_t hdr, uintptr_t pc, struct profil_urow *row, uint8_t *fbuf,
			 uint8_t *cbuf)
{
	uint8_t h[12];
	if (!hdr || profil__gcopy(h, (const void *)hdr, sizeof h) < 0 || h[0] != 1 ||
	    h[3] != PROFIL_EH_HDR_TABLE_ENC || h[2] != 0x03 /* udata4 */)
		return PROFIL_UFOUND_NONE;
	/* h[4..8) is the .eh_frame pointer (unused); the count follows. */
	uint32_t n = profil__cfi_rd32(h + 8);
	uintptr_t table = hdr + 12;
	if ((h[1] & 0x0f) != 0x0b && (h[1] & 0x0f) != 0x03)
		return PROFIL_UFOUND_NONE; /* a 4-byte .eh_frame pointer */
	uint32_t lo = 0, hi = n;
	int32_t e[2] = { 0, 0 };
	bool found = false;
	while (hi - lo > 0 && hi <= n) { /* the last entry with start <= pc */
		uint32_t mid = lo + (hi - lo) / 2;
		int32_t cur[2];
		if (profil__gcopy(cur, (const void *)(table + 8 * (uintptr_t)mid), 8) < 0)
			return PROFIL_UFOUND_NONE;
		if (hdr + (uintptr_t)(intptr_t)cur[0] <= pc) {
			e[0] = cur[0], e[1] = cur[1];
			found = true;
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (!found)
		return PROFIL_UFOUND_NONE;
	uintptr_t fde_at = hdr + (uintptr_t)(intptr_t)e[1];
	uint32_t flen, clen;
	if (copy_record(fde_at, fbuf, FDE_MAX, &flen) < 0 || profil__cfi_rd32(fbuf + 4) == 0)
		return PROFIL_UFOUND_NONE;
	uintptr_t cie_at = fde_at + 4 - profil__cfi_rd32(fbuf + 4);
	if (copy_record(cie_at, cbuf, CIE_MAX, &clen) < 0 || profil__cfi_rd32(cbuf + 4) != 0)
		return PROFIL_UFOUND_NONE;
	struct profil_cfi_buf cb = { cbuf + 8, cbuf + 4 + clen, cie_at + 8 };
	struct profil_cfi_buf fb = { fbuf + 8, fbuf + 4 + flen, fde_at + 8 };
	struct profil_cie cie;
	struct profil_fde fde;
	if (profil__cfi_pair(&cb, &fb, &cie, &fde) < 0 || pc < fde.pc_begin || pc >= fde.pc_end)
		return PROFIL_UFOUND_NONE;
	struct pick k = { .target = pc };
	profil__cfi_run(&cie, &fde, emit_pick, &k);
	*row = k.have ? k.row : PROFIL_UROW_UNKNOWN;
	return PROFIL_UFOUND_DIRECT;
}

/* The same with the copies on the stack.  Not inlined: its buffers are on
 * the stack only while it runs, not in every walk's frame. */
static __attribute__((noinline)) int direct_row(uintptr_t hdr, uintptr_t pc,
						struct profil_urow *row)
{
	uint8_t fbuf[FDE_MAX], cbuf[CIE_MAX];
	return direct_row_in(hdr, pc, row, fbuf, cbuf);
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
	w->checked[w->nchecked++ % PROFIL_UWALK_CHECKED] = m;
	if (w->nchecked > PROFIL_UWALK_CHECKED)
		w->nchecked = PROFIL_UWALK_CHECKED;
	return true;
}

int profil__unwind_row(struct profil_uwalk *w, uintptr_t pc, struct profil_urow *row)
{
	const struct profil_umod *m = w->last;
	if (m && pc >= m->lo && pc < m->hi) /* callers are often in the same module */
		return table_row(m, pc, row);
	m = find_module(w->set, pc);
	struct dl_find_object fo;
	bool have_fo = false;
	if (m && still_loaded(w, m, pc, &fo, &have_fo)) {
		w->last = m;
		return table_row(m, pc, row);
	}
	if (m) /* closed since the last refresh, or replaced */
		atomic_store_explicit(&profil__unwind_stale, true, memory_order_relaxed);
	else if (profil__unwind_find_object)
		have_fo = profil__unwind_find_object((void *)pc, &fo) == 0;
	if (!have_fo)
		return PROFIL_UFOUND_NONE;
	atomic_store_explicit(&profil__unwind_stale, true, memory_order_relaxed);
	if (w->tables_only)
		return PROFIL_UFOUND_NONE;
	if (w->fde_buf && w->cie_buf)
		return direct_row_in((uintptr_t)fo.dlfo_eh_frame, pc, row, w->fde_buf, w->cie_buf);
	return direct_row((uintptr_t)fo.dlfo_eh_frame, pc, row);
}

int profil__unwind_row_direct(uintptr_t pc, struct profil_urow *row)
{
	struct dl_find_object fo;
	if (!profil__unwind_find_object || profil__unwind_find_object((void *)pc, &fo) != 0)
		return PROFIL_UFOUND_NONE;
	return direct_row((uintptr_t)fo.dlfo_eh_frame, pc, row);
}
