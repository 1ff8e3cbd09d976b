/*
 * out-pprof.c - pprof's profile.proto (package perftools.profiles),
 * gzip-compressed, pre-symbolized: `go tool pprof` and the pprof web UI
 * read it without the binaries (docs/formats.md "pprof"; field numbers in
 * ecosystem.md 1b).
 *
 * The encoder is a few lines of protobuf wire format: every field we write
 * is a varint (wire type 0) or length-delimited (wire type 2: strings,
 * nested messages, packed repeated integers).
 *
 * Addresses: pprof's Location.address is a runtime address inside its
 * Mapping.  A module mapped by several processes gets one mapping, placed
 * where the first process had it; the other processes' pcs are moved into
 * it (link-time address + that bias), so that one function is one location
 * whichever process ran it.
 *
 * Stacks: a sample's location_ids are its stack, leaf first, one location
 * per frame (a caller's at its return address minus one, as recorded).
 * Inlined code is one location with a Line per function of its inline
 * chain, innermost first (the model's locations of one address: model.h),
 * each at its own file and line.
 * The [unknown] and [truncated] ends of a stack are locations of no
 * mapping at address 1 and 2, of functions named so.  A function's name
 * is what report prints; its system_name is the symbol as in the binary;
 * its filename and start_line say where it is defined (DW_AT_decl_file
 * and DW_AT_decl_line), for pprof -list.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gzpar.h"
#include "out.h"
#include "util.h"

/* ---- protobuf wire format --------------------------------------------------- */

struct pb {
	uint8_t *p;
	size_t n, cap;
	struct gzpar *gz; /* the whole profile only: compressed as it grows */
};

/* The whole profile is handed to the compressor in chunks this big: each
 * is one gzip member (gzpar.h). */
#define PB_CHUNK (4u << 20)

