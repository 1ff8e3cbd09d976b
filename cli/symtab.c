/*
 * symtab.c - symbolization with elfutils (libdwfl/libdw), as cli/symtab.h
 * promises.
 *
 * Every file is opened once per pcprof run, however many processes mapped
 * it: a `struct symfile` is keyed by (path, recorded build-id) and reported
 * to its own Dwfl session at base 0, so that all its addresses are
 * link-time addresses; a process's runtime pc becomes pc - bias before the
 * lookup.  Files are opened lazily, at the first lookup in them, so modules
 * without samples cost nothing and earn no notes.
 *
 * Function lookups use our own table, sorted once per file, because
 * dwfl_module_addrinfo scans the symbol table linearly (about 0.1 ms per
 * lookup on libc; ecosystem.md section 2.9).  Line lookups go to libdw,
 * which indexes them itself.
 *
 * PLT stubs get names of their own ("memcpy@plt", from the relocation of
 * the GOT slot each jumps through).  Where no symbol covers a pc (a
 * stripped library's internal functions), the unwind table (.eh_frame)
 * still knows where the function starts and ends, in its FDE: sym_info
 * then has function NULL but fn_start/fn_size set, so that callers can
 * group the pcs of one anonymous function into one row.
 *
 * Which files are read is cli/debuginfo.c's business: the module's file
 * only if its build id is the recorded one, its debug file likewise, from
 * an archive, --debug-dir, /usr/lib/debug or debuginfod.  libdwfl is kept
 * from asking debuginfod itself (DEBUGINFOD_URLS is hidden from it), so
 * that the search keeps our order and every file used has a name.
 */
#include "symtab.h"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive.h"
#include "debuginfo.h"
#include "symtab-go.h"
#include "util.h"

struct fn {
	uint64_t start, size; /* link-time */
	const char *name;     /* owned by libdwfl's symbol table */
	int rank;             /* lower wins among symbols at one address */
};

struct extent {
	uint64_t start, end; /* link-time, [start, end) */
};

enum sf_state {
	SF_OK,      /* symbols (at least .dynsym) were read */
	SF_MISSING, /* no such file, or not ELF */
	SF_CHANGED, /* build-id differs from the recording, no copy found */
	SF_NOFILE,  /* nothing on disk to read: [vdso] of another kernel, [anon] */
};

struct symfile {
	char *path;
	uint8_t build_id[40];
	uint32_t build_id_len;
	enum sf_state state;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	bool full;        /* a .symtab (local symbols) was found */
	bool has_lines;   /* DWARF line tables were found */
	char *symfile;    /* the ELF file with the symbols gprof should read */
	char *elf_file;   /* the file reported, if one can open it again */
	char *debug_file; /* the separate debug file used, likewise */
	bool debug_only;  /* the module's file was not found: its debug file is reported */
	uint64_t entry;   /* e_entry (link-time), if has_entry */
	bool has_entry;
	struct fn *fns;
	size_t nfns;
	Dwarf_CFI *cfi;
	bool cfi_tried;
	struct extent *fdes; /* .eh_frame's function extents, sorted */
	size_t nfdes;
	bool fdes_tried;
	char **plt_names;   /* "memcpy@plt" names of the PLT stubs in fns */
	char *go_names;     /* names of the .gopclntab functions in fns */
	struct go_pcln *go; /* a Go binary's .gopclntab, for its inline chains */
	size_t nplt;
	struct qname *qnames; /* qualified names of C++ DIEs: open addressing */
	size_t nqnames, capqnames;
	struct cu_subs *cus; /* units whose functions are indexed, by offset */
	size_t ncus, capcus;
	char *note;   /* one line, or NULL */
	char *brief;  /* a note_no_symtab note in short: "libz.so.1 (zlib1g-dbgsym)" */
	bool warning; /* note is a warning */
	bool noted;   /* note already printed */
	bool used;    /* a pc was looked up in it: its note matters */
	struct symfile *next;
};

struct qname {
	Dwarf_Off off; /* of the DIE + 1; 0: an empty slot */
	char *name;
};

/* The functions of one compilation unit by address, built at the unit's
 * first lookup (cu_subs_of).  Without it every pc's inline chain began
 * with a scan of the unit's top-level DIEs, thousands in a large unit: a
 * quarter of an export of 100,000 distinct pcs in libc went there (perf,
 * bench/pprof-export.sh). */
struct sub_range {
	Dwarf_Addr lo, hi;
	Dwarf_Addr reach; /* the highest hi of this range and all before it */
	Dwarf_Die die;
};

struct cu_subs {
	Dwarf_Off cu; /* offset of the unit's DIE */
	struct sub_range *r;
	size_t n;
};

struct symtab {
	const struct pp_process *proc;
	struct symfile **files; /* per module, NULL until first lookup */
	uint32_t main;          /* the module of proc->exe, or PP_NO_MODULE */
};

static struct symfile *files; /* every file opened by any live symtab */
static int users;             /* live symtabs */
/* files by (path, build-id): open addressing, a power of two of slots */
static struct symfile **file_slot;
static size_t nslots, nfiles;

static char *debuginfo_path = ":.debug:/usr/lib/debug";

/*
 * A module's separate debug file, by debuginfo.c's search; libdwfl's own
 * (which checks the .gnu_debuglink CRC) only for a module without a build
 * id, where a debug file cannot be matched otherwise.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct symfile *sf = *userdata;
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &bits, &vaddr);
	if (sf && (sf->build_id_len || n > 0)) {
		const uint8_t *id = sf->build_id_len ? sf->build_id : bits;
		uint32_t idlen = sf->build_id_len ? sf->build_id_len : (uint32_t)n;
		char *where, *file;
		int fd = debuginfo_open_debug(sf->path, id, idlen, debuglink_file, &where, &file);
		if (fd < 0)
			return -1;
		*debuginfo_file_name = where;
		free(sf->debug_file);
		sf->debug_file = file;
		return fd;
	}
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					    debuglink_crc, debuginfo_file_name);
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

#define hex debuginfo_hex

/*
 * The Debian package that owns path, from dpkg's file lists, or NULL.
 * Only called for the few files that earn a note.  /lib is a link to
 * /usr/lib since Debian 12 but the lists still name both spellings.
 */
static char *debian_package(const char *path)
{
	char alt[1024];
	if (strncmp(path, "/usr/", 5) == 0)
		snprintf(alt, sizeof alt, "%s", path + 4);
	else
		snprintf(alt, sizeof alt, "/usr%s", path);
	glob_t g;
	if (glob("/var/lib/dpkg/info/*.list", 0, NULL, &g) != 0)
		return NULL;
	char *pkg = NULL;
	char line[1024];
	for (size_t i = 0; i < g.gl_pathc && !pkg; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");
		if (!f)
			continue;
		while (fgets(line, sizeof line, f)) {
			line[strcspn(line, "\n")] = '\0';
			if (strcmp(line, path) != 0 && strcmp(line, alt) != 0)
				continue;
			const char *b = basename(g.gl_pathv[i]);
			size_t n = strcspn(b, ":.");
			if (strcmp(b + n, ".list") != 0 && b[n] != ':')
				n = strlen(b) - 5;
			pkg = xmalloc(n + 1);
			memcpy(pkg, b, n);
			pkg[n] = '\0';
			break;
		}
		fclose(f);
	}
	globfree(&g);
	return pkg;
}

