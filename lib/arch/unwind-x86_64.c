/*
 * unwind-x86_64.c - the machine part of the stack walker on x86-64 (see
 * arch/unwind-arch.h).
 */
#include "unwind-arch.h"

#if defined(__x86_64__)
#include <stddef.h>
#include <ucontext.h>

#include "guard.h"

void profil__uregs_from_uc(const void *uc, struct profil_uregs *r)
{
	const greg_t *g = ((const ucontext_t *)uc)->uc_mcontext.gregs;
	r->pc = (uintptr_t)g[REG_RIP];
	r->sp = (uintptr_t)g[REG_RSP];
	r->fp = (uintptr_t)g[REG_RBP];
	r->fp_ok = true;
}

/* glibc's __restore_rt: mov $15,%rax (rt_sigreturn); syscall. */
static const uint8_t restore_rt[9] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };

static bool is_restore_rt(uintptr_t at)
{
	uint8_t code[sizeof restore_rt];
	if (profil__gcopy(code, (const void *)at, sizeof code) < 0)
		return false;
	for (unsigned i = 0; i < sizeof code; i++)
		if (code[i] != restore_rt[i])
			return false;
	return true;
}

bool profil__usigframe(uintptr_t pc, uintptr_t sp, struct profil_uregs *r)
{
	/* The handler returned (or was about to) into the trampoline, whose
	 * stack pointer is then the address of the kernel's ucontext (the
	 * rt_sigframe after its return-address slot). */
	if (!is_restore_rt(pc))
		return false;
	const ucontext_t *uc = (const ucontext_t *)sp;
	uint64_t v[3];
	if (profil__gcopy(&v[0], &uc->uc_mcontext.gregs[REG_RIP], 8) < 0 ||
	    profil__gcopy(&v[1], &uc->uc_mcontext.gregs[REG_RSP], 8) < 0 ||
	    profil__gcopy(&v[2], &uc->uc_mcontext.gregs[REG_RBP], 8) < 0)
		return false;
	r->pc = v[0];
	r->sp = v[1];
	r->fp = v[2];
	r->fp_ok = true;
	return true;
}
#endif
