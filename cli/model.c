/*
 * model.c - the profile model every output reads: symbolize and sum the samples
 * once, for report and export.
 *
 * Each distinct (file, link-time pc) is symbolized once, whatever the number
 * of processes, threads and samples that hit it: the sample lists are
 * sorted by pc, but a busy loop in a library used by 50 forked children is
 * still 50 copies of the same few pcs.
 */
#include "model.h"

#include <errno.h>
#include <fnmatch.h>
#include <libiberty/demangle.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "archive.h"
#include "record-format.h"
#include "util.h"

/* ---- a small hash table of indexes ---------------------------------------- */

struct hslot {
	uint64_t hash;
	uint32_t idx1; /* index + 1; 0: empty */
};

struct hmap {
	struct hslot *s;
	size_t cap, n;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static uint64_t hash_str(const char *s, uint64_t h)
{
	return mix(hash_bytes(s, strlen(s), h));
}

static void hmap_grow(struct hmap *h)
{
	size_t cap = h->cap ? h->cap * 2 : 256;
	struct hslot *s = xcalloc(cap, sizeof *s);
	for (size_t i = 0; i < h->cap; i++) {
		if (!h->s[i].idx1)
			continue;
		size_t j = h->s[i].hash & (cap - 1);
		while (s[j].idx1)
			j = (j + 1) & (cap - 1);
		s[j] = h->s[i];
	}
	free(h->s);
	h->s = s;
	h->cap = cap;
}

/* Room for n entries without growing. */
static void hmap_reserve(struct hmap *h, size_t n)
{
	while ((n + 1) * 2 > h->cap)
		hmap_grow(h);
}

/* Look for hash; eq(ctx, idx) confirms a candidate.  Returns the slot: its
 * idx1 is 0 if absent (the caller then sets idx1 and hash).  Inlined, so
 * that each caller's eq is too: building the model of 10 million samples
 * makes some millions of lookups. */
__attribute__((always_inline)) static inline struct hslot *
hmap_get(struct hmap *h, uint64_t hash, bool (*eq)(void *, uint32_t), void *ctx)
{
	if ((h->n + 1) * 2 > h->cap)
		hmap_grow(h);
	size_t j = hash & (h->cap - 1);
	while (h->s[j].idx1) {
		if (h->s[j].hash == hash && eq(ctx, h->s[j].idx1 - 1))
			return &h->s[j];
		j = (j + 1) & (h->cap - 1);
	}
	h->s[j].hash = hash;
	return &h->s[j];
}

static void hmap_set(struct hmap *h, struct hslot *s, uint32_t idx)
{
	s->idx1 = idx + 1;
	h->n++;
}

/* ---- building --------------------------------------------------------------- */

struct builder {
	struct model *f;
	struct hmap modmap, pcmap, fnmap, nodemap;
	size_t capmods, capfns, cappcs, caphits, capnodes;
	/* the key being looked up */
	const struct pp_module *km;
	uint32_t kmod;
	uint64_t kaddr;
	const struct sym_frame *kinl; /* an inlined function's key, or NULL */
	bool kmarker;                 /* a marker's key ([startup] and _start share a start) */
};

#define GROW(arr, n, cap)                                                                          \
	do {                                                                                       \
		if ((n) == (cap)) {                                                                \
			(cap) = (cap) ? (cap)*2 : 64;                                              \
			(arr) = xrealloc((arr), (cap) * sizeof *(arr));                            \
		}                                                                                  \
	} while (0)

static bool mod_eq(void *ctx, uint32_t i)
{
	struct builder *b = ctx;
	const struct model_mod *m = &b->f->mods[i];
	uint32_t n = b->km->build_id_len > 40 ? 0 : b->km->build_id_len;
	return strcmp(m->path, b->km->path) == 0 && m->build_id_len == n &&
	       memcmp(m->build_id, b->km->build_id, n) == 0;
}

static bool pc_eq(void *ctx, uint32_t i)
{
	struct builder *b = ctx;
	return b->f->pcs[i].mod == b->kmod && b->f->pcs[i].addr == b->kaddr;
}

/* A node's hash is mix(pc | parent << 32), and mix is a bijection of the
 * 64-bit numbers (xor-shifts and products by odd numbers): equal hashes are
 * equal keys, and a look at the node (a cache miss a frame) is not needed. */
static bool node_eq(void *ctx, uint32_t i)
{
	(void)ctx;
	(void)i;
	return true;
}

/* A function is (module, start); an inlined one is (module, name, where
 * it is defined), however many places it was inlined into. */
static bool fn_eq(void *ctx, uint32_t i)
{
	struct builder *b = ctx;
	const struct model_fn *fn = &b->f->fns[i];
	const struct sym_frame *k = b->kinl;
	if (fn->mod != b->kmod || fn->inlined != (k != NULL))
		return false;
	if (!k)
		return fn->start == b->kaddr && fn->marker == b->kmarker;
	return fn->line == k->decl_line && strcmp(fn->name, k->function) == 0 &&
	       strcmp(fn->file ? fn->file : "", k->decl_file ? k->decl_file : "") == 0;
}

static uint32_t mod_of(struct builder *b, const struct pp_process *p, uint32_t pi, uint32_t m)
{
	struct model *f = b->f;
	const struct pp_module *pm = &p->modules[m];
	b->km = pm;
	uint64_t h = hash_str(pm->path, pm->build_id_len);
	struct hslot *s = hmap_get(&b->modmap, h, mod_eq, b);
	if (s->idx1)
		return s->idx1 - 1;
	GROW(f->mods, f->nmods, b->capmods);
	struct model_mod *fm = &f->mods[f->nmods];
	*fm = (struct model_mod){ 0 };
	fm->path = xstrdup(pm->path);
	/* "/" has no base name, and a hostile file may give no path at all */
	fm->name = *basename(fm->path) ? basename(fm->path) : *fm->path ? fm->path : "[unnamed]";
	fm->build_id_len = pm->build_id_len > 40 ? 0 : pm->build_id_len;
	memcpy(fm->build_id, pm->build_id, fm->build_id_len);
	fm->is_exe = strcmp(pm->path, p->exe) == 0;
	fm->bias = pm->bias;
	/* the executable segments' span; every segment if none is marked */
	uint32_t nsegs = pm->nsegs > 8 ? 8 : pm->nsegs;
	for (int pass = 0; pass < 2 && fm->text_hi == 0; pass++)
		for (uint32_t i = 0; i < nsegs; i++) {
			const struct pp_segment *sg = &pm->seg[i];
			if (pass == 0 && !(sg->flags & 1 /* PF_X */))
				continue;
			if (fm->text_hi == 0 || sg->vaddr < fm->text_lo) {
				fm->text_lo = sg->vaddr;
				fm->text_offset = sg->offset;
			}
			if (sg->vaddr + sg->memsz > fm->text_hi)
				fm->text_hi = sg->vaddr + sg->memsz;
		}
	fm->symfile = symtab_symbol_file(f->st[pi], m);
	hmap_set(&b->modmap, s, (uint32_t)f->nmods);
	return (uint32_t)f->nmods++;
}

static bool matches(const char *pat, const char *s)
{
	return fnmatch(pat, s, 0) == 0;
}

/*
 * A symbol's name for people: C++ and Rust (legacy and v0) names through
 * libiberty's demangler, the one binutils and gdb use (its automatic style
 * tries Rust first, then the Itanium C++ ABI); anything else, or a name
 * it cannot demangle, as it is.  A suffix after '@' (a PLT stub's "@plt",
 * a symbol version) is kept: "ns::f(int)@plt", except a default version
 * ("@@GLIBC_2.34"), which is the name any caller links to and says nothing
 * a reader needs; the raw name keeps it.
 */
static char *demangle(const char *sym)
{
	const char *at = strchr(sym, '@');
	if (at && at[1] == '@') {
		char *plain = strndup(sym, (size_t)(at - sym));
		if (!plain)
			die(2, "out of memory");
		char *d = demangle(plain);
		free(plain);
		return d;
	}
	char *head = at ? strndup(sym, (size_t)(at - sym)) : NULL;
	if (at && !head)
		die(2, "out of memory");
	char *d = cplus_demangle(head ? head : sym, DMGL_PARAMS | DMGL_ANSI);
	free(head);
	if (!d)
		return xstrdup(sym);
	if (at) {
		char *full;
		if (asprintf(&full, "%s%s", d, at) < 0)
			die(2, "out of memory");
		free(d);
		return full;
	}
	return d;
}

static uint32_t fn_of(struct builder *b, uint32_t pi, uint32_t m, uint32_t fmod,
		      const struct sym_info *si, uint64_t addr)
{
	struct model *f = b->f;
	uint64_t start = si->function || si->fn_size ? si->fn_start : addr;
	b->kmod = fmod;
	b->kaddr = start;
	b->kinl = NULL;
	b->kmarker = (fmod == MODEL_NO_MOD && PCPROF_FRAME_IS_MARKER(addr)) || si->pseudo;
	struct hslot *s = hmap_get(&b->fnmap, mix(start ^ ((uint64_t)fmod << 48)), fn_eq, b);
	if (s->idx1)
		return s->idx1 - 1;
	GROW(f->fns, f->nfns, b->capfns);
	struct model_fn *fn = &f->fns[f->nfns];
	*fn = (struct model_fn){ .mod = fmod,
				 .name = si->function,
				 .start = start,
				 .size = si->function || si->fn_size ? si->fn_size : 0 };
	if (fmod == MODEL_NO_MOD && PCPROF_FRAME_IS_MARKER(addr)) {
		/* the end of a stack the unwinder could not follow, or cut */
		fn->name = addr == PCPROF_FRAME_TRUNCATED ? "[truncated]" : "[unknown]";
		fn->label = xstrdup(fn->name);
		fn->marker = true;
	} else if (si->pseudo) { /* [startup]: no source, no code of its own */
		fn->label = xstrdup(si->function);
		fn->marker = true;
	} else if (si->function) {
		fn->label = f->opts.no_demangle ? xstrdup(si->function) : demangle(si->function);
		/* where the function begins in the source, for pprof: its
		 * DWARF declaration, else the line of its first address */
		struct sym_info at;
		struct sym_frame d;
		const struct pp_process *p = f->procs[pi].p;
		uint64_t rt = start + p->modules[m].bias;
		symtab_lookup(f->st[pi], m, rt, &at);
		fn->file = at.file;
		fn->line = at.line;
		if (symtab_frames(f->st[pi], m, rt, &d, 1) == 1 && d.decl_file && d.decl_line > 0) {
			fn->file = d.decl_file;
			fn->line = d.decl_line;
		}
	} else if (fmod != MODEL_NO_MOD) {
		if (asprintf(&fn->label, "%s+0x%" PRIx64, f->mods[fmod].name, start) < 0)
			die(2, "out of memory");
	} else if (asprintf(&fn->label, "0x%" PRIx64, start) < 0) {
		die(2, "out of memory");
	}
	hmap_set(&b->fnmap, s, (uint32_t)f->nfns);
	return (uint32_t)f->nfns++;
}

/* The function of an inline frame fr at addr of module fmod. */
static uint32_t inline_fn_of(struct builder *b, uint32_t fmod, const struct sym_frame *fr,
			     uint64_t addr)
{
	struct model *f = b->f;
	b->kmod = fmod;
	b->kinl = fr;
	uint64_t h = hash_str(fr->function, hash_str(fr->decl_file ? fr->decl_file : "",
						     (uint64_t)fr->decl_line << 32 | fmod));
	struct hslot *s = hmap_get(&b->fnmap, h, fn_eq, b);
	if (s->idx1) {
		struct model_fn *fn = &f->fns[s->idx1 - 1];
		if (addr < fn->start)
			fn->start = addr;
		return s->idx1 - 1;
	}
	GROW(f->fns, f->nfns, b->capfns);
	struct model_fn *fn = &f->fns[f->nfns];
	*fn = (struct model_fn){ .mod = fmod,
				 .name = fr->function,
				 .start = addr,
				 .file = fr->decl_file,
				 .line = fr->decl_line,
				 .inlined = true };
	fn->label = f->opts.no_demangle ? xstrdup(fr->function) : demangle(fr->function);
	hmap_set(&b->fnmap, s, (uint32_t)f->nfns);
	return (uint32_t)f->nfns++;
}

/* Is a function filtered out by --module / --function? */
static bool hidden(const struct model *f, const struct model_fn *fn)
{
	if (f->opts.module) {
		if (fn->mod == MODEL_NO_MOD) {
			if (!matches(f->opts.module, "[unknown]"))
				return true;
		} else if (!matches(f->opts.module, f->mods[fn->mod].path) &&
			   !matches(f->opts.module, f->mods[fn->mod].name)) {
			return true;
		}
	}
	return f->opts.function && !matches(f->opts.function, fn->label) &&
	       !(fn->name && matches(f->opts.function, fn->name));
}

static uint32_t new_pc(struct builder *b, uint32_t fmod, uint32_t fn, uint64_t addr,
		       const char *file, int line, uint32_t caller)
{
	struct model *f = b->f;
	GROW(f->pcs, f->npcs, b->cappcs);
	f->pcs[f->npcs] = (struct model_pc){ .mod = fmod,
					     .fn = fn,
					     .addr = addr,
					     .file = file,
					     .line = line,
					     .lineix = UINT32_MAX,
					     .inl_caller = caller };
	return (uint32_t)f->npcs++;
}

/* The location of address addr (link-time; runtime pc) of module fmod
 * (m in process pi): its innermost one if inlined code makes it several
 * (model.h); *hide: filtered out. */
static uint32_t pc_of(struct builder *b, uint32_t pi, uint32_t m, uint32_t fmod, uint64_t pc,
		      uint64_t addr, bool *hide)
{
	struct model *f = b->f;
	b->kmod = fmod;
	b->kaddr = addr;
	struct hslot *s = hmap_get(&b->pcmap, mix(addr ^ ((uint64_t)fmod << 48)), pc_eq, b);
	if (s->idx1) {
		*hide = hidden(f, &f->fns[f->pcs[s->idx1 - 1].fn]);
		return s->idx1 - 1;
	}
	struct sym_info si = { 0 };
	struct sym_frame fr[SYM_MAX_FRAMES];
	size_t nfr = 0;
	if (fmod != MODEL_NO_MOD || !PCPROF_FRAME_IS_MARKER(pc))
		symtab_lookup(f->st[pi], fmod == MODEL_NO_MOD ? PP_NO_MODULE : m, pc, &si);
	if (fmod != MODEL_NO_MOD)
		nfr = symtab_frames(f->st[pi], m, pc, fr, SYM_MAX_FRAMES);
	uint32_t fn = fn_of(b, pi, m, fmod, &si, addr);
	if (fmod != MODEL_NO_MOD) {
		if (si.function)
			f->mods[fmod].has_functions = true;
		if (si.file)
			f->mods[fmod].has_lines = true;
	}
	/* In inlined code, the function that holds it is at the line of the
	 * call; with no_inline, that is all there is. */
	const char *file = nfr > 1 ? fr[0].file : si.file;
	int line = nfr > 1 ? fr[0].line : si.line;
	uint32_t caller = MODEL_NO_PC;
	for (size_t k = 1; k < nfr && !f->opts.no_inline; k++) {
		caller = new_pc(b, fmod, fn, addr, file, line, caller);
		f->pcs[caller].inl_outer = true;
		f->pcs[caller].comp_dir = si.comp_dir;
		fn = inline_fn_of(b, fmod, &fr[k], addr);
		file = fr[k].file;
		line = fr[k].line;
	}
	uint32_t leaf = new_pc(b, fmod, fn, addr, file, line, caller);
	f->pcs[leaf].comp_dir = si.comp_dir;
	hmap_set(&b->pcmap, s, leaf);
	*hide = hidden(f, &f->fns[fn]);
	return leaf;
}

/* The location of runtime address pc of module m (PP_NO_MODULE: none) in
 * process pi; modmap caches the process's modules' indexes in mods. */
static uint32_t loc_of(struct builder *b, uint32_t pi, uint32_t *modmap, uint32_t m, uint64_t pc,
		       bool *hide)
{
	const struct pp_process *p = b->f->procs[pi].p;
	uint32_t fmod = MODEL_NO_MOD;
	uint64_t addr = pc;
	if (m < p->nmodules) {
		if (modmap[m] == UINT32_MAX)
			modmap[m] = mod_of(b, p, pi, m);
		fmod = modmap[m];
		addr = pc - p->modules[m].bias;
	}
	return pc_of(b, pi, m, fmod, pc, addr, hide);
}

static uint32_t node_of(struct builder *b, uint32_t pc, uint32_t parent)
{
	struct model *f = b->f;
	struct hslot *s = hmap_get(&b->nodemap, mix(pc | (uint64_t)parent << 32), node_eq, b);
	if (s->idx1)
		return s->idx1 - 1;
	GROW(f->nodes, f->nnodes, b->capnodes);
	f->nodes[f->nnodes] =
		(struct model_node){ pc, parent,
				     parent == MODEL_NO_NODE ? 1 : f->nodes[parent].depth + 1 };
	hmap_set(&b->nodemap, s, (uint32_t)f->nnodes);
	return (uint32_t)f->nnodes++;
}

/* The node of location pc under parent, with the locations it was
 * inlined into between them (outermost first). */
static uint32_t chain_node(struct builder *b, uint32_t pc, uint32_t parent)
{
	uint32_t caller = b->f->pcs[pc].inl_caller;
	if (caller != MODEL_NO_PC)
		parent = chain_node(b, caller, parent);
	return node_of(b, pc, parent);
}

/*
 * The profiler's own frames: libprofil, preloaded, wraps every thread's
 * start routine (lib/threads.c) and the pthread_create and exec calls,
 * so its frames sit between libc's and the program's in the stacks.
 * They are not the program's: a frame of libprofil.so is dropped unless
 * it is a sample's leaf (the profiler's own CPU time, which is real).
 */
static bool profiler_module(const struct pp_module *m)
{
	const char *b = strrchr(m->path, '/');
	b = b ? b + 1 : m->path;
	return strncmp(b, "libprofil.so", 12) == 0 && (b[12] == '\0' || b[12] == '.');
}

/* The process's frames as nodes (frames[i] -> node[i]); parents come
 * first (data.h), so one pass does.  A frame that breaks that rule in a
 * profile built in memory becomes a root.  The node of a dropped frame
 * of the profiler (own[module]) is its caller's. */
static uint32_t *frame_nodes(struct builder *b, uint32_t pi, uint32_t *modmap, const bool *own)
{
	const struct pp_process *p = b->f->procs[pi].p;
	uint32_t *node = xmalloc((p->nframes ? p->nframes : 1) * sizeof *node);
	for (size_t i = 0; i < p->nframes; i++) {
		const struct pp_frame *fr = &p->frames[i];
		uint32_t parent = fr->parent < i ? node[fr->parent] : MODEL_NO_NODE;
		if (fr->module < p->nmodules && own[fr->module]) {
			node[i] = parent;
			continue;
		}
		bool hide;
		uint32_t loc = loc_of(b, pi, modmap, fr->module, fr->pc, &hide);
		node[i] = chain_node(b, loc, parent);
	}
	return node;
}

/* Samples ahead of the one being added whose frame's node is fetched. */
#define PREFETCH 16

/* The sums of a run of samples at one location, for its pc, function and
 * module (mod NULL: none): model_pc, model_fn and model_mod rows. */
struct run {
	struct model_pc *pc;
	struct model_fn *fn;
	struct model_mod *mod;
	uint64_t samples;
	double pc_s, fn_s, mod_s;
};

static void run_begin(struct run *r, struct model *f, uint32_t pc)
{
	r->pc = &f->pcs[pc];
	r->fn = &f->fns[r->pc->fn];
	r->mod = r->pc->mod != MODEL_NO_MOD ? &f->mods[r->pc->mod] : NULL;
	r->samples = 0;
	r->pc_s = r->pc->seconds;
	r->fn_s = r->fn->seconds;
	r->mod_s = r->mod ? r->mod->seconds : 0;
}

static void run_end(struct run *r)
{
	if (!r->pc)
		return;
	r->pc->samples += r->samples;
	r->pc->seconds = r->pc_s;
	r->fn->samples += r->samples;
	r->fn->seconds = r->fn_s;
	if (r->mod) {
		r->mod->samples += r->samples;
		r->mod->seconds = r->mod_s;
	}
	r->pc = NULL;
}

static void add_process(struct builder *b, uint32_t pi)
{
	struct model *f = b->f;
	const struct pp_process *p = f->procs[pi].p;
	uint32_t *modmap = xmalloc(p->nmodules * sizeof *modmap);
	bool *own = xmalloc(p->nmodules + 1);
	for (size_t i = 0; i < p->nmodules; i++) {
		modmap[i] = UINT32_MAX;
		own[i] = profiler_module(&p->modules[i]);
	}
	f->ticks += p->ticks;
	f->signals += p->signals;
	f->lost += p->lost;
	f->cpu_ns += p->cpu_ns;
	if (p->stop && p->stop <= PP_STOP_MAX) {
		f->nstopped[p->stop]++;
		f->stopped_ns[p->stop] += p->stop_ns;
	}
	if (model_unsampled_image(p)) {
		f->nunsampled++;
		f->unsampled_cpu_ns += p->cpu_ns;
		if (!f->unsampled_why && p->why && p->why[0])
			f->unsampled_why = p->why;
	}
	/* most frames are a node of their own: no rehashing as they come */
	hmap_reserve(&b->nodemap, f->nnodes + p->nframes);
	uint32_t *fnode = frame_nodes(b, pi, modmap, own);
	/* samples are sorted by (module, pc): a run of them has one location */
	uint32_t pc = MODEL_NO_PC, lastmod = 0;
	uint64_t lastpc = 0;
	bool hide = false;
	/* room for every sample, at least doubling (40,000 short processes
	 * are common: one realloc each would copy the hits each time) */
	if (b->caphits - f->nhits < p->nsamples) {
		size_t want = f->nhits + p->nsamples;
		b->caphits = want > 2 * b->caphits ? want : 2 * b->caphits;
		f->hits = xrealloc(f->hits, b->caphits * sizeof *f->hits);
	}
	/* The sums are kept in locals, and those of a run's pc, function and
	 * module while the run lasts: the same additions in the same order as
	 * into the rows, without a store and a load between each two (floating
	 * point sums depend on the order). */
	struct run r = { 0 };
	uint64_t total = f->total, shown = f->shown, psamples = f->procs[pi].samples;
	double total_s = f->total_seconds, shown_s = f->shown_seconds,
	       pseconds = f->procs[pi].seconds;
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pp_sample *s = &p->samples[i];
		/* the frames' nodes are read in no order the samples follow */
		if (i + PREFETCH < p->nsamples && p->samples[i + PREFETCH].frame < p->nframes)
			__builtin_prefetch(&fnode[p->samples[i + PREFETCH].frame]);
		if (!s->count)
			continue;
		if (pc == MODEL_NO_PC || s->pc != lastpc || s->module != lastmod) {
			run_end(&r);
			pc = loc_of(b, pi, modmap, s->module, s->pc, &hide);
			lastpc = s->pc;
			lastmod = s->module;
			run_begin(&r, f, pc);
		}
		double secs = p->hz ? (double)s->count / p->hz : 0;
		total += s->count;
		total_s += secs;
		if (hide)
			continue;
		uint32_t node;
		if (s->frame >= p->nframes)
			node = chain_node(b, pc, MODEL_NO_NODE);
		else if (s->module < p->nmodules && own[s->module]) /* a leaf: kept */
			node = chain_node(b, pc, fnode[s->frame]);
		else
			node = fnode[s->frame];
		if (node == MODEL_NO_NODE) /* a stack of the profiler's frames */
			node = chain_node(b, pc, MODEL_NO_NODE);
		/* (a node's parent once: reading it is a cache miss a sample) */
		if (!f->stacks && f->nodes[node].parent != MODEL_NO_NODE)
			f->stacks = true;
		r.samples += s->count;
		r.pc_s += secs;
		r.fn_s += secs;
		r.mod_s += secs;
		psamples += s->count;
		pseconds += secs;
		shown += s->count;
		shown_s += secs;
		f->hits[f->nhits++] = (struct model_hit){
			.proc = pi,
			.thread = s->thread < p->nthreads ? s->thread : UINT32_MAX,
			.pc = pc,
			.node = node,
			.count = s->count,
			.time = s->time,
		};
	}
	run_end(&r);
	f->total = total;
	f->total_seconds = total_s;
	f->shown = shown;
	f->shown_seconds = shown_s;
	f->procs[pi].samples = psamples;
	f->procs[pi].seconds = pseconds;
	free(fnode);
	free(own);
	/* the executable always has a module, samples or not: pprof names the
	 * profile after it */
	for (uint32_t m = 0; m < p->nmodules; m++)
		if (modmap[m] == UINT32_MAX && strcmp(p->modules[m].path, p->exe) == 0) {
			mod_of(b, p, pi, m);
			break;
		}
	free(modmap);
}

