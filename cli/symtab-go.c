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
 * words, the table's address and that of the function names.
 *
 * Position-independent builds (-buildmode=pie): linked by Go itself, the
 * table is the section .data.rel.ro.gopclntab; linked by the C linker
 * (-linkmode=external, as most cgo programs are), it is somewhere inside
 * .data.rel.ro, found as a header that a moduledata points to, and ends
 * where the moduledata's pclntable slice does.  Their pointers (textStart,
 * the moduledata's words) are RELATIVE relocations, whose addends are the
 * link-time values; GNU ld and gold also write these into the words, lld
 * leaves zeros there.  (1.16's function table of addresses is read from
 * the words only.)
 *
 * Only Go 1.19 was at hand to test (1.18 shares its magic; 1.20's layout
 * is read from the facts above): a gofunc word that is no address in the
 * file, or a tree that does not lead back to the function, gives no chain.
 *
 * Every offset is checked against the table's size.
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

/* A section of an image: its link-time address, its bytes. */
struct sec {
	uint64_t addr;
	struct table t;
	bool write, exec;
};

/* A RELATIVE relocation: the word at link-time address at holds addend
 * plus the load bias once loaded. */
struct rel {
	uint64_t at, addend;
};

/* A loaded image as the file has it: its allocated sections with contents
 * and, for a position-independent binary, the addends of its RELATIVE
 * relocations (RELA), the words' link-time values where the linker left
 * zeros in the file (lld does; GNU ld and gold write them). */
struct image {
	struct sec *sec;
	size_t nsec;
	struct rel *rel; /* sorted by at */
	size_t nrel;
	unsigned ptr;
	bool little;
};

static int rel_cmp(const void *a, const void *b)
{
	const struct rel *x = a, *y = b;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* The RELATIVE relocation type of machine m, 0 for none known here (REL
 * machines keep the addend in the word itself: nothing to do there). */
static unsigned relative_type(unsigned m)
{
	switch (m) {
	case EM_X86_64:
		return R_X86_64_RELATIVE;
	case EM_AARCH64:
		return R_AARCH64_RELATIVE;
	case EM_PPC64:
		return R_PPC64_RELATIVE;
	case EM_RISCV:
		return R_RISCV_RELATIVE;
	case EM_S390:
		return R_390_RELATIVE;
	case EM_LOONGARCH:
		return R_LARCH_RELATIVE;
	default:
		return 0;
	}
}

static void image_open(Elf *elf, const GElf_Ehdr *eh, unsigned ptr, struct image *im)
{
	unsigned rt = eh->e_type == ET_DYN ? relative_type(eh->e_machine) : 0;
	size_t nscn = 0, nrela = 0;
	GElf_Shdr sh;
	if (elf_getshdrnum(elf, &nscn) != 0)
		nscn = 0;
	for (Elf_Scn *scn = NULL; rt && (scn = elf_nextscn(elf, scn));)
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA && sh.sh_entsize)
			nrela += sh.sh_size / sh.sh_entsize;
	bool little = eh->e_ident[EI_DATA] == ELFDATA2LSB;
	*im = (struct image){ .ptr = ptr, .little = little };
	im->sec = xcalloc(nscn + 1, sizeof *im->sec);
	im->rel = xcalloc(nrela + 1, sizeof *im->rel);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn)) && im->nsec < nscn;) {
		Elf_Data *d = gelf_getshdr(scn, &sh) ? contents(scn, &sh) : NULL;
		GElf_Rela r;
		if (d && sh.sh_type != SHT_RELA)
			im->sec[im->nsec++] = (struct sec){ sh.sh_addr,
							    { d->d_buf, d->d_size, ptr, little },
							    sh.sh_flags & SHF_WRITE,
							    sh.sh_flags & SHF_EXECINSTR };
		for (int i = 0;
		     d && sh.sh_type == SHT_RELA && im->nrel < nrela && gelf_getrela(d, i, &r); i++)
			if (GELF_R_TYPE(r.r_info) == rt && GELF_R_SYM(r.r_info) == 0)
				im->rel[im->nrel++] =
					(struct rel){ r.r_offset, (uint64_t)r.r_addend };
	}
	qsort(im->rel, im->nrel, sizeof *im->rel, rel_cmp);
}

