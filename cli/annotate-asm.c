/*
 * annotate-asm.c - a function's instructions with their samples, for
 * `pcprof annotate --asm` (cmd-annotate.c prints them) and the HTML
 * page's source view (out-html-annotate.c): its code read from the ELF
 * image symbolization uses (the recorded build id only) and disassembled
 * with Capstone (Debian's libcapstone), with the source line of each run
 * of instructions.
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "annotate.h"
#include "srcpath.h"
#include "util.h"

/* Process pi's module m is the model's module mod (to ask symtab). */
static bool proc_module(const struct model *f, uint32_t mod, uint32_t *pi, uint32_t *m)
{
	const struct model_mod *mm = &f->mods[mod];
	for (uint32_t i = 0; i < f->nprocs; i++) {
		const struct pp_process *p = f->procs[i].p;
		for (uint32_t j = 0; j < p->nmodules; j++) {
			const struct pp_module *pm = &p->modules[j];
			uint32_t n = pm->build_id_len > 40 ? 0 : pm->build_id_len;
			if (strcmp(pm->path, mm->path) == 0 && n == mm->build_id_len &&
			    memcmp(pm->build_id, mm->build_id, n) == 0) {
				*pi = i;
				*m = j;
				return true;
			}
		}
	}
	return false;
}

struct code {
	uint8_t *bytes;
	size_t len;
	int machine; /* e_machine */
};

/* The bytes of link-time [lo, hi) of the model's module mod, from the ELF
 * image symbolization uses (symtab_module_elf: the recorded file, a
 * --debug-dir copy, an archive's or debuginfod's, each only with the
 * recorded build id), so that --asm never shows another build's code.
 * 0, or -1 after a message. */
static int read_code(const struct model *f, uint32_t mod, uint64_t lo, uint64_t hi, struct code *c,
		     char *err, size_t errlen)
{
	const struct model_mod *mm = &f->mods[mod];
	uint32_t pi, m;
	Elf *e = proc_module(f, mod, &pi, &m) ? symtab_module_elf(f->st[pi], m) : NULL;
	if (!e) {
		struct stat sb;
		if (stat(mm->path, &sb) < 0)
			snprintf(err, errlen,
				 "%s: %s (--asm reads the instructions from a file with the "
				 "recorded build id: see --debug-dir, pcprof archive)",
				 mm->path, strerror(errno));
		else
			snprintf(err, errlen,
				 "%s: not the file that was profiled: its build id differs from "
				 "the recorded one (rebuilt or replaced), and no other file has it "
				 "(see --debug-dir; pcprof archive keeps the modules with a "
				 "recording)",
				 mm->path);
		return -1;
	}
	GElf_Ehdr eh;
	if (!gelf_getehdr(e, &eh)) {
		snprintf(err, errlen, "%s: not an ELF file", mm->path);
		return -1;
	}
	size_t np = 0;
	elf_getphdrnum(e, &np);
	for (size_t i = 0; i < np; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || lo < ph.p_vaddr ||
		    lo >= ph.p_vaddr + ph.p_filesz)
			continue;
		if (hi > ph.p_vaddr + ph.p_filesz)
			hi = ph.p_vaddr + ph.p_filesz;
		c->len = (size_t)(hi - lo);
		c->machine = eh.e_machine;
		Elf_Data *d = elf_getdata_rawchunk(e, (int64_t)(ph.p_offset + (lo - ph.p_vaddr)),
						   c->len, ELF_T_BYTE);
		if (!d || d->d_size != c->len) {
			snprintf(err, errlen, "%s: cannot read its code at 0x%" PRIx64, mm->path,
				 lo);
			return -1;
		}
		c->bytes = xmalloc(c->len ? c->len : 1);
		memcpy(c->bytes, d->d_buf, c->len);
		return 0;
	}
	snprintf(err, errlen, "%s: address 0x%" PRIx64 " is in none of its segments", mm->path, lo);
	return -1;
}

static bool cs_arch_of(int machine, cs_arch *arch, cs_mode *mode)
{
	switch (machine) {
	case EM_X86_64:
		*arch = CS_ARCH_X86;
		*mode = CS_MODE_64;
		return true;
	case EM_386:
		*arch = CS_ARCH_X86;
		*mode = CS_MODE_32;
		return true;
	case EM_AARCH64:
		*arch = CS_ARCH_ARM64;
		*mode = CS_MODE_ARM;
		return true;
	default:
		return false;
	}
}

