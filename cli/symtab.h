/*
 * symtab.h - symbolization for pcprof report and export, with elfutils
 * (libdwfl/libdw): .symtab, .dynsym, separate debug info by build-id or
 * debuglink, DWARF lines.  Works offline on the binaries as they are on disk
 * now, and says when one changed since recording (build-id mismatch).
 */
#ifndef PCPROF_SYMTAB_H
#define PCPROF_SYMTAB_H

#include <stdbool.h>
#include <stdio.h>

#include "profile.h"

struct sym_info {
	const char *function;    /* symbol name, or NULL if unknown */
	uint64_t fn_start;       /* link-time start of the function (0 if unknown) */
	uint64_t fn_size;
	const char *file;        /* source file, or NULL */
	int line;                /* source line, or 0 */
	const char *module;      /* module path (never NULL; "[unknown]" outside modules) */
};

struct symtab;

/* Prepare symbolization for one process's modules.  Problems (missing
 * file, no symbols, build-id mismatch) are collected as notes, not errors. */
struct symtab *symtab_open(const struct pp_process *proc);

/* Symbolize one runtime pc of module `module` (PP_NO_MODULE allowed).
 * Strings stay valid until symtab_close.  Returns true if a function was
 * found. */
bool symtab_lookup(struct symtab *st, uint32_t module, uint64_t pc, struct sym_info *out);

/* Print the collected notes (modules without symbols and the Debian package
 * that would fix it, build-id mismatches), one per line, to f. */
void symtab_notes(struct symtab *st, FILE *f);

void symtab_close(struct symtab *st);

#endif
