/*
 * unwind-cfi.c - see unwind-cfi.h.  The subset of DWARF call-frame
 * instructions gcc, clang and glibc's assembly emit for x86-64 (DWARF 5
 * section 6.4, and the LSB's .eh_frame augmentations); anything else is
 * refused, never guessed.
 */
#include "unwind-cfi.h"

#include "../arch/unwind-arch.h"

/* DW_EH_PE_* pointer encodings */
#define PE_OMIT     0xff
#define PE_FORMAT   0x0f
#define PE_APPLY    0x70
#define PE_PCREL    0x10
#define PE_DATAREL  0x30
#define PE_INDIRECT 0x80

static int uleb(const struct profil_cfi_buf *b, const uint8_t **pp, uint64_t *out)
{
	uint64_t v = 0;
	for (unsigned shift = 0; *pp < b->end; shift += 7) {
		uint8_t c = *(*pp)++;
		if (shift < 64)
			v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return -EINVAL;
}

static int sleb(const struct profil_cfi_buf *b, const uint8_t **pp, int64_t *out)
{
	uint64_t v = 0;
	unsigned shift = 0;
	while (*pp < b->end) {
		uint8_t c = *(*pp)++;
		if (shift < 64)
			v |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
		if (!(c & 0x80)) {
			if (shift < 64 && (c & 0x40))
				v |= ~(uint64_t)0 << shift;
			*out = (int64_t)v;
			return 0;
		}
	}
	return -EINVAL;
}

/* n bytes, little-endian, unsigned. */
static int fixed(const struct profil_cfi_buf *b, const uint8_t **pp, unsigned n, uint64_t *out)
{
	if ((uint64_t)(b->end - *pp) < n)
		return -EINVAL;
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)(*pp)[i] << (8 * i);
	*pp += n;
	*out = v;
	return 0;
}

static uint64_t sign_extend(uint64_t v, unsigned bytes)
{
	unsigned bits = 8 * bytes;
	return bits >= 64 ? v : (uint64_t)((int64_t)(v << (64 - bits)) >> (64 - bits));
}

int profil__cfi_pointer(const struct profil_cfi_buf *b, const uint8_t **pp, uint8_t enc,
			uintptr_t datarel, uintptr_t *out)
{
	if (enc == PE_OMIT || (enc & PE_INDIRECT))
		return -EINVAL; /* indirect needs a read of program memory */
	uintptr_t at = b->addr + (uintptr_t)(*pp - b->p);
	uint64_t v = 0; /* read only on success; 0 keeps a failed read defined */
	int r;
	int64_t s;
	switch (enc & PE_FORMAT) {
	case 0x00:
		r = fixed(b, pp, 8, &v);
		break; /* absptr */
	case 0x01:
		r = uleb(b, pp, &v);
		break;
	case 0x02:
		r = fixed(b, pp, 2, &v);
		break;
	case 0x03:
		r = fixed(b, pp, 4, &v);
		break;
	case 0x04:
		r = fixed(b, pp, 8, &v);
		break;
	case 0x09:
		r = sleb(b, pp, &s);
		v = (uint64_t)s;
		break;
	case 0x0a:
		r = fixed(b, pp, 2, &v);
		v = sign_extend(v, 2);
		break;
	case 0x0b:
		r = fixed(b, pp, 4, &v);
		v = sign_extend(v, 4);
		break;
	case 0x0c:
		r = fixed(b, pp, 8, &v);
		break;
	default:
		return -EINVAL;
	}
	if (r < 0)
		return r;
	switch (enc & PE_APPLY) {
	case 0x00:
		break;
	case PE_PCREL:
		v += at;
		break;
	case PE_DATAREL:
		v += datarel;
		break;
	default:
		return -EINVAL; /* textrel, funcrel, aligned: not on x86-64 */
	}
	*out = (uintptr_t)v;
	return 0;
}

