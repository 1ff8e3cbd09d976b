/*
 * syscall(3), interposed (x86-64, SysV ABI): lib/seccomp.c says why.
 *
 * long syscall(long number, ...)
 *
 * Exactly glibc's for every call but two: seccomp and prctl go to
 * profil__syscall_filtered (seccomp.c), a C function with the same
 * arguments, which the jump hands over untouched (the sixth argument is
 * at 8(%rsp) for it as for the body below).  The rest must stay in
 * assembly: a clone made through syscall() returns in the child on
 * whatever stack the caller gave it, where a C function's frame would
 * not be, so the child must meet glibc's exact instructions (a cmp and a
 * ret).  Errors: -4095..-1 become -1 and errno, as in glibc.
 */
#include <asm/unistd.h>

	.text
	.p2align 4
	.globl	syscall
	.type	syscall, @function
syscall:
	.cfi_startproc
	endbr64
	cmpq	$__NR_seccomp, %rdi
	je	1f
	cmpq	$__NR_prctl, %rdi
	je	1f
	movq	%rdi, %rax
	movq	%rsi, %rdi
	movq	%rdx, %rsi
	movq	%rcx, %rdx
	movq	%r8, %r10
	movq	%r9, %r8
	movq	8(%rsp), %r9
	syscall
	cmpq	$-4095, %rax
	jae	2f
	ret
1:
	jmp	profil__syscall_filtered
2:
	movq	%rax, %rdi
	jmp	profil__syscall_error
	.cfi_endproc
	.size	syscall, .-syscall

	.section .note.GNU-stack,"",@progbits