/*
 * Inclusive totals: every shown sample adds its count to each pc, function,
 * source line and module on its stack, once however often the stack holds
 * it.  Walking every sampled stack from its leaf costs stacks x depth (20
 * million steps for the million stacks of bench/report-stacks, a fifth of
 * a report); this is linear in the nodes instead.  A row's total is the
 * sum, over the nodes where it first appears on the way down from a root,
 * of the samples in that node's subtree: every sample whose stack holds
 * the row is under exactly one such node.  A walk of the tree in preorder
 * keeps the path from the root and a count per row of its nodes on that
 * path, so "first on the path" is a count of 0.
 */
struct model_walk model_walk(const struct model *f)
{
	size_t n = f->nnodes;
	struct model_walk w = { xmalloc((n ? n : 1) * sizeof *w.pre),
				xcalloc(n ? n : 1, sizeof *w.sub) };
	for (size_t i = 0; i < f->nhits; i++) {
		if (i + PREFETCH < f->nhits)
			__builtin_prefetch(&w.sub[f->hits[i + PREFETCH].node]);
		w.sub[f->hits[i].node] += f->hits[i].count;
	}
	/* parents come before their children: one backward pass sums subtrees */
	for (size_t v = n; v-- > 0;)
		if (f->nodes[v].parent != MODEL_NO_NODE)
			w.sub[f->nodes[v].parent] += w.sub[v];
	/* children lists (the roots are the children of slot n) */
	uint32_t *first = xcalloc(n + 2, sizeof *first);
	for (size_t v = 0; v < n; v++) {
		uint32_t p = f->nodes[v].parent;
		first[(p == MODEL_NO_NODE ? n : p) + 1]++;
	}
	for (size_t k = 0; k <= n; k++)
		first[k + 1] += first[k];
	uint32_t *child = xmalloc((n ? n : 1) * sizeof *child);
	uint32_t *next = xmalloc((n + 1) * sizeof *next);
	memcpy(next, first, (n + 1) * sizeof *next);
	for (size_t v = 0; v < n; v++) {
		uint32_t p = f->nodes[v].parent;
		child[next[p == MODEL_NO_NODE ? n : p]++] = (uint32_t)v;
	}
	/* preorder with a stack of nodes to visit; stack[] never holds more
	 * than n, as each node is pushed once */
	uint32_t *stack = next;
	size_t top = 0, npre = 0;
	for (uint32_t k = first[n + 1]; k-- > first[n];)
		stack[top++] = child[k];
	while (top) {
		uint32_t v = stack[--top];
		w.pre[npre++] = v;
		for (uint32_t k = first[v + 1]; k-- > first[v];)
			stack[top++] = child[k];
	}
	free(first);
	free(child);
	free(next);
	return w;
}

