/*
 * Overlap resolution of lib/config.c (profil__cfg_new, profil__region_init,
 * profil__cfg_finish) read back through profil_find_segment, against a
 * brute-force reference: at a pc, among the regions that count it (pc at or
 * above the region's first pc and offset, at or below its last pc, and an
 * index below its counter count) the one with the greatest first pc wins;
 * ties go to the lowest order (spec 3.4).  The overflow bin owns no pc.
 *
 * Random region sets (fixed seeds, so a failure repeats) are drawn in three
 * address ranges: a small one where nearly everything overlaps, the top of
 * the address space (covers that end at 2^64 - 1), and a mixed one.  Each
 * set is probed at every region boundary and its neighbours, plus random
 * pcs.  The segment table itself must be sorted and disjoint.
 */
#include "config.h"
#include "session.h"

#include "test.h"

#define SETS 3000
#define MAXR 12

static uint64_t rng;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t below(uint64_t n)
{
	return n ? next() % n : 0;
}

static const uint64_t scales[] = { 2, 3, 0x4000, 0x8000, 0xC000, 0xFFFF, 0x10000, 0x20000,
				   0x30001 };

/* Does region r (as given, before cfg_finish) count pc? */
static bool counts(const struct profil_region *r, uint64_t pc)
{
	uint64_t first = r->first > r->off ? r->first : r->off;
	if (r->n == 0 || pc < first || pc > r->last)
		return false;
	return profil_index(r, pc - r->off) < r->n;
}

static int32_t reference(const struct profil_region *in, uint32_t k, int32_t bin, uint64_t pc)
{
	int32_t best = -1;
	for (uint32_t i = 0; i < k; i++) {
		if ((int32_t)i == bin || !counts(&in[i], pc))
			continue;
		uint64_t fi = in[i].first > in[i].off ? in[i].first : in[i].off;
		if (best < 0) {
			best = (int32_t)i;
			continue;
		}
		const struct profil_region *b = &in[best];
		uint64_t fb = b->first > b->off ? b->first : b->off;
		if (fi > fb || (fi == fb && in[i].order < b->order))
			best = (int32_t)i;
	}
	return best;
}

static uint64_t base_in(int mode)
{
	switch (mode) {
	case 0: return 0x1000 + below(0x400);                     /* crowded */
	case 1: return UINT64_MAX - below(0x40000);               /* the top */
	default: return below(4) ? 0x400000 + below(0x100000) : next(); /* mixed */
	}
}

static void make_set(int mode, struct profil_cfg *c, uint32_t k)
{
	static char counters[8] __attribute__((aligned(8)));
	uint32_t order[MAXR];
	for (uint32_t i = 0; i < k; i++)
		order[i] = i;
	for (uint32_t i = k; i > 1; i--) { /* orders: a permutation */
		uint32_t j = (uint32_t)below(i), t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
	for (uint32_t i = 0; i < k; i++) {
		struct profil_region *r = &c->regions[i];
		int esize = 2 << below(3);
		uint64_t scale = scales[below(sizeof scales / sizeof scales[0])];
		uint64_t n = below(6) == 0 ? 0 : 1 + below(below(2) ? 8 : 300);
		uint64_t off = base_in(mode);
		if (i > 0 && below(4) == 0) /* equal offsets: ties */
			off = c->regions[below(i)].off;
		profil__region_init(r, order[i], off, counters, n, scale, esize);
		if (below(4) == 0)
			r->round = PROFIL_ROUND_AIX, r->esize = 2;
		if (scale == 2 && below(2))
			r->all_to_zero = true;
		if (below(3) == 0) /* a narrowed range (Tru64, AIX arrays) */
			r->first = off + below(64);
		if (below(3) == 0)
			r->last = r->first + below(0x800);
	}
	if (below(4) == 0)
		c->bin = (int32_t)below(k);
}

static void probe(const struct profil_cfg *c, const struct profil_region *in, uint32_t k,
		  uint64_t pc, int set)
{
	int32_t want = reference(in, k, c->bin, pc);
	int32_t got = profil_find_segment(c, pc);
	if (got != want)
		T_FAIL("set %d: pc %#llx: region %d, want %d", set, (unsigned long long)pc,
		       got, want);
}

int main(void)
{
	struct profil_region in[MAXR];

	for (int set = 0; set < SETS; set++) {
		int mode = set % 3;
		uint32_t k = 1 + (uint32_t)(set % MAXR);
		rng = 0x9E3779B97F4A7C15u ^ (uint64_t)(set + 1) * 0x100000001B3u;
		struct profil_cfg *c = profil__cfg_new(PROFIL_REGIONS, k, profil__policy(), profil__base_hz());
		T_OK(c != NULL);
		make_set(mode, c, k);
		memcpy(in, c->regions, k * sizeof in[0]);
		T_EQ(profil__cfg_finish(c), 0);

		T_OK(c->nsegments <= 2 * k + 1);
		for (uint32_t s = 0; s < c->nsegments; s++) {
			const struct profil_segment *g = &c->segments[s];
			T_OK(g->first <= g->last);
			T_OK((int32_t)g->region != c->bin);
			if (s > 0)
				T_OK(c->segments[s - 1].last < g->first);
		}

		for (uint32_t i = 0; i < k; i++) {
			uint64_t cover = profil_cover_len(&in[i]);
			uint64_t pts[] = { in[i].off, in[i].first, in[i].last, in[i].off + cover,
					   in[i].off + cover - 1 };
			for (size_t p = 0; p < sizeof pts / sizeof pts[0]; p++)
				for (uint64_t delta = 0; delta < 3; delta++) {
					probe(c, in, k, pts[p] + delta - 1, set);
				}
		}
		for (uint32_t s = 0; s < c->nsegments; s++) {
			probe(c, in, k, c->segments[s].first - 1, set);
			probe(c, in, k, c->segments[s].last + 1, set);
		}
		probe(c, in, k, 0, set);
		probe(c, in, k, UINT64_MAX, set);
		for (int j = 0; j < 40; j++) {
			uint64_t a = in[below(k)].off;
			probe(c, in, k, a + below(0x2000) - 0x100, set);
		}
		profil__cfg_free(c);
	}
	return 0;
}
