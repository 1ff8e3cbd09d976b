/*
 * config.c - turn validated histogram descriptions into the immutable
 * configuration the handler reads.
 *
 * Overlap resolution is done once here, not per tick: a sweep over the
 * region boundaries with a priority queue (greatest first pc, then lowest
 * array order) paints the pc line into disjoint segments, so the handler
 * needs one binary search whatever the number of regions.  O(n log n) for
 * the 65536 regions sprofil accepts.  glibc instead inserts regions one by
 * one and searches with an index that can underflow (spec 1.8); this form
 * has neither problem.
 */
#include "config.h"

#include <string.h>

#include "../include/profil_ext.h"

/* Everything in one mapping: header, regions, segments (at most 2 per
 * region: each region adds two boundaries). */
struct profil_cfg *profil__cfg_new(int kind, uint32_t nregions, int policy, unsigned int hz)
{
	size_t size = sizeof(struct profil_cfg) + (size_t)nregions * sizeof(struct profil_region) +
		      (size_t)(2 * nregions + 1) * sizeof(struct profil_segment);
	struct profil_cfg *c = profil__alloc(size);
	if (!c)
		return NULL;
	c->alloc_size = size;
	c->kind = kind;
	c->policy = (uint8_t)policy;
	c->hz = hz;
	c->bin = -1;
	c->nregions = nregions;
	c->regions = (struct profil_region *)(c + 1);
	c->segments = (struct profil_segment *)(c->regions + nregions);
	atomic_store(&c->fault_at, UINT64_MAX);
	return c;
}

void profil__cfg_free(struct profil_cfg *c)
{
	if (c)
		profil__free(c, c->alloc_size);
}

int profil__cfg_done(struct profil_cfg *c, struct profil_cfg **out)
{
	int r = profil__cfg_finish(c);
	if (r < 0) {
		profil__cfg_free(c);
		return r;
	}
	*out = c;
	return 0;
}

void profil__region_init(struct profil_region *r, uint32_t order, uint64_t off, void *base,
			 uint64_t n, uint64_t scale, int esize)
{
	memset(r, 0, sizeof *r);
	r->order = order;
	r->off = off;
	r->first = off;
	r->last = UINT64_MAX;
	r->base = base;
	r->n = n;
	r->scale = scale;
	r->esize = (uint8_t)esize;
	r->round = PROFIL_ROUND_DOWN;
}

/* ---- a small heap sort over index arrays (no malloc, unlike qsort) ---- */

typedef bool (*before_fn)(const void *ctx, uint32_t a, uint32_t b);

static void sift(uint32_t *v, size_t n, size_t i, before_fn before, const void *ctx)
{
	for (;;) {
		size_t big = i, l = 2 * i + 1, r = l + 1;
		if (l < n && before(ctx, v[big], v[l]))
			big = l;
		if (r < n && before(ctx, v[big], v[r]))
			big = r;
		if (big == i)
			return;
		uint32_t t = v[i];
		v[i] = v[big];
		v[big] = t;
		i = big;
	}
}

/* Sorts v so that before(v[i], v[i+1]) or they are equivalent. */
static void heap_sort(uint32_t *v, size_t n, before_fn before, const void *ctx)
{
	for (size_t i = n / 2; i-- > 0;)
		sift(v, n, i, before, ctx);
	for (size_t end = n; end-- > 1;) {
		uint32_t t = v[0];
		v[0] = v[end];
		v[end] = t;
		sift(v, end, 0, before, ctx);
	}
}

/* Sort order for activation: ascending first pc. */
static bool first_before(const void *ctx, uint32_t a, uint32_t b)
{
	const struct profil_region *r = ctx;
	return r[a].first < r[b].first;
}

/* Priority: "a loses to b" (max-heap on greatest first, then lowest order). */
static bool loses_to(const void *ctx, uint32_t a, uint32_t b)
{
	const struct profil_region *r = ctx;
	if (r[a].first != r[b].first)
		return r[a].first < r[b].first;
	return r[a].order > r[b].order;
}

static void heap_push(uint32_t *h, size_t *n, uint32_t x, const struct profil_region *r)
{
	size_t i = (*n)++;
	h[i] = x;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!loses_to(r, h[p], h[i]))
			break;
		uint32_t t = h[p];
		h[p] = h[i];
		h[i] = t;
		i = p;
	}
}

static void heap_pop(uint32_t *h, size_t *n, const struct profil_region *r)
{
	h[0] = h[--*n];
	sift(h, *n, 0, loses_to, r);
}

/* Boundary points are region firsts and (last + 1)s, kept in the regions'
 * own order arrays: we sort the firsts, and end points are handled lazily by
 * the heap, so the sweep visits each first and each end once. */
int profil__cfg_finish(struct profil_cfg *c)
{
	uint32_t n = 0;
	struct profil_region *R = c->regions;

	for (uint32_t i = 0; i < c->nregions; i++) {
		struct profil_region *r = &R[i];
		r->misaligned = ((uintptr_t)r->base & (uintptr_t)(r->esize - 1)) != 0;
		if (r->first < r->off)
			r->first = r->off;
		uint64_t len = profil_cover_len(r);
		uint64_t span = r->first - r->off; /* pcs below first are excluded */
		if (len == 0 || len <= span) {
			r->last = 0, r->first = 1; /* empty */
			continue;
		}
		uint64_t cover_last = len == UINT64_MAX || r->off > UINT64_MAX - (len - 1)
					      ? UINT64_MAX
					      : r->off + (len - 1);
		if (cover_last < r->last)
			r->last = cover_last;
		if (r->last >= r->first && (int32_t)i != c->bin)
			n++;
	}
	c->nsegments = 0;
	if (n == 0)
		return 0;

	size_t tmp_size = (size_t)n * 2 * sizeof(uint32_t);
	uint32_t *tmp = profil__alloc(tmp_size);
	if (!tmp)
		return -ENOMEM;
	uint32_t *byfirst = tmp, *heap = tmp + n;
	uint32_t m = 0;
	for (uint32_t i = 0; i < c->nregions; i++)
		if (R[i].last >= R[i].first && (int32_t)i != c->bin)
			byfirst[m++] = i;
	heap_sort(byfirst, m, first_before, R);

	size_t hn = 0;
	uint32_t j = 0;
	uint64_t p = R[byfirst[0]].first; /* current position on the pc line */
	for (;;) {
		while (j < m && R[byfirst[j]].first <= p)
			heap_push(heap, &hn, byfirst[j++], R);
		while (hn && R[heap[0]].last < p)
			heap_pop(heap, &hn, R);
		if (!hn) {
			if (j == m)
				break;
			p = R[byfirst[j]].first;
			continue;
		}
		/* The winner holds until it ends or a later region starts. */
		uint32_t w = heap[0];
		uint64_t end = R[w].last;
		if (j < m && R[byfirst[j]].first - 1 < end)
			end = R[byfirst[j]].first - 1;
		struct profil_segment *prev = c->nsegments ? &c->segments[c->nsegments - 1] : NULL;
		if (prev && prev->region == w && prev->last + 1 == p)
			prev->last = end;
		else
			c->segments[c->nsegments++] = (struct profil_segment){ p, end, w };
		if (end == UINT64_MAX)
			break;
		p = end + 1;
	}
	profil__free(tmp, tmp_size);
	return 0;
}