void model_walk_free(struct model_walk *w)
{
	free(w->pre);
	free(w->sub);
	w->pre = NULL;
	w->sub = NULL;
}

static void add_totals(struct model *f, const struct model_walk *w, bool lines_too)
{
	size_t n = f->nnodes, maxdepth = 0;
	for (size_t v = 0; v < n; v++)
		if (f->nodes[v].depth > maxdepth)
			maxdepth = f->nodes[v].depth;
	uint32_t *path = xmalloc((maxdepth + 1) * sizeof *path);
	uint32_t *onpc = xcalloc(f->npcs + 1, sizeof *onpc);
	uint32_t *onfn = xcalloc(f->nfns + 1, sizeof *onfn);
	uint32_t *onmod = xcalloc(f->nmods + 1, sizeof *onmod);
	uint32_t *online = xcalloc(f->nlines + 1, sizeof *online);
	size_t depth = 0;
	for (size_t i = 0; i <= n; i++) {
		/* leave the nodes that are not above the next one */
		size_t d = i < n ? f->nodes[w->pre[i]].depth : 1;
		for (; depth >= d; depth--) {
			const struct model_pc *pc = &f->pcs[f->nodes[path[depth - 1]].pc];
			if (lines_too) {
				if (pc->lineix != UINT32_MAX)
					online[pc->lineix]--;
				continue;
			}
			onpc[f->nodes[path[depth - 1]].pc]--;
			onfn[pc->fn]--;
			if (pc->mod != MODEL_NO_MOD)
				onmod[pc->mod]--;
		}
		if (i == n)
			break;
		uint32_t v = w->pre[i];
		uint64_t c = w->sub[v];
		path[depth++] = v;
		struct model_pc *pc = &f->pcs[f->nodes[v].pc];
		if (lines_too) {
			if (pc->lineix != UINT32_MAX && online[pc->lineix]++ == 0)
				f->lines[pc->lineix].total += c;
			continue;
		}
		if (onpc[f->nodes[v].pc]++ == 0)
			pc->total += c;
		if (onfn[pc->fn]++ == 0)
			f->fns[pc->fn].total += c;
		if (pc->mod != MODEL_NO_MOD && onmod[pc->mod]++ == 0)
			f->mods[pc->mod].total += c;
	}
	free(path);
	free(onpc);
	free(onfn);
	free(onmod);
	free(online);
}

