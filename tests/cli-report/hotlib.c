/*
 * hotlib.c - libhot.so, the shared library of the report/export tests:
 * one exported and one static function, with full symbols.
 */
#include <stdint.h>

static volatile uint64_t sink;

/* static: only .symtab names it */
__attribute__((noinline)) static void hot_lib_inner(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		sink += i * 3;
}

__attribute__((noinline)) void hot_lib_spin(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		sink += i;
	hot_lib_inner(n / 4);
}

void *hot_lib_inner_addr(void)
{
	return (void *)hot_lib_inner;
}
