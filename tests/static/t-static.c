/*
 * A static program linked with libprofil.a keeps pthread_create and the
 * whole exec family working, and its threads are profiled when it is
 * linked with the documented line (issue 8, item 2).
 *
 * The Makefile links this file plainly,
 *     cc -static t-static.c libprofil.a -lpthread
 * and t-static-pkgconfig.sh links it against a staged `make install` with
 *     cc -static t-static.c $(pkg-config --static --cflags --libs libprofil)
 * and runs it with the argument "tracked".  Both check that:
 *   - the program is static (it has no program interpreter);
 *   - sigaction, signal and sigprocmask give the program its own handlers,
 *     with profiling on (the library interposes them once it owns signals);
 *   - profil() counts the main thread's CPU time;
 *   - threads created after profiling started run and return their results;
 *   - each of execve, execv, execvp, execvpe, execl, execlp, execle,
 *     fexecve and execveat runs a program with the arguments and
 *     environment given (its exit status says so), from a child that is
 *     profiling; that ENOENT, EACCES (which wins over a later ENOENT in a
 *     PATH search) and ENOEXEC are returned; that execvp, execlp and
 *     execvpe run a script without "#!" through /bin/sh (execv does not);
 *     and that profiling resumes after an exec that failed.
 * Each engine (thread-timer, perf, process-timer) runs all this in a
 * child of its own; perf may skip where it is denied.  Counts must be
 * within 5 standard deviations (sd ~ sqrt(N)) of CPU seconds x rate.
 * "tracked" also checks the threads' count.  The plain link keeps libc's
 * pthread_create, which the library does not see: there only threads that
 * exist when profiling starts are sure to be counted (libprofil(7)), so
 * the count is not checked, but profil_stats() must say that creation is
 * not seen (and must not say so in the tracked link).
 *
 * A test: silent on success, exit 77 to skip.
 */
#ifdef T_NO_STATIC
#include <stdio.h>

int main(void)
{
	printf("SKIP: %s\n", T_NO_STATIC);
	return 77;
}
#else
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* execvpe, execveat: built by t-static-pkgconfig.sh without -D */
#endif
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/tprof.h"

#define HZ        1000
#define NTHREADS  2
#define PROG      "t-static-prog" /* a link to this program, found by PATH */
#define ENV       "T_STATIC_ENV"

static int tracked;
static char self[4096];  /* this program's file */
static char dir_a[1024]; /* holds PROG without execute permission */
static char dir_b[1024]; /* holds PROG (a symlink to self) and "noshebang" */
static char path_b[1100]; /* "PATH=" dir_b */
static char prog_a[1100]; /* dir_a/PROG */
static char script[1100]; /* dir_b/noshebang: "exit $1" */

/* sqrt without libm, for the bounds */
static double root(double x)
{
	double r = x > 1 ? x : 1;
	for (int i = 0; i < 64; i++)
		r = (r + x / r) / 2;
	return r;
}

/* `count` samples for `cpu` s of CPU at `hz`: N = cpu x hz within 5 sd,
 * plus one tick per thread for the rounding at each thread's end. */
static void check_rate(const char *what, double count, double cpu, double hz, int threads)
{
	double n = cpu * hz, d = 5 * root(n) + threads;
	if (count < n - d || count > n + d)
		T_FAIL("%s: %.0f samples for %.3f s of CPU at %.0f Hz, want [%.1f, %.1f] "
		       "(engine %s)",
		       what, count, cpu, hz, n - d, n + d, profil_engine_name());
}

/* ---- signals the program owns ---- */

static volatile sig_atomic_t got_usr1, got_usr2;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got_usr1 = sig == SIGUSR1 && si->si_signo == SIGUSR1;
}

static void on_usr2(int sig)
{
	got_usr2 = sig == SIGUSR2;
}

