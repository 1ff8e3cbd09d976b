/*
 * symtab-go.c - .gopclntab's function table and inline tree (symtab-go.h).
 *
 * The layout, as the Go runtime (runtime/symtab.go, runtime2.go) reads it:
 * a header,
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
 *
 * Inlining (1.18 and later only): a 1.18+ _func is, in u32s, entryoff,
 * nameoff, args, deferreturn, pcsp, pcfile, pcln, npcdata, cuOffset, (1.20+:
 * startLine), then four bytes ending with nfuncdata; after it npcdata u32
 * offsets of pc-value tables in pctab, then nfuncdata u32 offsets from the
 * module's gofunc address (0xffffffff: none).  Table 2 (PCDATA_InlTreeIndex)
 * gives at each pc the index, in the tree that funcdata 3 (FUNCDATA_InlTree)
 * points to, of the innermost inlined call the pc is in, -1 outside inlined
 * code.  A tree entry is 20 bytes up to 1.19 (parent s16, funcID, pad, file,
 * line, name offset, parentPc: s32s) and 16 from 1.20 (funcID, 3 pads, name
 * offset, parentPc, startLine); parentPc, from the entry, is a pc whose
 * position is the call, so the frame around the call is the one at that pc.
 * A pc-value table is a list of (value delta, pc delta) varint pairs, the
 * value delta zig-zag coded, the pc delta in quanta, from value -1 at the
 * entry, ending with a zero value delta (except the first).  pcfile's values
 * index the function's unit's files: the u32 at cutab[cuOffset + value] is
 * the file name's offset in filetab.
 *
 * gofunc itself is in no header: it is a field of the runtime's moduledata
 * (in 1.18-1.19 its word 38, in 1.20 and later 40), found by its first two
 * words, the table's address and that of the function names.  A position-
 * independent binary leaves them to relocations: no inline tree there.
 * Only Go 1.19 was at hand to test (1.18 shares its magic; 1.20's layout
 * is read from the facts above): a gofunc word that is no address in the
 * file, or a tree that does not lead back to the function, gives no chain.
 *
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

struct go_pcln {
	struct table t;
	bool v118, v120;
	unsigned ent;     /* size of a function table field: 4, or ptr (1.16) */
	unsigned quantum; /* pc quantum */
	uint64_t nfunc, text, nameoff, cuoff, fileoff, pctab, pcln;
	struct table gofunc; /* from the gofunc address to its section's end */
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

/* The bytes of an allocated section with contents in the file. */
static Elf_Data *contents(Elf_Scn *scn, const GElf_Shdr *sh)
{
	if (sh->sh_type == SHT_NOBITS || !(sh->sh_flags & SHF_ALLOC))
		return NULL;
	Elf_Data *d = elf_getdata(scn, NULL);
	return d && d->d_buf && d->d_size == sh->sh_size ? d : NULL;
}

/* The runtime's moduledata: the aligned word pair (at, names) in a data
 * section; its gofunc word, at word index, as the table g->gofunc. */
static void find_gofunc(Elf *elf, struct go_pcln *g, uint64_t at, unsigned index)
{
	uint64_t w = g->t.ptr, names = at + g->nameoff, gofunc = 0;
	bool found = false;
	GElf_Shdr sh;
	for (Elf_Scn *scn = NULL; !found && (scn = elf_nextscn(elf, scn));) {
		Elf_Data *d = gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_WRITE)
				      ? contents(scn, &sh)
				      : NULL;
		if (!d)
			continue;
		struct table s = { d->d_buf, d->d_size, g->t.ptr, g->t.little };
		bool ok = true;
		for (uint64_t o = 0; o + (index + 1) * w <= s.len && !found; o += w)
			if (get(&s, o, g->t.ptr, &ok) == at &&
			    get(&s, o + w, g->t.ptr, &ok) == names) {
				gofunc = get(&s, o + index * w, g->t.ptr, &ok);
				found = ok;
			}
	}
	for (Elf_Scn *scn = NULL; found && (scn = elf_nextscn(elf, scn));) {
		Elf_Data *d = gelf_getshdr(scn, &sh) ? contents(scn, &sh) : NULL;
		if (d && gofunc >= sh.sh_addr && gofunc - sh.sh_addr < sh.sh_size) {
			uint64_t off = gofunc - sh.sh_addr;
			g->gofunc = (struct table){ (const uint8_t *)d->d_buf + off,
						    sh.sh_size - off, g->t.ptr, g->t.little };
			return;
		}
	}
}