static void set_note(struct symfile *sf, bool warning, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_note(struct symfile *sf, bool warning, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(sf->note);
	free(sf->brief); /* note_no_symtab sets it after its note */
	sf->brief = NULL;
	if (vasprintf(&sf->note, fmt, ap) < 0)
		die(2, "out of memory");
	va_end(ap);
	sf->warning = warning;
}

static int current_build_id(struct symfile *sf, const unsigned char **bits);

/* What would give this file a full symbol table, for the note: its
 * debug file, by build id, from the package or a directory. */
static void note_no_symtab(struct symfile *sf)
{
	const char *b = basename(sf->path);
	char *pkg = debian_package(sf->path);
	char idhex[81] = "", *nodebug;
	const unsigned char *bits;
	int n = current_build_id(sf, &bits);
	if (n > 0)
		hex(idhex, bits, (size_t)n);
	if (asprintf(&nodebug, "no debug file for build id %s (looked in %s)",
		     n > 0 ? idhex : "(none)", debuginfo_searched()) < 0)
		die(2, "out of memory");
	if (pkg && strcmp(pkg, "libc6") == 0)
		set_note(sf, false,
			 "%s has only its exported symbols (.dynsym): internal functions "
			 "show as %s+0xADDRESS; %s; install libc6-dbg or pass --debug-dir",
			 b, b, nodebug);
	else if (pkg)
		set_note(sf, false,
			 "%s has only its exported symbols (.dynsym): internal functions "
			 "show as %s+0xADDRESS; %s; install its debug symbols (%s-dbgsym from "
			 "the debian-debug archive, or a %s-dbg package if there is one) or "
			 "pass --debug-dir",
			 b, b, nodebug, pkg, pkg);
	else if (sf->nfns > sf->nplt)
		set_note(sf, false,
			 "%s has only its exported symbols (.dynsym, stripped): internal "
			 "functions show as %s+0xADDRESS; %s; install the -dbgsym package "
			 "or pass --debug-dir (or profile an unstripped build)",
			 b, b, nodebug);
	else
		set_note(sf, false,
			 "%s has no symbols (stripped): functions show as %s+0xADDRESS; %s; "
			 "install the -dbgsym package or pass --debug-dir (or profile an "
			 "unstripped build)",
			 b, b, nodebug);
	free(nodebug);
	/* the package to install, for the one line that lists them all */
	if (pkg && asprintf(&sf->brief, "%s (%s%s)", b, pkg,
			    strcmp(pkg, "libc6") == 0 ? "-dbg" : "-dbgsym") < 0)
		die(2, "out of memory");
	else if (!pkg)
		sf->brief = xstrdup(b);
	free(pkg);
}

static bool elf_has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return true;
	return false;
}

/* Among symbols at one address: sized before unsized, global before weak
 * before local, fewer leading underscores ("malloc" over
 * "__libc_malloc"), shorter, then by name so that output is stable. */
static int fn_cmp(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return strcmp(x->name, y->name);
}

static int sym_rank(const GElf_Sym *sym, const char *name)
{
	int r = 0;
	if (sym->st_size == 0)
		r += 1000;
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		break;
	case STB_WEAK:
		r += 100;
		break;
	default:
		r += 200;
		break;
	}
	int u = 0;
	while (name[u] == '_')
		u++;
	r += 10 * (u > 9 ? 9 : u);
	size_t n = strlen(name);
	r += n > 9 ? 9 : (int)n;
	return r;
}

/* The index of the first of n sorted elements of v (each `size` bytes, the
 * first 8 its uint64_t key) whose key is above key; n if none is. */
static size_t first_above(const void *v, size_t n, size_t size, uint64_t key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;
		memcpy(&k, (const char *)v + mid * size, sizeof k);
		if (k <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- PLT stubs ---------------------------------------------------------------
 *
 * No symbol covers a PLT stub, so a sample there would go to whatever
 * unsized symbol precedes it (_init).  Each stub jumps through one GOT slot,
 * and the dynamic relocation of that slot names the function it reaches:
 * the stub becomes "memcpy@plt", as objdump and perf call it.
 */

struct slot {
	uint64_t got; /* address of the GOT slot */
	const char *name;
};

static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	return x->got < y->got ? -1 : x->got > y->got;
}

static const char *slot_name(const struct slot *v, size_t n, uint64_t got)
{
	size_t i = first_above(v, n, sizeof *v, got);
	return i > 0 && v[i - 1].got == got ? v[i - 1].name : NULL;
}

/* The symbol names of a relocation section's entries, in order; the GOT
 * slots they patch go to slots (when not NULL).  Returns the count. */
static size_t reloc_names(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char ***names,
			  struct slot **slots, size_t *nslots)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr symsh;
	Elf_Data *symd = symscn ? elf_getdata(symscn, NULL) : NULL;
	if (!d || !symd || !gelf_getshdr(symscn, &symsh) || !sh->sh_entsize)
		return 0;
	size_t n = sh->sh_size / sh->sh_entsize;
	if (names)
		*names = xcalloc(n ? n : 1, sizeof **names);
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Rel rel;
		if (sh->sh_type == SHT_RELA ? !gelf_getrela(d, (int)i, &r)
					    : !gelf_getrel(d, (int)i, &rel))
			continue;
		if (sh->sh_type == SHT_REL)
			r = (GElf_Rela){ rel.r_offset, rel.r_info, 0 };
		GElf_Sym sym;
		size_t si = GELF_R_SYM(r.r_info);
		if (!si || !gelf_getsym(symd, (int)si, &sym))
			continue;
		const char *name = elf_strptr(elf, symsh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (names)
			(*names)[i] = name;
		*slots = xrealloc(*slots, (*nslots + 1) * sizeof **slots);
		(*slots)[(*nslots)++] = (struct slot){ r.r_offset, name };
	}
	return n;
}

/* Which function the PLT entry at data[0..size) of address addr reaches.
 * x86-64 stubs jump through their GOT slot (jmp *disp(%rip), after an
 * endbr64 or bnd prefix in IBT/MPX layouts), or, in the lazy-binding half
 * of IBT layouts, push their .rela.plt index. */
