/*
 * symtab-go.h - function names of a Go binary from its .gopclntab, the
 * table the Go runtime itself symbolizes with.  It survives `go build
 * -ldflags="-s -w"`, which drops the symbol table and DWARF, so a stripped
 * Go program still gets main.burnA rather than addresses.
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

/*
 * The functions of elf's .gopclntab (Go 1.16 and later formats), sorted by
 * start, in *fns (free it), their names in one block *names (free it).
 * Returns how many; 0 (nothing allocated) if elf has no table in a format
 * known here or the table is inconsistent.
 */
size_t symtab_go_functions(Elf *elf, struct go_func **fns, char **names);

#endif
