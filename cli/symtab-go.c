/*
 * symtab-go.c - .gopclntab's function table (symtab-go.h).
 *
 * The layout, as the Go runtime (runtime/symtab.go) reads it: a header,
 *   magic u32 (0xfffffffa: Go 1.16-1.17, 0xfffffff0: 1.18-1.19,
 *   0xfffffff1: 1.20 and later), two zero bytes, the pc quantum (u8), the
 *   pointer size (u8), then pointer-sized words: nfunc, nfiles, (1.18+:
 *   textStart), funcnameOffset, cuOffset, filetabOffset, pctabOffset,
 *   pclnOffset, each offset from the table's start;
 * at pclnOffset the function table, nfunc + 1 pairs sorted by pc, the last
 * one's pc the end of the text: (entry, funcoff) as two u32s, the entry an
 * offset from textStart (1.18+), or two pointer-sized words, the entry an
 * address (1.16); each funcoff, from pclnOffset, leads to the function's
 * _func record, whose second field (an s32 after the entry, itself u32 or
 * pointer-sized like the table's) is its name's offset in funcnametab.
 * Every offset is checked against the section's size.
 */
#include "symtab-go.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct table {
	const uint8_t *p;
	size_t len;
	unsigned ptr; /* 4 or 8 */
	bool little;
};

static uint64_t get(const struct table *t, uint64_t off, unsigned size, bool *ok)
{
	if (off > t->len || size > t->len - off) {
		*ok = false;
		return 0;
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++) {
		unsigned b = t->little ? size - 1 - i : i;
		v = v << 8 | t->p[off + b];
	}
	return v;
}

static Elf_Scn *section(Elf *elf, const char *want, GElf_Shdr *sh)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		const char *name;
		if (gelf_getshdr(scn, sh) && (name = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    strcmp(name, want) == 0)
			return scn;
	}
	return NULL;
}

static int go_cmp(const void *a, const void *b)
{
	const struct go_func *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

size_t symtab_go_functions(Elf *elf, struct go_func **fns, char **names)
{
	GElf_Shdr sh, tsh;
	/* its name in a position-independent build: .data.rel.ro.gopclntab */
	Elf_Scn *scn = elf ? section(elf, ".gopclntab", &sh) : NULL;
	if (!scn && elf)
		scn = section(elf, ".data.rel.ro.gopclntab", &sh);
	Elf_Data *d = scn && sh.sh_type != SHT_NOBITS ? elf_getdata(scn, NULL) : NULL;
	GElf_Ehdr eh;
	if (!d || !d->d_buf || d->d_size < 16 || !gelf_getehdr(elf, &eh))
		return 0;
	struct table t = { d->d_buf, d->d_size, 0, eh.e_ident[EI_DATA] == ELFDATA2LSB };
	bool ok = true;
	uint32_t magic = (uint32_t)get(&t, 0, 4, &ok);
	bool v116 = magic == 0xfffffffa, v118 = magic == 0xfffffff0 || magic == 0xfffffff1;
	t.ptr = t.p[7];
	if ((!v116 && !v118) || t.p[4] || t.p[5] || (t.ptr != 4 && t.ptr != 8))
		return 0;
	uint64_t w = t.ptr, at = 8;
	uint64_t nfunc = get(&t, at, t.ptr, &ok);
	at += 2 * w; /* nfunc, nfiles */
	uint64_t text = 0;
	if (v118) {
		text = get(&t, at, t.ptr, &ok);
		at += w;
		/* A position-independent binary may leave it to a relocation:
		 * runtime.text is where .text starts. */
		if (!text && section(elf, ".text", &tsh))
			text = tsh.sh_addr;
	}
	uint64_t nameoff = get(&t, at, t.ptr, &ok);
	uint64_t pcln = get(&t, at + 4 * w, t.ptr, &ok);
	unsigned ent = v118 ? 4 : t.ptr; /* size of a function table field */
	if (!ok || nfunc == 0 || nfunc > t.len / (2 * ent) || nameoff >= t.len || pcln >= t.len ||
	    (nfunc + 1) * 2 * ent > t.len - pcln)
		return 0;

	struct go_func *f = xcalloc(nfunc, sizeof *f);
	size_t n = 0, bytes = 0;
	for (uint64_t i = 0; i < nfunc && ok; i++) {
		uint64_t row = pcln + i * 2 * ent;
		uint64_t entry = get(&t, row, ent, &ok), next = get(&t, row + 2 * ent, ent, &ok);
		uint64_t fo = get(&t, row + ent, ent, &ok);
		uint64_t name = get(&t, pcln + fo + ent, 4, &ok);
		if (!ok || next < entry || name >= t.len - nameoff)
			break;
		const char *s = (const char *)t.p + nameoff + name;
		size_t len = strnlen(s, t.len - nameoff - name);
		if (len == t.len - nameoff - name || len == 0)
			continue;
		f[n++] = (struct go_func){ text + entry, next - entry, s };
		bytes += len + 1;
	}
	if (!ok || n == 0) {
		free(f);
		return 0;
	}
	/* The names, copied: the Elf's data is not ours to keep. */
	char *block = xmalloc(bytes), *o = block;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(f[i].name) + 1;
		memcpy(o, f[i].name, len);
		f[i].name = o;
		o += len;
	}
	qsort(f, n, sizeof *f, go_cmp);
	*fns = f;
	*names = block;
	return n;
}