struct fnkey {
	const struct model *f;
	const uint32_t *canon;
	uint32_t fn, parent;
};

static uint32_t node_fn(const struct model *f, uint32_t n)
{
	return f->pcs[f->nodes[n].pc].fn;
}

static bool fnstack_eq(void *ctx, uint32_t i)
{
	struct fnkey *k = ctx;
	uint32_t p = k->f->nodes[i].parent;
	return node_fn(k->f, i) == k->fn && (p == MODEL_NO_NODE ? p : k->canon[p]) == k->parent;
}

uint32_t *model_fn_stacks(const struct model *f)
{
	uint32_t *canon = xmalloc((f->nnodes ? f->nnodes : 1) * sizeof *canon);
	struct hmap h = { 0 };
	struct fnkey k = { f, canon, 0, 0 };
	for (uint32_t n = 0; n < f->nnodes; n++) { /* parents first */
		uint32_t p = f->nodes[n].parent;
		k.fn = node_fn(f, n);
		k.parent = p == MODEL_NO_NODE ? p : canon[p];
		struct hslot *s =
			hmap_get(&h, mix(k.fn ^ ((uint64_t)k.parent << 32)), fnstack_eq, &k);
		if (s->idx1) {
			canon[n] = s->idx1 - 1;
		} else {
			canon[n] = n;
			hmap_set(&h, s, n);
		}
	}
	free(h.s);
	return canon;
}

