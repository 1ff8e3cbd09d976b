/*
 * unwind-chain.c - the call chain bench/unwind-cost walks: chain(d, fn)
 * recurses d frames deep and calls fn at the bottom.  Built twice, with and
 * without frame pointers, as a plugin the bench dlopen()s.
 */
typedef void chain_fn(void);

__attribute__((noinline, noclone)) int chain(int d, chain_fn *fn)
{
	if (d <= 1) {
		fn();
		return 1;
	}
	int r = chain(d - 1, fn);
	__asm__ volatile("" ::: "memory");
	return r + 1;
}
