/*
 * Fault-guarded memory accesses for the signal handler (x86-64, SysV ABI).
 *
 * Each routine is a leaf that touches user memory only through %rdi (%rsi
 * for profil__gcopy's reads) and never moves %rsp.  If that access faults (the buffer was unmapped or made
 * read-only while profiling), profil__on_fault() sees a pc inside
 * [profil__guard_begin, profil__guard_end) and resumes at
 * profil__guard_fixup, which returns -EFAULT (-14) to our caller with the
 * return address still on the stack.  This is the user-space form of the
 * kernel's exception tables: no cost unless a fault happens.
 *
 * int profil__gcasN(void *p, uint64_t *expected, uint64_t desired)
 *     1: *p was *expected and is now desired; 0: *expected = current *p.
 * int profil__gaddN(void *p, uint64_t v)       atomic *p += v (wraps); 0
 * int profil__gstore64(void *p, uint64_t v)    *p = v; 0
 * int profil__gload(p, size, uint64_t *out)    plain load (misaligned path)
 * int profil__gstore(p, size, v)               plain store (misaligned path)
 * int profil__gcopy(dst, src, n)                copy program memory (stack walker)
 */
	.text
	.p2align 4
	.globl	profil__guard_begin
	.hidden	profil__guard_begin
profil__guard_begin:

	.globl	profil__gcas16
	.hidden	profil__gcas16
	.type	profil__gcas16, @function
profil__gcas16:
	movzwl	(%rsi), %eax
	lock cmpxchgw %dx, (%rdi)
	sete	%cl
	movzwl	%ax, %eax
	movq	%rax, (%rsi)
	movzbl	%cl, %eax
	ret
	.size	profil__gcas16, .-profil__gcas16

	.globl	profil__gcas32
	.hidden	profil__gcas32
	.type	profil__gcas32, @function
profil__gcas32:
	movl	(%rsi), %eax
	lock cmpxchgl %edx, (%rdi)
	sete	%cl
	movl	%eax, %eax
	movq	%rax, (%rsi)
	movzbl	%cl, %eax
	ret
	.size	profil__gcas32, .-profil__gcas32

	.globl	profil__gcas64
	.hidden	profil__gcas64
	.type	profil__gcas64, @function
profil__gcas64:
	movq	(%rsi), %rax
	lock cmpxchgq %rdx, (%rdi)
	sete	%cl
	movq	%rax, (%rsi)
	movzbl	%cl, %eax
	ret
	.size	profil__gcas64, .-profil__gcas64

	.globl	profil__gadd16
	.hidden	profil__gadd16
	.type	profil__gadd16, @function
profil__gadd16:
	lock addw %si, (%rdi)
	xorl	%eax, %eax
	ret
	.size	profil__gadd16, .-profil__gadd16

	.globl	profil__gadd32
	.hidden	profil__gadd32
	.type	profil__gadd32, @function
profil__gadd32:
	lock addl %esi, (%rdi)
	xorl	%eax, %eax
	ret
	.size	profil__gadd32, .-profil__gadd32

	.globl	profil__gadd64
	.hidden	profil__gadd64
	.type	profil__gadd64, @function
profil__gadd64:
	lock addq %rsi, (%rdi)
	xorl	%eax, %eax
	ret
	.size	profil__gadd64, .-profil__gadd64

	.globl	profil__gstore64
	.hidden	profil__gstore64
	.type	profil__gstore64, @function
profil__gstore64:
	movq	%rsi, (%rdi)
	xorl	%eax, %eax
	ret
	.size	profil__gstore64, .-profil__gstore64

	.globl	profil__gload
	.hidden	profil__gload
	.type	profil__gload, @function
/* int profil__gload(const void *p, int size, uint64_t *out): size 2, 4 or 8 */
profil__gload:
	cmpl	$2, %esi
	je	1f
	cmpl	$4, %esi
	je	2f
	movq	(%rdi), %rax
	jmp	3f
1:	movzwl	(%rdi), %eax
	jmp	3f
2:	movl	(%rdi), %eax
3:	movq	%rax, (%rdx)
	xorl	%eax, %eax
	ret
	.size	profil__gload, .-profil__gload

	.globl	profil__gstore
	.hidden	profil__gstore
	.type	profil__gstore, @function
/* int profil__gstore(void *p, int size, uint64_t v): size 2, 4 or 8 */
profil__gstore:
	cmpl	$2, %esi
	je	1f
	cmpl	$4, %esi
	je	2f
	movq	%rdx, (%rdi)
	jmp	3f
1:	movw	%dx, (%rdi)
	jmp	3f
2:	movl	%edx, (%rdi)
3:	xorl	%eax, %eax
	ret
	.size	profil__gstore, .-profil__gstore

	.globl	profil__gcopy
	.hidden	profil__gcopy
	.type	profil__gcopy, @function
/* int profil__gcopy(void *dst, const void *src, size_t n): reads through
 * %rsi, the one routine that does; a fault ends at the fixup like the rest. */
profil__gcopy:
	movq	%rdx, %rcx
	rep movsb
	xorl	%eax, %eax
	ret
	.size	profil__gcopy, .-profil__gcopy

	.globl	profil__guard_end
	.hidden	profil__guard_end
profil__guard_end:

	.globl	profil__guard_fixup
	.hidden	profil__guard_fixup
	.type	profil__guard_fixup, @function
profil__guard_fixup:
	movl	$-14, %eax
	ret
	.size	profil__guard_fixup, .-profil__guard_fixup

	.section .note.GNU-stack,"",@progbits
