/*
 * The bin arithmetic of lib/sample.h at its edges, against references
 * written differently from the library's:
 *   profil_byte_offset  B = floor(d * scale / 65536), saturating: here as
 *                       (d >> 16) * scale + floor((d & 0xFFFF) * scale / 65536)
 *                       with overflow checks instead of 128-bit products;
 *   profil_index        floor(B / E), AIX ceil(B / 2), scale 2 "all to 0";
 *   profil_cover_len    the smallest d whose index is >= n, found by search
 *                       over d (exhaustive for short covers, bisection for
 *                       long ones, using that the index never decreases).
 */
#include "sig/sample.h"

#include "test.h"

static uint64_t ref_offset(uint64_t d, uint64_t scale)
{
	uint64_t hi, lo = ((d & 0xFFFF) * scale) >> 16, sum; /* < 2^49 */
	if (__builtin_mul_overflow(d >> 16, scale, &hi) || __builtin_add_overflow(hi, lo, &sum))
		return UINT64_MAX;
	return sum;
}

static struct profil_region region(uint64_t n, uint64_t scale, int esize, int round)
{
	struct profil_region r;
	memset(&r, 0, sizeof r);
	r.n = n;
	r.scale = scale;
	r.esize = (uint8_t)esize;
	r.round = (uint8_t)round;
	return r;
}

static uint64_t ref_index(const struct profil_region *r, uint64_t d)
{
	if (r->all_to_zero)
		return 0;
	uint64_t b = ref_offset(d, r->scale);
	if (r->round == PROFIL_ROUND_AIX)
		return b == UINT64_MAX ? UINT64_MAX / 2 + 1 : (b + 1) / 2;
	return b / r->esize;
}

