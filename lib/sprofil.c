/*
 * sprofil.c - sprofil(): several histograms at once (IRIX, HP-UX, glibc),
 * with 16-, 32- or 64-bit counters and an optional overflow bin.
 *
 * Two entries share one builder:
 *   sprofil            the lenient default: unsorted and overlapping regions
 *                      are accepted and resolved (greatest start offset wins,
 *                      ties to the earlier entry); the bin may be anywhere.
 *   __sprofil_strict   HP-UX's rules on top (selected by _PROFIL_STRICT or
 *                      _HPUX_SOURCE in <sys/profil.h>): ascending offsets, no
 *                      overlap, the bin last and exactly one counter, one of
 *                      the three width flags only, size within 2^47 of text.
 * Both copy the descriptors at call time and leave the previous state
 * untouched on any error.  Unlike glibc, a call while on replaces the state
 * (glibc only turns it off, then double-frees on the next call).
 */
#include <string.h>
#include <sys/time.h>

#include "config.h"
#include "forms.h"
#include "session.h"

/* glibc's struct prof (32 bytes on LP64), under a private name. */
struct region_desc {
	void *pr_base;
	size_t pr_size;
	size_t pr_off;
	unsigned long pr_scale;
};

enum {
	F_UINT = 1,
	F_FAST = 2,
	F_UINT64 = 4,
	F_OVF_WRAP = 0x100,
	F_OVF_STOP = 0x200,
	F_KNOWN = F_UINT | F_FAST | F_UINT64 | F_OVF_WRAP | F_OVF_STOP
};

#define MAX_REGIONS 65536
#define FAST_FACTOR 10
#define MAX_HZ      10000

static bool is_bin(const struct region_desc *d)
{
	return d->pr_off == 0 && d->pr_scale == 2;
}

static int build(struct region_desc *prof, int cnt, struct timeval *tvp, unsigned int flags,
		 bool strict)
{
	if (cnt < 0)
		return -EINVAL;
	if (cnt > MAX_REGIONS)
		return -E2BIG;
	if (profil__sealed())
		return profil__sealed_answer(cnt == 0);
	if (cnt > 0 && (!prof || profil__check_readable(prof, (size_t)cnt * sizeof *prof) < 0))
		return -EFAULT;
	if (tvp && profil__check_writable(tvp, sizeof *tvp) < 0)
		return -EFAULT;
	if ((flags & ~(unsigned)F_KNOWN) || ((flags & F_UINT) && (flags & F_UINT64)) ||
	    ((flags & F_OVF_WRAP) && (flags & F_OVF_STOP)))
		return -EINVAL;
	if (strict && (flags & ~(unsigned)(F_UINT | F_UINT64)))
		return -EINVAL; /* HP-UX: exactly PROF_USHORT, PROF_UINT or PROF_UINT64 */

	int esize = (flags & F_UINT64) ? 8 : (flags & F_UINT) ? 4 : 2;
	uint32_t active = 0, bins = 0;
	int bin_at = -1;
	uint64_t prev_off = 0, prev_end = 0;
	bool have_prev = false;

	for (int i = 0; i < cnt; i++) {
		const struct region_desc *d = &prof[i];
		if (d->pr_scale < 2)
			continue; /* 0 and 1: this entry is ignored */
		if (d->pr_scale > 0xFFFFFFFFu || d->pr_size == 0 || d->pr_size % (size_t)esize)
			return -EINVAL;
		if (is_bin(d)) {
			if (++bins > 1 || d->pr_size < (size_t)esize)
				return -EINVAL;
			if (strict && (i != cnt - 1 || d->pr_size != (size_t)esize))
				return -EINVAL;
			bin_at = i;
			active++;
			continue;
		}
		struct profil_region tmp;
		profil__region_init(&tmp, 0, d->pr_off, d->pr_base, d->pr_size / (size_t)esize,
				    d->pr_scale, esize);
		uint64_t len = profil_cover_len(&tmp);
		if (len == UINT64_MAX || d->pr_off > UINT64_MAX - len)
			return -EINVAL; /* covered text would pass the top of memory */
		if (strict) {
			/* HP-UX: size at most 2^47 * scale / 65536 (x86-64 user space
			 * instead of HP-UX's 2^46); ascending; no overlap. */
			unsigned __int128 lim = ((unsigned __int128)d->pr_scale << 47) >> 16;
			if ((unsigned __int128)d->pr_size > lim)
				return -EINVAL;
			if (have_prev && (d->pr_off <= prev_off || d->pr_off < prev_end))
				return -EINVAL;
			prev_off = d->pr_off;
			prev_end = d->pr_off + len;
			have_prev = true;
		}
		active++;
	}

	unsigned int hz = profil__base_hz();
	if (flags & F_FAST)
		hz = hz * FAST_FACTOR > MAX_HZ ? MAX_HZ : hz * FAST_FACTOR;

	struct profil_cfg *c = NULL;
	if (active &&
	    !(c = profil__cfg_new(PROFIL_REGIONS, active, profil__policy(), profil__base_hz())))
		return -ENOMEM;
	if (c) {
		c->hz = hz;
		if (flags & F_OVF_WRAP)
			c->policy = PROFIL_OVF_WRAP;
		else if (flags & F_OVF_STOP)
			c->policy = PROFIL_OVF_STOP;
		uint32_t k = 0;
		for (int i = 0; i < cnt; i++) {
			const struct region_desc *d = &prof[i];
			if (d->pr_scale < 2)
				continue;
			if (i == bin_at)
				c->bin = (int32_t)k;
			profil__region_init(&c->regions[k++], (uint32_t)i, d->pr_off, d->pr_base,
					    d->pr_size / (size_t)esize, d->pr_scale, esize);
		}
	}
	int r = c ? profil__cfg_done(c, &c) : 0; /* frees c on failure */
	r = profil__install_built(r, c);
	if (r == 0 && tvp) {
		/* The period actually programmed, written even when turning off. */
		tvp->tv_sec = 0;
		tvp->tv_usec = (suseconds_t)(1000000u / hz);
	}
	return r;
}

PROFIL_API int sprofil(struct region_desc *prof, int cnt, struct timeval *tvp, unsigned int flags)
{
	return (int)PROFIL_PUBLIC(build(prof, cnt, tvp, flags, false));
}

PROFIL_API int __sprofil_strict(struct region_desc *prof, int cnt, struct timeval *tvp,
				unsigned int flags)
{
	return (int)PROFIL_PUBLIC(build(prof, cnt, tvp, flags, true));
}
