/*
 * exec.c - profiling ends at exec.
 *
 * Linux already deletes POSIX timers at exec and flushes their queued
 * signals, but three things would still go wrong without these functions:
 * a perf signal generated just before the exec could reach the new image,
 * which has SIGPROF/SIGTRAP at SIG_DFL and would die of it; the new image
 * would inherit SIG_DFL where the program had SIG_IGN before we took the
 * signal; and the recorder would not know the image ended.  So each exec
 * entry first stops profiling completely (quiescence, engine stop,
 * dispositions restored), and restarts the same configuration if the exec
 * fails.
 *
 * The whole family is implemented here on the system calls instead of
 * forwarding to libc.  A static program has no libc definition to forward
 * to (dlsym(RTLD_NEXT) finds nothing there), and glibc's own execv, execvp
 * and execl... call its internal execve, so the members we did not define
 * would bypass the stop.  execve and execveat are exactly the system calls
 * in libc too; fexecve, the PATH search of execvp/execvpe and the list
 * forms follow glibc's documented behaviour (see each below).
 *
 * A vfork child shares our memory and must not touch the parent's state:
 * it is recognised by its pid and passed straight through.  For the same
 * reason nothing here allocates: memory mapped by a vfork child would stay
 * in the parent once the exec succeeded.
 */
#include <fcntl.h>
#include <limits.h>
#include <paths.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record.h"
#include "session.h"

/* glibc's default search path when PATH is unset (confstr _CS_PATH). */
#define DEFAULT_PATH "/bin:/usr/bin"

/* Our pid, set at start-up and in a fork child, to recognise a vfork
 * child (which shares our memory but must not stop our engine). */
static pid_t our_pid;

static void set_pid(void)
{
	our_pid = (pid_t)syscall(SYS_getpid);
}

__attribute__((constructor(101))) static void exec_init(void)
{
	set_pid();
	pthread_atfork(NULL, NULL, set_pid);
}

static bool must_stop(void)
{
	return (pid_t)syscall(SYS_getpid) == our_pid &&
	       (profil__running_engine() != NULL || atomic_load(&profil__cur) != NULL);
}

/* The system calls, returning only on failure, with -errno. */
static int sys_execve(const char *path, char *const argv[], char *const envp[])
{
	syscall(SYS_execve, path, argv, envp);
	return -errno;
}

static int sys_execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
			int flags)
{
	syscall(SYS_execveat, dirfd, path, argv, envp, flags);
	return -errno;
}

/*
 * fexecve: execveat on the descriptor itself.  Kernels without execveat
 * (before 3.19) get glibc's fallback, the descriptor's /proc/self/fd name,
 * and ENOSYS when /proc is not mounted.
 */
static int exec_fd(int fd, char *const argv[], char *const envp[])
{
	int r = sys_execveat(fd, "", argv, envp, AT_EMPTY_PATH);
	if (r != -ENOSYS)
		return r;
	char name[32] = "/proc/self/fd/";
	profil__strlcat_u(name, sizeof name, (unsigned long)fd);
	r = sys_execve(name, argv, envp);
	if (syscall(SYS_faccessat, AT_FDCWD, "/proc/self/fd", F_OK) < 0 && errno == ENOENT)
		r = -ENOSYS;
	return r;
}

/*
 * The file is not in a format the kernel runs (ENOEXEC): run it as a shell
 * script, "/bin/sh file arg1 ...", as execvp has always done.  The new
 * argument vector is on the stack, one pointer longer than the caller's,
 * as in glibc: a vfork child must not allocate.
 */
static int exec_shell(const char *file, char *const argv[], char *const envp[])
{
	size_t argc = 0;
	while (argv[argc])
		if (++argc >= INT_MAX - 1)
			return -E2BIG;
	/* argv[0] gives way to the file; an empty argv still gets the file */
	size_t n = argc ? argc + 1 : 2;
	const char *sh_argv[n + 1];
	sh_argv[0] = _PATH_BSHELL;
	sh_argv[1] = file;
	for (size_t i = 1; i < argc; i++)
		sh_argv[i + 1] = argv[i];
	sh_argv[n] = NULL;
	return sys_execve(_PATH_BSHELL, (char *const *)sh_argv, envp);
}

static int exec_or_script(const char *path, char *const argv[], char *const envp[])
{
	int r = sys_execve(path, argv, envp);
	return r == -ENOEXEC ? exec_shell(path, argv, envp) : r;
}

/*
 * execvp/execvpe: a name without '/' is looked for in each directory of
 * PATH (of the caller's environment, not envp; glibc's default if unset;
 * an empty entry is the current directory).  A directory where the file is
 * missing, not a directory, or on a strange file system (ESTALE, ENODEV,
 * ETIMEDOUT) is skipped; any other error means the file was found and is
 * returned at once.  If nothing ran, EACCES wins if any directory gave it,
 * else the last error stands.
 */
