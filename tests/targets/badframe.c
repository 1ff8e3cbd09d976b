/*
 * badframe - frames a stack walk must not trust, and a program's own
 * SIGSEGV use, for tests/cli-run/t-run-badframe.sh.
 *
 *   badframe spin SECONDS
 *       Burn SECONDS of CPU in bf_loop, hand-written code whose unwind
 *       information lies, so that a walk takes for its return address
 *       (and finds in rbp) in turn a PROT_NONE page, a hole left by munmap
 *       and a non-canonical address: every read a walk makes there
 *       faults.  Prints "ok" at the end.
 *   badframe rawspin SECONDS
 *       The same, after installing a SIGSEGV handler of its own with a raw
 *       rt_sigaction (as runtimes that bypass libc do), which reports any
 *       fault it gets and exits 99: no walk may fault into it.
 *   badframe ownsegv SECONDS
 *       The program's own SIGSEGV handler makes a PROT_NONE page writable
 *       when it is touched (as a garbage collector's write barrier does),
 *       again and again for SECONDS of CPU; prints "faults N" (N > 0).
 *   badframe crash
 *       Writes to a PROT_NONE page with SIGSEGV at its default: dies of it.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <time.h>

#if defined(__x86_64__)
/* bf_loop(n, bad): count n down with `bad` where the return address should
 * be and in rbp.  Its CFI lies: it says the CFA is rsp + 8 (as at entry)
 * after the push, so a walk reads `bad` as the return address and goes on
 * from there (the code at it, a signal frame at it, a frame pointer). */
__asm__(".text\n"
	".globl bf_loop\n"
	".type bf_loop, @function\n"
	"bf_loop:\n"
	"	.cfi_startproc\n"
	"	push %rbp\n"
	"	push %rsi\n"
	"	mov %rsi, %rbp\n"
	"1:	dec %rdi\n"
	"	jnz 1b\n"
	"	pop %rsi\n"
	"	pop %rbp\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size bf_loop, .-bf_loop\n");
void bf_loop(uint64_t n, uintptr_t fp);
#endif

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *page(int prot)
{
	char *p = mmap(NULL, 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

static int spin(double secs)
{
#if defined(__x86_64__)
	char *none = page(PROT_NONE), *hole = page(PROT_NONE);
	munmap(hole, 4096);
	uintptr_t fps[] = { (uintptr_t)none + 64, (uintptr_t)hole + 128, UINT64_C(0x8000000000001000) };
	double end = cpu_now() + secs;
	for (unsigned i = 0; cpu_now() < end; i++)
		bf_loop(2000000, fps[i % 3]);
	puts("ok");
	return 0;
#else
	(void)secs;
	puts("ok (not x86-64: no bad frames)");
	return 0;
#endif
}

static void on_raw_segv(int sig)
{
	(void)sig;
	static const char msg[] = "runtime: unexpected fault\n";
	write(2, msg, sizeof msg - 1);
	_exit(99);
}

static void never_called(void)
{
	_exit(98);
}

/* The kernel's struct sigaction (handler, flags, restorer, mask).  x86-64
 * delivers only with SA_RESTORER; the handler never returns, so the
 * restorer is never reached. */
static void raw_segv_handler(void)
{
	struct {
		void (*handler)(int);
		unsigned long flags;
		void (*restorer)(void);
		uint64_t mask;
	} k = { on_raw_segv, 0x04000000 /* SA_RESTORER */, never_called, 0 };
	if (syscall(SYS_rt_sigaction, SIGSEGV, &k, NULL, 8) != 0) {
		perror("rt_sigaction");
		exit(2);
	}
}

static char *guarded;
static volatile sig_atomic_t faults;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	if ((char *)si->si_addr < guarded || (char *)si->si_addr >= guarded + 4096)
		abort();
	faults++;
	mprotect(guarded, 4096, PROT_READ | PROT_WRITE);
}

static int ownsegv(double secs)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	guarded = page(PROT_NONE);
	double end = cpu_now() + secs;
	long n = 0;
	while (cpu_now() < end) {
		mprotect(guarded, 4096, PROT_NONE);
		guarded[n % 4096] = 1; /* faults; the handler opens the page */
		n++;
		for (volatile int i = 0; i < 100000; i++)
			;
	}
	printf("faults %d of %ld\n", (int)faults, n);
	return faults == n ? 0 : 3;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "spin") == 0)
		return spin(atof(argv[2]));
	if (argc == 3 && strcmp(argv[1], "rawspin") == 0) {
		raw_segv_handler();
		return spin(atof(argv[2]));
	}
	if (argc == 3 && strcmp(argv[1], "ownsegv") == 0)
		return ownsegv(atof(argv[2]));
	if (argc == 2 && strcmp(argv[1], "crash") == 0) {
		*(volatile char *)page(PROT_NONE) = 1;
		return 0;
	}
	fprintf(stderr, "usage: badframe spin|rawspin|ownsegv SECONDS | crash\n");
	return 2;
}