static const struct model_ftree *sort_ftree;
static const struct model *sort_ftree_model;

/* By total (most first), then label. */
static int by_total_label(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct model_ftree *t = sort_ftree;
	if (t->total[x] != t->total[y])
		return t->total[x] > t->total[y] ? -1 : 1;
	const struct model *f = sort_ftree_model;
	return strcmp(f->fns[node_fn(f, x)].label, f->fns[node_fn(f, y)].label);
}

void model_ftree(const struct model *f, struct model_ftree *t)
{
	size_t n = f->nnodes;
	t->canon = model_fn_stacks(f);
	t->total = xcalloc(n + 1, sizeof *t->total);
	t->self = xcalloc(n + 1, sizeof *t->self);
	for (size_t i = 0; i < f->nhits; i++)
		t->self[t->canon[f->hits[i].node]] += f->hits[i].count;
	/* a node's canonical parent comes before it: one backward pass */
	for (size_t i = n; i-- > 0;) {
		if (t->canon[i] != i)
			continue;
		t->total[i] += t->self[i];
		uint32_t p = f->nodes[i].parent;
		if (p != MODEL_NO_NODE)
			t->total[t->canon[p]] += t->total[i];
	}
	/* children lists: a counting sort by canonical parent */
	t->first = xcalloc(n + 2, sizeof *t->first);
	t->kids = xmalloc((n ? n : 1) * sizeof *t->kids);
	for (size_t i = 0; i < n; i++) {
		uint32_t p = f->nodes[i].parent;
		if (t->canon[i] == i && t->total[i])
			t->first[(p == MODEL_NO_NODE ? n : t->canon[p]) + 1]++;
	}
	for (size_t i = 0; i <= n; i++)
		t->first[i + 1] += t->first[i];
	uint32_t *next = xmalloc((n + 1) * sizeof *next);
	memcpy(next, t->first, (n + 1) * sizeof *next);
	for (size_t i = 0; i < n; i++) {
		uint32_t p = f->nodes[i].parent;
		if (t->canon[i] == i && t->total[i])
			t->kids[next[p == MODEL_NO_NODE ? n : t->canon[p]]++] = (uint32_t)i;
	}
	free(next);
	sort_ftree = t;
	sort_ftree_model = f;
	for (size_t i = 0; i <= n; i++)
		if (t->first[i + 1] - t->first[i] > 1)
			qsort(t->kids + t->first[i], t->first[i + 1] - t->first[i], sizeof *t->kids,
			      by_total_label);
}

