/*
 * aix.c - AIX's profil: the classic form with AIX's rules and the
 * struct prof array form, reached through <mon.h> (__profil_aix) or, for the
 * array form only, through the generic profil() by its bufsiz == -1
 * sentinel.
 *
 * AIX rules (seed 004, spec 1.6 and 3.5), applied only through __profil_aix:
 *   - only the low 16 bits of the scale count (so 0x10000 is off);
 *   - the index is rounded up: I = ceil(B / 2);
 *   - enabling while on, disabling while off, and disabling with the other
 *     syntax than the state was enabled with are all ineffective (return 0).
 * The generic entry uses the generic rules for the array: round-down index,
 * and a new call simply replaces the state.
 */
#include <string.h>

#include "config.h"
#include "forms.h"
#include "session.h"

/* AIX's struct prof, as <mon.h> declares it (32 bytes on LP64). */
struct aix_prof {
	char *p_low;
	char *p_high;
	unsigned short *p_buff;
	int p_bufsize;
	unsigned int p_scale;
};

#define AIX_MAX_ENTRIES 65536
#define AIX_AUTO_SCALE  0xFFFFFFFFu

/*
 * Automatic scale (AIX does not document its computation): the largest
 * s <= 0xFFFF such that the highest pc of [lo, hi) still maps below n
 * counters under the rounding rule; below 2 it becomes 2, which puts the
 * whole range in counter 0.
 *   round down: floor(B / 2) < n  <=>  d * s < 2n * 65536
 *   round up:   ceil(B / 2) < n   <=>  d * s < (2n - 1) * 65536
 */
static uint64_t auto_scale(uint64_t lo, uint64_t hi, uint64_t n, int round)
{
	uint64_t d = hi - lo - 1;
	if (n == 0)
		return 2;
	if (d == 0)
		return 0xFFFF;
	unsigned __int128 lim = (unsigned __int128)(round == PROFIL_ROUND_AIX ? 2 * n - 1 : 2 * n)
				<< 16;
	unsigned __int128 s = (lim + d - 1) / d - 1; /* largest s with d * s < lim */
	if (s > 0xFFFF)
		s = 0xFFFF;
	return s < 2 ? 2 : (uint64_t)s;
}

int profil__aix_array_cfg(const void *array, bool aix_rules, struct profil_cfg **out)
{
	const struct aix_prof *in = array;
	int round = aix_rules ? PROFIL_ROUND_AIX : PROFIL_ROUND_DOWN;
	uint32_t count = 0, active = 0;

	*out = NULL;
	/* Read up to the terminator, checking each entry before reading it. */
	for (;; count++) {
		if (count == AIX_MAX_ENTRIES)
			return -E2BIG;
		if (profil__check_readable(&in[count], sizeof in[count]) < 0)
			return -EFAULT;
		if (in[count].p_high == NULL)
			break;
	}
	if (count == 0)
		return 0; /* first p_high == 0: off */

	for (uint32_t i = 0; i < count; i++) {
		const struct aix_prof *e = &in[i];
		if (e->p_low >= e->p_high || e->p_bufsize < 0 ||
		    (i > 0 && e->p_high <= in[i - 1].p_high))
			return -EINVAL;
		uint64_t s = e->p_scale == AIX_AUTO_SCALE ? 2 : (e->p_scale & 0xFFFF);
		if (s < 2)
			continue;
		if (profil__check_writable(e->p_buff, (size_t)(e->p_bufsize / 2) * 2) < 0)
			return -EFAULT;
		active++;
	}
	if (active == 0)
		return 0;

	struct profil_cfg *c =
		profil__cfg_new(PROFIL_AIX_ARRAY, active, profil__policy(), profil__base_hz());
	if (!c)
		return -ENOMEM;
	uint32_t k = 0;
	for (uint32_t i = 0; i < count; i++) {
		const struct aix_prof *e = &in[i];
		uint64_t lo = (uintptr_t)e->p_low, hi = (uintptr_t)e->p_high;
		uint64_t n = (uint64_t)e->p_bufsize / 2;
		uint64_t s = e->p_scale == AIX_AUTO_SCALE ? auto_scale(lo, hi, n, round)
							  : (e->p_scale & 0xFFFF);
		if (s < 2)
			continue;
		struct profil_region *r = &c->regions[k++];
		profil__region_init(r, i, lo, e->p_buff, n, s, 2);
		r->round = (uint8_t)round;
		r->all_to_zero = s == 2;
		r->last = hi - 1;
	}
	return profil__cfg_done(c, out);
}

static bool is_kind(int kind, int a, int b, int c)
{
	return kind == a || kind == b || kind == c;
}

static int aix_entry(void *buf, unsigned int bufsiz, unsigned long offset, unsigned int scale)
{
	bool array = bufsiz == 0xFFFFFFFFu;
	bool enable;
	if (profil__sealed())
		return profil__sealed_answer(!array && (scale & 0xFFFF) < 2);
	if (array) {
		/* Look at the first entry only once we know we may. */
		if (!buf || profil__check_readable(buf, sizeof(struct aix_prof)) < 0)
			return -EFAULT;
		enable = ((const struct aix_prof *)buf)->p_high != NULL;
	} else {
		enable = (scale & 0xFFFF) >= 2;
		/* AIX has no "NULL buffer means off": it is an invalid address,
		 * unless there is no counter to write (BufferSize 0 or 1), which
		 * turns profiling on but ineffective as for any buffer. */
		if (enable && !buf) {
			static unsigned short no_counters;
			if (bufsiz >= 2)
				return -EFAULT;
			buf = &no_counters;
		}
	}

	sigset_t saved;
	if (!profil__lock_thorough(&saved))
		return profil__sealed_answer(!enable);
	struct profil_cfg *cur = profil__current_locked();
	int kind = cur ? cur->kind : PROFIL_OFF;
	int r = 0;

	if (enable) {
		if (kind == PROFIL_OFF) {
			struct profil_cfg *c;
			if (array)
				r = profil__aix_array_cfg(buf, true, &c);
			else
				r = profil__classic_cfg(buf, bufsiz, offset, scale & 0xFFFF,
							PROFIL_AIX_CLASSIC, PROFIL_ROUND_AIX, &c);
			if (r == 0 && c && (r = profil__install_locked(c, PROFIL_CALL_OTHER)) < 0)
				profil__cfg_free(c);
		}
		/* else: enabling while on is ineffective */
	} else if (array ? is_kind(kind, PROFIL_AIX_ARRAY, PROFIL_REGIONS, PROFIL_TRU64)
			 : is_kind(kind, PROFIL_CLASSIC, PROFIL_AIX_CLASSIC, -1)) {
		r = profil__install_locked(NULL, PROFIL_CALL_OTHER);
	}
	/* else: off while off, or off with the other syntax: ineffective */
	profil__unlock(&saved);
	return r;
}

PROFIL_API int __profil_aix(void *buf, unsigned int bufsiz, unsigned long offset,
			    unsigned int scale)
{
	return (int)PROFIL_PUBLIC(aix_entry(buf, bufsiz, offset, scale));
}
