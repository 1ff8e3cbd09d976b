/*
 * symtab-go.h - function names and inline chains of a Go binary from its
 * .gopclntab, the table the Go runtime itself symbolizes with.  It survives
 * `go build -ldflags="-s -w"`, which drops the symbol table and DWARF, so a
 * stripped Go program still gets main.burnA rather than addresses.
 */
#ifndef PCPROF_SYMTAB_GO_H
#define PCPROF_SYMTAB_GO_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct go_func {
	uint64_t start, size; /* link-time */
	const char *name;     /* in the names block */
};

/* elf's .gopclntab (Go 1.16 and later formats), read in place: it is valid
 * as long as elf is.  NULL if elf has none in a format known here. */
struct go_pcln *symtab_go_open(Elf *elf);
void symtab_go_close(struct go_pcln *g);

/*
 * The functions of g, sorted by start, in *fns (free it), their names in
 * one block *names (free it).  Returns how many; 0 (nothing allocated) if
 * the table is inconsistent.
 */
size_t symtab_go_functions(const struct go_pcln *g, struct go_func **fns, char **names);

/* One function of an inline chain; strings in elf's data. */
struct go_frame {
	const char *function;
	const char *file; /* or NULL */
	int line;         /* or 0 */
};

/*
 * The chain of functions at link-time address addr, as the inline tree of
 * its function has it (Go 1.19 and later): the function the code belongs
 * to, then each function inlined into it, outermost first, into v[0..max);
 * each frame's position is the call of the next, the last's the address's
 * own.  Returns how many: 0 if addr is in no function, 1 outside inlined
 * code (or without a tree).  A chain deeper than max keeps its function and
 * its innermost frames.
 */
size_t symtab_go_frames(const struct go_pcln *g, uint64_t addr, struct go_frame *v, size_t max);

#endif
