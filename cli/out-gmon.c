/*
 * out-gmon.c - gprof's gmon.out, one file per module: histogram records,
 * and call-graph arc records from the recorded stacks (docs/formats.md
 * "gmon.out"; ecosystem.md 1a).
 *
 * gprof takes one image per run and every shared object's link-time
 * addresses start near 0, so each module gets its own file, with the
 * module's link-time addresses (pc - bias): `gprof -b -p MODULE FILE` then
 * names its functions, for the executable and for each library alike.
 *
 * gprof's rules, as binutils 2.40 reads the file:
 * - fields are packed, in the byte order and address size of the image;
 * - hist_size counts bins, each an unsigned 16-bit counter; a bin covers
 *   (high_pc - low_pc) / hist_size bytes, the same in every record;
 * - records with exactly the same range are summed, which is how counts
 *   above 65535 are carried: the same range again with the remainder;
 * - prof_rate is samples per second: we write the achieved rate, so that
 *   gprof's seconds add up to the CPU time the program used;
 * - an arc record (tag 1) is (from_pc, self_pc, u32 count): gprof finds
 *   the caller's function by from_pc and the callee's by self_pc.
 *
 * Arcs: each caller frame and the frame it called, both in this module,
 * is an arc from the caller's pc (its return address minus one) to the
 * callee's function start.  Its count is the number of samples whose
 * stack holds that call (once per sample, even under recursion): a sample
 * count, not a call count.  Calls between modules (main into libc) belong
 * to no single gmon.out, and are left out.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "out.h"
#include "util.h"

struct enc {
	bool big;      /* big-endian image */
	int addr_size; /* 4 or 8 */
};

/* v as an n-byte (n <= 8) integer in the image's byte order */
static void put(FILE *s, const struct enc *e, uint64_t v, int n)
{
	for (int i = 0; i < n; i++) {
		int shift = e->big ? 8 * (n - 1 - i) : 8 * i;
		fputc((int)((v >> shift) & 0xff), s);
	}
}

/* Byte order and word size from the image's ELF header; ours if it cannot
 * be read.  Returns whether path is a readable ELF file (never blocking on
 * a FIFO a recorded path may now name). */