static const char *x86_64_stub(const uint8_t *data, size_t size, uint64_t addr,
			       const struct slot *slots, size_t nslots, const char **jump,
			       size_t njump)
{
	/* only where an instruction can start: after nothing, a bnd prefix,
	 * an endbr64, or both */
	static const size_t jmp_at[] = { 0, 1, 4, 5 }, push_at[] = { 0, 4, 6 };
	for (size_t k = 0; k < sizeof jmp_at / sizeof *jmp_at; k++) {
		size_t i = jmp_at[k];
		int32_t disp;
		if (i + 6 <= size && data[i] == 0xff && data[i + 1] == 0x25) {
			memcpy(&disp, data + i + 2, 4);
			const char *n = slot_name(slots, nslots, addr + i + 6 + (int64_t)disp);
			if (n)
				return n;
		}
	}
	for (size_t k = 0; k < sizeof push_at / sizeof *push_at; k++) {
		size_t i = push_at[k];
		uint32_t idx;
		if (i + 5 <= size && data[i] == 0x68) {
			memcpy(&idx, data + i + 1, 4);
			if (idx < njump && jump[idx])
				return jump[idx];
		}
	}
	return NULL;
}

static void add_plt(struct symfile *sf, uint64_t start, uint64_t size, const char *target,
		    size_t *cap)
{
	char *name;
	if (!target)
		name = xstrdup("[plt]"); /* the lazy binder's header, an IRELATIVE stub */
	else if (asprintf(&name, "%s@plt", target) < 0)
		die(2, "out of memory");
	sf->plt_names = xrealloc(sf->plt_names, (sf->nplt + 1) * sizeof *sf->plt_names);
	sf->plt_names[sf->nplt++] = name;
	if (sf->nfns == *cap) {
		*cap = *cap * 2 + 16;
		sf->fns = xrealloc(sf->fns, *cap * sizeof *sf->fns);
	}
	sf->fns[sf->nfns++] = (struct fn){ start, size, name, 0 };
}

/* Add a function per PLT stub (.plt, .plt.sec, .plt.got) to sf->fns. */
static void load_plt(struct symfile *sf, size_t *cap)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(sf->mod, &bias);
	size_t shstrndx;
	GElf_Ehdr eh;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0 || !gelf_getehdr(elf, &eh))
		return;
	const char **jump = NULL; /* .rela.plt's names, by index */
	size_t njump = 0, nslots = 0;
	struct slot *slots = NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL))
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && (strcmp(name, ".rela.plt") == 0 || strcmp(name, ".rel.plt") == 0) &&
		    !jump)
			njump = reloc_names(elf, scn, &sh, &jump, &slots, &nslots);
		else if (name && (strcmp(name, ".rela.dyn") == 0 || strcmp(name, ".rel.dyn") == 0))
			reloc_names(elf, scn, &sh, NULL, &slots, &nslots);
	}
	if (nslots)
		qsort(slots, nslots, sizeof *slots, slot_cmp);
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strncmp(name, ".plt", 4) != 0 || (name[4] && name[4] != '.') ||
		    !(d = elf_getdata(scn, NULL)) || d->d_size < sh.sh_size)
			continue;
		uint64_t es = sh.sh_entsize ? sh.sh_entsize : 16;
		const uint8_t *data = d->d_buf;
		if (eh.e_machine == EM_X86_64) {
			for (uint64_t o = 0; o + es <= sh.sh_size; o += es)
				add_plt(sf, sh.sh_addr + o, es,
					x86_64_stub(data + o, es, sh.sh_addr + o, slots, nslots,
						    jump, njump),
					cap);
		} else if (strcmp(name, ".plt") == 0 && njump * es <= sh.sh_size) {
			/* elsewhere: a header, then one stub per .rela.plt
			 * entry, in order (aarch64, riscv, ...) */
			uint64_t head = sh.sh_size - njump * es;
			if (head)
				add_plt(sf, sh.sh_addr, head, NULL, cap);
			for (size_t i = 0; i < njump; i++)
				add_plt(sf, sh.sh_addr + head + i * es, es, jump[i], cap);
		}
	}
	free(jump);
	free(slots);
}

static void load_functions(struct symfile *sf)
{
	int n = dwfl_module_getsymtab(sf->mod);
	size_t cap = n > 0 ? (size_t)n : 0;
	sf->fns = xcalloc(cap + 1, sizeof *sf->fns);
	Elf *checked = NULL; /* symbols come from one or two files: look once each */
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf = NULL;
		const char *name =
			dwfl_module_getsym_info(sf->mod, i, &sym, &addr, &shndx, &elf, NULL);
		if (!name || !*name || shndx == SHN_UNDEF || shndx == (GElf_Word)-1)
			continue;
		int t = GELF_ST_TYPE(sym.st_info);
		if (t != STT_FUNC && t != STT_GNU_IFUNC)
			continue;
		if (!sf->full && elf && elf != checked) {
			checked = elf;
			sf->full = elf_has_symtab(elf);
		}
		sf->fns[sf->nfns++] = (struct fn){ addr, sym.st_size, name, sym_rank(&sym, name) };
	}
	load_plt(sf, &cap);
	GElf_Addr bias;
	struct go_func *go;
	sf->go = symtab_go_open(dwfl_module_getelf(sf->mod, &bias));
	size_t ngo = sf->full || !sf->go ? 0 : symtab_go_functions(sf->go, &go, &sf->go_names);
	if (ngo) { /* a Go binary without its symbol table (-ldflags=-s) */
		sf->fns = xrealloc(sf->fns, (sf->nfns + ngo) * sizeof *sf->fns);
		for (size_t i = 0; i < ngo; i++)
			sf->fns[sf->nfns++] = (struct fn){ go[i].start, go[i].size, go[i].name, 0 };
		free(go);
	}
	qsort(sf->fns, sf->nfns, sizeof *sf->fns, fn_cmp);
	/* keep the best-ranked symbol at each address */
	size_t k = 0;
	for (size_t i = 0; i < sf->nfns; i++)
		if (k == 0 || sf->fns[k - 1].start != sf->fns[i].start)
			sf->fns[k++] = sf->fns[i];
		else if (sf->fns[k - 1].size == 0)
			sf->fns[k - 1].size = sf->fns[i].size;
	sf->nfns = k;
}