int profil__cfi_cie(const struct profil_cfi_buf *b, struct profil_cie *cie)
{
	const uint8_t *p = b->p;
	*cie = (struct profil_cie){ .fde_enc = 0 };
	if (p >= b->end)
		return -EINVAL;
	uint8_t version = *p++;
	if (version != 1 && version != 3 && version != 4)
		return -EINVAL;
	const uint8_t *aug = p;
	while (p < b->end && *p)
		p++;
	if (p >= b->end)
		return -EINVAL;
	p++;
	if (version == 4) {
		if (b->end - p < 2 || p[0] != 8 || p[1] != 0)
			return -EINVAL; /* address size 8, segment size 0 */
		p += 2;
	}
	uint64_t ra;
	if (uleb(b, &p, &cie->caf) < 0 || sleb(b, &p, &cie->daf) < 0)
		return -EINVAL;
	if (version == 1) {
		if (p >= b->end)
			return -EINVAL;
		ra = *p++;
	} else if (uleb(b, &p, &ra) < 0) {
		return -EINVAL;
	}
	cie->ra_reg = (uint32_t)ra;
	const uint8_t *aug_end = NULL;
	bool skip_rest = false;
	for (const uint8_t *a = aug; *a && !skip_rest; a++) {
		uint64_t len;
		uintptr_t ignored;
		switch (*a) {
		case 'z':
			if (a != aug || uleb(b, &p, &len) < 0 || len > (uint64_t)(b->end - p))
				return -EINVAL;
			cie->has_aug_data = true;
			aug_end = p + len;
			break;
		case 'R':
			if (p >= b->end)
				return -EINVAL;
			cie->fde_enc = *p++;
			break;
		case 'L':
			if (p >= b->end)
				return -EINVAL;
			p++; /* LSDA encoding: FDEs skip their augmentation data */
			break;
		case 'P': {
			if (p >= b->end)
				return -EINVAL;
			uint8_t enc = *p++;
			/* The personality routine's pointer: skipped.  An indirect
			 * one is read as its plain form, which has the same size. */
			if (profil__cfi_pointer(b, &p, enc & 0x7f, 0, &ignored) < 0)
				return -EINVAL;
			break;
		}
		case 'S':
			cie->signal = true;
			break;
		case 'B': /* AArch64 BTI, no data */
			break;
		default:
			/* Unknown letters: only safe to skip with 'z'. */
			if (!aug_end)
				return -EINVAL;
			skip_rest = true;
			break;
		}
	}
	if (aug_end)
		p = aug_end;
	cie->insn = p;
	cie->insn_end = b->end;
	cie->insn_addr = b->addr + (uintptr_t)(p - b->p);
	return 0;
}

int profil__cfi_fde(const struct profil_cfi_buf *b, const struct profil_cie *cie,
		    struct profil_fde *fde)
{
	const uint8_t *p = b->p;
	uintptr_t begin, range;
	if (profil__cfi_pointer(b, &p, cie->fde_enc, 0, &begin) < 0 ||
	    profil__cfi_pointer(b, &p, cie->fde_enc & PE_FORMAT, 0, &range) < 0)
		return -EINVAL;
	if (cie->has_aug_data) {
		uint64_t len;
		if (uleb(b, &p, &len) < 0 || len > (uint64_t)(b->end - p))
			return -EINVAL;
		p += len;
	}
	fde->pc_begin = begin;
	fde->pc_end = begin + range;
	if (fde->pc_end < begin)
		return -EINVAL;
	fde->insn = p;
	fde->insn_end = b->end;
	fde->insn_addr = b->addr + (uintptr_t)(p - b->p);
	return 0;
}

int profil__cfi_pair(const struct profil_cfi_buf *cie_b, const struct profil_cfi_buf *fde_b,
		     struct profil_cie *cie, struct profil_fde *fde)
{
	if (profil__cfi_cie(cie_b, cie) < 0 || profil__cfi_fde(fde_b, cie, fde) < 0)
		return -EINVAL;
	return 0;
}

/* ---- the interpreter ---- */

enum { REG_SAME, REG_OFFSET, REG_UNDEF, REG_OTHER };

struct cfa_state {
	uint8_t cfa; /* enum profil_cfa_rule, before the return-address check */
	uint32_t cfa_reg;
	int64_t cfa_off;
	uint8_t ra, fp; /* REG_* */
	int64_t ra_off, fp_off;
};

#define STATE_DEPTH 4 /* remember_state nesting; deeper: unknown rows */

struct run {
	const struct profil_cie *cie;
	struct cfa_state cur, init;
	struct cfa_state stack[STATE_DEPTH];
	int depth;
	bool lost_state; /* a restore_state without its remember: unknown */
};

static void set_cfa(struct cfa_state *s)
{
	if (s->cfa == PROFIL_CFA_PLT)
		return;
	s->cfa = s->cfa_reg == PROFIL_DW_SP   ? PROFIL_CFA_SP
		 : s->cfa_reg == PROFIL_DW_FP ? PROFIL_CFA_FP
					      : PROFIL_CFA_UNKNOWN;
}

