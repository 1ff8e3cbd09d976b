/*
 * sig/accept.c - the table of the engines' classifiers (accept.h); layer
 * L1, the AS-safe zone (rules: lib/sig/README).  The handler reads it with
 * one acquire load of the count; entries below the count never change.
 */
#include "accept.h"

const char profil__cookie[1];

static profil_classify_fn *_Atomic table[PROFIL_ACCEPT_MAX];
static _Atomic unsigned count;

int profil__accept_add(profil_classify_fn *fn)
{
	unsigned n = atomic_load_explicit(&count, memory_order_relaxed);
	for (unsigned i = 0; i < n; i++)
		if (atomic_load_explicit(&table[i], memory_order_relaxed) == fn)
			return 0;
	if (n == PROFIL_ACCEPT_MAX)
		return -ENOSPC;
	atomic_store_explicit(&table[n], fn, memory_order_relaxed);
	atomic_store_explicit(&count, n + 1, memory_order_release);
	return 0;
}

bool profil__accept(int sig, const siginfo_t *si, unsigned long *weight)
{
	unsigned n = atomic_load_explicit(&count, memory_order_acquire);
	for (unsigned i = 0; i < n; i++)
		if (atomic_load_explicit(&table[i], memory_order_relaxed)(sig, si, weight))
			return true;
	return false;
}
