/*
 * pcsample.c - Solaris pcsample(): raw pcs stored in order until the array
 * is full.  Async-signal-safe (Solaris documents it so): the whole path is
 * the control lock (taken with signals blocked), mmap'd configuration
 * memory and syscalls; no malloc, no stdio.
 *
 * The returned count is that of the previous pcsample session, kept across
 * an automatic stop (full buffer, fault) and reset by any other profiling
 * call in between (as illumos does, where profil() clears it).
 */
#include "config.h"
#include "forms.h"
#include "session.h"

static long start(uintptr_t samples[], long nsamples)
{
	if (nsamples < 0 || (unsigned long)nsamples > SIZE_MAX / sizeof(uintptr_t))
		return -EINVAL;

	if (profil__sealed()) {
		int r = profil__sealed_answer(nsamples == 0);
		if (r < 0)
			return r;
		uint64_t prev = profil__pcs_last_count;
		profil__pcs_last_count = 0;
		return (long)prev;
	}
	struct profil_cfg *c = NULL;
	if (nsamples > 0) {
		if (!(c = profil__cfg_new(PROFIL_PCSAMPLE, 0, profil__policy(), profil__base_hz())))
			return -ENOMEM;
		c->pcs = samples; /* not checked: a bad buffer stops at its first store */
		c->cap = (uint64_t)nsamples;
	}
	sigset_t saved;
	if (!profil__lock_thorough(&saved)) {
		profil__cfg_free(c);
		return profil__sealed_answer(c == NULL);
	}
	int r = profil__install_locked(c, PROFIL_CALL_PCSAMPLE);
	uint64_t prev = profil__pcs_last_count;
	if (r == 0)
		profil__pcs_last_count = 0; /* read once, as illumos resets it */
	profil__unlock(&saved);
	if (r < 0) {
		profil__cfg_free(c);
		return r;
	}
	return (long)prev;
}

PROFIL_API long pcsample(uintptr_t samples[], long nsamples)
{
	return PROFIL_PUBLIC(start(samples, nsamples));
}