static int exec_search(const char *file, char *const argv[], char *const envp[])
{
	if (!*file)
		return -ENOENT;
	if (strchr(file, '/'))
		return exec_or_script(file, argv, envp);
	size_t flen = strnlen(file, NAME_MAX + 1);
	if (flen > NAME_MAX)
		return -ENAMETOOLONG;
	const char *path = getenv("PATH");
	if (!path)
		path = DEFAULT_PATH;

	char buf[PATH_MAX + NAME_MAX + 2];
	bool denied = false;
	int r = -ENOENT;
	for (const char *p = path;; p++) {
		size_t dlen = strcspn(p, ":");
		if (dlen < PATH_MAX) { /* a longer one cannot name a file */
			memcpy(buf, p, dlen);
			size_t len = dlen;
			if (len)
				buf[len++] = '/';
			memcpy(buf + len, file, flen + 1);
			r = exec_or_script(buf, argv, envp);
			switch (-r) {
			case EACCES:
				denied = true;
				break;
			case ENOENT:
			case ENOTDIR:
			case ESTALE:
			case ENODEV:
			case ETIMEDOUT:
				break;
			default:
				return r;
			}
		}
		p += dlen;
		if (!*p)
			break;
	}
	return denied ? -EACCES : r;
}

/* One exec request, in the terms of the family member that made it. */
struct exec_req {
	enum { EXEC_PATH, EXEC_AT, EXEC_FD, EXEC_SEARCH } how;
	int fd; /* EXEC_AT's directory, EXEC_FD's file */
	const char *path;
	char *const *argv;
	char *const *envp;
	int flags; /* EXEC_AT's */
};

static int run(const struct exec_req *q)
{
	switch (q->how) {
	case EXEC_PATH:
		return sys_execve(q->path, q->argv, q->envp);
	case EXEC_AT:
		return sys_execveat(q->fd, q->path, q->argv, q->envp, q->flags);
	case EXEC_FD:
		return exec_fd(q->fd, q->argv, q->envp);
	case EXEC_SEARCH:
		return exec_search(q->path, q->argv, q->envp);
	}
	return -EINVAL;
}

/* Every member of the family: stop, exec, and if we are still here, resume
 * and fail with the exec's error. */
static int around_exec(const struct exec_req *q)
{
	bool stop = must_stop();
	if (stop)
		profil__exec_prepare();
	int r = run(q);
	if (stop)
		profil__exec_failed();
	errno = -r;
	return -1;
}

PROFIL_API int execve(const char *path, char *const argv[], char *const envp[])
{
	return around_exec(
		&(struct exec_req){ .how = EXEC_PATH, .path = path, .argv = argv, .envp = envp });
}

PROFIL_API int execv(const char *path, char *const argv[])
{
	return around_exec(&(struct exec_req){
		.how = EXEC_PATH, .path = path, .argv = argv, .envp = environ });
}

PROFIL_API int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return around_exec(
		&(struct exec_req){ .how = EXEC_SEARCH, .path = file, .argv = argv, .envp = envp });
}

PROFIL_API int execvp(const char *file, char *const argv[])
{
	return around_exec(&(struct exec_req){
		.how = EXEC_SEARCH, .path = file, .argv = argv, .envp = environ });
}

PROFIL_API int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
			int flags)
{
	return around_exec(&(struct exec_req){ .how = EXEC_AT,
					       .fd = dirfd,
					       .path = path,
					       .argv = argv,
					       .envp = envp,
					       .flags = flags });
}

PROFIL_API int fexecve(int fd, char *const argv[], char *const envp[])
{
	/* glibc's checks, before anything stops.  Its header declares argv
	 * nonnull; the copy keeps the compiler from assuming it. */
	char *const *volatile av = argv;
	if (fd < 0 || !av || !envp) {
		errno = EINVAL;
		return -1;
	}
	return around_exec(
		&(struct exec_req){ .how = EXEC_FD, .fd = fd, .argv = argv, .envp = envp });
}

/*
 * The list forms gather their arguments into an array on the stack, as
 * libc does (no allocation: they may run in a vfork child), then make the
 * request of their vector form.  A macro, because a va_list can only be
 * started in the variadic function itself.
 */
#define GATHER(first, ap, argv)                                                                    \
	size_t n_ = 1;                                                                             \
	va_start(ap, first);                                                                       \
	while (va_arg(ap, const char *))                                                           \
		n_++;                                                                              \
	va_end(ap);                                                                                \
	const char *argv[n_ + 1];                                                                  \
	argv[0] = first;                                                                           \
	va_start(ap, first);                                                                       \
	for (size_t i_ = 1; i_ <= n_; i_++)                                                        \
		argv[i_] = va_arg(ap, const char *);

PROFIL_API int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	GATHER(arg, ap, argv);
	va_end(ap);
	return around_exec(&(struct exec_req){
		.how = EXEC_PATH, .path = path, .argv = (char *const *)argv, .envp = environ });
}

PROFIL_API int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	GATHER(arg, ap, argv);
	va_end(ap);
	return around_exec(&(struct exec_req){
		.how = EXEC_SEARCH, .path = file, .argv = (char *const *)argv, .envp = environ });
}

PROFIL_API int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	GATHER(arg, ap, argv);
	char *const *envp = va_arg(ap, char *const *);
	va_end(ap);
	return around_exec(&(struct exec_req){
		.how = EXEC_PATH, .path = path, .argv = (char *const *)argv, .envp = envp });
}
