/*
 * cmd-annotate.c - `pcprof annotate [FUNC...]`: where in a function the
 * samples are, by source line (view-annotate.c) or, with --asm, by
 * instruction: the function's code read from its module's file on disk
 * and disassembled with Capstone (the disassembler binutils-free tools
 * such as radare2 and many profilers use; Debian's libcapstone;
 * annotate-asm.c), with the source line of each run of instructions
 * above it.
 */
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "annotate.h"
#include "archive.h"
#include "cmd.h"
#include "data.h"
#include "filteropt.h"
#include "srcpath.h"
#include "util.h"
#include "view.h"

enum { OPT_COLOR = 256 };

static void usage(FILE *f)
{
	fputs("usage: pcprof annotate [OPTIONS] [FUNC...] [-i FILE]\n"
	      "       pcprof annotate [OPTIONS] FILE [FUNC...]\n"
	      "\n"
	      "Show where in each function matching FUNC (fnmatch, on the names report\n"
	      "prints) the samples of FILE (default pcprof.data) are: its source lines\n"
	      "with their samples and shares, or with --asm its instructions.  Without\n"
	      "FUNC, the functions with most self samples.\n"
	      "\n"
	      "  -i, --input FILE     the recording (default pcprof.data; without -i, a\n"
	      "                       first operand that is a data file is the recording)\n"
	      "  -a, --asm            instructions (from the module's file) instead of lines\n"
	      "  -n, --limit N        at most N functions (default 3 without FUNC; 0: all)\n"
	      "  -C, --context N      source lines shown around each sampled line (default 3)\n"
	      "      --color[=WHEN]   colour hot rows: auto (on a terminal, unless NO_COLOR\n"
	      "                       is set; the default), always or never (or --colour)\n"
	      "  -v, --verbose        the notes on modules without debug symbols in full\n",
	      f);
	fputs(FILTER_USAGE("-f,"), f);
	fputs("  -h, --help           this text\n"
	      "\n"
	      "fn%: share of the function's samples; all%: of all samples.  Lines of code\n"
	      "inlined into the function are shown in their own source files.\n"
	      "See pcprof-annotate(1).\n",
	      f);
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

struct asm_print {
	const struct ann_fn *a;
	const struct ann_style *st;
};

static void print_insn(void *ctx, const struct ann_insn *in)
{
	const struct asm_print *p = ctx;
	if (!in) {
		printf("%9s  %6s  %6s  %10s  %s\n", "samples", "fn%", "all%", "address",
		       "instruction");
		return;
	}
	if (in->file) {
		const struct model_fn *fn = &p->a->f->fns[p->a->fn];
		if (fn->mod != MODEL_NO_MOD)
			ann_source_check_age(in->file, p->a->f->mods[fn->mod].path);
		printf("%9s  %6s  %6s  %10s  ", "", "", "", "");
		text_put(stdout, basename(in->file));
		printf(":%d  ", in->line);
		ann_source_line(in->file, in->line, true);
		putchar('\n');
	}
	bool hot = ann_hot_on(p->a, in->samples, p->st);
	ann_counts(p->a, in->samples);
	printf("  %10" PRIx64 ":  ", in->addr);
	if (*in->ops)
		printf("%-7s %s", in->mnemonic, in->ops);
	else
		fputs(in->mnemonic, stdout);
	ann_hot_off(hot);
	putchar('\n');
}

/* The instructions of link-time [lo, hi) with a's samples; when the
 * function's end is unknown (hi == 0), up to its last sampled address. */
static int disassemble(const struct ann_fn *a, uint64_t lo, uint64_t hi, const struct ann_style *st)
{
	char err[4096];
	struct asm_print p = { a, st };
	if (ann_disasm(a, lo, hi, print_insn, &p, err, sizeof err) < 0) {
		warnx_("%s", err);
		return -1;
	}
	if (hi == 0)
		printf("%9s  %6s  %6s  %10s  (the function's end is unknown: shown up to its "
		       "last sampled instruction)\n",
		       "", "", "", "");
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
		uint64_t lo, hi, out;
		ann_extent(a, &lo, &hi, &out);
		int rc = disassemble(a, lo, hi, st);
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

/* Does path name a pcprof data file or archive (by its first bytes)?  A
 * function name pattern almost never does. */
static bool data_file(const char *path)
{
	char magic[8];
	FILE *in = fopen(path, "rb");
	if (!in)
		return false;
	bool is = fread(magic, 1, sizeof magic, in) == sizeof magic &&
		  memcmp(magic, PP_MAGIC, sizeof magic) == 0;
	fclose(in);
	return is || archive_is(path);
}

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
		{ "verbose", no_argument, NULL, 'v' },
		FILTER_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file = NULL, *when = NULL;
	bool asm_view = false, verbose = false;
	long limit = -1;
	struct ann_style st = { .context = 3 };
	struct filter_opts fo = { 0 };
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:an:C:vh" FILTER_SHORTOPTS, longopts, NULL)) != -1) {
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
		case 'v':
			verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (filter_option(c, optarg, &fo))
				break;
			try_help(2); /* after getopt's message naming the option */
		}
	}
	st.color = use_color(when);
	char **pat = argv + optind;
	int npat = argc - optind;
	/* "pcprof annotate x.data" means the recording, not a function named
	 * so (as report and export take it): without -i, a first operand
	 * that is a data file is the input. */
	if (!file && npat && data_file(pat[0])) {
		file = pat[0];
		pat++;
		npat--;
	}
	if (!file)
		file = "pcprof.data";
	if (limit < 0)
		limit = npat ? 0 : 3;

	struct pp_profile prof;
	struct model *f = model_open(file, &fo.model, &prof);
	filter_check_match(f, file);
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
	char *notes = model_notes_text(f, verbose);
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
