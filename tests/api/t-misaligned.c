/*
 * A counter buffer at an odd address.  Classic profil never needs one when
 * the buffer is 2-aligned, but nothing forbids an odd pointer: it is
 * accepted, and counts exactly through the library's locked plain update
 * (a locked instruction on a misaligned address could split a cache line).
 * Checked single-threaded, at a counter that straddles the buffer's
 * 64-byte cache lines, under the wrap and saturate policies, and with 4
 * threads racing on one counter (every increment must survive).
 */
#include <pthread.h>
#include <unistd.h>

#include "helpers/tprof.h"

#define THREADS 4
#define EACH    15000

static unsigned char mem[256] __attribute__((aligned(64)));

static unsigned read16(const unsigned char *p)
{
	unsigned short v;
	memcpy(&v, p, 2);
	return v;
}

static void *injector(void *arg)
{
	(void)arg;
	for (int i = 0; i < EACH; i++)
		if (__profil_inject(0x2000 + 2 * 31, 1) != 0) /* counter 31 */
			return (void *)1;
	return NULL;
}

int main(void)
{
	unsigned char *odd = mem + 1;
	unsigned short *buf = (unsigned short *)(void *)odd;

	memset(mem, 0xEE, sizeof mem);
	memset(odd, 0, 128); /* 64 counters */
	tp_manual();
	T_EQ(profil(buf, 128, 0x2000, 0x10000), 0);
	T_EQ(__profil_inject(0x2000, 1), 0);
	T_EQ(__profil_inject(0x2001, 1), 0);
	T_EQ(__profil_inject(0x2000 + 2 * 31, 3), 0); /* bytes 63, 64 of mem */
	T_EQ(__profil_inject(0x2000 + 2 * 63, 1), 0);
	T_EQ(__profil_inject(0x2000 + 2 * 64, 1), 0); /* past the end */
	T_EQ(read16(odd), 2);
	T_EQ(read16(odd + 62), 3);
	T_EQ(read16(odd + 126), 1);
	T_EQ(mem[0], 0xEE);
	for (int i = 129; i < (int)sizeof mem; i++)
		T_EQ(mem[i], 0xEE);

	/* Saturation on the locked path. */
	memcpy(odd + 2, &(unsigned short){ 65534 }, 2);
	T_EQ(__profil_inject(0x2002, 5), 0);
	T_EQ(read16(odd + 2), 65535);

	/* Concurrent updates of one misaligned counter. */
	memset(odd + 62, 0, 2);
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		T_OK(pthread_create(&t[i], NULL, injector, NULL) == 0);
	for (int i = 0; i < THREADS; i++) {
		void *r;
		T_OK(pthread_join(t[i], &r) == 0);
		T_OK(r == NULL);
	}
	T_EQ(read16(odd + 62), (THREADS * EACH) & 0xFFFF);
	T_OK(THREADS * EACH < 65536);

	/* Wrap policy on the locked path. */
	T_EQ(profil_overflow_policy(PROFIL_OVF_WRAP), PROFIL_OVF_SATURATE);
	T_EQ(profil(buf, 128, 0x2000, 0x10000), 0);
	memcpy(odd + 4, &(unsigned short){ 65535 }, 2);
	T_EQ(__profil_inject(0x2004, 3), 0);
	T_EQ(read16(odd + 4), 2);
	T_EQ(mem[0], 0xEE);
	T_EQ(mem[129], 0xEE);
	return 0;
}