static void own_signals(void)
{
	struct sigaction sa = { .sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO }, old;
	sigemptyset(&sa.sa_mask);
	T_OK(sigaction(SIGUSR1, &sa, NULL) == 0);
	T_OK(sigaction(SIGUSR1, NULL, &old) == 0);
	T_OK(old.sa_sigaction == on_usr1 && (old.sa_flags & SA_SIGINFO));
	T_OK(signal(SIGUSR2, on_usr2) != SIG_ERR);

	sigset_t set, was, pending;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	T_OK(sigprocmask(SIG_BLOCK, &set, &was) == 0);
	raise(SIGUSR1);
	T_OK(!got_usr1);
	T_OK(sigpending(&pending) == 0 && sigismember(&pending, SIGUSR1));
	T_OK(sigprocmask(SIG_SETMASK, &was, NULL) == 0);
	T_OK(got_usr1);
	raise(SIGUSR2);
	T_OK(got_usr2);
	T_OK(signal(SIGUSR2, SIG_DFL) == on_usr2);
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = 0;
	T_OK(sigaction(SIGUSR1, &sa, NULL) == 0);
}

/* ---- threads ---- */

static void *worker(void *arg)
{
	tp_burn_thread(0.5);
	return (char *)arg + 1;
}

/* Threads created after profiling started burn 0.5 s each while main
 * waits. */
static void threads(void)
{
	static unsigned short buf[4];
	static char token[NTHREADS];
	pthread_t t[NTHREADS];

	tp_profil_on(buf, sizeof buf, 0, 2);
	double t0 = t_proc_cpu();
	for (int i = 0; i < NTHREADS; i++)
		T_EQ(pthread_create(&t[i], NULL, worker, &token[i]), 0);
	for (int i = 0; i < NTHREADS; i++) {
		void *r;
		T_EQ(pthread_join(t[i], &r), 0);
		T_OK(r == &token[i] + 1);
	}
	T_EQ(tp_profil_off(), 0);
	if (tracked)
		check_rate("threads created while profiling", buf[0], t_proc_cpu() - t0, HZ,
			   NTHREADS + 1);
}

/* ---- the exec family ---- */

/* The exec'd program: argv = { name, "exit", code, token }; it exits with
 * `code` if ENV in its environment is `token`. */
static int exec_target(char **argv)
{
	const char *v = getenv(ENV);
	return v && strcmp(v, argv[3]) == 0 ? atoi(argv[2]) : 99;
}

enum {
	X_EXECVE,
	X_EXECV,
	X_EXECVP,
	X_EXECVPE,
	X_EXECL,
	X_EXECLP,
	X_EXECLE,
	X_FEXECVE,
	X_EXECVEAT,
	X_EXECVEAT_EMPTY,
	X_NOENT,
	X_VP_NOENT,
	X_VP_EMPTY,
	X_ACCES,
	X_VP_ACCES,
	X_VP_SCRIPT,
	X_LP_SCRIPT,
	X_VPE_SCRIPT,
	X_V_SCRIPT,
	X_FEXECVE_BAD,
	X_VP_NO_PATH,
	X_VP_CWD,
};

/* How each case ends: the exec'd program's exit status, or 100 + errno
 * for an exec that returned (and after which profiling resumed). */
