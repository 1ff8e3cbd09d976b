/*
 * unwind-dwarf.h - the external sampler's second way up a stack: the
 * call-frame tables (.eh_frame, .debug_frame) of the modules, applied by
 * libdwfl to the registers and the copy of the user stack a perf sample
 * carries.  For code without frame pointers (Debian's C programs and
 * libraries), where the kernel's frame-pointer walk ends early.
 */
#ifndef PCPROF_UNWIND_DWARF_H
#define PCPROF_UNWIND_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile.h"

/* x86-64's DWARF registers 0-16: rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp,
 * r8-r15, rip. */
#define UNWIND_DWARF_NREGS 17

struct unwind_dwarf;

/* An unwinder for process pid (its files through /proc/PID/root); NULL if
 * this machine's elfutils cannot unwind. */
struct unwind_dwarf *unwind_dwarf_new(pid_t pid);
void unwind_dwarf_free(struct unwind_dwarf *u);

/* The process's modules changed (a mapping, an exec): read them again at
 * the next unwind. */
void unwind_dwarf_modules_changed(struct unwind_dwarf *u);

/*
 * The return addresses above the sample's leaf, into ret[0..max): regs in
 * DWARF numbering, stack the len bytes copied from the stack pointer up.
 * The modules are proc's live ones (epoch_unloaded 0).  *complete is set
 * when the walk reached the stack's outermost frame, not a frame it could
 * not read (beyond the copy, or without tables).
 */
size_t unwind_dwarf(struct unwind_dwarf *u, const struct pp_process *proc,
		    const uint64_t regs[UNWIND_DWARF_NREGS], const uint8_t *stack, size_t len,
		    uint64_t *ret, size_t max, bool *complete);

#endif