static bool report(struct symfile *sf, const char *file, int fd)
{
	sf->dwfl = dwfl_begin(&callbacks);
	if (!sf->dwfl) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	dwfl_report_begin(sf->dwfl);
	sf->mod = dwfl_report_elf(sf->dwfl, basename(sf->path), file, fd, 0, true);
	dwfl_report_end(sf->dwfl, NULL, NULL);
	if (!sf->mod) {
		dwfl_end(sf->dwfl);
		sf->dwfl = NULL;
		return false;
	}
	void **userdata; /* for find_debuginfo */
	dwfl_module_info(sf->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = sf;
	return true;
}

static void unreport(struct symfile *sf)
{
	if (sf->dwfl)
		dwfl_end(sf->dwfl);
	sf->dwfl = NULL;
	sf->mod = NULL;
}

/* The build-id of the file now reported, or 0 bytes. */
static int current_build_id(struct symfile *sf, const unsigned char **bits)
{
	GElf_Addr bias, vaddr;
	if (!dwfl_module_getelf(sf->mod, &bias))
		return 0;
	int n = dwfl_module_build_id(sf->mod, bits, &vaddr);
	return n < 0 ? 0 : n;
}

/*
 * The vDSO has no file.  The kernel that ran the program usually is the one
 * running us, with the same vDSO: if the build-ids agree (or none was
 * recorded), symbolize from a copy of our own.
 */
static bool report_vdso(struct symfile *sf)
{
	char *where; /* an archive's copy, packed where the recording was made */
	int afd = archive_open_member(AR_MODULE, sf->path, sf->build_id, sf->build_id_len, &where);
	free(where);
	if (afd >= 0 && report(sf, "[vdso]", afd))
		return true;
	unsigned long ehdr = getauxval(AT_SYSINFO_EHDR);
	if (!ehdr)
		return false;
	FILE *maps = fopen("/proc/self/maps", "r");
	if (!maps)
		return false;
	char line[512];
	unsigned long lo = 0, hi = 0;
	while (fgets(line, sizeof line, maps))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			break;
	fclose(maps);
	if (lo != ehdr || hi <= lo)
		return false;
	int fd = memfd_create("vdso", MFD_CLOEXEC);
	if (fd < 0)
		return false;
	if (write(fd, (const void *)lo, hi - lo) != (ssize_t)(hi - lo)) {
		close(fd);
		return false;
	}
	if (!report(sf, "[vdso]", fd))
		return false;
	const unsigned char *bits;
	int n = current_build_id(sf, &bits);
	if (sf->build_id_len &&
	    (n != (int)sf->build_id_len || memcmp(bits, sf->build_id, (size_t)n) != 0)) {
		unreport(sf);
		return false;
	}
	return true;
}

/* Why the recorded file cannot be used, for the note: "file missing",
 * "build id mismatch: recorded ID, file has ID". */
static char *why_not(const struct symfile *sf, const struct di_miss *miss)
{
	char rec[81], now[81], *why;
	hex(rec, sf->build_id, sf->build_id_len);
	hex(now, miss->now, miss->now_len);
	struct stat st;
	int r;
	if (miss->exists && miss->not_elf)
		r = asprintf(&why, "not an ELF file");
	else if (miss->exists)
		r = asprintf(&why, "build id mismatch: recorded %s, file has %s", rec,
			     miss->now_len ? now : "none");
	else if (stat(sf->path, &st) == 0 && !S_ISREG(st.st_mode))
		r = asprintf(&why, "not a regular file");
	else if (stat(sf->path, &st) == 0)
		r = asprintf(&why, "cannot read it: %s", strerror(EACCES));
	else
		r = asprintf(&why, "file missing");
	if (r < 0)
		die(2, "out of memory");
	return why;
}

static void open_file(struct symfile *sf)
{
	char idhex[81] = "";
	if (sf->build_id_len)
		hex(idhex, sf->build_id, sf->build_id_len);

	if (strcmp(sf->path, "[vdso]") == 0) {
		if (!report_vdso(sf)) {
			sf->state = SF_NOFILE;
			set_note(sf, false,
				 "[vdso] of the recording differs from this kernel's: "
				 "its functions show as [vdso]+0xADDRESS");
			return;
		}
	} else if (sf->path[0] != '/') {
		sf->state = SF_NOFILE;
		set_note(sf, true, "%s: not an absolute path; its functions show as %s+0xADDRESS",
			 sf->path, sf->path);
		return;
	} else {
		struct di_miss miss;
		char *where, *file;
		int fd = debuginfo_open_module(sf->path, sf->build_id, sf->build_id_len, &where,
					       &file, &miss);
		if (fd >= 0 && report(sf, where, fd)) {
			sf->elf_file = file;
			/* found elsewhere than in an archive: say where */
			if (file && strcmp(file, sf->path) != 0) {
				char *why = why_not(sf, &miss);
				set_note(sf, false, "%s: %s; using %s (same build id)", sf->path,
					 why, where);
				free(why);
			}
			free(where);
		} else {
			free(where);
			free(file);
			/* no module file: a debug file by build id still has the
			 * symbols, at the same link-time addresses */
			char *why = why_not(sf, &miss);
			fd = debuginfo_open_debug(sf->path, sf->build_id, sf->build_id_len, NULL,
						  &where, &file);
			if (fd >= 0 && report(sf, where, fd)) {
				sf->elf_file = file;
				sf->debug_only = true;
				sf->symfile = file ? xstrdup(file) : NULL;
				set_note(sf, false,
					 "%s: %s; its symbols come from the debug file %s",
					 sf->path, why, where);
				free(where);
				free(why);
			} else {
				free(where);
				free(file);
				sf->state = miss.exists ? SF_CHANGED : SF_MISSING;
				const char *b = *basename(sf->path) ? basename(sf->path) : sf->path;
				if (sf->build_id_len)
					set_note(
						sf, true,
						"%s lost its symbols: %s; no file with build id %s "
						"(looked in %s); its functions show as "
						"%s+0xADDRESS",
						sf->path, why, idhex, debuginfo_searched(), b);
				else
					set_note(sf, true,
						 "%s lost its symbols: %s (no build id "
						 "recorded); its functions show as %s+0xADDRESS",
						 sf->path, why, b);
				free(why);
				return;
			}
		}
	}

	sf->state = SF_OK;
	load_functions(sf);
	/* a separate debug file keeps the ELF header, e_entry with it */
	GElf_Addr eb;
	GElf_Ehdr eh;
	Elf *e = dwfl_module_getelf(sf->mod, &eb);
	if (e && gelf_getehdr(e, &eh) && eh.e_entry) {
		/* Thumb code's entry has its low bit set; the pc has not */
		sf->entry = eh.e_machine == EM_ARM ? eh.e_entry & ~(uint64_t)1 : eh.e_entry;
		sf->has_entry = true;
	}
	Dwarf_Addr bias;
	sf->has_lines = dwfl_module_getdwarf(sf->mod, &bias) != NULL;
	if (!sf->symfile) {
		GElf_Addr b;
		Elf *main_elf = dwfl_module_getelf(sf->mod, &b);
		if (main_elf && elf_has_symtab(main_elf) && sf->elf_file)
			sf->symfile = xstrdup(sf->elf_file);
		else if (sf->debug_file && sf->full)
			sf->symfile = xstrdup(sf->debug_file);
	}
	/* the vDSO has no .symtab, ever, and its .dynsym names all of it */
	/* a stripped Go binary has its names in .gopclntab */
	if (!sf->full && !sf->note && !sf->go_names && strcmp(sf->path, "[vdso]") != 0)
		note_no_symtab(sf);
}

static size_t file_hash(const char *path, const uint8_t *id, uint32_t idlen)
{
	uint64_t h = hash_bytes(id, idlen, hash_bytes(path, strlen(path), HASH_INIT));
	return (size_t)(h ^ (h >> 29));
}

/* The slot of (path, build-id): its file, or the empty slot it would take. */
static struct symfile **file_find(const char *path, const uint8_t *id, uint32_t idlen)
{
	size_t j = file_hash(path, id, idlen) & (nslots - 1);
	for (; file_slot[j]; j = (j + 1) & (nslots - 1)) {
		const struct symfile *sf = file_slot[j];
		if (strcmp(sf->path, path) == 0 && sf->build_id_len == idlen &&
		    memcmp(sf->build_id, id, idlen) == 0)
			break;
	}
	return &file_slot[j];
}

/* Room for one more file: a profile of many processes may name thousands
 * of files (one test binary each), so no list to walk per lookup. */
static void file_reserve(void)
{
	if ((nfiles + 1) * 2 <= nslots)
		return;
	free(file_slot);
	nslots = nslots ? 2 * nslots : 64;
	file_slot = xcalloc(nslots, sizeof *file_slot);
	for (struct symfile *sf = files; sf; sf = sf->next)
		*file_find(sf->path, sf->build_id, sf->build_id_len) = sf;
}

static struct symfile *get_file(struct symtab *st, uint32_t m)
{
	if (st->files[m])
		return st->files[m];
	const struct pp_module *pm = &st->proc->modules[m];
	uint32_t idlen = pm->build_id_len > sizeof pm->build_id ? 0 : pm->build_id_len;
	file_reserve();
	struct symfile **slot = file_find(pm->path, pm->build_id, idlen);
	if (*slot)
		return st->files[m] = *slot;
	struct symfile *sf = xcalloc(1, sizeof *sf);
	*slot = sf;
	nfiles++;
	sf->path = xstrdup(pm->path);
	memcpy(sf->build_id, pm->build_id, idlen);
	sf->build_id_len = idlen;
	sf->next = files;
	files = sf;
	open_file(sf);
	return st->files[m] = sf;
}

struct symtab *symtab_open(const struct pp_process *proc)
{
	/* Keep libdwfl from asking debuginfod servers on its own: debuginfo.c
	 * asks, in its order (it read the variable first). */
	debuginfo_searched();
	unsetenv("DEBUGINFOD_URLS");
	struct symtab *st = xcalloc(1, sizeof *st);
	st->proc = proc;
	st->files = xcalloc(proc->nmodules, sizeof *st->files);
	/* The main executable is the module at the path of the process's
	 * executable (both as the kernel names it: /proc/PID/exe, the
	 * mappings); its ELF type is no help, a PIE being ET_DYN. */
	st->main = PP_NO_MODULE;
	for (size_t m = 0; m < proc->nmodules && st->main == PP_NO_MODULE; m++)
		if (strcmp(proc->modules[m].path, proc->exe) == 0)
			st->main = (uint32_t)m;
	users++;
	return st;
}

static const struct fn *find_fn(const struct symfile *sf, uint64_t addr)
{
	size_t lo = first_above(sf->fns, sf->nfns, sizeof *sf->fns, addr);
	/* lo: first start > addr.  A symbol may sit inside a larger one
	 * (assembly entry points), so look back a little for one that
	 * contains addr. */
	for (size_t i = lo, k = 0; i > 0 && k < 8; i--, k++) {
		const struct fn *f = &sf->fns[i - 1];
		if (f->size ? addr - f->start < f->size : i == lo && i < sf->nfns)
			return f;
	}
	return NULL;
}

/* ---- function extents from .eh_frame -------------------------------------------
 *
 * Where no symbol covers a pc, the unwind table still knows the function:
 * each FDE covers one function (or one hot/cold part of one).  Its rows
 * (dwarf_cfi_addrframe) are smaller, one per change of the frame during the
 * prologue and epilogue, so they cannot stand for the function.  libdw does
 * not hand out the FDE of a pc, so we read the FDEs with dwarf_next_cfi and
 * decode their pointers ourselves.
 */

/* Read one pointer of DWARF EH encoding enc at *p (address: at), or fail
 * for encodings an FDE's location never uses in practice. */
static bool eh_pointer(const uint8_t **p, const uint8_t *end, uint8_t enc, bool elf64, uint64_t at,
		       uint64_t *out)
{
	const uint8_t *q = *p;
	uint64_t v = 0;
	size_t n;
	bool sign = false;
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
		n = elf64 ? 8 : 4;
		break;
	case DW_EH_PE_udata2:
		n = 2;
		break;
	case DW_EH_PE_udata4:
		n = 4;
		break;
	case DW_EH_PE_udata8:
		n = 8;
		break;
	case DW_EH_PE_sdata2:
		n = 2, sign = true;
		break;
	case DW_EH_PE_sdata4:
		n = 4, sign = true;
		break;
	case DW_EH_PE_sdata8:
		n = 8, sign = true;
		break;
	default:
		return false;
	}
	if ((size_t)(end - q) < n)
		return false;
	for (size_t i = 0; i < n; i++)          /* the ELF files we read are little- */
		v |= (uint64_t)q[i] << (8 * i); /* endian like us, as checked */
	if (sign && n < 8 && (v >> (8 * n - 1)) & 1)
		v |= ~(uint64_t)0 << (8 * n);
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		break;
	case DW_EH_PE_pcrel:
		v += at;
		break;
	default:
		return false;
	}
	*p = q + n;
	*out = v;
	return true;
}