/* The innermost source position of link-time addr of the module. */
static void where(struct symtab *st, const struct pp_module *pm, uint32_t m, uint64_t addr,
		  const char **file, int *line)
{
	struct sym_frame fr[SYM_MAX_FRAMES];
	size_t n = symtab_frames(st, m, addr + pm->bias, fr, SYM_MAX_FRAMES);
	if (n) {
		*file = fr[n - 1].file;
		*line = fr[n - 1].line;
		return;
	}
	struct sym_info si;
	symtab_lookup(st, m, addr + pm->bias, &si);
	*file = si.file;
	*line = si.line;
}

int ann_disasm(const struct ann_fn *a, uint64_t lo, uint64_t hi,
	       void (*each)(void *ctx, const struct ann_insn *in), void *ctx, char *err,
	       size_t errlen)
{
	const struct model *f = a->f;
	const struct model_mod *mm = &f->mods[f->fns[a->fn].mod];
	uint64_t last = a->nhits ? a->hits[a->nhits - 1].addr : lo;
	bool open_end = hi == 0;
	if (open_end)
		hi = last + 16; /* the longest x86 instruction is 15 bytes */
	struct code c = { 0 };
	if (read_code(f, f->fns[a->fn].mod, lo, hi, &c, err, errlen) < 0)
		return -1;
	cs_arch arch;
	cs_mode mode;
	csh h;
	if (!cs_arch_of(c.machine, &arch, &mode) || cs_open(arch, mode, &h) != CS_ERR_OK) {
		snprintf(err, errlen, "%s: no disassembler for its machine (ELF e_machine %d)",
			 mm->path, c.machine);
		free(c.bytes);
		return -1;
	}
	uint32_t pi = 0, m = 0;
	bool lines = mm->has_lines && proc_module(f, f->fns[a->fn].mod, &pi, &m);
	cs_insn *in = cs_malloc(h);
	const uint8_t *p = c.bytes;
	size_t left = c.len, k = 0;
	uint64_t addr = lo;
	const char *pfile = NULL;
	int pline = 0;
	each(ctx, NULL);
	while (left) {
		struct ann_insn ai = { .addr = addr, .mnemonic = "(bad)", .ops = "" };
		size_t size = 1;
		if (cs_disasm_iter(h, &p, &left, &addr, in)) {
			ai.mnemonic = in->mnemonic;
			ai.ops = in->op_str;
			size = in->size;
		} else { /* not an instruction: a byte, and on */
			p++;
			left--;
			addr++;
		}
		for (; k < a->nhits && a->hits[k].addr < ai.addr + size; k++)
			if (a->hits[k].addr >= ai.addr)
				ai.samples += a->hits[k].samples;
		if (lines) {
			const char *file;
			int line;
			where(f->st[pi], &f->procs[pi].p->modules[m], m, ai.addr, &file, &line);
			file = srcpath_find(f, f->fns[a->fn].mod, ai.addr, file);
			if (file && line > 0 &&
			    (line != pline || !pfile || strcmp(file, pfile) != 0)) {
				ai.file = file;
				ai.line = line;
			}
			pfile = file;
			pline = line;
		}
		each(ctx, &ai);
		if (open_end && ai.addr >= last)
			break;
	}
	cs_free(in, 1);
	cs_close(&h);
	free(c.bytes);
	return 0;
}

void ann_extent(const struct ann_fn *a, uint64_t *lo, uint64_t *hi, uint64_t *outside)
{
	const struct model_fn *fn = &a->f->fns[a->fn];
	*lo = fn->start;
	*hi = fn->size ? fn->start + fn->size : 0;
	if (!fn->size && a->nhits && a->hits[0].addr < *lo)
		*lo = a->hits[0].addr;
	/* the extent from the symbol table or unwind tables can be short of
	 * code the function jumps to: say what is missing */
	*outside = 0;
	for (size_t i = 0; i < a->nhits; i++)
		if (a->hits[i].addr < *lo || (*hi && a->hits[i].addr >= *hi))
			*outside += a->hits[i].samples;
}