static bool image_encoding(const char *path, struct enc *e)
{
	uint16_t one = 1;
	e->big = *(const uint8_t *)&one == 0;
	e->addr_size = (int)sizeof(void *);
	unsigned char id[EI_NIDENT];
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
	if (fd < 0)
		return false;
	struct stat st;
	bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		  read(fd, id, sizeof id) == (ssize_t)sizeof id && memcmp(id, ELFMAG, SELFMAG) == 0;
	close(fd);
	if (!ok)
		return false;
	if (id[EI_CLASS] == ELFCLASS32 || id[EI_CLASS] == ELFCLASS64)
		e->addr_size = id[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	if (id[EI_DATA] == ELFDATA2LSB || id[EI_DATA] == ELFDATA2MSB)
		e->big = id[EI_DATA] == ELFDATA2MSB;
	return true;
}

struct bin {
	uint64_t lo; /* link-time address, even */
	uint64_t count;
};

static int bin_cmp(const void *a, const void *b)
{
	const struct bin *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* One histogram record: n bins from lo, counters min(count, 65535), which
 * are then taken off the counts (what is left goes in the next copy). */
static void put_record(FILE *s, const struct enc *e, struct bin *b, size_t n, uint32_t rate)
{
	fputc(0, s); /* tag: time histogram */
	put(s, e, b[0].lo, e->addr_size);
	put(s, e, b[0].lo + 2 * (uint64_t)n, e->addr_size);
	put(s, e, n, 4);
	put(s, e, rate, 4);
	char dimen[15] = "seconds";
	fwrite(dimen, 1, sizeof dimen, s);
	fputc('s', s);
	for (size_t i = 0; i < n; i++) {
		uint64_t c = b[i].count > 65535 ? 65535 : b[i].count;
		put(s, e, c, 2);
		b[i].count -= c;
	}
}

/*
 * The module's samples as histogram records of 2-byte bins (gprof's unit,
 * so every pc is charged to exactly one function).  Rather than one record
 * over the whole text, one per cluster of sampled addresses (a gap of more
 * than GAP bytes starts a new one): the file stays proportional to the
 * code that was hit, and a hot loop's counts above 65535 repeat only its
 * own small record.  gprof 2.40 adds up disjoint records that cover parts
 * of one function (checked by hand: fix_hot in two records and a repeat).
 */
#define GAP 64
/* At most this many copies of a record: a bin above 256 x 65535 samples
 * (28 minutes at 10 kHz on one instruction) scales the whole file down. */
#define MAX_COPIES 256

/* Each module's sampled pcs and functions, found once for all modules:
 * a profile may have thousands of modules (a test suite's binaries). */
struct by_mod {
	uint32_t *pcs, *fns;   /* indexes, grouped by module */
	size_t *pc_at, *fn_at; /* module m's: [m_at[m], m_at[m + 1]) */
};

/* Indexes i < n with mod_of(i) != MODEL_NO_MOD and a sample, grouped by
 * module (a counting sort). */
static uint32_t *group(const struct model *f, size_t n,
		       uint32_t (*mod_of)(const struct model *, size_t), size_t **at)
{
	size_t *a = xcalloc(f->nmods + 2, sizeof *a);
	for (size_t i = 0; i < n; i++) {
		uint32_t m = mod_of(f, i);
		if (m != MODEL_NO_MOD)
			a[m + 2]++;
	}
	for (size_t m = 2; m < f->nmods + 2; m++)
		a[m] += a[m - 1];
	uint32_t *ix = xcalloc(a[f->nmods + 1], sizeof *ix);
	for (size_t i = 0; i < n; i++) {
		uint32_t m = mod_of(f, i);
		if (m != MODEL_NO_MOD)
			ix[a[m + 1]++] = (uint32_t)i;
	}
	*at = a;
	return ix;
}

static uint32_t pc_mod(const struct model *f, size_t i)
{
	return f->pcs[i].samples ? f->pcs[i].mod : MODEL_NO_MOD;
}

static uint32_t fn_mod(const struct model *f, size_t i)
{
	return f->fns[i].samples ? f->fns[i].mod : MODEL_NO_MOD;
}

struct arc {
	uint32_t mod;
	uint64_t from, self; /* link-time */
	uint32_t stack;      /* the leaf node of the stack that holds it */
	uint64_t count;
};

struct arcs {
	struct arc *v;
	size_t n, cap;
	size_t *at; /* module m's arcs: [at[m], at[m + 1]) */
};

static void stack_arcs(void *ctx, uint32_t node, const uint32_t *fns, size_t depth, uint64_t count)
{
	struct arcs *a = ((void **)ctx)[0];
	const struct model *f = ((void **)ctx)[1];
	(void)fns;
	(void)depth;
	for (uint32_t k = node; f->nodes[k].parent != MODEL_NO_NODE; k = f->nodes[k].parent) {
		const struct model_pc *callee = &f->pcs[f->nodes[k].pc];
		const struct model_pc *caller = &f->pcs[f->nodes[f->nodes[k].parent].pc];
		if (callee->mod == MODEL_NO_MOD || callee->mod != caller->mod ||
		    callee->inl_caller != MODEL_NO_PC) /* inlined: no call */
			continue;
		if (a->n == a->cap) {
			a->cap = a->cap ? 2 * a->cap : 256;
			a->v = xrealloc(a->v, a->cap * sizeof *a->v);
		}
		a->v[a->n++] = (struct arc){ callee->mod, caller->addr, f->fns[callee->fn].start,
					     node, count };
	}
}

static int arc_cmp(const void *p, const void *q)
{
	const struct arc *x = p, *y = q;
	if (x->mod != y->mod)
		return x->mod < y->mod ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->self != y->self)
		return x->self < y->self ? -1 : 1;
	return (x->stack > y->stack) - (x->stack < y->stack);
}

/* The arcs of every module: per stack once, then summed over stacks. */
static void find_arcs(const struct model *f, struct arcs *a)
{
	void *ctx[2] = { a, (void *)f };
	model_each_stack(f, stack_arcs, ctx);
	if (a->n)
		qsort(a->v, a->n, sizeof *a->v, arc_cmp);
	size_t k = 0;
	for (size_t i = 0; i < a->n; i++) {
		struct arc *last = k ? &a->v[k - 1] : NULL;
		bool same = last && last->mod == a->v[i].mod && last->from == a->v[i].from &&
			    last->self == a->v[i].self;
		if (same && last->stack == a->v[i].stack)
			continue; /* recursion: this sample's stack has it already */
		if (same) {
			last->count += a->v[i].count;
			last->stack = a->v[i].stack;
		} else {
			a->v[k++] = a->v[i];
		}
	}
	a->n = k;
	a->at = xcalloc(f->nmods + 1, sizeof *a->at);
	for (size_t i = 0, m = 0; m <= f->nmods; m++) {
		while (i < a->n && a->v[i].mod < m)
			i++;
		a->at[m] = i;
	}
}

/* An arc's count is 32 bits wide: more samples than that (five days of
 * one call at 10 kHz) are written as the most it holds. */
static void put_arcs(FILE *s, const struct enc *e, const struct arcs *a, uint32_t m)
{
	for (size_t i = a->at[m]; i < a->at[m + 1]; i++) {
		fputc(1, s); /* tag: call-graph arc */
		put(s, e, a->v[i].from, e->addr_size);
		put(s, e, a->v[i].self, e->addr_size);
		put(s, e, a->v[i].count > UINT32_MAX ? UINT32_MAX : a->v[i].count, 4);
	}
}

static int write_module(const struct model *f, const struct by_mod *bm, const struct arcs *arcs,
			uint32_t m, const char *path, uint32_t rate, char *err, size_t errlen)
{
	const struct model_mod *mod = &f->mods[m];
	size_t n = bm->pc_at[m + 1] - bm->pc_at[m];
	struct bin *b = xcalloc(n, sizeof *b);
	for (size_t i = 0; i < n; i++) {
		const struct model_pc *pc = &f->pcs[bm->pcs[bm->pc_at[m] + i]];
		b[i] = (struct bin){ pc->addr & ~(uint64_t)1, pc->samples };
	}
	qsort(b, n, sizeof *b, bin_cmp);
	size_t k = 0; /* pcs in one bin: one bin */
	uint64_t top = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && b[k - 1].lo == b[i].lo) {
			b[k - 1].count = b[k - 1].count > UINT64_MAX - b[i].count
						 ? UINT64_MAX
						 : b[k - 1].count + b[i].count;
		} else {
			b[k++] = b[i];
		}
		if (b[k - 1].count > top)
			top = b[k - 1].count;
	}
	n = k;
	uint64_t scale = top / ((uint64_t)MAX_COPIES * 65535) + 1;
	if (scale > 1) {
		for (size_t i = 0; i < n; i++)
			b[i].count = b[i].count / scale + (b[i].count % scale >= scale / 2);
		rate = (uint32_t)((rate + scale / 2) / scale);
		if (!rate)
			rate = 1;
		fputs("note: ", stderr);
		text_put(stderr, path);
		fprintf(stderr,
			": counts divided by %" PRIu64 " (and the rate with them) "
			"to fit gmon.out's 16-bit counters\n",
			scale);
	}

	struct enc e;
	image_encoding(mod->symfile ? mod->symfile : mod->path, &e);
	struct ofile *o = ofile_open(path, err, errlen);
	if (!o) {
		free(b);
		return -1;
	}
	FILE *s = ofile_stream(o);
	fwrite("gmon", 1, 4, s);
	put(s, &e, 1, 4); /* version */
	static const char spare[12];
	fwrite(spare, 1, sizeof spare, s);
	/* Fill each cluster's gaps with empty bins, so that its bins are
	 * contiguous; clusters never share a bin, so records never overlap. */
	struct bin *r = xcalloc(n ? (size_t)(n * (GAP / 2 + 1)) : 1, sizeof *r);
	for (size_t i = 0; i < n;) {
		size_t nr = 0;
		uint64_t most = 0;
		size_t j = i;
		do {
			while (nr && r[nr - 1].lo + 2 < b[j].lo) {
				uint64_t next = r[nr - 1].lo + 2;
				r[nr++] = (struct bin){ next, 0 };
			}
			r[nr++] = b[j];
			if (b[j].count > most)
				most = b[j].count;
			j++;
		} while (j < n && b[j].lo - b[j - 1].lo <= GAP);
		do
			put_record(s, &e, r, nr, rate);
		while ((most = most > 65535 ? most - 65535 : 0) > 0);
		i = j;
	}
	put_arcs(s, &e, arcs, m);
	free(r);
	free(b);
	return ofile_close(o, err, errlen);
}

