/*
 * dbglib.c - libdbg.so, stripped, with its symbols and lines in a separate
 * libdbg.so.debug found through its .gnu_debuglink (see the Makefile):
 * dbg_lib_inner is static, so only the debug file names it.
 */
#include <stdint.h>

static volatile uint64_t sink;

__attribute__((noinline)) static void dbg_lib_inner(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		sink += i ^ 5;
}

void *dbg_lib_inner_addr(void)
{
	return (void *)dbg_lib_inner;
}

void dbg_lib_spin(uint64_t n)
{
	dbg_lib_inner(n);
}
