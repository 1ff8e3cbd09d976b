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

#include <libelf.h>

#include "profile.h"

struct membuf;

struct sym_info {
	const char *function; /* symbol name, or NULL if unknown */
	uint64_t fn_start;    /* link-time start of the function (0 if unknown) */
	uint64_t fn_size;
	const char *file;   /* source file, or NULL */
	int line;           /* source line, or 0 */
	const char *module; /* module path (never NULL; "[unknown]" outside modules) */

	const char *comp_dir; /* DWARF compilation directory of file's unit, or NULL */
	bool pseudo;          /* function is SYM_STARTUP, no symbol's name */
};

/*
 * The name of the pc that is the entry point (e_entry) of a process's main
 * executable, whatever symbol is there (_start): the library charges the
 * CPU time from the exec to its first sample (kernel, dynamic loader,
 * constructors before its own) there, without a stack, and a real signal
 * essentially never lands on the first instruction of _start.
 * symtab_lookup gives it with pseudo set, fn_start the entry point, size
 * 1, and no source line, so that every report and export names it alike.
 */
#define SYM_STARTUP "[startup]"

struct symtab;

/* Prepare symbolization for one process's modules.  Problems (missing
 * file, no symbols, build-id mismatch) are collected as notes, not errors. */
struct symtab *symtab_open(const struct pp_process *proc);

/* Symbolize one runtime pc of module `module` (PP_NO_MODULE allowed).
 * The main executable's entry point is SYM_STARTUP (see above).
 * Strings stay valid until symtab_close.  Returns true if a function was
 * found.  When none was, function is NULL but fn_start/fn_size may still
 * give the range of the anonymous function around pc, from the unwind
 * tables (.eh_frame), so callers can group its pcs. */
bool symtab_lookup(struct symtab *st, uint32_t module, uint64_t pc, struct sym_info *out);

/*
 * One function of the chain that DWARF gives for an address: the function
 * the code belongs to (DW_TAG_subprogram), then each function inlined
 * into it (DW_TAG_inlined_subroutine), outermost first.  A frame's file
 * and line are the position the address stands for in that function:
 * the call of the next frame's function (DW_AT_call_file/call_line), or,
 * in the last (innermost) frame, the address's own line.
 */
struct sym_frame {
	const char *function;  /* raw: DW_AT_linkage_name, else DW_AT_name */
	const char *decl_file; /* where the function is defined, or NULL */
	int decl_line;         /* DW_AT_decl_line, or 0 */
	const char *file;      /* position in it, or NULL */
	int line;              /* or 0 */
};

#define SYM_MAX_FRAMES 32

/* The DWARF chain at runtime pc of module (see struct sym_frame) into
 * v[0..max); returns the number of frames: 0 if the module has no DWARF
 * for pc, 1 if pc is in no inlined code.  A chain deeper than max keeps
 * its subprogram and innermost frames.  Strings as for symtab_lookup. */
size_t symtab_frames(struct symtab *st, uint32_t module, uint64_t pc, struct sym_frame *v,
		     size_t max);

/* The ELF file whose .symtab has this module's functions (the module
 * itself, or its separate debug file), for tools such as gprof that need
 * one; NULL if there is none. */
const char *symtab_symbol_file(struct symtab *st, uint32_t module);

/* The files read for module's symbols: its ELF file and its separate
 * debug file, each a path that can be opened again, or NULL (none, or a
 * member of an archive). */
void symtab_module_files(struct symtab *st, uint32_t module, const char **elf, const char **debug);

/* The ELF image of module's code as symbolization uses it (its own file,
 * checked by build id, perhaps from an archive or debuginfod), for reading
 * instructions (annotate --asm): never a file of another build.  NULL if
 * the module lost its symbols or only its debug file, which has no code,
 * was found.  Owned by the symtab, valid until symtab_close. */
Elf *symtab_module_elf(struct symtab *st, uint32_t module);

/* Print the collected notes (modules without symbols and the Debian package
 * that would fix it, build-id mismatches), one per line, to f: "note: ..."
 * or "warning: ...", for the files in which a pc was looked up.  A file is
 * read once however many processes mapped it, and its note is printed once
 * per pcprof run, by the first call that finds it among its modules.
 * brief not NULL (zeroed before the first call): a module that merely lacks
 * debug symbols is not a line of its own but a name added to brief, which
 * symtab_brief_notes then prints as one line ("note: no debug symbols for
 * make (make-dbgsym), cc1 (cpp-12-dbgsym): ...") and resets. */
void symtab_notes(struct symtab *st, FILE *f, struct membuf *brief);
void symtab_brief_notes(struct membuf *brief, FILE *f);

void symtab_close(struct symtab *st);

#endif
