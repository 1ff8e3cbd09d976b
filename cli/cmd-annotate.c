/*
 * cmd-annotate.c - `pcprof annotate [FUNC...]`: where in a function the
 * samples are, by source line (view-annotate.c) or, with --asm, by
 * instruction: the function's code read from its module's file on disk
 * and disassembled with Capstone (the disassembler binutils-free tools
 * such as radare2 and many profilers use; Debian's libcapstone), with the
 * source line of each run of instructions above it.
 */
#include <capstone/capstone.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "annotate.h"
#include "cmd.h"
#include "debuginfo.h"
#include "srcpath.h"
#include "util.h"
#include "view.h"

enum { OPT_COLOR = 256, OPT_NO_DEMANGLE };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pcprof annotate [OPTIONS] [FUNC...] [-i FILE]\n"
		"\n"
		"Show where in each function matching FUNC (fnmatch, on the names report\n"
		"prints) the samples of FILE (default pcprof.data) are: its source lines\n"
		"with their samples and shares, or with --asm its instructions.  Without\n"
		"FUNC, the functions with most self samples.\n"
		"\n"
		"  -i, --input FILE     the recording (default pcprof.data)\n"
		"  -a, --asm            instructions (from the module's file) instead of lines\n"
		"  -n, --limit N        at most N functions (default 3 without FUNC; 0: all)\n"
		"  -C, --context N      source lines shown around each sampled line (default 3)\n"
		"      --color[=WHEN]   colour hot rows: auto (on a terminal, unless NO_COLOR\n"
		"                       is set; the default), always or never\n"
		"  -p, --pid PID        only the process(es) with this pid\n"
		"  -m, --module PAT     only samples in modules matching PAT (fnmatch)\n"
		"      --no-demangle    C++ and Rust names as in the binary "
		"(mangled)\n" DEBUGINFO_USAGE "  -h, --help           this text\n"
		"\n"
		"fn%%: share of the function's samples; all%%: of all samples.  Lines of code\n"
		"inlined into the function are shown in their own source files.\n"
		"See pcprof-annotate(1).\n");
}

static bool use_color(const char *when)
{
	if (!when || strcmp(when, "auto") == 0) {
		const char *nc = getenv("NO_COLOR");
		return isatty(STDOUT_FILENO) && !(nc && *nc);
	}
	if (strcmp(when, "always") == 0)
		return true;
	if (strcmp(when, "never") == 0)
		return false;
	die(2, "bad --color '%s' (auto, always or never)", when);
}

/* ---- instructions ---------------------------------------------------------- */

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
static int read_code(const struct model *f, uint32_t mod, uint64_t lo, uint64_t hi, struct code *c)
{
	const struct model_mod *mm = &f->mods[mod];
	uint32_t pi, m;
	Elf *e = proc_module(f, mod, &pi, &m) ? symtab_module_elf(f->st[pi], m) : NULL;
	if (!e) {
		struct stat sb;
		if (stat(mm->path, &sb) < 0)
			warnx_("%s: %s (--asm reads the instructions from a file with the "
			       "recorded build id: see --debug-dir, pcprof archive)",
			       mm->path, strerror(errno));
		else
			warnx_("%s: not the file that was profiled: its build id differs from "
			       "the recorded one (rebuilt or replaced), and no other file has it "
			       "(see --debug-dir; pcprof archive keeps the modules with a "
			       "recording)",
			       mm->path);
		return -1;
	}
	GElf_Ehdr eh;
	if (!gelf_getehdr(e, &eh)) {
		warnx_("%s: not an ELF file", mm->path);
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
			warnx_("%s: cannot read its code at 0x%" PRIx64, mm->path, lo);
			return -1;
		}
		c->bytes = xmalloc(c->len ? c->len : 1);
		memcpy(c->bytes, d->d_buf, c->len);
		return 0;
	}
	warnx_("%s: address 0x%" PRIx64 " is in none of its segments", mm->path, lo);
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

/* The instructions of link-time [lo, hi) with a's samples; when the
 * function's end is unknown (hi == 0), up to its last sampled address. */