/* Smallest d with ref_index >= n; UINT64_MAX if none below it. */
static uint64_t ref_cover(const struct profil_region *r)
{
	if (r->n == 0)
		return 0;
	if (ref_index(r, UINT64_MAX - 1) < r->n)
		return UINT64_MAX;
	uint64_t lo = 0, hi = UINT64_MAX - 1; /* index(lo - 1) < n <= index(hi) */
	if (r->n < 64 && r->scale >= 0x1000) {
		for (uint64_t d = 0;; d++) /* short: exhaustive */
			if (ref_index(r, d) >= r->n)
				return d;
	}
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (ref_index(r, mid) >= r->n)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static const uint64_t scales[] = { 2, 3, 0x100, 0x7FFF, 0x8000, 0xC000, 0xFFFF, 0x10000,
				   0x10001, 0x20000, 0x7FFFFFFF, 0xFFFFFFFF, 0x1FFFFFFFF };

static const uint64_t ds[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 0xFFFF, 0x10000, 0x10001,
			       0x7FFFFFFF, 0xFFFFFFFF, 0x100000000, 0xFFFFFFFFFFFF,
			       0x1000000000000, UINT64_MAX / 0xFFFFFFFF, UINT64_MAX / 0xFFFFFFFF + 1,
			       (UINT64_MAX >> 16) - 1, UINT64_MAX >> 16, (UINT64_MAX >> 16) + 1,
			       UINT64_MAX - 0x10000, UINT64_MAX - 2, UINT64_MAX - 1, UINT64_MAX };

static void check_known_values(void)
{
	/* Spec 0.1 and T03: E = 2, scale 0xC000, d = 3 gives B = 2, I = 1. */
	T_EQ(profil_byte_offset(3, 0xC000), 2);
	struct profil_region r = region(100, 0xC000, 2, PROFIL_ROUND_DOWN);
	T_EQ(profil_index(&r, 3), 1);
	/* 1:1 and the top of the address space. */
	T_OK(profil_byte_offset(UINT64_MAX, 0x10000) == UINT64_MAX);
	T_OK(profil_byte_offset(UINT64_MAX - 5, 0x10000) == UINT64_MAX - 5);
	/* scale 2: (2^64 - 1) * 2 / 2^16 = 2^49 - 1 after the floor. */
	T_OK(profil_byte_offset(UINT64_MAX, 2) == (UINT64_C(1) << 49) - 1);
	/* The largest 32-bit scale saturates near the top instead of wrapping. */
	T_OK(profil_byte_offset(UINT64_MAX, 0xFFFFFFFF) == UINT64_MAX);
	T_OK(profil_byte_offset(UINT64_C(1) << 48, 0xFFFFFFFF) ==
	     UINT64_MAX - 0xFFFFFFFF); /* 2^64 - 2^32: the last that fits */
	T_OK(profil_byte_offset(UINT64_C(1) << 49, 0xFFFFFFFF) == UINT64_MAX);
	T_OK(profil_byte_offset((UINT64_C(1) << 48) - 1, 0x10000) == (UINT64_C(1) << 48) - 1);
	/* d * scale just below 2^80 still fits: (2^48 - 1) * 2^32 >> 16. */
	T_OK(profil_byte_offset((UINT64_C(1) << 48) - 1, UINT64_C(1) << 32) ==
	     ((UINT64_C(1) << 48) - 1) << 16);

	/* AIX round-up: I = ceil(B / 2). */
	r = region(100, 0x10000, 2, PROFIL_ROUND_AIX);
	T_EQ(profil_index(&r, 0), 0);
	T_EQ(profil_index(&r, 1), 1);
	T_EQ(profil_index(&r, 2), 1);
	T_EQ(profil_index(&r, 3), 2);
	r.scale = 0xFFFF; /* T68: X + 2 gives B = 1, counter 1 */
	T_EQ(profil_index(&r, 2), 1);
	T_EQ(profil_index(&r, 1), 0);
	r.scale = 0x10000; /* B = 2^64 - 1, odd: ceil without overflow is 2^63 */
	T_OK(profil_index(&r, UINT64_MAX) == UINT64_MAX / 2 + 1);

	/* Counter sizes. */
	r = region(100, 0x10000, 4, PROFIL_ROUND_DOWN);
	T_EQ(profil_index(&r, 9), 2);  /* T44 */
	r.esize = 8;
	T_EQ(profil_index(&r, 17), 2); /* T22 */

	/* scale 2, "all to counter 0". */
	r = region(1, 2, 2, PROFIL_ROUND_DOWN);
	r.all_to_zero = true;
	T_EQ(profil_index(&r, UINT64_MAX), 0);
	T_OK(profil_cover_len(&r) == UINT64_MAX);
	r.n = 0;
	T_EQ(profil_cover_len(&r), 0);

	/* n = 0 covers nothing, n = 1 at 1:1 covers two bytes. */
	r = region(0, 0x10000, 2, PROFIL_ROUND_DOWN);
	T_EQ(profil_cover_len(&r), 0);
	r.n = 1;
	T_EQ(profil_cover_len(&r), 2);
	r.round = PROFIL_ROUND_AIX; /* ceil(B / 2) < 1 only for B = 0 */
	T_EQ(profil_cover_len(&r), 1);
	/* scale 2, ordinary ratio: one counter covers 65536 bytes. */
	r = region(1, 2, 2, PROFIL_ROUND_DOWN);
	T_EQ(profil_cover_len(&r), 65536);
	/* 2^49 bytes of counters at scale 2 cover the whole address space. */
	r = region(UINT64_C(1) << 48, 2, 2, PROFIL_ROUND_DOWN);
	T_OK(profil_cover_len(&r) == UINT64_MAX);
	r.n--;
	T_OK(profil_cover_len(&r) == UINT64_MAX - 0xFFFF); /* 2^64 - 65536 */
	r = region(UINT64_MAX / 2 + 1, 0x10000, 2, PROFIL_ROUND_DOWN); /* 2^64 bytes */
	T_OK(profil_cover_len(&r) == UINT64_MAX);
	r.n = UINT64_MAX / 2; /* two bytes less: d = 2^64 - 2 is the first outside */
	T_OK(profil_cover_len(&r) == UINT64_MAX - 1);
	r.round = PROFIL_ROUND_AIX; /* ceil(B / 2) >= n from B = 2n - 1 = 2^64 - 3 */
	T_OK(profil_cover_len(&r) == UINT64_MAX - 2);
}

static void check_against_reference(void)
{
	const uint64_t ns[] = { 0, 1, 2, 3, 7, 64, 1000, 65535, 0x100000000,
				UINT64_C(1) << 47, UINT64_MAX / 16, UINT64_MAX / 2 };
	const int es[] = { 2, 4, 8 };
	for (size_t s = 0; s < sizeof scales / sizeof scales[0]; s++) {
		for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
			uint64_t got = profil_byte_offset(ds[i], scales[s]);
			uint64_t want = ref_offset(ds[i], scales[s]);
			if (got != want)
				T_FAIL("byte_offset(%#llx, %#llx) = %#llx, want %#llx",
				       (unsigned long long)ds[i], (unsigned long long)scales[s],
				       (unsigned long long)got, (unsigned long long)want);
		}
		for (int round = 0; round < 2; round++)
			for (size_t e = 0; e < 3; e++) {
				if (round == PROFIL_ROUND_AIX && es[e] != 2)
					continue;
				for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
					/* No buffer holds more than 2^64 bytes. */
					if (ns[k] > UINT64_MAX / (uint64_t)es[e])
						continue;
					struct profil_region r = region(ns[k], scales[s], es[e], round);
					for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++)
						T_OK(profil_index(&r, ds[i]) == ref_index(&r, ds[i]));
					uint64_t got = profil_cover_len(&r), want = ref_cover(&r);
					if (got != want)
						T_FAIL("cover_len(n %#llx, scale %#llx, E %d, round %d)"
						       " = %#llx, want %#llx",
						       (unsigned long long)r.n,
						       (unsigned long long)r.scale, es[e], round,
						       (unsigned long long)got,
						       (unsigned long long)want);
				}
			}
	}
}

/* Every d in a window around a few boundaries, for small regions. */
static void check_dense(void)
{
	for (uint64_t scale = 2; scale <= 0x20000; scale = scale * 3 + 1)
		for (int round = 0; round < 2; round++)
			for (uint64_t n = 0; n < 6; n++) {
				struct profil_region r = region(n, scale, 2, round);
				uint64_t len = profil_cover_len(&r);
				if (n == 0) {
					T_EQ(len, 0);
					continue;
				}
				T_OK(profil_index(&r, len - 1) < n);
				T_OK(profil_index(&r, len) >= n);
				for (uint64_t d = 0; d < 600; d++)
					T_OK(profil_index(&r, d) == ref_index(&r, d));
			}
}

int main(void)
{
	check_known_values();
	check_against_reference();
	check_dense();
	return 0;
}
