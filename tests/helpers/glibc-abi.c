/*
 * glibc-abi.c - T85: a program written for glibc, compiled against the
 * system headers only (no libprofil include directory), that must get
 * libprofil's behaviour when linked with -lprofil or run with
 * LD_PRELOAD=libprofil.so.1.  Built and run by tests/safety/t-glibc-abi.sh.
 *
 * The library's extensions are found with dlsym, as a glibc program has no
 * declarations for them; their presence alone does not prove that profil()
 * is ours, the counts do.  With the argument "no-ext" missing extensions are
 * tolerated and the checks that need them left out, so that the same checks
 * can be run against glibc's profil and seen to fail there:
 *   T01  1:1 mapping through __profil_inject on the manual engine;
 *   T09  scale 0 is off (glibc's profil would count about 50 in counter 0);
 *   rate 0.5 s at scale 2 gives 0.5 s x 100 Hz counts (T_COUNT);
 *   T32  exec from a profiled process: the new image lives through 1 s of
 *        CPU (glibc's ITIMER_PROF survives exec and kills it).
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

static int (*set_engine)(const char *);
static int (*inject)(uintptr_t, unsigned long);
static int (*state)(void);

static void find(void **fn, const char *name, int optional)
{
	*fn = dlsym(RTLD_DEFAULT, name);
	if (!*fn && !optional)
		T_FAIL("%s not found: libprofil is not in use", name);
}

static void burn(double sec)
{
	double end = t_proc_cpu() + sec;
	volatile unsigned long x = 0;
	while (t_proc_cpu() < end)
		for (int i = 0; i < 20000; i++)
			x += (unsigned long)i;
}

static unsigned short *none(void)
{
	unsigned short *volatile p = NULL;
	return p;
}

static int after_exec(void)
{
	sigset_t pending;
	struct sigaction sa;

	T_EQ(state(), 0);
	T_OK(sigpending(&pending) == 0 && !sigismember(&pending, SIGPROF));
	T_OK(sigaction(SIGPROF, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL);
	burn(1.0);
	return 0;
}

int main(int argc, char **argv)
{
	static unsigned short buf[64];

	int no_ext = argc > 1 && strcmp(argv[1], "no-ext") == 0;
	find((void **)&set_engine, "profil_set_engine", no_ext);
	find((void **)&inject, "__profil_inject", no_ext);
	find((void **)&state, "profil_state", no_ext);
	if (argc > 1 && strcmp(argv[1], "after-exec") == 0)
		return after_exec();

	/* T01 */
	if (set_engine) {
		T_EQ(set_engine("manual"), 0);
		T_EQ(profil(buf, 128, 0x10000, 0x10000), 0);
		T_EQ(inject(0x1000A, 1), 0);
		T_EQ(inject(0x1000B, 1), 0);
		for (int i = 0; i < 64; i++)
			T_EQ(buf[i], i == 5 ? 2 : 0);
		T_EQ(profil(none(), 0, 0, 0), 0);
		T_EQ(set_engine(NULL), 0);
	}

	/* T09 */
	memset(buf, 0, sizeof buf);
	T_EQ(profil(buf, 32, 0, 0), 0);
	if (state)
		T_EQ(state(), 0);
	burn(0.5);
	T_EQ(buf[0], 0);

	/* The real timer runs at 100 Hz. */
	double t0 = t_proc_cpu();
	T_EQ(profil(buf, sizeof buf, 0, 2), 0);
	burn(0.5);
	T_EQ(profil(none(), 0, 0, 0), 0);
	T_COUNT(buf[0], (t_proc_cpu() - t0) * 100);

	/* T32 */
	fflush(NULL);
	pid_t pid = fork();
	T_OK(pid >= 0);
	if (pid == 0) {
		T_EQ(profil(buf, sizeof buf, 0, 2), 0);
		burn(0.1);
		execl("/proc/self/exe", argv[0], "after-exec", (char *)NULL);
		T_FAIL("execl: %s", strerror(errno));
	}
	int status;
	T_OK(waitpid(pid, &status, 0) == pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		T_FAIL("exec'd image: %s %d", WIFEXITED(status) ? "exit" : "signal",
		       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return 0;
}
