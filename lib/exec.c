/*
 * exec.c - profiling ends at exec.
 *
 * Linux already deletes POSIX timers at exec and flushes their queued
 * signals, but three things would still go wrong without these wrappers: a
 * perf signal generated just before the exec could reach the new image,
 * which has SIGPROF/SIGTRAP at SIG_DFL and would die of it; the new image
 * would inherit SIG_DFL where the program had SIG_IGN before we took the
 * signal; and the recorder would not know the image ended.  So each exec
 * entry first stops profiling completely (quiescence, engine stop,
 * dispositions restored), and restarts the same configuration if the exec
 * fails.
 *
 * A vfork child shares our memory and must not touch the parent's state:
 * it is recognised by its pid and passed straight through.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record.h"
#include "session.h"

static pid_t our_pid;

void profil__exec_set_pid(void)
{
	our_pid = (pid_t)syscall(SYS_getpid);
}

static bool must_stop(void)
{
	return (pid_t)syscall(SYS_getpid) == our_pid &&
	       (profil__running_engine() != NULL || atomic_load(&profil__cur) != NULL);
}

#define REAL(name, type)                                                                           \
	static type *real_##name;                                                                  \
	if (!real_##name && !(real_##name = (type *)dlsym(RTLD_NEXT, #name))) {                    \
		errno = ENOSYS;                                                                    \
		return -1;                                                                         \
	}

typedef int execve_fn(const char *, char *const[], char *const[]);
typedef int execvpe_fn(const char *, char *const[], char *const[]);
typedef int fexecve_fn(int, char *const[], char *const[]);
typedef int execveat_fn(int, const char *, char *const[], char *const[], int);

PROFIL_API int execve(const char *path, char *const argv[], char *const envp[])
{
	REAL(execve, execve_fn);
	bool stop = must_stop();
	if (stop)
		profil__exec_prepare();
	int r = real_execve(path, argv, envp);
	int e = errno;
	if (stop)
		profil__exec_failed();
	errno = e;
	return r;
}

PROFIL_API int execvpe(const char *file, char *const argv[], char *const envp[])
{
	REAL(execvpe, execvpe_fn);
	bool stop = must_stop();
	if (stop)
		profil__exec_prepare();
	int r = real_execvpe(file, argv, envp);
	int e = errno;
	if (stop)
		profil__exec_failed();
	errno = e;
	return r;
}

PROFIL_API int fexecve(int fd, char *const argv[], char *const envp[])
{
	REAL(fexecve, fexecve_fn);
	bool stop = must_stop();
	if (stop)
		profil__exec_prepare();
	int r = real_fexecve(fd, argv, envp);
	int e = errno;
	if (stop)
		profil__exec_failed();
	errno = e;
	return r;
}

PROFIL_API int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
			int flags)
{
	REAL(execveat, execveat_fn);
	bool stop = must_stop();
	if (stop)
		profil__exec_prepare();
	int r = real_execveat(dirfd, path, argv, envp, flags);
	int e = errno;
	if (stop)
		profil__exec_failed();
	errno = e;
	return r;
}

PROFIL_API int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

PROFIL_API int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* The list forms gather their arguments into an array on the stack, as
 * libc does, and go through the wrappers above. */
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
	return execve(path, (char *const *)argv, environ);
}

PROFIL_API int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	GATHER(arg, ap, argv);
	va_end(ap);
	return execvpe(file, (char *const *)argv, environ);
}

PROFIL_API int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	GATHER(arg, ap, argv);
	char *const *envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, (char *const *)argv, envp);
}
