/*
 * libdemowork.so - the pcprof demo's own shared library: a checksum
 * (Adler-32) over a buffer, again and again.
 */
#include <stddef.h>

#include "demo.h"

__attribute__((noinline)) static uint32_t adler32(const unsigned char *p, size_t n)
{
	uint32_t a = 1, b = 0;
	for (size_t i = 0; i < n; i++) {
		a = (a + p[i]) % 65521;
		b = (b + a) % 65521;
	}
	return b << 16 | a;
}

uint32_t work_checksum(double seconds)
{
	static unsigned char buf[1 << 16];
	uint32_t sum = 0;
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	double t0 = demo_thread_cpu();
	do {
		sum ^= adler32(buf, sizeof buf);
		buf[sum % sizeof buf]++;
	} while (demo_thread_cpu() - t0 < seconds);
	return sum;
}
