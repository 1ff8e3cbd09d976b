/*
 * family.h - shared pieces of the profil-family tests (spec section 4,
 * groups F to I): a per-case child process, the manual engine, pages with a
 * chosen protection, and the CPU-burning function `hot` whose exact address
 * range the linker gives us.
 *
 * Each case runs in a fresh child process (spec section 4: "faults or state
 * cannot leak between tests"); fam_case() records a failing case and goes
 * on, main() returns fam_status() so that every failure is printed.
 */
#ifndef FAMILY_H
#define FAMILY_H

#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <profil_ext.h>

#include "test.h"

static int fam_failures;
static int fam_skips;

/* Run fn in a child process; a failure (exit status or signal) is reported
 * with the case name and counted. */
static inline void fam_case(const char *name, void (*fn)(void))
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	T_OK(pid >= 0);
	if (pid == 0) {
		fn();
		exit(0);
	}
	int st;
	T_OK(waitpid(pid, &st, 0) == pid);
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "case %s: killed by signal %d\n", name, WTERMSIG(st));
		fam_failures++;
	} else if (WEXITSTATUS(st) == 77) {
		fam_skips++;
	} else if (WEXITSTATUS(st) != 0) {
		fprintf(stderr, "case %s: failed (exit %d)\n", name, WEXITSTATUS(st));
		fam_failures++;
	}
}

/* Exit status for main: 1 if any case failed, 77 if every case skipped. */
static inline int fam_status(void)
{
	if (fam_failures)
		return 1;
	return fam_skips ? 77 : 0;
}

/* Exact tests: no timer, only __profil_inject feeds samples. */
static inline void fam_manual(void)
{
	T_OK(profil_set_engine("manual") == 0);
}

/* n fresh pages with protection prot. */
static inline void *fam_pages(size_t n, int prot)
{
	void *p = mmap(NULL, n * (size_t)getpagesize(), prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	T_OK(p != MAP_FAILED);
	return p;
}

/* Inject must find an active state (returns 0) or none (-1). */
#define FAM_INJ(pc, ticks)    T_EQ(__profil_inject((uintptr_t)(pc), (ticks)), 0)
#define FAM_INJ_OFF(pc, ticks) T_EQ(__profil_inject((uintptr_t)(pc), (ticks)), -1)

/* call fails with errno err and the state is still of kind `kind`. */
#define FAM_FAILS(call, err, kind)                                                         \
	do {                                                                               \
		errno = 0;                                                                 \
		T_EQ((call), -1);                                                          \
		T_EQ(errno, (err));                                                        \
		T_EQ(profil_state(), (kind));                                              \
	} while (0)

/* Error tests first install a configuration counting 16-bit fam_keep at
 * 1:1 scale from FAM_KEEP_PC, then check after each rejected call that it
 * still counts (a failed call changes nothing). */
#define FAM_KEEP_PC 0x900000
__attribute__((unused)) static uint16_t fam_keep[4];

static inline void fam_keep_counts(void)
{
	unsigned before = fam_keep[1];
	FAM_INJ(FAM_KEEP_PC + 2, 1);
	T_EQ(fam_keep[1], before + 1);
}

/* Every element of a counter array is zero except the listed ones (checked
 * by the caller).  Returns the sum of all elements. */
static inline unsigned long long fam_sum(const void *buf, size_t n, int esize)
{
	unsigned long long s = 0;
	for (size_t i = 0; i < n; i++) {
		if (esize == 2)
			s += ((const uint16_t *)buf)[i];
		else if (esize == 4)
			s += ((const uint32_t *)buf)[i];
		else
			s += ((const uint64_t *)buf)[i];
	}
	return s;
}

/*
 * hot(secs): spin for secs seconds of process CPU time.  It lives alone in
 * the section fam_hot, so [__start_fam_hot, __stop_fam_hot) is exactly its
 * code.  The inner loop runs about a millisecond between clock reads, which
 * are made from hot itself (t_cpu_here), so every sample's pc is inside hot.
 */
extern const char __start_fam_hot[], __stop_fam_hot[];

__attribute__((noinline, unused, section("fam_hot"))) static void hot(double secs)
{
	volatile unsigned long x = 0;
	double end = t_cpu_here(CLOCK_PROCESS_CPUTIME_ID) + secs;
	do {
		for (unsigned long i = 0; i < 300000; i++)
			x += i ^ (x >> 3);
	} while (t_cpu_here(CLOCK_PROCESS_CPUTIME_ID) < end);
}

static inline int fam_in_hot(uintptr_t pc)
{
	return pc >= (uintptr_t)__start_fam_hot && pc < (uintptr_t)__stop_fam_hot;
}

#endif
