/*
 * coldlib.c - libcold.so, linked stripped (-s): .dynsym names
 * cold_lib_spin, nothing names cold_lib_inner, so the report shows it as
 * libcold.so+0xADDRESS and notes the missing symbols.
 */
#include <stdint.h>

static volatile uint64_t sink;

__attribute__((noinline)) static void cold_lib_inner(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		sink ^= i;
}

__attribute__((noinline)) void cold_lib_spin(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		sink += i;
	cold_lib_inner(n);
}

void *cold_lib_inner_addr(void)
{
	return (void *)cold_lib_inner;
}
