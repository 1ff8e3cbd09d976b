/*
 * unwind.c - the stack walker of the signal path (contract in unwind.h).
 *
 * Each step finds the row in effect at the frame's pc (a binary search in
 * the module set, then the module's row cache: unwind-tables.c), applies
 * it (CFA = SP + k or FP + k, the return address at CFA - 8, the caller's
 * frame pointer unchanged or saved), reads the two words through the
 * fault guard and checks what it got: the CFA must be above the stack
 * pointer and 8-aligned, and the return address must be in code we have
 * unwind information for.  A frame whose row is unknown may be the
 * kernel's signal trampoline: then the walk continues in the context the
 * kernel saved, with its exact pc.  Anything else ends the walk with
 * PCPROF_FRAME_UNKNOWN.
 *
 * A bounded walk (profil__unwind_bounded) runs where a fault could not be
 * survived: each load is checked against the stack range it was given
 * before it is made, and the two steps that read other memory (the
 * trampoline's code, a module's own .eh_frame) are left out.
 */
#include "unwind.h"

#include "../arch/guard.h"
#include "../arch/unwind-arch.h"
#include "unwind-tables.h"

struct frame {
	struct profil_uregs r;
	bool exact; /* r.pc is where it was interrupted, not a return address */
	int found;  /* enum profil_ufound */
	struct profil_urow row;
};

enum step { STEP_OK, STEP_END, STEP_UNKNOWN };

/* What a walk may read: anything through the guard (lo == hi == 0), or
 * only [lo, hi), without a fault possible. */
struct reach {
	uintptr_t lo, hi;
};

static void resolve(struct profil_uwalk *w, struct frame *f)
{
	f->found = profil__unwind_row(w, f->exact ? f->r.pc : f->r.pc - 1, &f->row);
}

static bool unknown(const struct frame *f)
{
	return f->found == PROFIL_UFOUND_NONE || f->row.rule == PROFIL_CFA_UNKNOWN;
}

/* A frame with no rule may be the signal trampoline: the handler returned
 * to its start, or (an exact pc) the signal came while it ran. */
static bool sigframe(const struct reach *m, const struct frame *f, struct frame *out)
{
	if (m->hi)
		return false;
	if (profil__usigframe(f->r.pc, f->r.sp, &out->r) ||
	    (f->exact && f->r.pc >= PROFIL_SIGTRAMP_IN &&
	     profil__usigframe(f->r.pc - PROFIL_SIGTRAMP_IN, f->r.sp, &out->r))) {
		out->exact = true;
		return true;
	}
	return false;
}

static bool load(const struct reach *m, uintptr_t at, uintptr_t *out)
{
	uint64_t v;
	if (m->hi && (at < m->lo || at > m->hi - 8))
		return false;
	if (profil__gload((const void *)at, 8, &v) < 0)
		return false;
	*out = (uintptr_t)v;
	return true;
}

/* The caller of f, into out (its registers; not resolved). */
static enum step caller(const struct reach *m, const struct frame *f, struct frame *out)
{
	if (unknown(f))
		return sigframe(m, f, out) ? STEP_OK : STEP_UNKNOWN;
	const struct profil_urow *w = &f->row;
	uintptr_t cfa;
	switch (w->rule) {
	case PROFIL_CFA_END:
		return STEP_END;
	case PROFIL_CFA_SP:
		cfa = f->r.sp + (uintptr_t)(intptr_t)w->cfa;
		break;
	case PROFIL_CFA_FP:
		if (!f->r.fp_ok)
			return STEP_UNKNOWN;
		cfa = f->r.fp + (uintptr_t)(intptr_t)w->cfa;
		break;
	case PROFIL_CFA_PLT:
		cfa = f->r.sp + 8 + ((f->r.pc & 15) >= (uintptr_t)w->cfa ? 8 : 0);
		break;
	default:
		return STEP_UNKNOWN;
	}
	if (cfa <= f->r.sp || (cfa & 7) || cfa < (uintptr_t)-PROFIL_RA_AT)
		return STEP_UNKNOWN;
	out->exact = false;
	out->r.sp = cfa;
	if (!load(m, cfa + (uintptr_t)(intptr_t)PROFIL_RA_AT, &out->r.pc))
		return STEP_UNKNOWN;
	if (w->fp == PROFIL_FP_SAME) {
		out->r.fp = f->r.fp;
		out->r.fp_ok = f->r.fp_ok;
	} else if (w->fp == PROFIL_FP_LOST) {
		out->r.fp_ok = false;
	} else {
		out->r.fp_ok = load(m, cfa + (uintptr_t)(intptr_t)w->fp, &out->r.fp);
	}
	return out->r.pc == 0 ? STEP_END : STEP_OK;
}