static void image_close(struct image *im)
{
	free(im->sec);
	free(im->rel);
}

/* The bytes from link-time address addr to the end of its section. */
static struct table image_table(const struct image *im, uint64_t addr)
{
	for (size_t i = 0; i < im->nsec; i++) {
		const struct sec *s = &im->sec[i];
		if (addr >= s->addr && addr - s->addr < s->t.len)
			return (struct table){ s->t.p + (addr - s->addr),
					       s->t.len - (addr - s->addr), im->ptr, im->little };
	}
	return (struct table){ NULL, 0, im->ptr, im->little };
}

/* The pointer-sized word at offset off of section s, as the dynamic
 * linker leaves it, less the load bias. */
static uint64_t image_word(const struct image *im, const struct sec *s, uint64_t off, bool *ok)
{
	struct rel key = { s->addr + off, 0 };
	const struct rel *r = bsearch(&key, im->rel, im->nrel, sizeof *r, rel_cmp);
	return r && off + im->ptr <= s->t.len ? r->addend : get(&s->t, off, im->ptr, ok);
}

/* The word of the runtime's moduledata at index i. */
#define MD_PCLNTABLE 13 /* the function table's slice: ptr, len */
#define MD_TEXT      22 /* runtime.text (1.18 and later) */

/*
 * The runtime's moduledata of the table at link-time address at: the
 * aligned pair (at, its function names' address) in a writable section,
 * which only the moduledata holds.  Its words from index 0 to last into w;
 * false if there is none.
 */
static bool find_module(const struct image *im, const struct go_pcln *g, uint64_t at, uint64_t *w,
			unsigned last)
{
	uint64_t ws = im->ptr, names = at + g->nameoff;
	for (size_t i = 0; i < im->nsec; i++) {
		const struct sec *s = &im->sec[i];
		if (!s->write)
			continue;
		uint64_t o = (ws - s->addr % ws) % ws;
		for (bool ok = true; o + (last + 1) * ws <= s->t.len; o += ws) {
			if (image_word(im, s, o, &ok) != at ||
			    image_word(im, s, o + ws, &ok) != names)
				continue;
			for (unsigned k = 0; k <= last; k++)
				w[k] = image_word(im, s, o + k * ws, &ok);
			if (ok)
				return true;
			ok = true;
		}
	}
	return false;
}

/* Do the header's offsets and its function table lie within the table?
 * Every later read (names, files, pc tables) trusts them. */
static bool layout_fits(const struct go_pcln *g)
{
	uint64_t len = g->t.len;
	return g->nfunc && g->nfunc <= len / (2 * g->ent) && g->nameoff < len && g->cuoff < len &&
	       g->fileoff < len && g->pctab < len && g->pcln < len &&
	       (g->nfunc + 1) * 2 * g->ent <= len - g->pcln;
}

/* The table at link-time address at, its bytes t: its header read, its
 * moduledata found; NULL if t is no table or, unless named, has no
 * moduledata (then it was only bytes that looked like a header). */