/* The FDE pointer encoding of a CIE, from its augmentation ("zR", "zPLR"). */
static int cie_encoding(const Dwarf_CIE *cie, bool elf64)
{
	const char *a = cie->augmentation;
	if (!a || a[0] != 'z')
		return a && a[0] ? -1 : DW_EH_PE_absptr;
	const uint8_t *d = cie->augmentation_data, *end = d + cie->augmentation_data_size;
	for (a++; *a && d < end; a++) {
		uint64_t ignored;
		switch (*a) {
		case 'R':
			return *d;
		case 'L':
			d++;
			break;
		case 'P': {
			uint8_t enc = *d++;
			if (!eh_pointer(&d, end, enc & 0x0f, elf64, 0, &ignored))
				return -1;
			break;
		}
		case 'S':
		case 'B':
			break;
		default:
			return -1;
		}
	}
	return DW_EH_PE_absptr;
}

static int extent_cmp(const void *a, const void *b)
{
	const struct extent *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void load_fdes(struct symfile *sf)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(sf->mod, &bias);
	size_t shstrndx;
	GElf_Ehdr eh;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0 || !gelf_getehdr(elf, &eh) ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
		return;
	bool elf64 = eh.e_ident[EI_CLASS] == ELFCLASS64;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
		    (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    strcmp(name, ".eh_frame") == 0) {
			d = elf_getdata(scn, NULL);
			break;
		}
	}
	if (!d || !d->d_buf)
		return;
	struct {
		Dwarf_Off off;
		int enc;
	} *cies = NULL;
	size_t ncies = 0, cap = 0;
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;
	while (dwarf_next_cfi(eh.e_ident, d, true, off, &next, &e) == 0) {
		if (dwarf_cfi_cie_p(&e)) {
			cies = xrealloc(cies, (ncies + 1) * sizeof *cies);
			cies[ncies].off = off;
			cies[ncies++].enc = cie_encoding(&e.cie, elf64);
		} else {
			int enc = -1;
			for (size_t i = ncies; i-- > 0;)
				if (cies[i].off == e.fde.CIE_pointer) {
					enc = cies[i].enc;
					break;
				}
			const uint8_t *p = e.fde.start;
			uint64_t start, len;
			if (enc >= 0 &&
			    eh_pointer(&p, e.fde.end, (uint8_t)enc, elf64,
				       sh.sh_addr + (uint64_t)(p - (const uint8_t *)d->d_buf),
				       &start) &&
			    eh_pointer(&p, e.fde.end, (uint8_t)enc & 0x0f, elf64, 0, &len) && len) {
				if (sf->nfdes == cap) {
					cap = cap * 2 + 64;
					sf->fdes = xrealloc(sf->fdes, cap * sizeof *sf->fdes);
				}
				sf->fdes[sf->nfdes++] = (struct extent){ start, start + len };
			}
		}
		off = next;
	}
	free(cies);
	if (sf->nfdes)
		qsort(sf->fdes, sf->nfdes, sizeof *sf->fdes, extent_cmp);
}