void model_ftree_free(struct model_ftree *t)
{
	free(t->canon);
	free(t->total);
	free(t->self);
	free(t->first);
	free(t->kids);
	memset(t, 0, sizeof *t);
}

void model_each_stack(const struct model *f,
		      void (*fn)(void *ctx, uint32_t node, const uint32_t *fns, size_t depth,
				 uint64_t count),
		      void *ctx)
{
	uint64_t *count = xcalloc(f->nnodes ? f->nnodes : 1, sizeof *count);
	for (size_t i = 0; i < f->nhits; i++)
		count[f->hits[i].node] += f->hits[i].count;
	size_t cap = 0;
	uint32_t *fns = NULL;
	for (uint32_t n = 0; n < f->nnodes; n++) {
		if (!count[n])
			continue;
		size_t depth = model_stack_fns(f, n, &fns, &cap);
		fn(ctx, n, fns, depth, count[n]);
	}
	free(fns);
	free(count);
}

size_t model_stack_fns(const struct model *f, uint32_t node, uint32_t **fn, size_t *cap)
{
	size_t depth = node == MODEL_NO_NODE ? 0 : f->nodes[node].depth;
	if (depth > *cap || !*fn) {
		*cap = depth > 64 ? depth : 64;
		*fn = xrealloc(*fn, *cap * sizeof **fn);
	}
	size_t d = depth;
	for (uint32_t k = node; k != MODEL_NO_NODE; k = f->nodes[k].parent)
		(*fn)[--d] = f->pcs[f->nodes[k].pc].fn;
	return depth;
}

static const struct model *sort_ctx; /* qsort has no context argument in C11 */