static int fn_start_cmp(const void *a, const void *b)
{
	const struct model_fn *x = *(const struct model_fn *const *)a;
	const struct model_fn *y = *(const struct model_fn *const *)b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Would gprof name this symbol?  gprof (binutils 2.40, core_sym_class)
 * leaves out a name with '$' or with a '.' suffix other than digits
 * (".123"), ".clone.N" or ".constprop.N", and charges its pcs to the
 * symbol before it: the samples of a ".cold" part of a function show as
 * whatever precedes it (often _init), ".part.0" and ".isra.0" alike.
 * Its --external-symbol-table takes such names.
 */
static bool gprof_names(const char *name)
{
	if (strchr(name, '$'))
		return false;
	for (const char *d = strchr(name, '.'); d; d = strchr(d, '.')) {
		d++;
		if (strncmp(d, "clone.", 6) == 0)
			d += 6;
		else if (strncmp(d, "constprop.", 10) == 0)
			d += 10;
		size_t k = strspn(d, "0123456789");
		if (k == 0 || (d[k] && d[k] != '.'))
			return false;
		d += k;
	}
	return true;
}

/* Does module m have a sampled function gprof would not name? */
static bool gprof_drops(const struct model *f, const struct by_mod *bm, uint32_t m)
{
	for (size_t i = bm->fn_at[m]; i < bm->fn_at[m + 1]; i++) {
		const struct model_fn *fn = &f->fns[bm->fns[i]];
		if (fn->name && !fn->marker && !gprof_names(fn->name))
			return true;
	}
	return false;
}

/*
 * An nm-style symbol list of module m's functions for gprof's
 * --external-symbol-table, names as report shows them (exported names, or
 * MODULE+0xADDRESS): for a module without .symtab, its sampled functions;
 * for one whose names gprof would drop (gprof_drops), every function in a
 * sampled stack too (callers: its call graph needs them), as gprof then
 * reads no other symbol.  gprof ends a function where the next symbol
 * starts, so a function of known size that the next one does not follow
 * directly gets an end marker (it has no samples, and gprof hides rows
 * without time).
 */
static int write_symbols(const struct model *f, const struct by_mod *bm, uint32_t m, bool callers,
			 const char *path, char *err, size_t errlen)
{
	size_t n = bm->fn_at[m + 1] - bm->fn_at[m];
	const struct model_fn **v;
	if (callers) {
		n = 0;
		v = xcalloc(f->nfns ? f->nfns : 1, sizeof *v);
		for (size_t i = 0; i < f->nfns; i++)
			if (f->fns[i].mod == m && (f->fns[i].samples || f->fns[i].total) &&
			    !f->fns[i].marker)
				v[n++] = &f->fns[i];
	} else {
		v = xcalloc(n ? n : 1, sizeof *v);
		for (size_t i = 0; i < n; i++)
			v[i] = &f->fns[bm->fns[bm->fn_at[m] + i]];
	}
	qsort(v, n, sizeof *v, fn_start_cmp);
	struct ofile *o = ofile_open(path, err, errlen);
	if (!o) {
		free(v);
		return -1;
	}
	FILE *s = ofile_stream(o);
	for (size_t i = 0; i < n; i++) {
		/* gprof reads "address type name" with scanf's %s: a name is one
		 * word on one line, so escape it and turn its blanks into '_' */
		char *name = text_dup(v[i]->label);
		for (char *c = name; *c; c++)
			if (*c == ' ')
				*c = '_';
		fprintf(s, "%016" PRIx64 " T %s\n", v[i]->start, name);
		uint64_t end = v[i]->start + v[i]->size;
		if (v[i]->size && (i + 1 == n || v[i + 1]->start > end))
			fprintf(s, "%016" PRIx64 " T %s.end\n", end, name);
		free(name);
	}
	free(v);
	return ofile_close(o, err, errlen);
}

/* One line on stdout from its pieces: names (odd arguments) escaped,
 * the words between them (even ones) as they are; NULL ends the list. */
static void say(const char *name, ...)
{
	va_list ap;
	va_start(ap, name);
	for (const char *s = name; s; s = va_arg(ap, const char *)) {
		text_put(stdout, s);
		s = va_arg(ap, const char *);
		if (!s)
			break;
		fputs(s, stdout);
	}
	va_end(ap);
	putchar('\n');
}

static int write_gmon(const struct model *f, const char *dir, char *err, size_t errlen)
{
	if (strcmp(dir, "-") == 0) {
		snprintf(err, errlen, "gmon writes one file per module: -o takes a directory");
		return -1;
	}
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a directory (gmon writes one file per module)", dir);
		return -1;
	}
	/* DIR/gmon...: a DIR given as "out/" (a shell completes it so) or "/"
	 * is joined without doubling its slash */
	int dlen = (int)strlen(dir);
	while (dlen > 1 && dir[dlen - 1] == '/')
		dlen--;
	const char *sep = dir[dlen - 1] == '/' ? "" : "/";
	double achieved = model_achieved_hz(f);
	uint32_t rate = achieved >= 1 ? (uint32_t)(achieved + 0.5) : f->procs[0].p->hz;
	if (!rate)
		rate = 1;
	size_t n;
	uint32_t *ix = model_sorted_mods(f, MODEL_SORT_SAMPLES, &n);
	struct by_mod bm;
	bm.pcs = group(f, f->npcs, pc_mod, &bm.pc_at);
	bm.fns = group(f, f->nfns, fn_mod, &bm.fn_at);
	struct arcs arcs = { 0 };
	find_arcs(f, &arcs);
	struct strtab names = { 0 }; /* the file names taken */
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct model_mod *mod = &f->mods[ix[i]];
		/* gmon.NAME.out, or gmon.NAME.2.out for a second file of that
		 * name; a '/' (module "/") or control character becomes '_' */
		char *name = xstrdup(mod->name);
		for (char *c = name; *c; c++)
			if (*c == '/' || (unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '_';
		size_t len = dlen + strlen(name) + 32;
		char *path = xmalloc(len);
		for (int k = 1;; k++) {
			if (k == 1)
				snprintf(path, len, "%.*s%sgmon.%s.out", dlen, dir, sep, name);
			else
				snprintf(path, len, "%.*s%sgmon.%s.%d.out", dlen, dir, sep, name,
					 k);
			bool added;
			strtab_add(&names, path, &added);
			if (added)
				break;
		}
		free(name);
		free(path);
		path = names.s[names.n - 1]; /* the set's copy, freed with it */
		rc = write_module(f, &bm, &arcs, ix[i], path, rate, err, errlen);
		if (rc)
			break;
		struct enc e;
		if (!image_encoding(mod->symfile ? mod->symfile : mod->path, &e)) {
			say(path, ": no ELF file to read it with (", mod->path,
			    " is gone or not ELF)", NULL);
			continue;
		}
		/* with arcs, gprof's call graph too (no -p) */
		bool cg = arcs.at[ix[i] + 1] > arcs.at[ix[i]];
		bool drops = mod->symfile && gprof_drops(f, &bm, ix[i]);
		if (mod->symfile && !drops) {
			say(path, cg ? ": gprof -b " : ": gprof -b -p ", mod->symfile, " ", path,
			    NULL);
			continue;
		}
		/* gmon.NAME.out -> gmon.NAME.syms */
		char *syms = xmalloc(strlen(path) + 2);
		strcpy(syms, path);
		strcpy(syms + strlen(syms) - 4, ".syms");
		rc = write_symbols(f, &bm, ix[i], drops, syms, err, errlen);
		if (rc == 0)
			say(path,
			    cg ? ": gprof -b --external-symbol-table="
			       : ": gprof -b -p --external-symbol-table=",
			    syms, " ", drops ? mod->symfile : mod->path, " ", path, NULL);
		free(syms);
	}
	if (n == 0)
		fprintf(stderr, "note: no samples in any module: no gmon file written\n");
	uint64_t outside = f->shown;
	for (size_t i = 0; i < n; i++)
		outside -= f->mods[ix[i]].samples;
	if (rc == 0 && outside)
		fprintf(stderr,
			"note: %" PRIu64 " samples outside every mapped file are in no gmon file\n",
			outside);
	strtab_free(&names);
	free(arcs.v);
	free(arcs.at);
	free(bm.pcs);
	free(bm.pc_at);
	free(bm.fns);
	free(bm.fn_at);
	free(ix);
	return rc;
}

const struct out_format out_gmon = {
	.name = "gmon",
	.help = "gprof gmon.out files, one per module: DIR/gmon.MODULE.out",
	.default_out = ".",
	.directory = true,
	.no_inline = true, /* gprof: functions are symbols */
	.write = write_gmon,
};