/* Into *row, not returned: a 12-byte struct returned by value is built
 * in pieces on the stack and read back whole, a store-forwarding stall
 * that was a sixth of the tables' build time. */
static void make_row(const struct run *r, struct profil_urow *row)
{
	const struct cfa_state *s = &r->cur;
	row->off = 0;
	row->cfa = 0;
	row->fp = PROFIL_FP_LOST;
	row->rule = PROFIL_CFA_UNKNOWN;
	row->pad = 0;
	if (r->lost_state)
		return;
	if (s->ra == REG_UNDEF) {
		row->rule = PROFIL_CFA_END;
		return;
	}
	if (s->ra != REG_OFFSET || s->ra_off != PROFIL_RA_AT || s->cfa == PROFIL_CFA_UNKNOWN ||
	    s->cfa_off < INT32_MIN || s->cfa_off > INT32_MAX)
		return;
	row->rule = s->cfa;
	row->cfa = (int32_t)s->cfa_off;
	if (s->fp == REG_SAME)
		row->fp = PROFIL_FP_SAME;
	else if (s->fp == REG_OFFSET && s->fp_off >= INT16_MIN && s->fp_off < 0 && !(s->fp_off & 7))
		row->fp = (int16_t)s->fp_off;
}

static void set_reg(struct cfa_state *s, uint64_t reg, uint8_t how, int64_t off)
{
	if (reg == (uint64_t)PROFIL_DW_RA) {
		s->ra = how;
		s->ra_off = off;
	} else if (reg == (uint64_t)PROFIL_DW_FP) {
		s->fp = how;
		s->fp_off = off;
	}
}

static void restore_reg(struct run *r, uint64_t reg)
{
	if (reg == (uint64_t)PROFIL_DW_RA) {
		r->cur.ra = r->init.ra;
		r->cur.ra_off = r->init.ra_off;
	} else if (reg == (uint64_t)PROFIL_DW_FP) {
		r->cur.fp = r->init.fp;
		r->cur.fp_off = r->init.fp_off;
	}
}

/* The PLT's CFA expression as GNU ld writes it for lazy-binding entries:
 * DW_OP_breg7 (rsp) 8; DW_OP_breg16 (rip) 0; DW_OP_lit15; DW_OP_and;
 * DW_OP_litN; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus.  Returns N, or
 * -1 for any other expression. */
static int plt_expression(const uint8_t *e, uint64_t len)
{
	static const uint8_t head[] = { 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a };
	static const uint8_t tail[] = { 0x2a, 0x33, 0x24, 0x22 };
	if (PROFIL_DW_SP != 7 || len != sizeof head + 1 + sizeof tail)
		return -1;
	for (unsigned i = 0; i < sizeof head; i++)
		if (e[i] != head[i])
			return -1;
	for (unsigned i = 0; i < sizeof tail; i++)
		if (e[sizeof head + 1 + i] != tail[i])
			return -1;
	uint8_t lit = e[sizeof head];
	return lit >= 0x30 && lit <= 0x4f ? lit - 0x30 : -1;
}

/* One instruction at *pp.  1: the location advanced by *adv code units;
 * 0: done; -EINVAL: unknown or malformed. */