static int line_key_cmp(const void *a, const void *b)
{
	const struct model_pc *x = &sort_ctx->pcs[*(const uint32_t *)a];
	const struct model_pc *y = &sort_ctx->pcs[*(const uint32_t *)b];
	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	int c = strcmp(x->file ? x->file : "", y->file ? y->file : "");
	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void build_lines(struct model *f)
{
	uint32_t *ix = xmalloc(f->npcs * sizeof *ix);
	size_t n = 0;
	for (size_t i = 0; i < f->npcs; i++)
		if (f->pcs[i].samples || f->pcs[i].total)
			ix[n++] = (uint32_t)i;
	sort_ctx = f;
	qsort(ix, n, sizeof *ix, line_key_cmp);
	f->lines = xcalloc(n, sizeof *f->lines);
	for (size_t i = 0; i < n; i++) {
		struct model_pc *p = &f->pcs[ix[i]];
		struct model_line *l = f->nlines ? &f->lines[f->nlines - 1] : NULL;
		if (!l || l->fn != p->fn || l->line != p->line ||
		    strcmp(l->file ? l->file : "", p->file ? p->file : "") != 0) {
			l = &f->lines[f->nlines++];
			*l = (struct model_line){
				.fn = p->fn, .file = p->file, .line = p->line, .addr = p->addr
			};
			l->comp_dir = p->comp_dir;
		}
		l->samples += p->samples;
		l->seconds += p->seconds;
		p->lineix = (uint32_t)(l - f->lines);
	}
	free(ix);
}

/*
 * Per-thread samples and top function, in (process, thread) order.  The
 * hits are bucketed by thread, and each thread's counts are summed per
 * function in one array indexed by function: linear, where sorting the
 * hits by thread and function took a third of a report of 10 million
 * stacked samples (bench/report-stacks).
 */
static void build_threads(struct model *f)
{
	size_t *first = xcalloc(f->nprocs + 1, sizeof *first); /* slots before process p */
	for (size_t i = 0; i < f->nhits; i++) {
		size_t *w = &first[f->hits[i].proc + 1]; /* widths first: most thread + 1 */
		if (f->hits[i].thread >= *w)
			*w = (size_t)f->hits[i].thread + 1;
	}
	for (size_t p = 0; p < f->nprocs; p++)
		first[p + 1] += first[p];
	size_t nslots = first[f->nprocs];
	size_t *start = xcalloc(nslots + 1, sizeof *start);
	for (size_t i = 0; i < f->nhits; i++)
		start[first[f->hits[i].proc] + f->hits[i].thread + 1]++;
	for (size_t s = 0; s < nslots; s++)
		start[s + 1] += start[s];
	size_t *next = xmalloc((nslots + 1) * sizeof *next);
	memcpy(next, start, (nslots + 1) * sizeof *next);
	uint32_t *order = xmalloc((f->nhits ? f->nhits : 1) * sizeof *order);
	for (size_t i = 0; i < f->nhits; i++)
		order[next[first[f->hits[i].proc] + f->hits[i].thread]++] = (uint32_t)i;
	uint64_t *fncount = xcalloc(f->nfns + 1, sizeof *fncount);
	/* the functions a thread's hits touched, each once: marked by the
	 * thread's slot + 1, not by a count of 0 (a count can be 0 again
	 * after it has been added to only if sums wrap, which the reader's
	 * bounds prevent, data.h; this does not rely on them) */
	uint32_t *touched = xmalloc((f->nfns + 1) * sizeof *touched);
	size_t *mark = xcalloc(f->nfns + 1, sizeof *mark);
	f->threads = xcalloc(nslots ? nslots : 1, sizeof *f->threads);
	for (uint32_t p = 0; p < f->nprocs; p++) {
		const struct pp_process *pr = f->procs[p].p;
		for (size_t s = first[p]; s < first[p + 1]; s++) {
			if (start[s] == start[s + 1])
				continue;
			size_t th = s - first[p], ntouched = 0;
			struct model_thread *t = &f->threads[f->nthreads++];
			*t = (struct model_thread){ .proc = p,
						    .t = th < pr->nthreads ? &pr->threads[th]
									   : NULL };
			for (size_t k = start[s]; k < start[s + 1]; k++) {
				const struct model_hit *h = &f->hits[order[k]];
				uint32_t fn = f->pcs[h->pc].fn;
				if (mark[fn] != s + 1) {
					mark[fn] = s + 1;
					touched[ntouched++] = fn;
				}
				fncount[fn] += h->count;
				t->samples += h->count;
			}
			/* the most samples; of equals, the first function */
			for (size_t k = 0; k < ntouched; k++) {
				uint32_t fn = touched[k];
				if (fncount[fn] > t->top_samples ||
				    (fncount[fn] == t->top_samples && fn < t->top_fn)) {
					t->top_samples = fncount[fn];
					t->top_fn = fn;
				}
				fncount[fn] = 0;
			}
			t->seconds = pr->hz ? (double)t->samples / pr->hz : 0;
		}
	}
	free(first);
	free(start);
	free(next);
	free(order);
	free(fncount);
	free(touched);
	free(mark);
}

struct model *model_build(const struct pp_profile *prof, const struct model_opts *opts, char *err,
			  size_t errlen)
{
	struct model *f = xcalloc(1, sizeof *f);
	struct builder b = { .f = f };
	f->prof = prof;
	f->opts = *opts;
	f->procs = xcalloc(prof->nprocs, sizeof *f->procs);
	for (size_t i = 0; i < prof->nprocs; i++)
		if (!opts->pid || prof->procs[i].pid == opts->pid)
			f->procs[f->nprocs++].p = &prof->procs[i];
	if (f->nprocs == 0) {
		if (opts->pid)
			snprintf(err, errlen, "no process with pid %d in the profile",
				 (int)opts->pid);
		else
			snprintf(err, errlen, "the profile has no processes");
		free(f->procs);
		free(f);
		return NULL;
	}
	f->st = xcalloc(f->nprocs, sizeof *f->st);
	for (uint32_t i = 0; i < f->nprocs; i++) {
		f->st[i] = symtab_open(f->procs[i].p);
		add_process(&b, i);
	}
	free(b.modmap.s);
	free(b.pcmap.s);
	free(b.fnmap.s);
	free(b.nodemap.s);
	struct model_walk w = model_walk(f);
	add_totals(f, &w, false);
	build_lines(f);
	add_totals(f, &w, true);
	model_walk_free(&w);
	if (opts->threads)
		build_threads(f);
	return f;
}

void model_notes(const struct model *f, FILE *out, bool full)
{
	struct membuf brief = { 0 };
	for (size_t i = 0; i < f->nprocs; i++)
		symtab_notes(f->st[i], out, full ? NULL : &brief);
	symtab_brief_notes(&brief, out);
}

struct model *model_open(const char *file, const struct model_opts *opts, struct pp_profile *prof)
{
	char err[512];
	if (archive_read_profile(file, prof, err, sizeof err) != 0)
		die(1, "%s: %s", file, err);
	struct tl_kept kept = { 0 };
	if (opts->time && tl_restrict(prof, opts->time, &kept, err, sizeof err) < 0) {
		pp_free(prof);
		die(1, "%s: --time: %s", file, err);
	}
	struct model *f = model_build(prof, opts, err, sizeof err);
	if (!f) {
		pp_free(prof);
		die(1, "%s: %s", file, err);
	}
	f->time_kept = kept;
	return f;
}

void model_close(struct model *f, struct pp_profile *prof)
{
	model_free(f);
	pp_free(prof);
}

int32_t model_parse_pid(const char *s)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (!*s || *end || errno || v <= 0 || v > INT32_MAX)
		die(2, "bad pid '%s'", s);
	return (int32_t)v;
}

char *model_notes_text(const struct model *f, bool full)
{
	struct membuf m;
	model_notes(f, membuf_open(&m), full);
	return membuf_close(&m);
}

void model_free(struct model *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nprocs; i++)
		symtab_close(f->st[i]);
	for (size_t i = 0; i < f->nmods; i++)
		free(f->mods[i].path);
	for (size_t i = 0; i < f->nfns; i++)
		free(f->fns[i].label);
	free(f->st);
	free(f->procs);
	free(f->mods);
	free(f->fns);
	free(f->pcs);
	free(f->lines);
	free(f->threads);
	free(f->nodes);
	free(f->hits);
	free(f);
}

/* ---- ordering --------------------------------------------------------------- */