/* The FDE extent around addr, or NULL. */
static const struct extent *find_fde(struct symfile *sf, uint64_t addr)
{
	if (!sf->fdes_tried) {
		sf->fdes_tried = true;
		load_fdes(sf);
	}
	size_t lo = first_above(sf->fdes, sf->nfdes, sizeof *sf->fdes, addr);
	return lo > 0 && addr < sf->fdes[lo - 1].end ? &sf->fdes[lo - 1] : NULL;
}

/* The line row of addr, only from a unit whose ranges hold addr: libdwfl
 * gives an address outside every .debug_aranges entry to the unit listed
 * below it, so the Go code of a cgo program (Go's units have no aranges,
 * gcc's do) came out at the last line of some C file. */
static Dwfl_Line *unit_line(struct symfile *sf, uint64_t addr)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(sf->mod, addr, &bias);
	return cu && dwarf_haspc(cu, addr - bias) > 0 ? dwfl_module_getsrc(sf->mod, addr) : NULL;
}

bool symtab_lookup(struct symtab *st, uint32_t module, uint64_t pc, struct sym_info *out)
{
	*out = (struct sym_info){ .module = "[unknown]" };
	if (module == PP_NO_MODULE || module >= st->proc->nmodules)
		return false;
	struct symfile *sf = get_file(st, module);
	uint64_t addr = pc - st->proc->modules[module].bias;
	out->module = sf->path;
	sf->used = true;
	if (sf->state != SF_OK)
		return false;
	if (module == st->main && sf->has_entry && addr == sf->entry) {
		out->function = SYM_STARTUP;
		out->pseudo = true;
		out->fn_start = addr;
		out->fn_size = 1;
		return true;
	}
	const struct fn *f = find_fn(sf, addr);
	const struct extent *x;
	if (f) {
		out->function = f->name;
		out->fn_start = f->start;
		out->fn_size = f->size;
	} else if ((x = find_fde(sf, addr)) != NULL) {
		out->fn_start = x->start;
		out->fn_size = x->end - x->start;
	} else {
		/* no .eh_frame in this file (.debug_frame only): a row of the
		 * unwind table is the best extent there is */
		Dwarf_Addr bias;
		if (!sf->cfi_tried) {
			sf->cfi_tried = true;
			sf->cfi = dwfl_module_eh_cfi(sf->mod, &bias);
			if (!sf->cfi)
				sf->cfi = dwfl_module_dwarf_cfi(sf->mod, &bias);
		}
		Dwarf_Frame *frame;
		Dwarf_Addr s, e;
		if (sf->cfi && dwarf_cfi_addrframe(sf->cfi, addr, &frame) == 0) {
			if (dwarf_frame_info(frame, &s, &e, NULL) >= 0 && s <= addr && addr < e) {
				out->fn_start = s;
				out->fn_size = e - s;
			}
			free(frame);
		}
	}
	if (sf->has_lines) {
		Dwfl_Line *l = unit_line(sf, addr);
		int line = 0;
		const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
		if (file && line > 0) {
			out->file = file;
			out->line = line;
			out->comp_dir = dwfl_line_comp_dir(l);
		}
	}
	if (!out->file && sf->go) { /* a Go binary's own line table */
		struct go_frame g[SYM_MAX_FRAMES];
		size_t n = symtab_go_frames(sf->go, addr, g, SYM_MAX_FRAMES);
		if (n && g[n - 1].file && g[n - 1].line > 0) {
			out->file = g[n - 1].file;
			out->line = g[n - 1].line;
		}
	}
	return out->function != NULL;
}

/* ---- inline chains from DWARF ---------------------------------------------
 *
 * A CU's concrete tree nests each DW_TAG_inlined_subroutine inside the
 * subprogram, lexical block or inlined subroutine its code was inlined
 * into, each with the pcs it covers.  The chain at an address is the path
 * from the CU down through the scopes that contain it.  libdw's
 * dwarf_getscopes stops at the first inlined subroutine and goes on in its
 * abstract origin instead, and dwarf_getscopes_die visits the whole CU,
 * so we walk the path ourselves: at each level the children only, every
 * subtree whose ranges miss the address skipped whole.
 */

/* The DIE that holds attribute at: die, or what its abstract origin or
 * specification lead to (dwarf_attr_integrate's search, but we need the
 * DIE: a file index means something only in its own unit's line table,
 * and with LTO the abstract origin lives in another unit). */
static bool attr_owner(Dwarf_Die *die, unsigned at, Dwarf_Die *out)
{
	Dwarf_Die d = *die;
	Dwarf_Attribute a;
	for (int i = 0; i < 8; i++) {
		if (dwarf_attr(&d, at, &a)) {
			*out = d;
			return true;
		}
		if (!dwarf_formref_die(dwarf_attr(&d, DW_AT_abstract_origin, &a), &d) &&
		    !dwarf_formref_die(dwarf_attr(&d, DW_AT_specification, &a), &d))
			return false;
	}
	return false;
}

/* File attribute fileat and line attribute lineat of die (followed to its
 * origin), as a file name and a line. */
static const char *die_position(Dwarf_Die *die, unsigned fileat, unsigned lineat, int *line)
{
	Dwarf_Die o, cu;
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwarf_Files *files;
	size_t nfiles;
	*line = 0;
	if (attr_owner(die, lineat, &o) && dwarf_formudata(dwarf_attr(&o, lineat, &a), &w) == 0 &&
	    w <= INT32_MAX)
		*line = (int)w;
	if (!attr_owner(die, fileat, &o) || dwarf_formudata(dwarf_attr(&o, fileat, &a), &w) != 0 ||
	    !dwarf_diecu(&o, &cu, NULL, NULL) || dwarf_getsrcfiles(&cu, &files, &nfiles) != 0 ||
	    w >= nfiles)
		return NULL;
	return dwarf_filesrc(files, w, NULL, NULL);
}

static bool cxx_unit(Dwarf_Die *die)
{
	Dwarf_Die cu;
	if (!dwarf_diecu(die, &cu, NULL, NULL))
		return false;
	switch (dwarf_srclang(&cu)) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
		return true;
	default:
		return false;
	}
}