static int disassemble(const struct ann_fn *a, uint64_t lo, uint64_t hi, const struct ann_style *st)
{
	const struct model *f = a->f;
	const struct model_mod *mm = &f->mods[f->fns[a->fn].mod];
	uint64_t last = a->nhits ? a->hits[a->nhits - 1].addr : lo;
	bool open_end = hi == 0;
	if (open_end)
		hi = last + 16; /* the longest x86 instruction is 15 bytes */
	struct code c = { 0 };
	if (read_code(f, f->fns[a->fn].mod, lo, hi, &c) < 0)
		return -1;
	cs_arch arch;
	cs_mode mode;
	csh h;
	if (!cs_arch_of(c.machine, &arch, &mode) || cs_open(arch, mode, &h) != CS_ERR_OK) {
		warnx_("%s: no disassembler for its machine (ELF e_machine %d)", mm->path,
		       c.machine);
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
	printf("%9s  %6s  %6s  %10s  %s\n", "samples", "fn%", "all%", "address", "instruction");
	while (left) {
		uint64_t at = addr;
		const char *mn = "(bad)", *ops = "";
		size_t size = 1;
		if (cs_disasm_iter(h, &p, &left, &addr, in)) {
			mn = in->mnemonic;
			ops = in->op_str;
			size = in->size;
		} else { /* not an instruction: a byte, and on */
			p++;
			left--;
			addr++;
		}
		uint64_t n = 0;
		for (; k < a->nhits && a->hits[k].addr < at + size; k++)
			if (a->hits[k].addr >= at)
				n += a->hits[k].samples;
		if (lines) {
			const char *file;
			int line;
			where(f->st[pi], &f->procs[pi].p->modules[m], m, at, &file, &line);
			file = srcpath_find(f, f->fns[a->fn].mod, at, file);
			if (file && line > 0 &&
			    (line != pline || !pfile || strcmp(file, pfile) != 0)) {
				printf("%9s  %6s  %6s  %10s  ", "", "", "", "");
				text_put(stdout, basename(file));
				printf(":%d  ", line);
				ann_source_line(file, line, true);
				putchar('\n');
			}
			pfile = file;
			pline = line;
		}
		bool hot = ann_hot_on(a, n, st);
		ann_counts(a, n);
		printf("  %10" PRIx64 ":  ", at);
		if (*ops)
			printf("%-7s %s", mn, ops);
		else
			fputs(mn, stdout);
		ann_hot_off(hot);
		putchar('\n');
		if (open_end && at >= last)
			break;
	}
	if (open_end)
		printf("%9s  %6s  %6s  %10s  (the function's end is unknown: shown up to its "
		       "last sampled instruction)\n",
		       "", "", "", "");
	cs_free(in, 1);
	cs_close(&h);
	free(c.bytes);
	return 0;
}

/* --asm: a's function's instructions; an inlined function's, in each
 * function it was inlined into where it has samples. */
static int view_asm(const struct ann_fn *a, const struct ann_style *st)
{
	const struct model *f = a->f;
	const struct model_fn *fn = &f->fns[a->fn];
	if (fn->mod == MODEL_NO_MOD) {
		ann_title(a, "Instructions", UINT32_MAX);
		warnx_("%s: outside every mapped file: no instructions to show", fn->label);
		return -1;
	}
	if (!fn->inlined) {
		ann_title(a, "Instructions", UINT32_MAX);
		uint64_t lo = fn->start, hi = fn->size ? fn->start + fn->size : 0;
		if (!fn->size && a->nhits && a->hits[0].addr < lo)
			lo = a->hits[0].addr;
		int rc = disassemble(a, lo, hi, st);
		/* the extent from the symbol table or unwind tables can be
		 * short of code the function jumps to: say what is missing */
		uint64_t out = 0;
		for (size_t i = 0; i < a->nhits; i++)
			if (a->hits[i].addr < lo || (hi && a->hits[i].addr >= hi))
				out += a->hits[i].samples;
		if (rc == 0 && out)
			printf("%9" PRIu64 "  %6.2f  %6.2f  %10s  (at addresses outside the "
			       "function's extent)\n",
			       out, 100.0 * (double)out / (double)a->samples, view_pct(f, out), "");
		return rc;
	}
	int rc = 0;
	uint32_t *outer = xcalloc(a->nhits + 1, sizeof *outer);
	size_t no = 0;
	for (size_t i = 0; i < a->nhits; i++) {
		uint32_t k = a->hits[i].pc;
		while (f->pcs[k].inl_caller != MODEL_NO_PC)
			k = f->pcs[k].inl_caller;
		size_t j = 0;
		while (j < no && outer[j] != f->pcs[k].fn)
			j++;
		if (j == no)
			outer[no++] = f->pcs[k].fn;
	}
	for (size_t j = 0; j < no; j++) {
		const struct model_fn *o = &f->fns[outer[j]];
		if (j)
			putchar('\n');
		ann_title(a, "Instructions", outer[j]);
		if (disassemble(a, o->start, o->size ? o->start + o->size : 0, st) < 0)
			rc = -1;
	}
	free(outer);
	return rc;
}

/* ---- the command --------------------------------------------------------------- */

static bool fn_matches(const struct model_fn *fn, char **pat, int npat)
{
	for (int i = 0; i < npat; i++)
		if (fnmatch(pat[i], fn->label, 0) == 0 ||
		    (fn->name && fnmatch(pat[i], fn->name, 0) == 0))
			return true;
	return false;
}

int cmd_annotate(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "asm", no_argument, NULL, 'a' },
		{ "limit", required_argument, NULL, 'n' },
		{ "context", required_argument, NULL, 'C' },
		{ "color", optional_argument, NULL, OPT_COLOR },
		{ "colour", optional_argument, NULL, OPT_COLOR },
		{ "pid", required_argument, NULL, 'p' },
		{ "module", required_argument, NULL, 'm' },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		DEBUGINFO_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file = "pcprof.data", *when = NULL;
	bool asm_view = false;
	long limit = -1;
	struct ann_style st = { .context = 3 };
	struct model_opts fo = { 0 };
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:an:C:p:m:h", longopts, NULL)) != -1) {
		if (debuginfo_option(c, optarg))
			continue;
		switch (c) {
		case 'i':
			file = optarg;
			break;
		case 'a':
			asm_view = true;
			break;
		case 'n':
			limit = (long)number_arg(2, "--limit", optarg, 0, INT32_MAX);
			break;
		case 'C':
			st.context = (int)number_arg(2, "--context", optarg, 0, 10000);
			break;
		case OPT_COLOR:
			when = optarg ? optarg : "always";
			break;
		case 'p':
			fo.pid = model_parse_pid(optarg);
			break;
		case 'm':
			fo.module = optarg;
			break;
		case OPT_NO_DEMANGLE:
			fo.no_demangle = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	st.color = use_color(when);
	char **pat = argv + optind;
	int npat = argc - optind;
	if (limit < 0)
		limit = npat ? 0 : 3;

	struct pp_profile prof;
	struct model *f = model_open(file, &fo, &prof);
	/* each function's samples in its code, the code inlined into it
	 * included: a function is worth showing if it has some */
	struct ann_index x;
	ann_index_build(f, &x);
	const uint64_t *code = x.code;
	size_t n;
	uint32_t *ix = model_sorted_fns(f, MODEL_SORT_SAMPLES, &n);
	size_t shown = 0;
	int rc = 0;
	bool callers_only = false; /* a match whose samples are all in its callees */
	for (size_t i = 0; i < n && (!limit || shown < (size_t)limit); i++) {
		const struct model_fn *fn = &f->fns[ix[i]];
		if (npat && !fn->marker && !code[ix[i]] && fn_matches(fn, pat, npat))
			callers_only = true;
		if (fn->marker || !code[ix[i]] ||
		    (npat ? !fn_matches(fn, pat, npat) : !fn->samples))
			continue;
		struct ann_fn a;
		ann_collect(&x, ix[i], &a);
		if (shown++)
			putchar('\n');
		if (asm_view) {
			if (view_asm(&a, &st) < 0)
				rc = 1;
		} else {
			ann_title(&a, "Source", UINT32_MAX);
			view_annotate_source(&a, &st);
		}
		ann_free(&a);
	}
	free(ix);
	ann_index_free(&x);
	char *notes = model_notes_text(f);
	if (*notes && shown)
		printf("\n%s", notes);
	free(notes);
	model_close(f, &prof);
	ann_sources_free();
	if (!shown) {
		if (callers_only)
			die(1,
			    "'%s' matches only functions without samples of their own (their time "
			    "is in the functions they call: 'pcprof report --callees '%s' %s')",
			    pat[0], pat[0], file);
		if (npat)
			die(1,
			    "no function with samples matches '%s'%s ('pcprof report %s' lists "
			    "them)",
			    pat[0], npat > 1 ? " or the other patterns" : "", file);
		die(1, "%s: no samples to annotate", file);
	}
	return rc;
}
