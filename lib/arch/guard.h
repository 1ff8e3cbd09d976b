/*
 * guard.h - fault-guarded counter and sample-slot accesses (see
 * arch/guard-<arch>.S) and the machine context accessors the handlers need.
 * Every function here is AS-safe.  A guarded access returns -EFAULT instead
 * of raising SIGSEGV/SIGBUS, provided profil__on_fault is installed.
 */
#ifndef PROFIL_GUARD_H
#define PROFIL_GUARD_H

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#include "../internal.h"

PROFIL_HIDDEN int profil__gcas16(void *p, uint64_t *expected, uint64_t desired);
PROFIL_HIDDEN int profil__gcas32(void *p, uint64_t *expected, uint64_t desired);
PROFIL_HIDDEN int profil__gcas64(void *p, uint64_t *expected, uint64_t desired);
PROFIL_HIDDEN int profil__gadd16(void *p, uint64_t v);
PROFIL_HIDDEN int profil__gadd32(void *p, uint64_t v);
PROFIL_HIDDEN int profil__gadd64(void *p, uint64_t v);
PROFIL_HIDDEN int profil__gstore64(void *p, uint64_t v);
PROFIL_HIDDEN int profil__gload(const void *p, int size, uint64_t *out);
PROFIL_HIDDEN int profil__gstore(void *p, int size, uint64_t v);
/* Copy n bytes from src to dst (src is program memory, dst ours): 0, or
 * -EFAULT if src could not be read (dst then holds part of it). */
PROFIL_HIDDEN int profil__gcopy(void *dst, const void *src, size_t n);

#if defined(__x86_64__)
#define PROFIL_HAVE_GUARD 1
PROFIL_HIDDEN extern const char profil__guard_begin[], profil__guard_end[];
PROFIL_HIDDEN extern const char profil__guard_fixup[];

static inline uintptr_t profil_uc_pc(const void *uc)
{
	return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
}
static inline void profil_uc_set_pc(void *uc, uintptr_t pc)
{
	((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
}
static inline uintptr_t profil_uc_sp(const void *uc)
{
	return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RSP];
}
#elif defined(__aarch64__)
#define PROFIL_HAVE_GUARD 0
static inline uintptr_t profil_uc_pc(const void *uc)
{
	return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.pc;
}
static inline void profil_uc_set_pc(void *uc, uintptr_t pc)
{
	((ucontext_t *)uc)->uc_mcontext.pc = pc;
}
static inline uintptr_t profil_uc_sp(const void *uc)
{
	return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.sp;
}
#else
#error "libprofil: add this architecture to lib/arch/guard.h"
#endif

#endif