static int step(struct run *r, const struct profil_cfi_buf *b, const uint8_t **pp, uint64_t *adv)
{
	const struct profil_cie *cie = r->cie;
	struct cfa_state *s = &r->cur;
	uint8_t op = *(*pp)++;
	uint64_t reg, u, v;
	int64_t k;
	switch (op >> 6) {
	case 1: /* DW_CFA_advance_loc */
		*adv = op & 0x3f;
		return 1;
	case 2: /* DW_CFA_offset */
		if (uleb(b, pp, &u) < 0)
			return -EINVAL;
		set_reg(s, op & 0x3f, REG_OFFSET, (int64_t)u * cie->daf);
		return 0;
	case 3: /* DW_CFA_restore */
		restore_reg(r, op & 0x3f);
		return 0;
	}
	switch (op) {
	case 0x00: /* nop */
		return 0;
	case 0x02: /* advance_loc1 */
	case 0x03: /* advance_loc2 */
	case 0x04: /* advance_loc4 */
		if (fixed(b, pp, op == 0x02 ? 1 : op == 0x03 ? 2 : 4, adv) < 0)
			return -EINVAL;
		return 1;
	case 0x05: /* offset_extended */
		if (uleb(b, pp, &reg) < 0 || uleb(b, pp, &u) < 0)
			return -EINVAL;
		set_reg(s, reg, REG_OFFSET, (int64_t)u * cie->daf);
		return 0;
	case 0x11: /* offset_extended_sf */
		if (uleb(b, pp, &reg) < 0 || sleb(b, pp, &k) < 0)
			return -EINVAL;
		set_reg(s, reg, REG_OFFSET, k * cie->daf);
		return 0;
	case 0x06: /* restore_extended */
		if (uleb(b, pp, &reg) < 0)
			return -EINVAL;
		restore_reg(r, reg);
		return 0;
	case 0x07: /* undefined */
		if (uleb(b, pp, &reg) < 0)
			return -EINVAL;
		set_reg(s, reg, REG_UNDEF, 0);
		return 0;
	case 0x08: /* same_value */
		if (uleb(b, pp, &reg) < 0)
			return -EINVAL;
		set_reg(s, reg, REG_SAME, 0);
		return 0;
	case 0x09: /* register */
	case 0x0a: /* remember_state */
		if (r->depth < STATE_DEPTH)
			r->stack[r->depth] = *s;
		r->depth++;
		return 0;
	case 0x0b: /* restore_state */
		if (r->depth == 0 || r->depth > STATE_DEPTH)
			r->lost_state = true;
		else
			*s = r->stack[r->depth - 1];
		if (r->depth > 0)
			r->depth--;
		return 0;
	case 0x0c: /* def_cfa */
		if (uleb(b, pp, &reg) < 0 || uleb(b, pp, &u) < 0)
			return -EINVAL;
		s->cfa = PROFIL_CFA_SP;
		s->cfa_reg = (uint32_t)reg;
		s->cfa_off = (int64_t)u;
		set_cfa(s);
		return 0;
	case 0x12: /* def_cfa_sf */
		if (uleb(b, pp, &reg) < 0 || sleb(b, pp, &k) < 0)
			return -EINVAL;
		s->cfa = PROFIL_CFA_SP;
		s->cfa_reg = (uint32_t)reg;
		s->cfa_off = k * cie->daf;
		set_cfa(s);
		return 0;
	case 0x0d: /* def_cfa_register */
		if (uleb(b, pp, &reg) < 0)
			return -EINVAL;
		if (s->cfa == PROFIL_CFA_PLT)
			s->cfa = PROFIL_CFA_SP; /* an expression is replaced */
		s->cfa_reg = (uint32_t)reg;
		set_cfa(s);
		return 0;
	case 0x0e: /* def_cfa_offset */
		if (uleb(b, pp, &u) < 0)
			return -EINVAL;
		s->cfa_off = (int64_t)u;
		return 0;
	case 0x13: /* def_cfa_offset_sf */
		if (sleb(b, pp, &k) < 0)
			return -EINVAL;
		s->cfa_off = k * cie->daf;
		return 0;
	case 0x0f: { /* def_cfa_expression */
		if (uleb(b, pp, &u) < 0 || u > (uint64_t)(b->end - *pp))
			return -EINVAL;
		int n = plt_expression(*pp, u);
		*pp += u;
		s->cfa = n >= 0 ? PROFIL_CFA_PLT : PROFIL_CFA_UNKNOWN;
		s->cfa_reg = (uint32_t)-1;
		s->cfa_off = n;
		return 0;
	}
	case 0x10:   /* expression */
	case 0x16: { /* val_expression */
		if (uleb(b, pp, &reg) < 0 || uleb(b, pp, &u) < 0 || u > (uint64_t)(b->end - *pp))
			return -EINVAL;
		*pp += u;
		set_reg(s, reg, REG_OTHER, 0);
		return 0;
	}
	case 0x15: /* val_offset_sf */
		if (uleb(b, pp, &reg) < 0 || sleb(b, pp, &k) < 0)
			return -EINVAL;
		set_reg(s, reg, REG_OTHER, 0);
		return 0;
	case 0x2e: /* GNU_args_size */
		return uleb(b, pp, &v) < 0 ? -EINVAL : 0;
	case 0x2f: /* GNU_negative_offset_extended */
		if (uleb(b, pp, &reg) < 0 || uleb(b, pp, &u) < 0)
			return -EINVAL;
		set_reg(s, reg, REG_OFFSET, -(int64_t)u * cie->daf);
		return 0;
	default: /* set_loc and everything else */
		return -EINVAL;
	}
}

/* The next window of instructions from more, starting at run-time address
 * at: into *b.  false if none could be read. */
