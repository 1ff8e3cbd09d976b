/*
 * unwind-cfi.h - DWARF call-frame information (.eh_frame, .eh_frame_hdr)
 * turned into compact unwind rows.
 *
 * A row says, from its address up to the next row's, how to find the
 * caller's frame: the CFA (canonical frame address, the stack pointer
 * before the call) as SP + k or FP + k; the return address at CFA - 8 (the
 * only place x86-64 compilers put it; anything else makes the row
 * unknown); and the caller's frame pointer, unchanged or saved at CFA + k.
 * Everything the compact form cannot say (DWARF expressions, a CFA in
 * another register) is an UNKNOWN row, where the walk stops, visibly.
 *
 * The parser reads bytes in [p, end) only and never calls libc: the
 * table builder (normal context) runs it over a module's mapped
 * .eh_frame, and the walker (signal handler) over small copies made
 * through the fault guard.  Every function here is AS-safe.
 */
#ifndef PROFIL_SIG_UNWIND_CFI_H
#define PROFIL_SIG_UNWIND_CFI_H

#include <stdbool.h>
#include <stdint.h>

#include "../internal.h"

enum profil_cfa_rule {
	PROFIL_CFA_UNKNOWN = 0, /* no rule we can apply: the walk ends here */
	PROFIL_CFA_SP = 1,      /* CFA = SP + cfa */
	PROFIL_CFA_FP = 2,      /* CFA = FP + cfa */
	PROFIL_CFA_PLT = 3,     /* lazy-binding PLT entry: SP + 8, + 8 if (pc & 15) >= cfa */
	PROFIL_CFA_END = 4      /* return address undefined: the outermost frame */
};

/* The caller's frame pointer: unchanged, lost (restored some way we do not
 * follow), or saved at CFA + fp (any other value). */
#define PROFIL_FP_SAME 0
#define PROFIL_FP_LOST 1

struct profil_urow {
	uint32_t off; /* first address, from the module's load bias */
	int32_t cfa;
	int16_t fp;
	uint8_t rule; /* enum profil_cfa_rule */
	uint8_t pad;
};

/* The row where nothing is known: the walk ends there. */
#define PROFIL_UROW_UNKNOWN                                                                        \
	((struct profil_urow){ .rule = PROFIL_CFA_UNKNOWN, .fp = PROFIL_FP_LOST })

/* The encoding of .eh_frame_hdr's binary-search table that gcc, clang, GNU
 * ld, gold and lld write: DW_EH_PE_datarel | DW_EH_PE_sdata4. */
#define PROFIL_EH_HDR_TABLE_ENC 0x3b

/* A 32-bit word at p, of any alignment. */
static inline uint32_t profil__cfi_rd32(const uint8_t *p)
{
	uint32_t v;
	__builtin_memcpy(&v, p, 4);
	return v;
}

/* Where bytes copied from a module came from: address of byte 0. */
struct profil_cfi_buf {
	const uint8_t *p, *end;
	uintptr_t addr; /* run-time address of p[0] */
};

/* A parsed CIE: the part of it an FDE needs. */
struct profil_cie {
	const uint8_t *insn, *insn_end; /* initial instructions */
	uintptr_t insn_addr;
	uint64_t caf; /* code alignment factor */
	int64_t daf;  /* data alignment factor */
	uint32_t ra_reg;
	uint8_t fde_enc;   /* pointer encoding of FDE addresses */
	bool has_aug_data; /* 'z': FDEs carry an augmentation length */
	bool signal;       /* 'S': signal frame */
};

/* Parse the CIE whose body (after the length and id fields) is b.  0 or
 * -EINVAL.  AS-safe. */
PROFIL_HIDDEN int profil__cfi_cie(const struct profil_cfi_buf *b, struct profil_cie *cie);

/* An FDE's body after its CIE pointer: pc range and instructions. */
struct profil_fde {
	uintptr_t pc_begin, pc_end;
	const uint8_t *insn, *insn_end;
	uintptr_t insn_addr;
};
PROFIL_HIDDEN int profil__cfi_fde(const struct profil_cfi_buf *b, const struct profil_cie *cie,
				  struct profil_fde *fde);

/* Both: the bodies of a CIE and of an FDE that names it.  0 or -EINVAL.
 * AS-safe. */
PROFIL_HIDDEN int profil__cfi_pair(const struct profil_cfi_buf *cie_b,
				   const struct profil_cfi_buf *fde_b, struct profil_cie *cie,
				   struct profil_fde *fde);

/*
 * Run the CIE's then the FDE's instructions; call emit(ctx, pc, row) for
 * each address where the row may change (pc_begin first), with rows
 * off left 0 (the caller places them).  emit returning nonzero stops the
 * run.  Returns 0, or -EINVAL on an instruction it does not know or a
 * malformed one, after emitting an UNKNOWN row where it stood (the CIE's
 * own instructions failing emit nothing).  Bounded by the instruction
 * bytes.
 * AS-safe.
 */
typedef int profil_cfi_emit(void *ctx, uintptr_t pc, const struct profil_urow *row);
PROFIL_HIDDEN int profil__cfi_run(const struct profil_cie *cie, const struct profil_fde *fde,
				  profil_cfi_emit *emit, void *ctx);

/*
 * The same for an FDE whose buffer holds only the start of its
 * instructions (fde->insn up to fde->insn_end): the rest, up to run-time
 * address more->end, is read into more->buf (more->size bytes at a time,
 * which may be the FDE's own buffer) with more->read(more->ctx, addr,
 * buf, n), which returns the bytes it read (from 1 to n) or a negative
 * errno.  An instruction longer than more->size, or a read that fails,
 * ends the run as an instruction it does not know does.  AS-safe if read
 * is.
 */
/* Where the interpreter keeps its state (its registers' rules and the
 * remember_state stack, 272 bytes) instead of its own stack frame: the
 * handler's walk reads rows within a budget of the interrupted stack
 * (docs/signal-safety.md), so its walks keep it in the thread's walk
 * buffer. */
struct profil_cfi_state {
	_Alignas(8) unsigned char b[272];
};

struct profil_cfi_more {
	long (*read)(void *ctx, uintptr_t addr, uint8_t *buf, uintptr_t n);
	void *ctx;
	uint8_t *buf;
	uintptr_t size;
	uintptr_t end;
	struct profil_cfi_state *state; /* NULL: on the stack */
};
PROFIL_HIDDEN int profil__cfi_run_more(const struct profil_cie *cie, const struct profil_fde *fde,
				       const struct profil_cfi_more *more, profil_cfi_emit *emit,
				       void *ctx);

/* Read an encoded pointer (DW_EH_PE_*) at *pp, advancing it; datarel is
 * the base for DW_EH_PE_datarel.  0 or -EINVAL.  AS-safe. */
PROFIL_HIDDEN int profil__cfi_pointer(const struct profil_cfi_buf *b, const uint8_t **pp,
				      uint8_t enc, uintptr_t datarel, uintptr_t *out);

#endif
