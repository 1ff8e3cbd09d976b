/*
 * config.h - building profiling configurations (struct profil_cfg) in normal
 * context.  The entry points (profil.c, sprofil.c, ...) validate their
 * arguments, fill one struct profil_region per active histogram and call
 * profil__cfg_finish, which resolves overlaps into a sorted segment table.
 * All memory comes from profil__alloc (mmap), so these functions are
 * AS-safe, as pcsample() needs; none of them prints or exits.
 */
#ifndef PROFIL_CONFIG_H
#define PROFIL_CONFIG_H

#include "sig/sample.h"

/* A configuration with room for nregions regions (and their segments) or,
 * for pcsample, none.  kind, policy (the process policy in force:
 * profil__policy()), hz (the base rate: profil__base_hz()) and bin (-1) are
 * preset.  The caller passes the session's values, so that this builder
 * depends on nothing above it.  NULL on ENOMEM. */
PROFIL_HIDDEN struct profil_cfg *profil__cfg_new(int kind, uint32_t nregions, int policy,
						 unsigned int hz);

/*
 * Prepare a region: the caller sets off, base, n, scale, esize and may
 * narrow the pc range with first (default off) and last (inclusive, default
 * the top of the address space); round and all_to_zero default to
 * PROFIL_ROUND_DOWN and false.
 */
PROFIL_HIDDEN void profil__region_init(struct profil_region *r, uint32_t order, uint64_t off,
				       void *base, uint64_t n, uint64_t scale, int esize);

/* Compute every region's covered range and the segment table: at each pc
 * the covering region with the greatest first pc wins, ties going to the
 * lowest order (spec 3.4).  The overflow bin (c->bin) takes no segment.
 * Returns 0 or -ENOMEM. */
PROFIL_HIDDEN int profil__cfg_finish(struct profil_cfg *c);

/* profil__cfg_finish, then hand c to *out; on failure c is freed.  Returns
 * 0 or -ENOMEM. */
PROFIL_HIDDEN int profil__cfg_done(struct profil_cfg *c, struct profil_cfg **out);

PROFIL_HIDDEN void profil__cfg_free(struct profil_cfg *c);

#endif
