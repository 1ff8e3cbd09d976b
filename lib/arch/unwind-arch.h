/*
 * unwind-arch.h - what the stack walker (sig/unwind.c) needs to know about
 * the machine: DWARF register numbers, where the return address is saved,
 * the registers of an interrupted context, and the kernel's signal frame.
 * One implementation per architecture (arch/unwind-<arch>.c); elsewhere
 * PROFIL_UNWIND_ARCH is 0 and the walker records the interrupted pc only.
 * Every function here is AS-safe.
 */
#ifndef PROFIL_ARCH_UNWIND_H
#define PROFIL_ARCH_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

#include "../internal.h"

#if defined(__x86_64__)
#define PROFIL_UNWIND_ARCH 1
#define PROFIL_DW_FP       6  /* rbp */
#define PROFIL_DW_SP       7  /* rsp */
#define PROFIL_DW_RA       16 /* the return address column */
#define PROFIL_RA_AT       -8 /* the return address is saved at CFA - 8 */
#define PROFIL_SIGTRAMP_IN 7  /* a pc this far into the trampoline is in it too */
#else
#define PROFIL_UNWIND_ARCH 0
#define PROFIL_DW_FP       -1
#define PROFIL_DW_SP       -1
#define PROFIL_DW_RA       -1
#define PROFIL_RA_AT       0
#define PROFIL_SIGTRAMP_IN 0
#endif

/* The registers the walk follows. */
struct profil_uregs {
	uintptr_t pc, sp, fp;
	bool fp_ok; /* fp holds the frame's frame pointer (not lost) */
};

/* The interrupted registers of a signal context (the handler's third
 * argument, or a ucontext the kernel saved on the stack). */
PROFIL_HIDDEN void profil__uregs_from_uc(const void *uc, struct profil_uregs *r);

/*
 * If pc is the start of the kernel's signal return trampoline (glibc's
 * __restore_rt, recognised by its instruction bytes, read through the
 * fault guard) and sp the stack pointer the handler returned to it with,
 * read the context the kernel saved there into r: the frame the signal
 * interrupted, with its exact pc.  true if it did.
 */
PROFIL_HIDDEN bool profil__usigframe(uintptr_t pc, uintptr_t sp, struct profil_uregs *r);

#endif
