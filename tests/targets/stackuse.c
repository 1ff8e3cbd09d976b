/*
 * stackuse - a target for tests/engines/t-run-tiny-stack.sh: how much of
 * the main thread's stack the process used before main (the dynamic
 * loader, LD_PRELOAD and LD_AUDIT objects, constructors, any signal they
 * took), and how much lies above where main's caller began.  Built
 * without libprofil (pcprof preloads it).
 *
 *   stackuse
 *
 * prints one line: "before_main B top T", where B is the distance from
 * the stack pointer the process started with (__libc_stack_end) down to
 * the lowest byte of the [stack] mapping that is not zero, and T the
 * distance from the top of the mapping down to that start (the argument
 * and environment strings, the pointers to them, the auxiliary vector,
 * and the random gap the kernel leaves below the strings).  B + T is what
 * the process needed of RLIMIT_STACK.
 *
 * Why the lowest non-zero byte: the kernel gives a new image zeroed pages,
 * and every frame that ran leaves return addresses and saved registers.
 * main reads /proc/self/maps with raw system calls into a static buffer,
 * so that nothing it calls reaches far below its own frame; the scan
 * stops 2 KiB below that frame.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

extern void *__libc_stack_end;

static char maps[1 << 20];

int main(void)
{
	volatile char here = 0;
	long fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC), n = 0, r;
	if (fd < 0)
		return 3;
	while ((r = syscall(SYS_read, fd, maps + n, sizeof maps - 1 - n)) > 0)
		n += r;
	syscall(SYS_close, fd);
	char *s = strstr(maps, " [stack]\n");
	if (!s)
		return 4;
	while (s > maps && s[-1] != '\n')
		s--;
	uintptr_t lo = strtoul(s, &s, 16), hi = strtoul(s + 1, NULL, 16);
	uintptr_t start = (uintptr_t)__libc_stack_end, stop = (uintptr_t)&here - 2048;
	if (!(lo < stop && stop < start && start < hi))
		return 5;
	const unsigned char *p = (const unsigned char *)lo;
	while ((uintptr_t)p < stop && !*p)
		p++;
	printf("before_main %lu top %lu\n", (unsigned long)(start - (uintptr_t)p),
	       (unsigned long)(hi - start));
	return here; /* 0: read, so that it lives in the frame */
}
