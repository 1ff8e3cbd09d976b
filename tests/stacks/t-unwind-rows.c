/*
 * t-unwind-rows - the rows the walker finds (lib/sig/unwind-cfi.c,
 * unwind-tables.c), exactly, by each of its ways:
 *   - known_fn, assembled here with CFI of our own (push/mov frame set-up,
 *     remember/restore state, leave, a CFA expression, restore, undefined
 *     return address), has the row we wrote at each of its 16 bytes;
 *   - plt_like carries GNU ld's lazy PLT expression: a PLT row;
 *   - at every 13th byte of libc, ld.so and this program, the row a walk
 *     finds the first time (read from the module's file, or from the rows
 *     kept of its function), the second time (its module's cache), from
 *     the file alone (profil__unwind_row_file), and by the direct path (one
 *     FDE interpreted in memory, what the handler does for a module loaded
 *     since the last refresh) are the same.
 */
#include <link.h>

#include "sig/unwind-tables.h"
#include "unwind-build.h"
#include "stacks.h"

__asm__(".text\n"
	".globl known_fn\n"
	".type known_fn, @function\n"
	"known_fn:\n"
	".cfi_startproc\n"
	"pushq %rbp\n"                     /* 0: SP+8 */
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbp, -16\n"
	"movq %rsp, %rbp\n"                /* 1: SP+16, rbp at CFA-16 */
	".cfi_def_cfa_register %rbp\n"
	"subq $32, %rsp\n"                 /* 4: FP+16 */
	".cfi_remember_state\n"
	"leave\n"                          /* 8: FP+16 */
	".cfi_def_cfa %rsp, 8\n"
	"ret\n"                            /* 9: SP+8 */
	".cfi_restore_state\n"
	"nop\n"                            /* 10: FP+16 again */
	".cfi_escape 0x0f, 0x02, 0x76, 0x08\n" /* def_cfa_expression: breg6 8 */
	"nop\n"                            /* 11: unknown */
	".cfi_def_cfa %rsp, 16\n"
	"nop\n"                            /* 12: SP+16 */
	".cfi_restore %rbp\n"
	"nop\n"                            /* 13: SP+16, rbp unchanged */
	".cfi_undefined %rip\n"
	"nop\n"                            /* 14: the outermost frame */
	"ret\n"                            /* 15 */
	".cfi_endproc\n"
	".size known_fn, .-known_fn\n"
	".globl plt_like\n"
	".type plt_like, @function\n"
	"plt_like:\n"
	".cfi_startproc\n"
	".cfi_escape 0x0f, 0x0b, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22\n"
	"nop\n"
	"ret\n"
	".cfi_endproc\n"
	".size plt_like, .-plt_like\n");
void known_fn(void);
void plt_like(void);

struct want {
	int off, rule, cfa, fp;
};

enum { U = PROFIL_CFA_UNKNOWN, SP = PROFIL_CFA_SP, FP = PROFIL_CFA_FP, END = PROFIL_CFA_END };

static const struct want known[] = {
	{ 0, SP, 8, PROFIL_FP_SAME },   { 1, SP, 16, -16 }, { 2, SP, 16, -16 }, { 3, SP, 16, -16 },
	{ 4, FP, 16, -16 },             { 5, FP, 16, -16 }, { 6, FP, 16, -16 }, { 7, FP, 16, -16 },
	{ 8, FP, 16, -16 },             { 9, SP, 8, -16 },  { 10, FP, 16, -16 }, { 11, U, 0, 0 },
	{ 12, SP, 16, -16 },            { 13, SP, 16, PROFIL_FP_SAME },
	{ 14, END, 0, 0 },              { 15, END, 0, 0 },
};

/* Where the walks read records, as the handler's do: whole functions'
 * rows are kept. */
static struct profil_walk_buf wbuf;

