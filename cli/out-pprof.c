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
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "out.h"
#include "util.h"

/* ---- protobuf wire format --------------------------------------------------- */

struct pb {
	uint8_t *p;
	size_t n, cap;
};

static void pb_raw(struct pb *b, const void *d, size_t n)
{
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
static struct mapping *place_mappings(const struct flat *f, uint32_t **by_id, size_t *nmaps)
{
	struct mapping *mp = xcalloc(f->nmods + 1, sizeof *mp);
	uint32_t *order = xcalloc(f->nmods + 1, sizeof *order);
	size_t n = 0;
	uint32_t first = out_main_module(f);
	if (first != FLAT_NO_MOD)
		order[n++] = first;
	for (uint32_t m = 0; m < f->nmods; m++)
		if (m != first && f->mods[m].samples)
			order[n++] = m;
	uint64_t top = 0;
	for (size_t i = 0; i < n; i++) {
		const struct flat_mod *mod = &f->mods[order[i]];
		struct mapping *x = &mp[order[i]];
		x->bias = mod->bias;
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
			const struct flat_mod *mod = &f->mods[m];
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

static void hexid(char *out, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = '\0';
}

static void encode(const struct flat *f, struct pb *out)
{
	struct strtab t = { 0 };
	struct pb m = { 0 }, sub = { 0 };
	str(&t, "");
	const struct pp_process *p0 = f->procs[0].p;
	uint64_t period = p0->hz ? 1000000000ull / p0->hz : 0;

	value_type(out, P_SAMPLE_TYPE, &t, "samples", "count");
	value_type(out, P_SAMPLE_TYPE, &t, "cpu", "nanoseconds");

	/* Samples: (location, value = [count, count * period]) with the
	 * process and thread as labels, for pprof's -tagfocus and -tags. */
	uint64_t k_pid = str(&t, "pid"), k_tid = str(&t, "tid"), k_thread = str(&t, "thread");
	for (size_t i = 0; i < f->nhits; i++) {
		const struct flat_hit *h = &f->hits[i];
		const struct pp_process *p = f->procs[h->proc].p;
		const struct pp_thread *th =
			h->thread < p->nthreads ? &p->threads[h->thread] : NULL;
		uint64_t per = p->hz ? 1000000000ull / p->hz : 0;
		pb_uint(&m, 1, h->pc + 1); /* location_id */
		/* value: packed repeated int64 */
		pb_varint(&sub, h->count);
		pb_varint(&sub, h->count * per);
		pb_msg(&m, 2, &sub);
		struct pb l = { 0 };
		pb_uint(&l, 1, k_pid);
		pb_uint(&l, 3, (uint64_t)(int64_t)p->pid);
		pb_msg(&m, 3, &l);
		if (th) {
			pb_uint(&l, 1, k_tid);
			pb_uint(&l, 3, (uint64_t)(int64_t)th->tid);
			pb_msg(&m, 3, &l);
			char name[17];
			snprintf(name, sizeof name, "%.16s", th->name);
			if (name[0]) {
				pb_uint(&l, 1, k_thread);
				pb_uint(&l, 2, str(&t, name));
				pb_msg(&m, 3, &l);
			}
		}
		free(l.p);
		pb_msg(out, P_SAMPLE, &m);
	}

	/* Mappings, in id order (the main executable's is id 1). */
	uint32_t *by_id;
	size_t nmaps;
	struct mapping *mp = place_mappings(f, &by_id, &nmaps);
	for (uint64_t id = 1; id <= nmaps; id++) {
		uint32_t mi = by_id[id - 1];
		const struct flat_mod *mod = &f->mods[mi];
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
		pb_msg(out, P_MAPPING, &m);
	}

	/* Locations: one per distinct pc, id = pc index + 1. */
	for (size_t i = 0; i < f->npcs; i++) {
		const struct flat_pc *pc = &f->pcs[i];
		if (!pc->samples)
			continue;
		pb_uint(&m, 1, i + 1);
		if (pc->mod != FLAT_NO_MOD) {
			pb_uint(&m, 2, mp[pc->mod].id);
			pb_uint(&m, 3, pc->addr + mp[pc->mod].bias);
		} else {
			pb_uint(&m, 3, pc->addr);
		}
		pb_uint(&sub, 1, (uint64_t)pc->fn + 1);
		pb_uint(&sub, 2, pc->line > 0 ? (uint64_t)pc->line : 0);
		pb_msg(&m, 4, &sub);
		pb_msg(out, P_LOCATION, &m);
	}

	/* Functions, id = function index + 1. */
	for (size_t i = 0; i < f->nfns; i++) {
		const struct flat_fn *fn = &f->fns[i];
		if (!fn->samples)
			continue;
		pb_uint(&m, 1, i + 1);
		pb_uint(&m, 2, str(&t, fn->label));
		pb_uint(&m, 3, str(&t, fn->label));
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

static int write_pprof(const struct flat *f, const char *out, char *err, size_t errlen)
{
	struct pb b = { 0 };
	encode(f, &b);

	/* gzip: deflate with a gzip wrapper (windowBits 15 + 16) */
	z_stream z = { 0 };
	if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(b.p);
		snprintf(err, errlen, "zlib: cannot initialize deflate");
		return -1;
	}
	size_t cap = deflateBound(&z, b.n);
	uint8_t *gz = xmalloc(cap);
	z.next_in = b.p;
	z.avail_in = (uInt)b.n;
	z.next_out = gz;
	z.avail_out = (uInt)cap;
	int zr = deflate(&z, Z_FINISH);
	size_t gzn = cap - z.avail_out;
	deflateEnd(&z);
	free(b.p);
	if (zr != Z_STREAM_END) {
		free(gz);
		snprintf(err, errlen, "zlib: deflate failed");
		return -1;
	}
	struct ofile *o = ofile_open(out, err, errlen);
	if (!o) {
		free(gz);
		return -1;
	}
	fwrite(gz, 1, gzn, ofile_stream(o));
	free(gz);
	return ofile_close(o, err, errlen);
}

const struct out_format out_pprof = {
	.name = "pprof",
	.help = "pprof profile.proto, gzipped, symbolized (go tool pprof)",
	.default_out = "pcprof.pb.gz",
	.write = write_pprof,
};
