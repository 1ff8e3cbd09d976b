/* stkplugin.so: a frame in code that is dlopen()ed after the library started. */
#include "stacks.h"

NOINL int stk_plugin_call(stk_cb *cb, int x)
{
	int r = cb(x + 2);
	__asm__ volatile("" ::: "memory");
	return r + 2;
}
