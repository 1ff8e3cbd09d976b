/*
 * sig/seal.c - see seal.h.
 */
#include "seal.h"

#include "filters.h"
#include "sink.h"

/* Not yet told: -1000, the filters then counted at the first check
 * (another library's constructor may call profil() before ours runs, in
 * a container whose filter is not the program's). */
#define BASE_UNSET (-1000)
static _Atomic int filter_base = BASE_UNSET;

void profil__filter_base(int base)
{
	atomic_store(&filter_base, base);
}

void profil__seal(int why)
{
	int none = PROFIL_SEALED_NO;
	if (atomic_compare_exchange_strong(&profil__sealed_why, &none, why))
		profil__sink_stop(PCPROF_STOP_SECCOMP, 0);
}

bool profil__filter_check(bool thorough)
{
	if (profil__sealed())
		return true;
	int base = atomic_load(&filter_base);
	if (base == BASE_UNSET) {
		int now = profil__filters(true);
		atomic_compare_exchange_strong(&filter_base, &base, now);
		base = atomic_load(&filter_base);
	}
	if (!profil__filters_beyond(base, thorough))
		return false;
	profil__seal(PROFIL_SEALED_FOUND);
	return true;
}
