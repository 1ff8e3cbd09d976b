/*
 * tru64.c - Tru64's extended profil: profil(args, count, (void *)-1, flags)
 * with an array of struct profil_args, 32-bit counters, up to 64 ranges.
 *
 * Choices where the Tru64 page is silent or contradicts itself (spec 1.5,
 * 1.10 #19-23): ranges are half-open [lowpc, highpc); any order and
 * overlaps are accepted (greatest lowpc wins, ties to the earlier entry);
 * the buffer length is implied by the range: index(highpc - 1 - offset) + 1
 * counters; a range whose buffer faults turns only itself off.
 */
#include <string.h>

#include "config.h"
#include "forms.h"
#include "session.h"

/* Tru64's struct profil_args, as <sys/profil_args.h> declares it. */
struct tru64_args {
	unsigned int *buffer;
	void *highpc;
	void *lowpc;
	void *offset;
	unsigned int scale;
};

#define TRU64_MAX_RANGES 64

/* The configuration of the ranges a (count of them), copied. */
static int build(const struct tru64_args *a, int count, struct profil_cfg **out)
{
	uint32_t active = 0;

	for (int i = 0; i < count; i++) {
		if (a[i].scale < 2)
			continue; /* 0 and 1 turn this range off */
		uintptr_t lo = (uintptr_t)a[i].lowpc, hi = (uintptr_t)a[i].highpc;
		if (lo >= hi || (uintptr_t)a[i].offset > lo || a[i].scale > 0x10000)
			return -EINVAL;
		active++;
	}
	if (active == 0)
		return 0;

	struct profil_cfg *c =
		profil__cfg_new(PROFIL_TRU64, active, profil__policy(), profil__base_hz());
	if (!c)
		return -ENOMEM;
	c->fault_scope = PROFIL_FAULT_REGION;
	uint32_t k = 0;
	for (int i = 0; i < count; i++) {
		if (a[i].scale < 2)
			continue;
		struct profil_region *r = &c->regions[k++];
		uint64_t off = (uintptr_t)a[i].offset, hi = (uintptr_t)a[i].highpc;
		profil__region_init(r, (uint32_t)i, off, a[i].buffer, 1, a[i].scale, 4);
		r->all_to_zero = a[i].scale == 2;
		r->n = profil_index(r, hi - 1 - off) + 1;
		r->first = (uintptr_t)a[i].lowpc;
		r->last = hi - 1;
	}
	return profil__cfg_done(c, out);
}

int profil__tru64_cfg(const void *args, size_t count_arg, unsigned long flags,
		      struct profil_cfg **out)
{
	int count = (int)count_arg; /* Tru64 declares it int */

	*out = NULL;
	if (count < 0 || flags != 0)
		return -EINVAL; /* flags are reserved and must be 0 */
	if (count > TRU64_MAX_RANGES)
		return -E2BIG;
	if (count == 0)
		return 0;
	size_t bytes = (size_t)count * sizeof(struct tru64_args);
	if (!args || profil__check_readable(args, bytes) < 0)
		return -EFAULT;
	/* Copied at call time, and not onto the caller's stack, which may be
	 * small (up to 2.5 KiB: issue 19). */
	struct tru64_args *a = profil__alloc(bytes);
	if (!a)
		return -ENOMEM;
	memcpy(a, args, bytes);
	int r = build(a, count, out);
	profil__free(a, bytes);
	return r;
}
