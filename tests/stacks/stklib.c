/* libstk.so: a frame in a shared library between the test and its callback. */
#include "stacks.h"

NOINL int stk_call(stk_cb *cb, int x)
{
	int r = cb(x + 1);
	__asm__ volatile("" ::: "memory");
	return r + 1;
}