struct go_pcln *symtab_go_open(Elf *elf)
{
	GElf_Shdr sh, tsh;
	/* its name in a position-independent build: .data.rel.ro.gopclntab */
	Elf_Scn *scn = elf ? section(elf, ".gopclntab", &sh) : NULL;
	if (!scn && elf)
		scn = section(elf, ".data.rel.ro.gopclntab", &sh);
	Elf_Data *d = scn && sh.sh_type != SHT_NOBITS ? elf_getdata(scn, NULL) : NULL;
	GElf_Ehdr eh;
	if (!d || !d->d_buf || d->d_size < 16 || !gelf_getehdr(elf, &eh))
		return NULL;
	struct table t = { d->d_buf, d->d_size, 0, eh.e_ident[EI_DATA] == ELFDATA2LSB };
	bool ok = true;
	uint32_t magic = (uint32_t)get(&t, 0, 4, &ok);
	bool v116 = magic == 0xfffffffa, v118 = magic == 0xfffffff0 || magic == 0xfffffff1;
	t.ptr = t.p[7];
	if ((!v116 && !v118) || t.p[4] || t.p[5] || (t.ptr != 4 && t.ptr != 8) || !t.p[6])
		return NULL;
	struct go_pcln *g = xcalloc(1, sizeof *g);
	*g = (struct go_pcln){ .t = t, .v118 = v118, .v120 = magic == 0xfffffff1 };
	g->quantum = t.p[6];
	uint64_t w = t.ptr, at = 8;
	g->nfunc = get(&t, at, t.ptr, &ok);
	at += 2 * w; /* nfunc, nfiles */
	if (v118) {
		g->text = get(&t, at, t.ptr, &ok);
		at += w;
		/* A position-independent binary may leave it to a relocation:
		 * runtime.text is where .text starts. */
		if (!g->text && section(elf, ".text", &tsh))
			g->text = tsh.sh_addr;
	}
	g->nameoff = get(&t, at, t.ptr, &ok);
	g->cuoff = get(&t, at + w, t.ptr, &ok);
	g->fileoff = get(&t, at + 2 * w, t.ptr, &ok);
	g->pctab = get(&t, at + 3 * w, t.ptr, &ok);
	g->pcln = get(&t, at + 4 * w, t.ptr, &ok);
	g->ent = v118 ? 4 : t.ptr;
	if (!ok || g->nfunc == 0 || g->nfunc > t.len / (2 * g->ent) || g->nameoff >= t.len ||
	    g->pcln >= t.len || (g->nfunc + 1) * 2 * g->ent > t.len - g->pcln) {
		free(g);
		return NULL;
	}
	if (v118)
		find_gofunc(elf, g, sh.sh_addr, g->v120 ? 40 : 38);
	return g;
}

void symtab_go_close(struct go_pcln *g)
{
	free(g);
}