void profil__unwind_use_buf(struct profil_uwalk *w, struct profil_walk_buf *b)
{
	b->x.fde = b->fde;
	b->x.fde_size = sizeof b->fde;
	b->x.rows = b->rows;
	b->x.work = &b->work;
	b->x.run = &b->run;
	w->scratch = &b->x;
}

/* A walk's state: two frames used in turn (copying one over the other
 * cost a store-forwarding stall per step), and the tables' walk.  In the
 * thread's walk buffer for the handler's walks, off the interrupted stack
 * (a budget: docs/signal-safety.md). */
struct walk_state {
	struct frame fr[2];
	struct profil_uwalk walk;
};
_Static_assert(sizeof(struct walk_state) <= sizeof(((struct profil_walk_buf *)0)->state),
	       "struct profil_walk_buf holds a struct walk_state");

static int walk_in(struct walk_state *ws, const void *uc, uintptr_t *pcs, int max,
		   const struct reach *stack, struct profil_walk_buf *buf)
{
	__builtin_memset(ws->fr, 0, sizeof ws->fr);
	ws->fr[0].exact = true;
	struct frame *f = &ws->fr[0], *next = &ws->fr[1];
	profil__uregs_from_uc(uc, &f->r);
	pcs[0] = f->r.pc;
	int n = 1;
	/* A bounded walk reads from the interrupted stack pointer up: the
	 * part of the stack in use, mapped.  Off that stack (a coroutine's,
	 * our own), it reads nothing. */
	struct reach bounded = *stack, *m = &bounded;
	bool off_stack = m->hi && (f->r.sp < m->lo || f->r.sp >= m->hi);
	if (m->hi)
		m->lo = f->r.sp;
	if (!PROFIL_UNWIND_ARCH || off_stack) {
		if (max > 1)
			pcs[n++] = PCPROF_FRAME_UNKNOWN;
		return n;
	}
	struct profil_uwalk *walk = &ws->walk;
	profil__unwind_enter(walk);
	walk->tables_only = m->hi != 0;
	if (buf)
		profil__unwind_use_buf(walk, buf);
	resolve(walk, f);
	while (n < max) {
		enum step s = caller(m, f, next);
		if (s == STEP_END)
			break;
		if (s == STEP_OK) {
			resolve(walk, next);
			/* A return address to the trampoline: its frame is not
			 * shown, the interrupted one is, exactly. */
			if (!next->exact && unknown(next) && sigframe(m, next, next))
				resolve(walk, next);
			if (next->found == PROFIL_UFOUND_NONE)
				s = STEP_UNKNOWN; /* not code we know: a bad frame */
		}
		if (s == STEP_UNKNOWN) {
			pcs[n++] = PCPROF_FRAME_UNKNOWN;
			break;
		}
		if (n == max - 1) {
			pcs[n++] = PCPROF_FRAME_TRUNCATED;
			break;
		}
		pcs[n++] = next->exact ? next->r.pc : next->r.pc - 1;
		struct frame *t = f;
		f = next;
		next = t;
	}
	profil__unwind_leave(walk);
	return n;
}

/* The state on the stack (a walk without a walk buffer: tests, bench). */
static __attribute__((noinline)) int walk_on_stack(const void *uc, uintptr_t *pcs, int max,
						   const struct reach *stack)
{
	struct walk_state ws;
	return walk_in(&ws, uc, pcs, max, stack, NULL);
}

static int unwind_walk(const void *uc, uintptr_t *pcs, int max, const struct reach *stack,
		       struct profil_walk_buf *buf)
{
	if (max <= 0)
		return 0;
	if (buf)
		return walk_in((struct walk_state *)(void *)buf->state, uc, pcs, max, stack, buf);
	return walk_on_stack(uc, pcs, max, stack);
}

int profil__unwind(const void *uc, uintptr_t *pcs, int max)
{
	const struct reach any = { 0, 0 };
	return unwind_walk(uc, pcs, max, &any, NULL);
}

int profil__unwind_bounded(const void *uc, uintptr_t *pcs, int max, uintptr_t lo, uintptr_t hi)
{
	const struct reach stack = { lo, hi > lo ? hi : lo + 1 };
	return unwind_walk(uc, pcs, max, &stack, NULL);
}

int profil__unwind_into(const void *uc, struct profil_walk_buf *b, int max, bool bounded,
			uintptr_t lo, uintptr_t hi)
{
	if (max > PROFIL_STACK_MAX)
		max = PROFIL_STACK_MAX;
	const struct reach r = { bounded ? lo : 0, bounded ? (hi > lo ? hi : lo + 1) : 0 };
	return unwind_walk(uc, b->pcs, max, &r, b);
}