static void check_row(const char *what, uintptr_t pc, const struct want *w)
{
	struct profil_uwalk uw;
	struct profil_urow row, again, file, d;
	profil__unwind_enter(&uw);
	profil__unwind_use_buf(&uw, &wbuf);
	int how = profil__unwind_row(&uw, pc, &row);
	profil__unwind_leave(&uw);
	profil__unwind_enter(&uw); /* a later walk: the cache */
	int how2 = profil__unwind_row(&uw, pc, &again);
	profil__unwind_leave(&uw);
	T_NOTE("%s+%d: found %d, rule %d cfa %d fp %d", what, w->off, how, row.rule, row.cfa,
	       row.fp);
	T_EQ(how, PROFIL_UFOUND_TABLE);
	T_EQ(how2, PROFIL_UFOUND_TABLE);
	T_EQ(row.rule, w->rule);
	if (w->rule == SP || w->rule == FP || w->rule == PROFIL_CFA_PLT) {
		T_EQ(row.cfa, w->cfa);
		T_EQ(row.fp, w->fp);
	}
	T_EQ(profil__unwind_row_file(pc, &file), 0);
	T_EQ(profil__unwind_row_direct(pc, &d), PROFIL_UFOUND_DIRECT);
	const struct profil_urow *other[] = { &again, &file, &d };
	for (unsigned i = 0; i < 3; i++) {
		T_EQ(other[i]->rule, row.rule);
		T_EQ(other[i]->cfa, row.cfa);
		T_EQ(other[i]->fp, row.fp);
	}
}

/* The same row, by the rule's meaning: UNKNOWN and END rows say nothing
 * more. */
static bool same(const struct profil_urow *a, const struct profil_urow *b)
{
	return a->rule == b->rule &&
	       (a->rule == U || a->rule == END || (a->cfa == b->cfa && a->fp == b->fp));
}

static long compared, with_rule;

static int compare_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size, (void)arg;
	const char *name = info->dlpi_name;
	if (name[0] && !strstr(name, "libc.so") && !strstr(name, "ld-linux"))
		return 0;
	struct profil_uwalk uw;
	profil__unwind_enter(&uw);
	profil__unwind_use_buf(&uw, &wbuf);
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		for (uintptr_t pc = lo; pc < hi; pc += 13) {
			struct profil_urow t, c, f, d;
			int ht = profil__unwind_row(&uw, pc, &t);
			int hc = profil__unwind_row(&uw, pc, &c);
			int hf = profil__unwind_row_file(pc, &f);
			int hd = profil__unwind_row_direct(pc, &d);
			/* No FDE covers pc: the module's row is unknown. */
			if (hd == PROFIL_UFOUND_NONE && ht == PROFIL_UFOUND_TABLE)
				hd = PROFIL_UFOUND_TABLE, d = (struct profil_urow){ .rule = U };
			bool ok = ht == PROFIL_UFOUND_TABLE && hc == PROFIL_UFOUND_TABLE && hf == 0 &&
				  same(&t, &d) && same(&c, &d) && same(&f, &d);
			if (!ok) {
				T_NOTE("%s %#lx: first %d (rule %d cfa %d fp %d), cached %d (rule %d "
				       "cfa %d fp %d), file %d (rule %d cfa %d fp %d), direct %d (rule "
				       "%d cfa %d fp %d)",
				       name[0] ? name : "(main)", (unsigned long)(pc - info->dlpi_addr),
				       ht, t.rule, t.cfa, t.fp, hc, c.rule, c.cfa, c.fp, hf, f.rule, f.cfa,
				       f.fp, hd, d.rule, d.cfa, d.fp);
				T_FAIL("the ways to a row differ");
			}
			compared++;
			with_rule += t.rule == SP || t.rule == FP;
		}
	}
	profil__unwind_leave(&uw);
	return 0;
}

int main(void)
{
	st_guard_on();
	T_EQ(profil__unwind_refresh(), 0);
	for (unsigned i = 0; i < sizeof known / sizeof known[0]; i++)
		check_row("known_fn", (uintptr_t)known_fn + known[i].off, &known[i]);
	struct want plt = { 0, PROFIL_CFA_PLT, 11, PROFIL_FP_SAME };
	check_row("plt_like", (uintptr_t)plt_like, &plt);

	dl_iterate_phdr(compare_module, NULL);
	struct profil_unwind_stats st;
	profil__unwind_stats(&st);
	T_NOTE("%ld pcs compared, %ld with a CFA rule; %llu rows read from files, %llu kept "
	       "functions' rows",
	       compared, with_rule, (unsigned long long)st.file_rows,
	       (unsigned long long)st.funcs);
	T_OK(compared > 10000);
	T_OK(with_rule > compared / 2);
	/* every way was taken: files read, functions' rows kept and used */
	T_OK(st.file_rows > 1000 && st.funcs > 100 && st.func_rows > 1000);
	return 0;
}