static const struct {
	const char *what;
	int status;
} cases[] = {
	[X_EXECVE] = { "execve", 10 },
	[X_EXECV] = { "execv", 11 },
	[X_EXECVP] = { "execvp " PROG, 12 },
	[X_EXECVPE] = { "execvpe " PROG " past a directory with it unexecutable", 13 },
	[X_EXECL] = { "execl", 14 },
	[X_EXECLP] = { "execlp " PROG, 15 },
	[X_EXECLE] = { "execle", 16 },
	[X_FEXECVE] = { "fexecve", 17 },
	[X_EXECVEAT] = { "execveat dirfd name", 18 },
	[X_EXECVEAT_EMPTY] = { "execveat fd AT_EMPTY_PATH", 19 },
	[X_NOENT] = { "execve of a missing file", 100 + ENOENT },
	[X_VP_NOENT] = { "execvp of a name in no PATH directory", 100 + ENOENT },
	[X_VP_EMPTY] = { "execvp of \"\"", 100 + ENOENT },
	[X_ACCES] = { "execv of a file without x permission", 100 + EACCES },
	[X_VP_ACCES] = { "execvp, unexecutable then missing", 100 + EACCES },
	[X_VP_SCRIPT] = { "execvp of a script without #!", 42 },
	[X_LP_SCRIPT] = { "execlp of a script without #!", 43 },
	[X_VPE_SCRIPT] = { "execvpe of a script path without #!", 44 },
	[X_V_SCRIPT] = { "execv of a script without #!", 100 + ENOEXEC },
	[X_FEXECVE_BAD] = { "fexecve(-1)", 100 + EINVAL },
	[X_VP_NO_PATH] = { "execvp sh without PATH (default path)", 45 },
	[X_VP_CWD] = { "execvp through an empty PATH entry (cwd)", 20 },
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

/* In a child that is profiling: make the request of case c. */
static void do_exec(int c)
{
	char code[16], env[64];
	snprintf(code, sizeof code, "%d", cases[c].status);
	snprintf(env, sizeof env, ENV "=case%d", c);
	const char *token = env + sizeof ENV;
	char *argv[] = { PROG, "exit", code, (char *)token, NULL };
	char *envp[] = { env, NULL };
	char *sh_argv[] = { "noshebang", code, NULL };
	setenv(ENV, token, 1);
	putenv(path_b);
	int fd;

	switch (c) {
	case X_EXECVE:
		execve(self, argv, envp);
		break;
	case X_EXECV:
		execv(self, argv);
		break;
	case X_EXECVP:
		execvp(PROG, argv);
		break;
	case X_EXECVPE: {
		char path[2100];
		snprintf(path, sizeof path, "%s:%s", dir_a, dir_b);
		setenv("PATH", path, 1);
		execvpe(PROG, argv, envp);
		break;
	}
	case X_EXECL:
		execl(self, PROG, "exit", code, token, (char *)NULL);
		break;
	case X_EXECLP:
		execlp(PROG, PROG, "exit", code, token, (char *)NULL);
		break;
	case X_EXECLE:
		execle(self, PROG, "exit", code, token, (char *)NULL, envp);
		break;
	case X_FEXECVE:
		T_OK((fd = open(self, O_RDONLY | O_CLOEXEC)) >= 0);
		fexecve(fd, argv, envp);
		break;
	case X_EXECVEAT:
		T_OK((fd = open(dir_b, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0);
		execveat(fd, PROG, argv, envp, 0);
		break;
	case X_EXECVEAT_EMPTY:
		T_OK((fd = open(self, O_RDONLY | O_CLOEXEC)) >= 0);
		execveat(fd, "", argv, envp, AT_EMPTY_PATH);
		break;
	case X_NOENT:
		execve("/nonexistent/t-static", argv, envp);
		break;
	case X_VP_NOENT:
		execvp("t-static-missing", argv);
		break;
	case X_VP_EMPTY:
		execvp("", argv);
		break;
	case X_ACCES:
		execv(prog_a, argv);
		break;
	case X_VP_ACCES: {
		char path[2100];
		snprintf(path, sizeof path, "%s:/nonexistent", dir_a);
		setenv("PATH", path, 1);
		execvp(PROG, argv);
		break;
	}
	case X_VP_SCRIPT:
		execvp("noshebang", sh_argv);
		break;
	case X_LP_SCRIPT:
		execlp("noshebang", "noshebang", code, (char *)NULL);
		break;
	case X_VPE_SCRIPT:
		execvpe(script, sh_argv, envp);
		break;
	case X_V_SCRIPT:
		execv(script, sh_argv);
		break;
	case X_FEXECVE_BAD:
		fexecve(-1, argv, envp);
		break;
	case X_VP_NO_PATH: {
		char *sh[] = { "sh", "-c", "exit 45", NULL };
		unsetenv("PATH");
		execvp("sh", sh);
		break;
	}
	case X_VP_CWD:
		T_OK(chdir(dir_b) == 0);
		setenv("PATH", ":/nonexistent", 1);
		execvp(PROG, argv);
		break;
	}
}

static void exec_case(int c)
{
	fflush(NULL);
	pid_t pid = fork();
	T_OK(pid >= 0);
	if (pid == 0) {
		static unsigned short buf[4];
		tp_profil_on(buf, sizeof buf, 0, 2);
		do_exec(c);
		int e = errno;
		/* Still here: profiling must have resumed. */
		T_OK(profil_state() != PROFIL_OFF);
		buf[0] = 0;
		tp_burn_until_counted(buf); /* CPU time, not luck: TP_EVENT_CPU at most */
		_exit(100 + e);
	}
	int st;
	T_OK(waitpid(pid, &st, 0) == pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
		T_SKIP("the child skipped (see above)");
	if (!WIFEXITED(st) || WEXITSTATUS(st) != cases[c].status)
		T_FAIL("%s: %s %d, want exit %d", cases[c].what,
		       WIFEXITED(st) ? "exit" : "signal",
		       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), cases[c].status);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	T_OK(fd >= 0);
	T_OK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	T_OK(close(fd) == 0);
	T_OK(chmod(path, mode) == 0);
}

static char prog_b[1100]; /* dir_b/PROG */
static pid_t dirs_owner;

/* At exit, also on failure, in the process that made the directories. */
static void remove_dirs(void)
{
	if (getpid() != dirs_owner)
		return;
	unlink(prog_a);
	unlink(prog_b);
	unlink(script);
	rmdir(dir_a);
	rmdir(dir_b);
}

static void exec_family(void)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(dir_a, sizeof dir_a, "%s/t-static.XXXXXX", tmp);
	snprintf(dir_b, sizeof dir_b, "%s/t-static.XXXXXX", tmp);
	T_OK(mkdtemp(dir_a) && mkdtemp(dir_b));
	dirs_owner = getpid();
	atexit(remove_dirs);
	snprintf(prog_a, sizeof prog_a, "%s/" PROG, dir_a);
	snprintf(prog_b, sizeof prog_b, "%s/" PROG, dir_b);
	snprintf(script, sizeof script, "%s/noshebang", dir_b);
	snprintf(path_b, sizeof path_b, "PATH=%s", dir_b);
	write_file(prog_a, "not a program\n", 0644);
	T_OK(symlink(self, prog_b) == 0);
	write_file(script, "exit \"$1\"\n", 0755);

	for (int c = 0; c < NCASES; c++)
		exec_case(c);
}

/* The main thread's CPU time is counted, the program's own handlers work
 * while profiling runs, and the library says whether it sees thread
 * creation. */
static void main_thread(void)
{
	static unsigned short buf[4];
	double t0 = t_proc_cpu();
	tp_profil_on(buf, sizeof buf, 0, 2);
	own_signals();
	tp_burn(0.3);
	T_EQ(tp_profil_off(), 0);
	check_rate("main thread", buf[0], t_proc_cpu() - t0, HZ, 1);

	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	int unseen = strstr(st.why, "pthread_create not wrapped") != NULL;
	if (unseen == tracked)
		T_FAIL("%s link, but profil_stats() says \"%s\"", tracked ? "wrapped" : "plain",
		       st.why);
}

/* Everything, in a child on the engine of PROFIL_ENGINE. */
static int engine_child(void)
{
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	T_OK(n > 0 && (size_t)n < sizeof self - 1);
	T_OK(profil_set_hz(HZ) >= 0);
	main_thread();
	threads();
	exec_family();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "exit") == 0)
		return exec_target(argv);
	tracked = argc > 1 && strstr(argv[1], "tracked") != NULL;
	if (argc > 1 && strncmp(argv[1], "engine", 6) == 0)
		return engine_child();
	if (argc > 1 && strcmp(argv[1], "tracked") != 0)
		T_FAIL("usage: t-static [tracked]");

	T_EQ(getauxval(AT_BASE), 0); /* no program interpreter: static */
	static const char *const engines[] = { "thread-timer", "perf", "process-timer" };
	for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++) {
		char env[64];
		snprintf(env, sizeof env, "PROFIL_ENGINE=%s", engines[i]);
		const char *add[] = { env, NULL };
		int st = tp_rerun(tracked ? "engine-tracked" : "engine", add);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 77 && strcmp(engines[i], "perf") == 0)
			continue; /* perf denied here: the child said why */
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			T_FAIL("on %s: %s %d", engines[i], WIFEXITED(st) ? "exit" : "signal",
			       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	}
	return 0;
}
#endif
