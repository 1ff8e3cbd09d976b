/*
 * <pcsample.h> - Solaris program-counter sampling.  See pcsample(3).
 */
#ifndef _LIBPROFIL_PCSAMPLE_H
#define _LIBPROFIL_PCSAMPLE_H 1

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Store the pc of every profiling tick in samples[0 .. nsamples); returns the
 * number stored by the previous call's session, or -1 with errno EINVAL.
 * nsamples 0 stops sampling.  Async-signal-safe. */
extern long pcsample(uintptr_t __samples[], long __nsamples);

#ifdef __cplusplus
}
#endif

#endif