static int go_cmp(const void *a, const void *b)
{
	const struct go_func *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The name at offset off of funcnametab, or NULL. */
static const char *name_at(const struct go_pcln *g, uint64_t off)
{
	const struct table *t = &g->t;
	if (off >= t->len - g->nameoff)
		return NULL;
	const char *s = (const char *)t->p + g->nameoff + off;
	size_t len = strnlen(s, t->len - g->nameoff - off);
	return len == t->len - g->nameoff - off || len == 0 ? NULL : s;
}

size_t symtab_go_functions(const struct go_pcln *g, struct go_func **fns, char **names)
{
	const struct table *t = &g->t;
	unsigned ent = g->ent;
	bool ok = true;
	struct go_func *f = xcalloc(g->nfunc, sizeof *f);
	size_t n = 0, bytes = 0;
	for (uint64_t i = 0; i < g->nfunc && ok; i++) {
		uint64_t row = g->pcln + i * 2 * ent;
		uint64_t entry = get(t, row, ent, &ok), next = get(t, row + 2 * ent, ent, &ok);
		uint64_t fo = get(t, row + ent, ent, &ok);
		uint64_t name = get(t, g->pcln + fo + ent, 4, &ok);
		if (!ok || next < entry || name >= t->len - g->nameoff)
			break;
		const char *s = name_at(g, name);
		if (!s)
			continue;
		f[n++] = (struct go_func){ g->text + entry, next - entry, s };
		bytes += strlen(s) + 1;
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

/* A varint of pctab at *at, or false past the table's end. */
static bool varint(const struct table *t, uint64_t *at, uint32_t *v)
{
	*v = 0;
	for (unsigned shift = 0; shift < 35; shift += 7) {
		if (*at >= t->len)
			return false;
		uint8_t b = t->p[(*at)++];
		*v |= (uint32_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* The value of the pc-value table at pctab offset off for offset pc from
 * the function's entry; -1 where it has none (as the runtime has it). */
static int32_t pcvalue(const struct go_pcln *g, uint32_t off, uint64_t pc)
{
	if (off == 0 || g->pctab >= g->t.len)
		return -1;
	struct table t = { g->t.p + g->pctab, g->t.len - g->pctab, g->t.ptr, g->t.little };
	uint64_t at = off, cur = 0;
	int32_t val = -1;
	for (int i = 0; i < 1 << 20; i++) {
		uint32_t dv, dp;
		if (!varint(&t, &at, &dv) || (dv == 0 && i > 0) || !varint(&t, &at, &dp))
			return -1;
		val += (int32_t)(-(dv & 1) ^ (dv >> 1));
		cur += (uint64_t)dp * g->quantum;
		if (pc < cur)
			return val;
	}
	return -1;
}

/* One _func record, as much of it as the frames need. */
struct func {
	uint64_t at; /* of the record in the table */
	uint64_t entry;
	uint32_t name, pcfile, pcln, npcdata, cu, nfuncdata;
	unsigned fixed; /* size of its fixed part */
};

static bool find_func(const struct go_pcln *g, uint64_t addr, struct func *f)
{
	const struct table *t = &g->t;
	bool ok = true;
	if (!g->v118 || addr < g->text)
		return false;
	uint64_t off = addr - g->text, lo = 0, hi = g->nfunc;
	/* the last row whose entry is at or below off, and off before its end */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (get(t, g->pcln + mid * 8, 4, &ok) <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || !ok || off >= get(t, g->pcln + lo * 8, 4, &ok))
		return false;
	f->at = g->pcln + get(t, g->pcln + (lo - 1) * 8 + 4, 4, &ok);
	f->entry = get(t, f->at, 4, &ok);
	f->name = (uint32_t)get(t, f->at + 4, 4, &ok);
	f->pcfile = (uint32_t)get(t, f->at + 20, 4, &ok);
	f->pcln = (uint32_t)get(t, f->at + 24, 4, &ok);
	f->npcdata = (uint32_t)get(t, f->at + 28, 4, &ok);
	f->cu = (uint32_t)get(t, f->at + 32, 4, &ok);
	f->fixed = g->v120 ? 44 : 40;
	f->nfuncdata = (uint32_t)get(t, f->at + f->fixed - 1, 1, &ok);
	return ok && f->entry <= off;
}

/* The u32 at index i of f's tables after the fixed part: its pcdata
 * (i < npcdata), then its funcdata; 0 if there is none. */
static uint32_t func_word(const struct go_pcln *g, const struct func *f, uint32_t i)
{
	bool ok = true;
	uint32_t v = (uint32_t)get(&g->t, f->at + f->fixed + 4 * (uint64_t)i, 4, &ok);
	return ok ? v : 0;
}

/* The source position of offset pc of f. */
static void position(const struct go_pcln *g, const struct func *f, uint64_t pc, struct go_frame *v)
{
	bool ok = true;
	int32_t line = pcvalue(g, f->pcln, pc), file = pcvalue(g, f->pcfile, pc);
	v->line = line > 0 ? line : 0;
	v->file = NULL;
	if (file < 0 || g->cuoff >= g->t.len || g->fileoff >= g->t.len)
		return;
	uint64_t name = get(&g->t, g->cuoff + 4 * ((uint64_t)f->cu + (uint32_t)file), 4, &ok);
	if (!ok || name >= g->t.len - g->fileoff)
		return;
	const char *s = (const char *)g->t.p + g->fileoff + name;
	size_t len = strnlen(s, g->t.len - g->fileoff - name);
	if (len && len < g->t.len - g->fileoff - name)
		v->file = s;
}

size_t symtab_go_frames(const struct go_pcln *g, uint64_t addr, struct go_frame *v, size_t max)
{
	struct func f;
	if (!g || max == 0 || !find_func(g, addr, &f))
		return 0;
	uint64_t pc = addr - g->text - f.entry;
	/* the inline tree, if the function has one and it can be found */
	uint32_t tree =
		f.nfuncdata > 3 && f.npcdata > 2 ? func_word(g, &f, f.npcdata + 3) : UINT32_MAX;
	unsigned size = g->v120 ? 16 : 20, name_field = g->v120 ? 4 : 12;
	struct go_frame in[64]; /* innermost first */
	size_t n = 0;
	bool ok = true;
	if (g->gofunc.p && tree != UINT32_MAX && tree < g->gofunc.len) {
		struct table t = g->gofunc;
		t.p += tree;
		t.len -= tree;
		uint32_t ixtab = func_word(g, &f, 2);
		int32_t ix = pcvalue(g, ixtab, pc);
		while (ix >= 0 && n < 63) {
			uint64_t e = (uint64_t)ix * size;
			uint64_t name = get(&t, e + name_field, 4, &ok);
			int32_t parent = (int32_t)get(&t, e + name_field + 4, 4, &ok);
			const char *s = ok ? name_at(g, name) : NULL;
			if (!s || parent < 0)
				break;
			in[n].function = s;
			position(g, &f, pc, &in[n]);
			n++;
			pc = (uint64_t)parent;
			ix = pcvalue(g, ixtab, pc);
		}
		if (ix >= 0) /* a broken tree: no chain rather than a wrong one */
			n = 0, pc = addr - g->text - f.entry;
	}
	in[n].function = name_at(g, f.name);
	if (!in[n].function)
		return 0;
	position(g, &f, pc, &in[n]);
	n++;
	/* outermost first; too deep for v: the function and the innermost */
	size_t skip = n > max ? n - max : 0;
	v[0] = in[n - 1];
	for (size_t k = 1; k + skip < n; k++)
		v[k] = in[n - 1 - k - skip];
	return n - skip;
}
