/*
 * stkswap.c: built twice, as stkswap1.so and stkswap2.so (SWAP 1 and 2),
 * two plugins with the same code and the same layout whose call-frame
 * information differs in one byte: after its push, swap_fn's CFA is rsp +
 * 16 in the first, rsp + 48 in the second.  One loaded where the other
 * was, at the same address, is another module the walker must not take
 * for the first (tests/stacks/t-unwind-cache).  swap_other is a second
 * function, for rows no walk has read yet.
 */
#ifndef SWAP
#error "build with -DSWAP=1 or -DSWAP=2"
#endif
#define SWAP_STR2(x) #x
#define SWAP_STR(x)  SWAP_STR2(x)

__asm__(".text\n"
	".globl swap_fn\n"
	".type swap_fn, @function\n"
	"swap_fn:\n"
	".cfi_startproc\n"
	"pushq %rbp\n"
	".cfi_def_cfa_offset " SWAP_STR(SWAP_CFA) "\n"
	"popq %rbp\n"
	".cfi_def_cfa_offset 8\n"
	"ret\n"
	".cfi_endproc\n"
	".size swap_fn, .-swap_fn\n"
	".globl swap_other\n"
	".type swap_other, @function\n"
	"swap_other:\n"
	".cfi_startproc\n"
	"pushq %rbx\n"
	".cfi_def_cfa_offset " SWAP_STR(SWAP_CFA) "\n"
	"popq %rbx\n"
	".cfi_def_cfa_offset 8\n"
	"ret\n"
	".cfi_endproc\n"
	".size swap_other, .-swap_other\n");

/* Which one this is, in its data (not its code: the code must be the same). */
int swap_which = SWAP;
