/*
 * guard-generic.c - unguarded fallbacks for architectures without a
 * guard-<arch>.S.  The accesses are plain atomics: a buffer unmapped while
 * profiling still faults there (documented in libprofil(7) BUGS).
 */
#include "guard.h"

#if !PROFIL_HAVE_GUARD
#define CAS(T, name)                                                                               \
	int name(void *p, uint64_t *expected, uint64_t desired)                                    \
	{                                                                                          \
		T e = (T)*expected;                                                                \
		int ok = __atomic_compare_exchange_n((T *)p, &e, (T)desired, 0, __ATOMIC_RELAXED,  \
						     __ATOMIC_RELAXED);                            \
		*expected = e;                                                                     \
		return ok;                                                                         \
	}
#define ADD(T, name)                                                                               \
	int name(void *p, uint64_t v)                                                              \
	{                                                                                          \
		__atomic_fetch_add((T *)p, (T)v, __ATOMIC_RELAXED);                                \
		return 0;                                                                          \
	}
CAS(uint16_t, profil__gcas16)
CAS(uint32_t, profil__gcas32)
CAS(uint64_t, profil__gcas64)
ADD(uint16_t, profil__gadd16)
ADD(uint32_t, profil__gadd32)
ADD(uint64_t, profil__gadd64)
int profil__gstore64(void *p, uint64_t v)
{
	*(volatile uint64_t *)p = v;
	return 0;
}
int profil__gload(const void *p, int size, uint64_t *out)
{
	*out = size == 2   ? *(const volatile uint16_t *)p
	       : size == 4 ? *(const volatile uint32_t *)p
			   : *(const volatile uint64_t *)p;
	return 0;
}
int profil__gstore(void *p, int size, uint64_t v)
{
	if (size == 2)
		*(volatile uint16_t *)p = (uint16_t)v;
	else if (size == 4)
		*(volatile uint32_t *)p = (uint32_t)v;
	else
		*(volatile uint64_t *)p = v;
	return 0;
}
int profil__gcopy(void *dst, const void *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((char *)dst)[i] = ((const volatile char *)src)[i];
	return 0;
}
#endif