static struct go_pcln *table_at(const struct image *im, Elf *elf, struct table t, uint64_t at,
				bool named, unsigned *searches)
{
	bool ok = true;
	if (t.len < 16)
		return NULL;
	uint32_t magic = (uint32_t)get(&t, 0, 4, &ok);
	bool v116 = magic == 0xfffffffa, v118 = magic == 0xfffffff0 || magic == 0xfffffff1;
	t.ptr = t.p[7];
	if ((!v116 && !v118) || t.p[4] || t.p[5] || (t.ptr != 4 && t.ptr != 8) || !t.p[6] ||
	    t.ptr != im->ptr)
		return NULL;
	struct go_pcln g = { .t = t, .v118 = v118, .v120 = magic == 0xfffffff1 };
	g.quantum = t.p[6];
	uint64_t w = t.ptr, h = 8;
	g.nfunc = get(&t, h, t.ptr, &ok);
	h += 2 * w; /* nfunc, nfiles */
	if (v118) {
		/* relocated in a position-independent binary */
		struct table ht = image_table(im, at);
		const struct sec s = { at, ht.p ? ht : t, false, false };
		g.text = image_word(im, &s, h, &ok);
		h += w;
	}
	g.nameoff = get(&t, h, t.ptr, &ok);
	g.cuoff = get(&t, h + w, t.ptr, &ok);
	g.fileoff = get(&t, h + 2 * w, t.ptr, &ok);
	g.pctab = get(&t, h + 3 * w, t.ptr, &ok);
	g.pcln = get(&t, h + 4 * w, t.ptr, &ok);
	g.ent = v118 ? 4 : t.ptr;
	if (!ok || !layout_fits(&g))
		return NULL;
	/* gofunc: word 38 of the moduledata in 1.18-1.19, 40 from 1.20 */
	unsigned last = !v118 ? MD_PCLNTABLE + 1 : g.v120 ? 40 : 38;
	uint64_t md[41];
	/* a moduledata search reads every writable word: a file of many
	 * headers (crafted) would take their product, so a few only */
	if (searches && *searches == 0)
		return NULL;
	if (searches)
		--*searches;
	bool module = find_module(im, &g, at, md, last);
	if (!module && !named)
		return NULL;
	if (module && !named) { /* the table ends where the function table does */
		uint64_t end = md[MD_PCLNTABLE] + md[MD_PCLNTABLE + 1];
		if (end <= at || end - at < g.pcln || end - at > t.len)
			return NULL;
		g.t.len = end - at;
		if (!layout_fits(&g)) /* its offsets, checked again in the shorter table */
			return NULL;
	}
	if (v118 && !g.text && module)
		g.text = md[MD_TEXT];
	GElf_Shdr tsh;
	/* internally linked, runtime.text is where .text starts */
	if (v118 && !g.text && section(elf, ".text", &tsh))
		g.text = tsh.sh_addr;
	if (v118 && module)
		g.gofunc = image_table(im, md[last]);
	struct go_pcln *p = xmalloc(sizeof *p);
	*p = g;
	return p;
}

struct go_pcln *symtab_go_open(Elf *elf)
{
	GElf_Shdr sh;
	GElf_Ehdr eh;
	if (!elf || !gelf_getehdr(elf, &eh))
		return NULL;
	/* its name in an internally linked position-independent build:
	 * .data.rel.ro.gopclntab */
	Elf_Scn *scn = section(elf, ".gopclntab", &sh);
	if (!scn)
		scn = section(elf, ".data.rel.ro.gopclntab", &sh);
	/* no table by name: only a Go program's image is worth a search */
	GElf_Shdr bsh;
	if (!scn && !section(elf, ".go.buildinfo", &bsh))
		return NULL;
	struct image im;
	image_open(elf, &eh, eh.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4, &im);
	Elf_Data *d = scn && sh.sh_type != SHT_NOBITS ? elf_getdata(scn, NULL) : NULL;
	struct go_pcln *g = NULL;
	if (d && d->d_buf)
		g = table_at(&im, elf, (struct table){ d->d_buf, d->d_size, 0, im.little },
			     sh.sh_addr, true, NULL);
	/* An externally linked one has the table inside .data.rel.ro, under
	 * no name of its own (and its symbol, runtime.pclntab, is stripped
	 * with the others): a header, at an aligned address of a section of
	 * data, that the moduledata points to. */
	unsigned searches = 16;
	for (size_t i = 0; !scn && !g && i < im.nsec; i++) {
		const struct sec *s = &im.sec[i];
		uint64_t o = (im.ptr - s->addr % im.ptr) % im.ptr;
		for (; !s->exec && !g && o + 16 <= s->t.len; o += im.ptr)
			if ((s->t.p[o] == 0xff || s->t.p[o + 3] == 0xff) && s->t.p[o + 1] == 0xff &&
			    s->t.p[o + 2] == 0xff)
				g = table_at(&im, elf, image_table(&im, s->addr + o), s->addr + o,
					     false, &searches);
	}
	image_close(&im);
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
