/*
 * T13, T14 a counter buffer that cannot be written (PROT_NONE, PROT_READ, or
 * not mapped at all: page 0; a page unmapped here could be reused by the
 * library's own mmap) is EFAULT at call time, and the state is unchanged:
 * off stays off, an active configuration keeps counting.  Only the counters
 * that exist must be writable: a buffer whose odd last byte lies on a
 * protected page is accepted.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned short good[4] = { 0 };
	char *m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	T_OK(m != MAP_FAILED);
	T_OK(mprotect(m + page, page, PROT_NONE) == 0);
	struct {
		unsigned short *buf;
		size_t size;
	} bad[] = {
		{ (unsigned short *)(m + page), 64 },          /* T13 PROT_NONE */
		{ (unsigned short *)(m + page - 32), 64 },     /* straddles into it */
		{ (unsigned short *)(uintptr_t)8, 64 },        /* page 0: not mapped */
		{ NULL, 0 },
	};

	tp_manual();
	for (int prot = 0; prot < 2; prot++) {
		if (prot) /* T14: the same with a read-only page */
			T_OK(mprotect(m + page, page, PROT_READ) == 0);
		for (int on = 0; on < 2; on++) {
			if (on)
				T_EQ(profil(good, sizeof good, 0, 2), 0);
			else
				T_EQ(tp_profil_off(), 0);
			for (size_t i = 0; bad[i].buf; i++) {
				errno = 0;
				if (profil(bad[i].buf, bad[i].size, 0, 0x8000) != -1)
					T_FAIL("bad buffer %zu (%p) accepted (pass %d, %s)", i,
					       (void *)bad[i].buf, prot, on ? "on" : "off");
				T_EQ(errno, EFAULT);
				T_EQ(profil_state(), on ? PROFIL_CLASSIC : PROFIL_OFF);
			}
			if (on) {
				T_EQ(__profil_inject(0x100, 1), 0);
				T_EQ(good[0], 1);
				good[0] = 0;
			} else {
				T_EQ(__profil_inject(0x100, 1), -1);
			}
		}
	}
	/* 31 bytes ending one byte into the protected page: 15 counters, all
	 * writable; the odd byte is never touched. */
	unsigned short *edge = (unsigned short *)(m + page - 30);
	T_EQ(profil(edge, 31, 0, 0x10000), 0);
	T_EQ(__profil_inject(28, 1), 0);
	T_EQ(edge[14], 1);
	T_EQ(__profil_inject(30, 1), 0); /* counter 15 does not exist */
	T_EQ(tp_profil_off(), 0);
	return 0;
}