static bool refill(const struct profil_cfi_more *more, uintptr_t at, struct profil_cfi_buf *b)
{
	if (!more || at >= more->end)
		return false;
	uintptr_t want = more->end - at < more->size ? more->end - at : more->size;
	long n = more->read(more->ctx, at, more->buf, want);
	if (n <= 0 || (uintptr_t)n > want)
		return false;
	*b = (struct profil_cfi_buf){ more->buf, more->buf + n, at };
	return true;
}

/* Returns 0 at the end of the instructions, 1 if emit asked to stop, 2
 * past the end of the function, or -EINVAL.  Each advance first emits the
 * row of the location it leaves.  With more, the instructions go on past
 * [p, end) up to more->end: a window ending before that is followed by the
 * next, which starts at the first instruction the last could not hold. */
static int run_insns(struct run *r, const uint8_t *p, const uint8_t *end, uintptr_t addr,
		     uintptr_t *loc, uintptr_t pc_end, profil_cfi_emit *emit, void *ctx,
		     const struct profil_cfi_more *more)
{
	struct profil_cfi_buf b = { p, end, addr };
	for (;;) {
		if (p >= b.end) {
			if (!refill(more, b.addr + (uintptr_t)(b.end - b.p), &b))
				return 0;
			p = b.p;
		}
		const uint8_t *at = p;
		uint64_t adv = 0;
		int k = step(r, &b, &p, &adv);
		if (k < 0) {
			/* An instruction cut by the window's end: again from
			 * its start, in a window of its own. */
			if (at == b.p || !refill(more, b.addr + (uintptr_t)(at - b.p), &b))
				return k;
			p = b.p;
			continue;
		}
		if (k == 0 || adv == 0)
			continue;
		if (!emit) /* the CIE's instructions may not advance */
			return -EINVAL;
		struct profil_urow row;
		make_row(r, &row);
		if (emit(ctx, *loc, &row))
			return 1;
		uint64_t delta = adv * r->cie->caf;
		if (delta >= pc_end - *loc)
			return 2; /* past the function: the rest does not apply */
		*loc += delta;
	}
}

_Static_assert(sizeof(struct run) <= sizeof(struct profil_cfi_state),
	       "struct profil_cfi_state holds a struct run");

static int run_in(struct run *rp, const struct profil_cie *cie, const struct profil_fde *fde,
		  const struct profil_cfi_more *more, profil_cfi_emit *emit, void *ctx)
{
	struct run *r = rp;
	__builtin_memset(r, 0, sizeof *r); /* in place: a literal would be on the stack */
	r->cie = cie;
	r->cur.cfa = PROFIL_CFA_UNKNOWN;
	r->cur.cfa_reg = (uint32_t)-1;
	r->cur.ra = REG_OTHER;
	r->cur.fp = REG_SAME;
	uintptr_t loc = fde->pc_begin;
	if (cie->ra_reg != (uint32_t)PROFIL_DW_RA || !PROFIL_UNWIND_ARCH)
		r->lost_state = true;
	int e = run_insns(r, cie->insn, cie->insn_end, 0, &loc, fde->pc_end, NULL, NULL, NULL);
	if (e < 0)
		return e;
	r->init = r->cur;
	r->depth = 0;
	e = run_insns(r, fde->insn, fde->insn_end, fde->insn_addr, &loc, fde->pc_end, emit, ctx,
		      more);
	struct profil_urow row;
	if (e < 0) {
		/* From the instruction it does not know on, nothing is. */
		row = PROFIL_UROW_UNKNOWN;
		emit(ctx, loc, &row);
		return e;
	}
	if (e == 0) {
		make_row(r, &row);
		emit(ctx, loc, &row);
	}
	return 0;
}

/* The state on the stack: not inlined, so that it is on the stack only
 * when the caller gave no room for it. */
static __attribute__((noinline)) int run_on_stack(const struct profil_cie *cie,
						  const struct profil_fde *fde,
						  const struct profil_cfi_more *more,
						  profil_cfi_emit *emit, void *ctx)
{
	struct run r;
	return run_in(&r, cie, fde, more, emit, ctx);
}

int profil__cfi_run_more(const struct profil_cie *cie, const struct profil_fde *fde,
			 const struct profil_cfi_more *more, profil_cfi_emit *emit, void *ctx)
{
	if (more && more->state)
		return run_in((struct run *)(void *)more->state, cie, fde, more, emit, ctx);
	return run_on_stack(cie, fde, more, emit, ctx);
}

int profil__cfi_run(const struct profil_cie *cie, const struct profil_fde *fde,
		    profil_cfi_emit *emit, void *ctx)
{
	return profil__cfi_run_more(cie, fde, NULL, emit, ctx);
}
