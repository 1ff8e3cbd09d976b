/*
 * [INJ] classic scales above 0x10000 (spec 3.6, revised 2026-11-23): the
 * formula is the usual one, B = floor(d * scale / 65536), I = floor(B / 2),
 * exact for every pc, through both classic entries (glibc's profil and the
 * Tru64 header's __profil_any).
 *   0x20000     I = d, every text byte its own counter; in a buffer of 8
 *               counters d = 7 is the last one counted, d = 8 is outside
 *               and the guard after the buffer stays as it was;
 *   0x40000     I = 2d, so odd counters are never used;
 *   0xFFFFFFFF  B = floor(d * (65536 - 2^-16)): d = 1 gives I = 32767, d = 2
 *               gives 65535, the last counter of a 65536-counter buffer,
 *               and d = 3 (I = 98303) is outside;
 *   extremes    pcs whose d * scale wraps 64 bits to a small value (where a
 *               64-bit product would count them in counter 5 or 10) count
 *               nowhere; an offset just below the top of the address space
 *               counts the top pc exactly.
 * Every dropped pc shows in profil_stats' "outside" count.
 */
#include <unistd.h>

#include <sys/profil_args.h> /* profil() becomes the macro calling __profil_any */

#include "helpers/tprof.h"

#define GUARD 0xA5A5

typedef int (*entry_fn)(unsigned short *, size_t, size_t, unsigned int);

static int glibc_entry(unsigned short *buf, size_t size, size_t off, unsigned int scale)
{
	return (profil)(buf, size, off, scale); /* the function, not the macro */
}

static int tru64_entry(unsigned short *buf, size_t size, size_t off, unsigned int scale)
{
	return profil(buf, size, off, scale);
}

static unsigned long long outside(void)
{
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	return st.outside;
}

/* Inject one tick at pc; it must land in buf[want], or nowhere (want -1:
 * counted as outside). */
static void expect(unsigned short *buf, uintptr_t pc, long want)
{
	unsigned long long out0 = outside();
	unsigned before = want >= 0 ? buf[want] : 0;
	T_EQ(__profil_inject(pc, 1), 0);
	if (want >= 0) {
		if (buf[want] != before + 1)
			T_FAIL("pc %#lx: counter %ld is %u, want %u", (unsigned long)pc, want,
			       buf[want], before + 1);
		T_EQ(outside(), out0);
	} else {
		T_EQ(outside(), out0 + 1);
	}
}

/* n zero counters followed by `guard` guard counters. */
static void reset(unsigned short *buf, size_t n, size_t guard)
{
	for (size_t i = 0; i < n + guard; i++)
		buf[i] = i < n ? 0 : GUARD;
}

/* Every counter zero except those listed in `set` (terminated by -1),
 * which hold `count`, and the guard untouched. */
static void only(const unsigned short *buf, size_t n, size_t guard, const long *set,
		 unsigned count)
{
	for (size_t i = 0; i < n + guard; i++) {
		unsigned want = i < n ? 0 : GUARD;
		for (const long *s = set; *s >= 0; s++)
			if ((size_t)*s == i)
				want = count;
		if (buf[i] != want)
			T_FAIL("counter %zu is %u, want %u", i, buf[i], want);
	}
}

static void scale_2x(entry_fn on)
{
	unsigned short buf[8 + 4];
	const uintptr_t off = 0x400000;
	reset(buf, 8, 4);
	T_EQ(on(buf, 8 * sizeof *buf, off, 0x20000), 0);
	T_EQ(profil_state(), PROFIL_CLASSIC);
	for (long d = 0; d < 8; d++)
		expect(buf, off + (uintptr_t)d, d);
	expect(buf, off + 8, -1);     /* the byte after the buffer */
	expect(buf, off + 0x100, -1);
	expect(buf, off - 1, -1);     /* below the offset */
	/* d * 0x20000 = 2^64 + 10 * 65536 and 2^65 + ...: a product kept in
	 * 64 bits would give B = 10, counter 5. */
	expect(buf, off + (UINT64_C(1) << 47) + 5, -1);
	expect(buf, off + (UINT64_C(1) << 63) + 5, -1);
	only(buf, 8, 4, (const long[]){ 0, 1, 2, 3, 4, 5, 6, 7, -1 }, 1);

	/* An odd size: 17 bytes are 8 counters, the 17th byte is never written. */
	reset(buf, 8, 4);
	T_EQ(on(buf, 17, off, 0x20000), 0);
	expect(buf, off + 7, 7);
	expect(buf, off + 8, -1);
	only(buf, 8, 4, (const long[]){ 7, -1 }, 1);

	/* The top of the address space. */
	reset(buf, 8, 4);
	T_EQ(on(buf, 8 * sizeof *buf, UINTPTR_MAX - 2, 0x20000), 0);
	expect(buf, UINTPTR_MAX, 2);
	expect(buf, UINTPTR_MAX - 3, -1);
	only(buf, 8, 4, (const long[]){ 2, -1 }, 1);
}

static void scale_4x(entry_fn on)
{
	unsigned short buf[16 + 4];
	const uintptr_t off = 0x10000;
	reset(buf, 16, 4);
	T_EQ(on(buf, 16 * sizeof *buf, off, 0x40000), 0);
	for (long d = 0; d < 8; d++)
		expect(buf, off + (uintptr_t)d, 2 * d);
	expect(buf, off + 8, -1);
	expect(buf, off + (UINT64_C(1) << 63) + 5, -1); /* 64 bits: B = 20, I = 10 */
	only(buf, 16, 4, (const long[]){ 0, 2, 4, 6, 8, 10, 12, 14, -1 }, 1);
}

static void scale_max(entry_fn on)
{
	static unsigned short buf[65536 + 4];
	reset(buf, 65536, 4);
	T_EQ(on(buf, 65536 * sizeof *buf, 0, 0xFFFFFFFF), 0);
	expect(buf, 0, 0);
	expect(buf, 1, 32767);
	expect(buf, 2, 65535);
	expect(buf, 3, -1);
	expect(buf, UINTPTR_MAX, -1);
	/* d * 0xFFFFFFFF = 10 * 65536 modulo 2^64: counter 5 in 64 bits. */
	expect(buf, (uintptr_t)0xFFF5FFFFFFF60000u, -1);
	only(buf, 65536, 4, (const long[]){ 0, 32767, 65535, -1 }, 1);

	/* Offset one below the top: d = 1 is the top pc itself. */
	reset(buf, 65536, 4);
	T_EQ(on(buf, 65536 * sizeof *buf, UINTPTR_MAX - 1, 0xFFFFFFFF), 0);
	expect(buf, UINTPTR_MAX, 32767);
	expect(buf, UINTPTR_MAX - 1, 0);
	only(buf, 65536, 4, (const long[]){ 0, 32767, -1 }, 1);
}

int main(void)
{
	const entry_fn entries[] = { glibc_entry, tru64_entry };

	tp_manual();
	for (size_t e = 0; e < 2; e++) {
		scale_2x(entries[e]);
		scale_4x(entries[e]);
		scale_max(entries[e]);
	}
	/* A scale wider than 32 bits through __profil_any is converted as the
	 * Tru64 prototype converts it: 0x100020000 acts as 0x20000. */
	unsigned short buf[4] = { 0 };
	T_EQ(__profil_any(buf, sizeof buf, 0x1000, 0x100020000ul), 0);
	expect(buf, 0x1003, 3);
	T_EQ(tp_profil_off(), 0);
	return 0;
}