/* The name of o, a C++ function's DIE with a DW_AT_name, after the names
 * of the namespaces, classes and functions around it ("std::min",
 * "main::{lambda}::operator()"), near what the demangler makes of its
 * linkage name, which such a DIE lacks (lambdas, some templates).  Asked
 * once per DIE (dwarf_getscopes_die reads the whole unit), then cached. */
static const char *qualified(struct symfile *sf, Dwarf_Die *o, const char *name)
{
	Dwarf_Off off = dwarf_dieoffset(o) + 1;
	if ((sf->nqnames + 1) * 2 > sf->capqnames) {
		size_t cap = sf->capqnames ? 2 * sf->capqnames : 64;
		struct qname *v = xcalloc(cap, sizeof *v);
		for (size_t i = 0; i < sf->capqnames; i++) {
			if (!sf->qnames[i].off)
				continue;
			size_t j = (size_t)sf->qnames[i].off * 0x9e3779b97f4a7c15ull % cap;
			while (v[j].off)
				j = (j + 1) % cap;
			v[j] = sf->qnames[i];
		}
		free(sf->qnames);
		sf->qnames = v;
		sf->capqnames = cap;
	}
	size_t j = (size_t)off * 0x9e3779b97f4a7c15ull % sf->capqnames;
	for (; sf->qnames[j].off; j = (j + 1) % sf->capqnames)
		if (sf->qnames[j].off == off)
			return sf->qnames[j].name;
	struct membuf m;
	FILE *q = membuf_open(&m);
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes_die(o, &scopes);
	for (int i = n - 1; i >= 1; i--) {
		const char *s = dwarf_diename(&scopes[i]);
		switch (dwarf_tag(&scopes[i])) {
		case DW_TAG_namespace:
			fprintf(q, "%s::", s ? s : "(anonymous namespace)");
			break;
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			/* a lambda's class has no name; the demangler's word */
			if (s)
				fprintf(q, "%s::", s);
			else
				fputs(strcmp(name, "operator()") == 0 ? "{lambda}::"
								      : "{unnamed type}::",
				      q);
			break;
		case DW_TAG_subprogram:
			if (s)
				fprintf(q, "%s::", s);
			break;
		default:
			break;
		}
	}
	free(scopes);
	fputs(name, q);
	sf->qnames[j] = (struct qname){ off, membuf_close(&m) };
	sf->nqnames++;
	return sf->qnames[j].name;
}

/* A function's raw name: its linkage name, else its DW_AT_name (in C++,
 * qualified); NULL if it has none. */
static const char *die_name(struct symfile *sf, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die o;
	const char *s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	if (!s)
		s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	if (s)
		return *s ? s : NULL;
	if (!attr_owner(die, DW_AT_name, &o) ||
	    !(s = dwarf_formstring(dwarf_attr(&o, DW_AT_name, &a))) || !*s)
		return NULL;
	return cxx_unit(&o) ? qualified(sf, &o, s) : s;
}

#define CHAIN_MAX 64

struct chain {
	struct symfile *sf;
	struct sym_frame f[CHAIN_MAX];
	const char *call_file[CHAIN_MAX]; /* where frame k was called from in k - 1 */
	int call_line[CHAIN_MAX];
	size_t n;
	bool full; /* more inline levels than CHAIN_MAX: the innermost are lost */
};

static void push(struct chain *c, Dwarf_Die *die, bool inlined)
{
	if (c->n == CHAIN_MAX) {
		c->full = true;
		return;
	}
	const char *name = die_name(c->sf, die);
	if (!name)
		return; /* nameless: its code stays with the frame around it */
	struct sym_frame *f = &c->f[c->n];
	f->function = name;
	f->decl_file = die_position(die, DW_AT_decl_file, DW_AT_decl_line, &f->decl_line);
	c->call_file[c->n] = NULL;
	c->call_line[c->n] = 0;
	if (inlined)
		c->call_file[c->n] =
			die_position(die, DW_AT_call_file, DW_AT_call_line, &c->call_line[c->n]);
	c->n++;
}

/* Go down from parent's children towards addr.  Namespaces and modules
 * have no ranges but may hold functions (Rust, Fortran; C++ compilers
 * put a function's definition at the unit's top level), so they are
 * searched only with ns, a second pass: in C++ they hold thousands of
 * declarations.  Other DIEs without ranges are skipped with their
 * subtrees. */
static bool descend(Dwarf_Die *parent, Dwarf_Addr addr, struct chain *c, int depth, bool ns)
{
	Dwarf_Die d;
	if (depth > 256 || dwarf_child(parent, &d) != 0)
		return false;
	do {
		int tag = dwarf_tag(&d);
		switch (tag) {
		case DW_TAG_namespace:
		case DW_TAG_module:
			if (ns && descend(&d, addr, c, depth + 1, ns))
				return true;
			continue;
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
		case DW_TAG_with_stmt:
			break;
		default:
			continue;
		}
		if (dwarf_haspc(&d, addr) != 1)
			continue;
		if (tag == DW_TAG_subprogram) { /* outermost, or a nested function */
			c->n = 0;
			c->full = false;
			push(c, &d, false);
		} else if (tag == DW_TAG_inlined_subroutine && c->n > 0) {
			push(c, &d, true);
		}
		descend(&d, addr, c, depth + 1, ns);
		return true;
	} while (dwarf_siblingof(&d, &d) == 0);
	return false;
}

/* The subprograms under parent (through namespaces and modules, where
 * Rust and Fortran put them), with every address range each covers. */
static void collect_subs(Dwarf_Die *parent, struct cu_subs *u, size_t *cap, int depth)
{
	Dwarf_Die d;
	if (depth > 64 || dwarf_child(parent, &d) != 0)
		return;
	do {
		int tag = dwarf_tag(&d);
		if (tag == DW_TAG_namespace || tag == DW_TAG_module) {
			collect_subs(&d, u, cap, depth + 1);
			continue;
		}
		if (tag != DW_TAG_subprogram)
			continue;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		while ((off = dwarf_ranges(&d, off, &base, &lo, &hi)) > 0) {
			/* an empty range, or one at 0: code the linker dropped */
			if (lo >= hi || lo == 0)
				continue;
			if (u->n == *cap) {
				*cap = *cap ? 2 * *cap : 64;
				u->r = xrealloc(u->r, *cap * sizeof *u->r);
			}
			u->r[u->n++] = (struct sub_range){ .lo = lo, .hi = hi, .die = d };
		}
	} while (dwarf_siblingof(&d, &d) == 0);
}

static int sub_cmp(const void *a, const void *b)
{
	const struct sub_range *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/* The index of unit cu (made on first use). */
static const struct cu_subs *cu_subs_of(struct symfile *sf, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	size_t lo = 0, hi = sf->ncus;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sf->cus[mid].cu < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < sf->ncus && sf->cus[lo].cu == off)
		return &sf->cus[lo];
	struct cu_subs u = { .cu = off };
	size_t cap = 0;
	collect_subs(cu, &u, &cap, 0);
	if (u.n)
		qsort(u.r, u.n, sizeof *u.r, sub_cmp);
	for (size_t i = 0; i < u.n; i++)
		u.r[i].reach = i && u.r[i - 1].reach > u.r[i].hi ? u.r[i - 1].reach : u.r[i].hi;
	if (sf->ncus == sf->capcus) {
		sf->capcus = sf->capcus ? 2 * sf->capcus : 16;
		sf->cus = xrealloc(sf->cus, sf->capcus * sizeof *sf->cus);
	}
	memmove(&sf->cus[lo + 1], &sf->cus[lo], (sf->ncus - lo) * sizeof *sf->cus);
	sf->cus[lo] = u;
	sf->ncus++;
	return &sf->cus[lo];
}