int model_sort_parse(const char *s)
{
	static const char *const names[] = { "samples", "name", "module", "address", "total" };
	for (int i = 0; i < 5; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

const char *model_mod_name(const struct model *f, uint32_t mod)
{
	return mod == MODEL_NO_MOD ? "[unknown]" : f->mods[mod].name;
}

static enum model_sort sort_by;

/* The common order of rows: key, then samples (descending), then name,
 * then address, so that equal rows always come out the same way. */
struct row {
	const struct model_fn *fn;
	uint64_t samples, total, addr;
};

static int row_cmp(const struct row *x, const struct row *y)
{
	const struct model *f = sort_ctx;
	int c = 0;
	switch (sort_by) {
	case MODEL_SORT_SAMPLES:
		break;
	case MODEL_SORT_TOTAL:
		if (x->total != y->total)
			return x->total > y->total ? -1 : 1;
		break;
	case MODEL_SORT_NAME:
		c = strcmp(x->fn->label, y->fn->label);
		break;
	case MODEL_SORT_MODULE:
		c = strcmp(model_mod_name(f, x->fn->mod), model_mod_name(f, y->fn->mod));
		break;
	case MODEL_SORT_ADDRESS:
		c = strcmp(model_mod_name(f, x->fn->mod), model_mod_name(f, y->fn->mod));
		if (!c && x->addr != y->addr)
			c = x->addr < y->addr ? -1 : 1;
		break;
	}
	if (c)
		return c;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	c = strcmp(x->fn->label, y->fn->label);
	if (c)
		return c;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int fn_order(const void *a, const void *b)
{
	const struct model_fn *x = &sort_ctx->fns[*(const uint32_t *)a];
	const struct model_fn *y = &sort_ctx->fns[*(const uint32_t *)b];
	struct row rx = { x, x->samples, x->total, x->start };
	struct row ry = { y, y->samples, y->total, y->start };
	return row_cmp(&rx, &ry);
}

static int line_order(const void *a, const void *b)
{
	const struct model_line *x = &sort_ctx->lines[*(const uint32_t *)a];
	const struct model_line *y = &sort_ctx->lines[*(const uint32_t *)b];
	struct row rx = { &sort_ctx->fns[x->fn], x->samples, x->total, x->addr };
	struct row ry = { &sort_ctx->fns[y->fn], y->samples, y->total, y->addr };
	int c = row_cmp(&rx, &ry);
	if (c || sort_by == MODEL_SORT_ADDRESS)
		return c;
	return (x->line > y->line) - (x->line < y->line); /* (a debug file's lines: any int) */
}

static int mod_order(const void *a, const void *b)
{
	const struct model_mod *x = &sort_ctx->mods[*(const uint32_t *)a];
	const struct model_mod *y = &sort_ctx->mods[*(const uint32_t *)b];
	if (sort_by == MODEL_SORT_TOTAL && x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (sort_by != MODEL_SORT_SAMPLES && sort_by != MODEL_SORT_TOTAL) {
		int c = strcmp(x->name, y->name);
		if (c)
			return c;
	}
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->path, y->path);
}

uint32_t *model_sorted_fns(const struct model *f, enum model_sort by, size_t *n)
{
	uint32_t *ix = xmalloc(f->nfns * sizeof *ix);
	*n = 0;
	for (size_t i = 0; i < f->nfns; i++)
		if (f->fns[i].samples || f->fns[i].total)
			ix[(*n)++] = (uint32_t)i;
	sort_ctx = f;
	sort_by = by;
	qsort(ix, *n, sizeof *ix, fn_order);
	return ix;
}

uint32_t *model_sorted_lines(const struct model *f, enum model_sort by, size_t *n)
{
	uint32_t *ix = xmalloc(f->nlines * sizeof *ix);
	*n = f->nlines;
	for (size_t i = 0; i < f->nlines; i++)
		ix[i] = (uint32_t)i;
	sort_ctx = f;
	sort_by = by;
	qsort(ix, *n, sizeof *ix, line_order);
	return ix;
}

uint32_t *model_sorted_mods(const struct model *f, enum model_sort by, size_t *n)
{
	uint32_t *ix = xmalloc(f->nmods * sizeof *ix);
	*n = 0;
	for (size_t i = 0; i < f->nmods; i++)
		if (f->mods[i].samples || f->mods[i].total)
			ix[(*n)++] = (uint32_t)i;
	sort_ctx = f;
	sort_by = by;
	qsort(ix, *n, sizeof *ix, mod_order);
	return ix;
}

bool model_unsampled_image(const struct pp_process *p)
{
	return !p->engine[0] && !p->hz;
}

/* Over the CPU time of the sampled images: an image no engine sampled,
 * and what an image used after its recording stopped, are said apart
 * (the header's "unsampled" and "stopped" lines), not as a lower rate. */
double model_achieved_hz(const struct model *f)
{
	uint64_t cpu = f->cpu_ns - f->unsampled_cpu_ns;
	for (int k = 1; k <= PP_STOP_MAX; k++)
		cpu = cpu > f->stopped_ns[k] ? cpu - f->stopped_ns[k] : 0;
	if (!cpu)
		return 0;
	uint64_t ticks = f->ticks ? f->ticks : f->total + f->lost;
	return (double)ticks / ((double)cpu / 1e9);
}

static bool distinct_hz; /* the key model_distinct sorts by */

/* Processes by their value (engine or rate), then in file order. */
static int distinct_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct pp_process *p = sort_ctx->procs[x].p, *q = sort_ctx->procs[y].p;
	int c = distinct_hz ? (p->hz > q->hz) - (p->hz < q->hz) : strcmp(p->engine, q->engine);
	return c ? c : (x > y) - (x < y);
}

struct group {
	uint32_t first; /* its first process */
	size_t n;
};

static int group_cmp(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	return (x->first > y->first) - (x->first < y->first);
}

/* Sorted, not compared pairwise: 40,000 short processes are common (a
 * shell loop), and each distinct value is listed once. */
char *model_distinct(const struct model *f, bool hz)
{
	/* the sampled images, unless none was */
	size_t n = 0;
	uint32_t *ix = xmalloc((f->nprocs ? f->nprocs : 1) * sizeof *ix);
	for (size_t i = 0; i < f->nprocs; i++)
		if (f->nunsampled == f->nprocs || !model_unsampled_image(f->procs[i].p))
			ix[n++] = (uint32_t)i;
	sort_ctx = f;
	distinct_hz = hz;
	qsort(ix, n, sizeof *ix, distinct_cmp);
	struct group *g = xmalloc(n * sizeof *g);
	size_t ng = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pp_process *p = f->procs[ix[i]].p;
		const struct pp_process *prev = i ? f->procs[ix[i - 1]].p : NULL;
		if (!prev || (hz ? p->hz != prev->hz : strcmp(p->engine, prev->engine) != 0))
			g[ng++] = (struct group){ ix[i], 0 };
		g[ng - 1].n++;
	}
	qsort(g, ng, sizeof *g, group_cmp);

	struct membuf mb;
	FILE *s = membuf_open(&mb);
	for (size_t i = 0; i < ng; i++) {
		const struct pp_process *p = f->procs[g[i].first].p;
		if (i)
			fputs(", ", s);
		if (hz)
			fprintf(s, "%" PRIu32 " Hz", p->hz);
		else
			fprintf(s, "%s", p->engine[0] ? p->engine : "(none)");
		if (g[i].n != n)
			fprintf(s, " (%zu)", g[i].n);
	}
	free(g);
	free(ix);
	return membuf_close(&mb);
}

size_t model_processes(const struct model *f)
{
	struct image_key *k = xmalloc((f->nprocs ? f->nprocs : 1) * sizeof *k);
	uint32_t *proc = xmalloc((f->nprocs ? f->nprocs : 1) * sizeof *proc);
	for (size_t i = 0; i < f->nprocs; i++) {
		const struct pp_process *p = f->procs[i].p;
		k[i] = (struct image_key){ p->pid, p->seq, p->end == PP_END_EXEC };
	}
	size_t n = number_processes(k, f->nprocs, proc);
	free(k);
	free(proc);
	return n;
}
