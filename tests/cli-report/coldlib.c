/*
 * coldlib.c - libcold.so, linked stripped (-s): .dynsym names
 * cold_lib_spin, nothing names cold_lib_inner, so the report shows it as
 * libcold.so+0xADDRESS and notes the missing symbols.
 * cold_lib_multi (below) is one function with several unwind rows.
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

/* cold_lib_multi keeps three values across a call, so it saves registers
 * in its prologue: its unwind table has several rows (one per push), all
 * in one FDE.  It notes a pc after the pushes: the return address of its
 * call to cold_lib_note. */
static void *cold_multi_mid;

__attribute__((noinline)) static void cold_lib_note(void)
{
	cold_multi_mid = __builtin_return_address(0);
	sink++;
}

__attribute__((noinline)) static uint64_t cold_lib_multi(uint64_t n)
{
	uint64_t a = n * 3 + sink, b = n ^ (sink + 5), c = n + 7 * sink;
	cold_lib_note();
	return a * b + c;
}

/* The entry of cold_lib_multi, and a pc in its body (several unwind rows
 * further on). */
void cold_lib_multi_pcs(void **start, void **mid)
{
	cold_lib_multi(1);
	*start = (void *)cold_lib_multi;
	*mid = cold_multi_mid;
}