static void pb_raw(struct pb *b, const void *d, size_t n)
{
	if (b->gz && b->n >= PB_CHUNK) {
		gzpar_put(b->gz, b->p, b->n);
		b->p = xmalloc(PB_CHUNK + 4096);
		b->n = 0;
		b->cap = PB_CHUNK + 4096;
	}
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;
	do {
		t[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	pb_raw(b, t, n);
}

enum { WT_VARINT = 0, WT_LEN = 2 };

static void pb_key(struct pb *b, int field, int wt)
{
	pb_varint(b, (uint64_t)field << 3 | (uint64_t)wt);
}

static size_t varint_size(uint64_t v)
{
	size_t n = 1;
	while (v > 0x7f) {
		v >>= 7;
		n++;
	}
	return n;
}

/* A varint field; zero is the default and is left out. */
static void pb_uint(struct pb *b, int field, uint64_t v)
{
	if (!v)
		return;
	pb_key(b, field, WT_VARINT);
	pb_varint(b, v);
}

static void pb_bytes(struct pb *b, int field, const void *d, size_t n)
{
	pb_key(b, field, WT_LEN);
	pb_varint(b, n);
	pb_raw(b, d, n);
}

/* Append sub as a nested message field, and empty sub for reuse. */
static void pb_msg(struct pb *b, int field, struct pb *sub)
{
	pb_bytes(b, field, sub->p, sub->n);
	sub->n = 0;
}

/* ---- string table ------------------------------------------------------------- */

/* The string's index in string_table, adding it if new; NULL is "" (0).
 * profile.proto's strings are proto3 strings, which readers may reject
 * unless they are UTF-8: stray bytes become U+FFFD (out_utf8). */
static uint64_t str(struct strtab *t, const char *s)
{
	char *u = out_utf8(s ? s : "");
	uint64_t i = strtab_add(t, u, NULL);
	free(u);
	return i;
}

/* ---- the profile ------------------------------------------------------------- */

/* Profile field numbers (profile.proto) */
enum {
	P_SAMPLE_TYPE = 1,
	P_SAMPLE = 2,
	P_MAPPING = 3,
	P_LOCATION = 4,
	P_FUNCTION = 5,
	P_STRING_TABLE = 6,
	P_TIME_NANOS = 9,
	P_DURATION_NANOS = 10,
	P_PERIOD_TYPE = 11,
	P_PERIOD = 12,
	P_COMMENT = 13,
	P_DEFAULT_SAMPLE_TYPE = 14,
};

struct mapping {
	uint64_t id;
	uint64_t start, limit, offset; /* runtime span at the chosen bias */
	uint64_t bias;
};

static void value_type(struct pb *out, int field, struct strtab *t, const char *type,
		       const char *unit)
{
	struct pb v = { 0 };
	pb_uint(&v, 1, str(t, type));
	pb_uint(&v, 2, str(t, unit));
	pb_msg(out, field, &v);
	free(v.p);
}

static const struct mapping *sort_mp; /* qsort has no context argument */

static int start_cmp(const void *a, const void *b)
{
	uint64_t x = sort_mp[*(const uint32_t *)a].start, y = sort_mp[*(const uint32_t *)b].start;
	return (x > y) - (x < y);
}

/*
 * One mapping per module with samples, the main executable first (id 1),
 * each where its first process had it.  A module whose span overlaps one
 * placed before it (two processes, two different files at one address:
 * every non-PIE test binary of a test suite) is moved above all of them.
 * "Does [start, limit) overlap a placed span?" is a prefix maximum over
 * the spans sorted by start (a Fenwick tree of their limits), so that
 * thousands of modules cost n log n, not n squared.
 */
static struct mapping *place_mappings(const struct model *f, uint32_t **by_id, size_t *nmaps)
{
	struct mapping *mp = xcalloc(f->nmods + 1, sizeof *mp);
	uint32_t *order = xcalloc(f->nmods + 1, sizeof *order);
	size_t n = 0;
	uint32_t first = out_main_module(f);
	if (first != MODEL_NO_MOD)
		order[n++] = first;
	for (uint32_t m = 0; m < f->nmods; m++)
		if (m != first && (f->mods[m].samples || f->mods[m].total))
			order[n++] = m;
	uint64_t top = 0;
	for (size_t i = 0; i < n; i++) {
		const struct model_mod *mod = &f->mods[order[i]];
		struct mapping *x = &mp[order[i]];
		/* the main module at its link-time addresses: go tool pprof's
		 * own object reader (-disasm, -list without line data) looks
		 * sample addresses up in the file's symbol table as they are,
		 * without the mapping's offset, so a PIE's runtime addresses
		 * would match no symbol there */
		x->bias = i == 0 && first != MODEL_NO_MOD ? 0 : mod->bias;
		x->start = mod->text_lo + x->bias;
		x->limit = mod->text_hi + x->bias;
		if (x->limit > top)
			top = x->limit;
	}
	uint32_t *sorted = xcalloc(n + 1, sizeof *sorted);
	memcpy(sorted, order, n * sizeof *sorted);
	sort_mp = mp;
	qsort(sorted, n, sizeof *sorted, start_cmp);
	uint32_t *rank = xcalloc(f->nmods + 1, sizeof *rank);
	for (size_t i = 0; i < n; i++)
		rank[sorted[i]] = (uint32_t)i;
	uint64_t *fen = xcalloc(n + 1, sizeof *fen); /* 1-based prefix maxima */

	for (size_t k = 0; k < n; k++) {
		uint32_t m = order[k];
		struct mapping *x = &mp[m];
		/* the spans that start below x's limit: sorted[0 .. lo) */
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (mp[sorted[mid]].start < x->limit)
				lo = mid + 1;
			else
				hi = mid;
		}
		uint64_t reach = 0; /* the highest limit placed among them */
		for (size_t i = lo; i > 0; i -= i & -i)
			reach = fen[i] > reach ? fen[i] : reach;
		if (reach > x->start) {
			/* above everything: unless the addresses wrap, no clash */
			const struct model_mod *mod = &f->mods[m];
			x->bias = ((top + 0xfffff) & ~(uint64_t)0xfffff) - mod->text_lo;
			x->start = mod->text_lo + x->bias;
			x->limit = mod->text_hi + x->bias;
			top = x->limit;
		} else {
			for (size_t i = rank[m] + 1; i <= n; i += i & -i)
				fen[i] = x->limit > fen[i] ? x->limit : fen[i];
		}
		x->offset = f->mods[m].text_offset;
		x->id = k + 1;
	}
	free(fen);
	free(rank);
	free(sorted);
	*by_id = order; /* module of mapping id k + 1 */
	*nmaps = n;
	return mp;
}

/* One label: key = str, or key = num when str is NULL. */
static void label(struct pb *blob, struct strtab *t, const char *key, const char *s, int64_t num)
{
	struct pb l = { 0 };
	pb_uint(&l, 1, str(t, key));
	if (s)
		pb_uint(&l, 2, str(t, s));
	else
		pb_uint(&l, 3, (uint64_t)num);
	pb_msg(blob, 3, &l);
	free(l.p);
}

/* The encoded labels of a sample of process p, thread th (or NULL): the
 * numeric pid and tid, the process's program name and the thread's name,
 * for pprof's -tagfocus and -tags and for the fleet profilers that read
 * pprof.  The same for every sample of one thread, so made once. */
static void thread_labels(struct pb *blob, struct strtab *t, const struct pp_process *p,
			  const struct pp_thread *th)
{
	label(blob, t, "pid", NULL, p->pid);
	const char *exe = strrchr(p->exe, '/');
	label(blob, t, "process", exe ? exe + 1 : p->exe, 0);
	if (th) {
		label(blob, t, "tid", NULL, th->tid);
		char name[17];
		snprintf(name, sizeof name, "%.16s", th->name);
		if (name[0])
			label(blob, t, "thread", name, 0);
	}
}

static void hexid(char *out, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = '\0';
}

/* The node of the next location of a stack after node k's, towards the
 * root: past the frames k's code was inlined into (one location). */
static uint32_t next_location(const struct model *f, uint32_t k)
{
	while (f->pcs[f->nodes[k].pc].inl_caller != MODEL_NO_PC)
		k = f->nodes[k].parent;
	return f->nodes[k].parent;
}

static void encode(const struct model *f, struct pb *out)
{
	struct strtab t = { 0 };
	struct pb m = { 0 }, sub = { 0 };
	str(&t, "");
	const struct pp_process *p0 = f->procs[0].p;
	uint64_t period = p0->hz ? 1000000000ull / p0->hz : 0;

	value_type(out, P_SAMPLE_TYPE, &t, "samples", "count");
	value_type(out, P_SAMPLE_TYPE, &t, "cpu", "nanoseconds");

	/* Samples: (location, value = [count, count * period]) with the
	 * labels of their thread.  Written straight into out: with ten
	 * million samples, copying each through nested buffers cost more
	 * than compressing them. */
	struct pb **labels = xcalloc(f->nprocs, sizeof *labels);
	for (size_t i = 0; i < f->nhits; i++) {
		const struct model_hit *h = &f->hits[i];
		const struct pp_process *p = f->procs[h->proc].p;
		uint32_t ti = h->thread < p->nthreads ? h->thread : (uint32_t)p->nthreads;
		if (!labels[h->proc])
			labels[h->proc] = xcalloc(p->nthreads + 1, sizeof **labels);
		struct pb *lab = &labels[h->proc][ti];
		if (!lab->n)
			thread_labels(lab, &t, p, ti < p->nthreads ? &p->threads[ti] : NULL);
		uint64_t per = p->hz ? 1000000000ull / p->hz : 0;
		/* location_id: packed, leaf first (location id = pc index + 1) */
		size_t llen = 0;
		for (uint32_t k = h->node; k != MODEL_NO_NODE; k = next_location(f, k))
			llen += varint_size((uint64_t)f->nodes[k].pc + 1);
		size_t vlen = varint_size(h->count) + varint_size(h->count * per);
		pb_key(out, P_SAMPLE, WT_LEN);
		pb_varint(out,
			  1 + varint_size(llen) + llen + 1 + varint_size(vlen) + vlen + lab->n);
		pb_key(out, 1, WT_LEN);
		pb_varint(out, llen);
		for (uint32_t k = h->node; k != MODEL_NO_NODE; k = next_location(f, k))
			pb_varint(out, (uint64_t)f->nodes[k].pc + 1);
		/* value: packed repeated int64 */
		pb_key(out, 2, WT_LEN);
		pb_varint(out, vlen);
		pb_varint(out, h->count);
		pb_varint(out, h->count * per);
		pb_raw(out, lab->p, lab->n);
	}
	for (size_t i = 0; i < f->nprocs; i++)
		for (size_t j = 0; labels[i] && j <= f->procs[i].p->nthreads; j++)
			free(labels[i][j].p);
	for (size_t i = 0; i < f->nprocs; i++)
		free(labels[i]);
	free(labels);

	/* Mappings, in id order (the main executable's is id 1). */
	uint32_t *by_id;
	size_t nmaps;
	struct mapping *mp = place_mappings(f, &by_id, &nmaps);
	for (uint64_t id = 1; id <= nmaps; id++) {
		uint32_t mi = by_id[id - 1];
		const struct model_mod *mod = &f->mods[mi];
		char bid[81];
		hexid(bid, mod->build_id, mod->build_id_len);
		pb_uint(&m, 1, id);
		pb_uint(&m, 2, mp[mi].start);
		pb_uint(&m, 3, mp[mi].limit);
		pb_uint(&m, 4, mp[mi].offset);
		pb_uint(&m, 5, str(&t, mod->path));
		pb_uint(&m, 6, str(&t, bid));
		/* Every location carries its function (a name, or
		 * "module+0xADDRESS"): pprof must not try to symbolize. */
		pb_uint(&m, 7, 1);
		pb_uint(&m, 8, mod->has_lines);
		pb_uint(&m, 9, mod->has_lines);
		/* its inline chains are resolved where it has DWARF lines */
		pb_uint(&m, 10, mod->has_lines && !f->opts.no_inline);
		pb_msg(out, P_MAPPING, &m);
	}

	/* Locations: one per distinct address, id = the index + 1 of its
	 * innermost pc; a Line per pc of its inline chain, innermost first. */
	for (size_t i = 0; i < f->npcs; i++) {
		const struct model_pc *pc = &f->pcs[i];
		if ((!pc->samples && !pc->total) || pc->inl_outer)
			continue;
		pb_uint(&m, 1, i + 1);
		if (pc->mod != MODEL_NO_MOD) {
			pb_uint(&m, 2, mp[pc->mod].id);
			pb_uint(&m, 3, pc->addr + mp[pc->mod].bias);
		} else {
			pb_uint(&m, 3, pc->addr);
		}
		for (uint32_t k = (uint32_t)i; k != MODEL_NO_PC; k = f->pcs[k].inl_caller) {
			pb_uint(&sub, 1, (uint64_t)f->pcs[k].fn + 1);
			pb_uint(&sub, 2, f->pcs[k].line > 0 ? (uint64_t)f->pcs[k].line : 0);
			pb_msg(&m, 4, &sub);
		}
		pb_msg(out, P_LOCATION, &m);
	}

	/* Functions, id = function index + 1. */
	for (size_t i = 0; i < f->nfns; i++) {
		const struct model_fn *fn = &f->fns[i];
		if (!fn->samples && !fn->total)
			continue;
		pb_uint(&m, 1, i + 1);
		pb_uint(&m, 2, str(&t, fn->label));
		pb_uint(&m, 3, str(&t, fn->name ? fn->name : fn->label));
		pb_uint(&m, 4, str(&t, fn->file));
		pb_uint(&m, 5, fn->line > 0 ? (uint64_t)fn->line : 0);
		pb_msg(out, P_FUNCTION, &m);
	}
	free(mp);
	free(by_id);

	uint64_t comment = str(&t, f->prof->command);
	uint64_t cpu = str(&t, "cpu"), ns = str(&t, "nanoseconds");
	for (size_t i = 0; i < t.n; i++)
		pb_bytes(out, P_STRING_TABLE, t.s[i], strlen(t.s[i]));
	pb_uint(out, P_TIME_NANOS, f->prof->start_ns);
	if (f->prof->end_ns > f->prof->start_ns)
		pb_uint(out, P_DURATION_NANOS, f->prof->end_ns - f->prof->start_ns);
	pb_uint(&sub, 1, cpu);
	pb_uint(&sub, 2, ns);
	pb_msg(out, P_PERIOD_TYPE, &sub);
	pb_uint(out, P_PERIOD, period);
	pb_uint(out, P_COMMENT, comment);
	pb_uint(out, P_DEFAULT_SAMPLE_TYPE, cpu);

	strtab_free(&t);
	free(m.p);
	free(sub.p);
}

/* zlib's level: PCPROF_GZIP_LEVEL (1-9) for the benchmarks, else the
 * level chosen by them (docs/benchmarks.md, "pprof export"). */
static int gzip_level(void)
{
	const char *e = getenv("PCPROF_GZIP_LEVEL");
	if (e && e[0] >= '1' && e[0] <= '9' && !e[1])
		return e[0] - '0';
	return 1;
}

static int write_pprof(const struct model *f, const char *out, char *err, size_t errlen)
{
	struct ofile *o = ofile_open(out, err, errlen);
	if (!o)
		return -1;
	struct pb b = { .gz = gzpar_open(ofile_stream(o), gzip_level(), 0) };
	encode(f, &b);
	gzpar_put(b.gz, b.p, b.n);
	if (gzpar_close(b.gz) < 0)
		die(2, "zlib: deflate failed");
	return ofile_close(o, err, errlen);
}

const struct out_format out_pprof = {
	.name = "pprof",
	.help = "pprof profile.proto, gzipped, symbolized (go tool pprof)",
	.default_out = "pcprof.pb.gz",
	.write = write_pprof,
};