/* The subprogram of unit u at addr, into *out: the last range that starts
 * at or before addr and still holds it (ranges may nest or overlap: the
 * backward scan stops where no earlier range reaches addr). */
static bool sub_at(const struct cu_subs *u, Dwarf_Addr addr, Dwarf_Die *out)
{
	size_t lo = 0, hi = u->n;
	while (lo < hi) { /* the first range starting after addr */
		size_t mid = lo + (hi - lo) / 2;
		if (u->r[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && u->r[i].reach > addr;) {
		if (addr < u->r[i].hi) {
			*out = u->r[i].die;
			return true;
		}
	}
	return false;
}

/* A Go binary's chain from its .gopclntab, where DWARF has none: stripped,
 * or libdw finds no unit for the address (Go writes no .debug_aranges). */
static size_t go_frames(struct symfile *sf, uint64_t addr, struct sym_frame *v, size_t max)
{
	struct go_frame g[SYM_MAX_FRAMES];
	size_t n = sf->go ? symtab_go_frames(sf->go, addr, g,
					     max < SYM_MAX_FRAMES ? max : SYM_MAX_FRAMES)
			  : 0;
	for (size_t k = 0; k < n; k++)
		v[k] = (struct sym_frame){ .function = g[k].function,
					   .file = g[k].file,
					   .line = g[k].line };
	return n;
}

size_t symtab_frames(struct symtab *st, uint32_t module, uint64_t pc, struct sym_frame *v,
		     size_t max)
{
	if (module == PP_NO_MODULE || module >= st->proc->nmodules || max == 0)
		return 0;
	struct symfile *sf = get_file(st, module);
	uint64_t addr = pc - st->proc->modules[module].bias;
	if (sf->state != SF_OK)
		return 0;
	if (!sf->has_lines)
		return go_frames(sf, addr, v, max);
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(sf->mod, addr, &bias);
	struct chain *c = xmalloc(sizeof *c);
	c->sf = sf;
	c->n = 0;
	c->full = false;
	Dwarf_Die sub;
	if (cu && sub_at(cu_subs_of(sf, cu), addr - bias, &sub)) {
		push(c, &sub, false);
		descend(&sub, addr - bias, c, 1, false);
	}
	size_t n = c->n;
	if (n) {
		/* each frame's position: the call of the next, the last's own line */
		for (size_t k = 0; k + 1 < n; k++) {
			c->f[k].file = c->call_file[k + 1];
			c->f[k].line = c->call_line[k + 1];
		}
		Dwfl_Line *l = dwfl_module_getsrc(sf->mod, addr);
		int line = 0;
		const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
		c->f[n - 1].file = file && line > 0 ? file : NULL;
		c->f[n - 1].line = file && line > 0 ? line : 0;
		if (c->full) /* its innermost frames are missing: no own line */
			c->f[n - 1].file = NULL, c->f[n - 1].line = 0;
		/* too deep for v: the subprogram and the innermost frames */
		size_t skip = n > max ? n - max : 0;
		v[0] = c->f[0];
		for (size_t k = 1; k + skip < n; k++)
			v[k] = c->f[k + skip];
		n -= skip;
	}
	free(c);
	return n ? n : go_frames(sf, addr, v, max);
}

const char *symtab_symbol_file(struct symtab *st, uint32_t module)
{
	if (module == PP_NO_MODULE || module >= st->proc->nmodules)
		return NULL;
	struct symfile *sf = get_file(st, module);
	return sf->state == SF_OK ? sf->symfile : NULL;
}

void symtab_module_files(struct symtab *st, uint32_t module, const char **elf, const char **debug)
{
	*elf = *debug = NULL;
	if (module == PP_NO_MODULE || module >= st->proc->nmodules)
		return;
	struct symfile *sf = get_file(st, module);
	sf->used = true;
	if (sf->state != SF_OK)
		return;
	*elf = sf->debug_only ? NULL : sf->elf_file;
	*debug = sf->debug_only ? sf->elf_file : sf->debug_file;
}

Elf *symtab_module_elf(struct symtab *st, uint32_t module)
{
	if (module == PP_NO_MODULE || module >= st->proc->nmodules)
		return NULL;
	struct symfile *sf = get_file(st, module);
	GElf_Addr bias;
	return sf->state == SF_OK && !sf->debug_only ? dwfl_module_getelf(sf->mod, &bias) : NULL;
}

void symtab_notes(struct symtab *st, FILE *f, struct membuf *brief)
{
	for (size_t m = 0; m < st->proc->nmodules; m++) {
		struct symfile *sf = st->files[m];
		if (!sf || !sf->note || sf->noted || !sf->used)
			continue;
		sf->noted = true;
		/* the note quotes recorded paths: escaped like every name */
		if (brief && sf->brief) {
			if (!brief->f)
				membuf_open(brief);
			else
				fputs(", ", brief->f);
			text_put(brief->f, sf->brief);
			continue;
		}
		fprintf(f, "%s: ", sf->warning ? "warning" : "note");
		text_put(f, sf->note);
		fputc('\n', f);
	}
}

void symtab_brief_notes(struct membuf *brief, FILE *f)
{
	if (!brief->f)
		return;
	char *names = membuf_close(brief);
	/* names are escaped already (symtab_notes) */
	fprintf(f,
		"note: no debug symbols for %s: internal functions show as MODULE+0xADDRESS; "
		"install the packages named or pass --debug-dir (-v: details)\n",
		names);
	free(names);
	brief->f = NULL;
}

void symtab_close(struct symtab *st)
{
	if (!st)
		return;
	free(st->files);
	free(st);
	if (--users > 0)
		return;
	free(file_slot);
	file_slot = NULL;
	nslots = nfiles = 0;
	while (files) {
		struct symfile *sf = files;
		files = sf->next;
		unreport(sf);
		free(sf->fns);
		for (size_t i = 0; i < sf->nplt; i++)
			free(sf->plt_names[i]);
		free(sf->plt_names);
		free(sf->go_names);
		symtab_go_close(sf->go);
		free(sf->fdes);
		for (size_t i = 0; i < sf->capqnames; i++)
			free(sf->qnames[i].name);
		free(sf->qnames);
		for (size_t i = 0; i < sf->ncus; i++)
			free(sf->cus[i].r);
		free(sf->cus);
		free(sf->path);
		free(sf->symfile);
		free(sf->elf_file);
		free(sf->debug_file);
		free(sf->note);
		free(sf->brief);
		free(sf);
	}
}
