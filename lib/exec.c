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
 *
 * Where the exec goes.  pcprof run follows exec'd images through the
 * environment (LD_PRELOAD, PCPROF_DIR), so an image that the loader will
 * not preload us into, or that ignores its environment, runs unrecorded,
 * and nothing would ever tell pcprof: its pid just has no next recording.
 * So, when a recording follows execs, each file about to be exec'd is
 * looked at first (note_target) and the recording of the image that
 * execs says where it went and, when it can be told beforehand, why the
 * next image will not be recorded: no PT_INTERP (static), our LD_PRELOAD
 * or PCPROF_DIR missing from the new environment (env -i), secure
 * execution (a set-user-ID or set-group-ID file, ids that differ), a user
 * that cannot write the recording directory (setpriv, su), another ELF
 * class.  Only looked at: the program's exec, its environment and its
 * behaviour stay what it asked for (an env -i program gets its empty
 * environment, not our LD_PRELOAD back).  A vfork child (dash runs its
 * commands so) shares its parent's memory and so its recording: it only
 * counts there, with atomics and no allocation, the children that went
 * where we cannot follow (note_target).  posix_spawn's exec is glibc's
 * internal one, which we never see: the parent looks at the file before
 * it spawns and counts the child the same way (profil__spawn_note, at the
 * end); pcprof's comparison of the tree's CPU time with the recordings'
 * catches what nothing here can see (cmd-run.c).
 */
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <paths.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exec.h"
#include "record.h"
#include "session.h"

/* glibc's default search path when PATH is unset (confstr _CS_PATH). */
#define DEFAULT_PATH "/bin:/usr/bin"

/* Our pid, set at start-up and in a fork child, to recognise a vfork
 * child (which shares our memory but must not stop our engine). */
static pid_t our_pid;

static void set_pid(void)
{
	/* Sealed (a fork child under the program's seccomp filter), the
	 * wrappers look at nothing: no getpid. */
	our_pid = profil__sealed() ? 0 : (pid_t)syscall(SYS_getpid);
}

/* Our own entry of LD_PRELOAD as this image started ("" if we were not
 * preloaded: linked in, then the check below is not ours to make). */
static char our_preload[PATH_MAX];

static void find_preload(void)
{
	const char *v = getenv("LD_PRELOAD");
	while (v && *v) {
		size_t n = strcspn(v, " :");
		const char *base = memrchr(v, '/', n);
		base = base ? base + 1 : v;
		if (n < sizeof our_preload && strncmp(base, "libprofil.", 10) == 0) {
			memcpy(our_preload, v, n);
			our_preload[n] = '\0';
			return;
		}
		v += n;
		v += strspn(v, " :");
	}
}

__attribute__((constructor(101))) static void exec_init(void)
{
	set_pid();
	pthread_atfork(NULL, NULL, set_pid);
	find_preload();
}

/* ---- where an exec goes (see the top) ---- */

/* The value of NAME in envp, or NULL. */
static const char *env_value(char *const envp[], const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
			return envp[i] + n + 1;
	return NULL;
}

/* Does the list (space or colon separated, as the loader reads it) hold
 * word? */
static bool has_word(const char *list, const char *word)
{
	size_t w = strlen(word);
	while (list && *list) {
		size_t n = strcspn(list, " :");
		if (n == w && strncmp(list, word, n) == 0)
			return true;
		list += n;
		list += strspn(list, " :");
	}
	return false;
}

static uint32_t check_env(char *const envp[], const char *dir)
{
	if (our_preload[0] && !has_word(env_value(envp, "LD_PRELOAD"), our_preload))
		return PCPROF_UNF_PRELOAD;
	const char *d = env_value(envp, "PCPROF_DIR");
	if (!d || strcmp(d, dir) != 0)
		return PCPROF_UNF_DIR;
	return PCPROF_UNF_NONE;
}

/* The kernel's AT_SECURE, foreseen: the ids the image will run with
 * (a set-ID bit counts unless the file system is nosuid or no_new_privs
 * is set; set-group-ID only with group execute, as the kernel does). */
static uint32_t check_ids(int fd, const struct stat *st)
{
	uid_t uid = getuid(), euid = geteuid();
	gid_t gid = getgid(), egid = getegid();
	bool honoured =
		(st->st_mode & (S_ISUID | S_ISGID)) && prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1;
	struct statvfs fs;
	if (honoured && fstatvfs(fd, &fs) == 0 && (fs.f_flag & ST_NOSUID))
		honoured = false;
	if (honoured && (st->st_mode & S_ISUID) && st->st_uid != uid)
		return PCPROF_UNF_SETUID;
	if (honoured && (st->st_mode & S_ISGID) && (st->st_mode & S_IXGRP) && st->st_gid != gid)
		return PCPROF_UNF_SETGID;
	if (uid != euid || gid != egid)
		return PCPROF_UNF_IDS;
	return PCPROF_UNF_NONE;
}

#if defined(__x86_64__)
#define OUR_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define OUR_MACHINE EM_AARCH64
#endif

/* From the ELF header and program headers: another class or machine, or
 * no PT_INTERP (static, static-pie).  Anything unreadable or strange is
 * left to the exec to judge. */
static uint32_t check_elf(int fd, const Elf64_Ehdr *e)
{
	if (e->e_ident[EI_CLASS] != ELFCLASS64)
		return PCPROF_UNF_CLASS;
#ifdef OUR_MACHINE
	if (e->e_machine != OUR_MACHINE)
		return PCPROF_UNF_CLASS;
#endif
	if ((e->e_type != ET_EXEC && e->e_type != ET_DYN) || e->e_phentsize != sizeof(Elf64_Phdr) ||
	    e->e_phnum == 0 || e->e_phnum > 256)
		return PCPROF_UNF_NONE;
	/* A few at a time: the caller's stack may be small (issue 19), and a
	 * file's e_phnum is its own to choose (256 of them were 14 KiB). */
	Elf64_Phdr ph[8];
	for (size_t i = 0; i < e->e_phnum; i += 8) {
		size_t n = e->e_phnum - i < 8 ? e->e_phnum - i : 8;
		if (pread(fd, ph, n * sizeof ph[0], (off_t)(e->e_phoff + i * sizeof ph[0])) !=
		    (ssize_t)(n * sizeof ph[0]))
			return PCPROF_UNF_NONE;
		for (size_t k = 0; k < n; k++)
			if (ph[k].p_type == PT_INTERP)
				return PCPROF_UNF_NONE;
	}
	return PCPROF_UNF_STATIC;
}

/* The file as execveat(dirfd, path, ..., flags) would run it; a "#!"
 * script by its interpreter (one level: the kernel allows more, but a
 * script that runs a script is rare, and the exec still decides). */
static uint32_t check_file(int dirfd, const char *path, int flags, int depth)
{
	int fd;
	if ((flags & AT_EMPTY_PATH) && !*path)
		fd = (int)syscall(SYS_fcntl, dirfd, F_DUPFD_CLOEXEC, 0);
	else
		fd = (int)syscall(SYS_openat, dirfd, path,
				  O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
					  ((flags & AT_SYMLINK_NOFOLLOW) ? O_NOFOLLOW : 0));
	if (fd < 0)
		return PCPROF_UNF_NONE; /* not readable: the exec decides */
	uint32_t why = PCPROF_UNF_NONE;
	struct stat st;
	union {
		Elf64_Ehdr e;
		char text[256];
	} head;
	ssize_t n = 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		n = pread(fd, &head, sizeof head - 1, 0);
	if (n >= 2 && head.text[0] == '#' && head.text[1] == '!') {
		head.text[n] = '\0';
		char *interp = head.text + 2;
		interp += strspn(interp, " \t");
		interp[strcspn(interp, " \t\n")] = '\0';
		if (depth == 0 && *interp)
			why = check_file(AT_FDCWD, interp, 0, depth + 1);
	} else if (n >= (ssize_t)sizeof head.e && memcmp(head.e.e_ident, ELFMAG, SELFMAG) == 0) {
		why = check_ids(fd, &st);
		if (!why)
			why = check_elf(fd, &head.e);
	}
	close(fd);
	return why;
}

/*
 * Can the image (the same user as now: the file is not set-ID) make its
 * recording in dir?  Not access(2): a process that changed user keeps its
 * capabilities until the exec (setpriv, su), which takes them away from a
 * user other than root.  So the mode bits, for the effective user, with
 * group members counted as others: a wrong "cannot write" is harmless,
 * since pcprof shows a reason only for an image that has no recording.
 */
static bool can_write(const char *dir)
{
	struct stat st;
	uid_t euid = geteuid();
	if (euid == 0 || stat(dir, &st) < 0)
		return true;
	mode_t need = st.st_uid == euid ? S_IWUSR | S_IXUSR : S_IWOTH | S_IXOTH;
	return (st.st_mode & need) == need;
}

/*
 * What to do with every file the wrapper is about to exec: nothing; note
 * it in our own recording (our exec, after the stop); or count it in the
 * recording of the image whose memory we share (a vfork child: that
 * image goes on running, and its recording says how many of its children
 * went where the library does not follow, and the first one).
 * Thread-local: a vfork child runs on the TLS of the thread that vforked,
 * which is stopped in vfork and not in an exec of its own; every exec
 * sets it before it tries a file, so what a child leaves there is never
 * read.
 */
enum { NOTE_NONE, NOTE_OWN, NOTE_SPAWN };
static __thread int noting;
static __thread int spawn_counted; /* what NOTE_SPAWN counted for the last file */

/* Why the file, exec'd with envp, will not make a recording in dir. */
static uint32_t check_target(int dirfd, const char *path, int flags, char *const envp[],
			     const char *dir)
{
	uint32_t why = check_env(envp, dir);
	if (!why)
		why = check_file(dirfd, path, flags, 0);
	if (!why && !can_write(dir))
		why = PCPROF_UNF_USER;
	return why;
}

static void note_target(int dirfd, const char *path, int flags, char *const argv[],
			char *const envp[])
{
	if (noting == NOTE_NONE)
		return;
	const char *dir = profil__record_follow_dir();
	if (!dir)
		return;
	uint32_t why = check_target(dirfd, path, flags, envp, dir);
	if (noting == NOTE_OWN) {
		profil__record_exec_target(why, path, argv);
	} else {
		profil__record_spawn_failed(spawn_counted); /* the file before, if any */
		spawn_counted = profil__record_spawn_target(why, path);
	}
}

static bool must_stop(void)
{
	return (pid_t)syscall(SYS_getpid) == our_pid &&
	       (profil__running_engine() != NULL || atomic_load(&profil__cur) != NULL);
}

/* The system calls, returning only on failure, with -errno. */
static int sys_execve(const char *path, char *const argv[], char *const envp[])
{
	note_target(AT_FDCWD, path, 0, argv, envp);
	syscall(SYS_execve, path, argv, envp);
	return -errno;
}

static int sys_execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
			int flags)
{
	note_target(dirfd, path, flags, argv, envp);
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

/* The directories a PATH search looks in: the caller's PATH (not the new
 * environment's), glibc's default if unset. */
static const char *search_path(void)
{
	const char *path = getenv("PATH");
	return path ? path : DEFAULT_PATH;
}

/* The bytes next_in_path needs for a file name of flen bytes and the
 * longest entry of path that can name a file.  A search's buffer is sized
 * so, as glibc's execvpe sizes its own, not for PATH_MAX: an exec runs on
 * the caller's stack, which may be a coroutine's (issue 19). */
static size_t path_buf_size(const char *path, size_t flen)
{
	size_t most = 0;
	for (const char *e = path; e;) {
		size_t dlen = strcspn(e, ":");
		if (dlen < PATH_MAX && dlen > most)
			most = dlen;
		e = e[dlen] ? e + dlen + 1 : NULL;
	}
	return most + flen + 2;
}

/* The next file a PATH search tries: "entry/file" of the entry at *p into
 * buf (path_buf_size bytes; an empty entry is the current directory), *p
 * moved past it; false when no entry is left.  An entry too long to name
 * a file is skipped. */
static bool next_in_path(const char **p, const char *file, size_t flen, char *buf)
{
	while (*p) {
		const char *e = *p;
		size_t dlen = strcspn(e, ":");
		*p = e[dlen] ? e + dlen + 1 : NULL;
		if (dlen >= PATH_MAX)
			continue;
		memcpy(buf, e, dlen);
		if (dlen)
			buf[dlen++] = '/';
		memcpy(buf + dlen, file, flen + 1);
		return true;
	}
	return false;
}

/*
 * execvp/execvpe: a name without '/' is looked for in each directory of
 * PATH (of the caller's environment, not envp; glibc's default if unset;
 * an empty entry is the current directory).  A directory where the file is
 * missing, not a directory, or on a strange file system (ESTALE, ENODEV,
 * ETIMEDOUT) is skipped; any other error means the file was found and is
 * returned at once.  If nothing ran, EACCES wins if any directory gave it,
 * else the last error stands.  Not inlined: its buffer (path_buf_size) is
 * on the stack only while it searches.
 */
static __attribute__((noinline)) int exec_search(const char *file, char *const argv[],
						 char *const envp[])
{
	if (!*file)
		return -ENOENT;
	if (strchr(file, '/'))
		return exec_or_script(file, argv, envp);
	size_t flen = strnlen(file, NAME_MAX + 1);
	if (flen > NAME_MAX)
		return -ENAMETOOLONG;
	const char *path = search_path();
	char buf[path_buf_size(path, flen)];
	bool denied = false;
	int r = -ENOENT;
	for (const char *p = path; next_in_path(&p, file, flen, buf);) {
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
	/* Sealed: the program's exec alone (the kernel deletes what is left
	 * armed of ours; the new image finds the filter, session.c). */
	if (profil__sealed()) {
		errno = -run(q);
		return -1;
	}
	bool stop = must_stop();
	if (stop)
		profil__exec_prepare();
	else
		profil__record_lost_end(); /* an image that could not record */
	noting = stop ? NOTE_OWN : (pid_t)syscall(SYS_getpid) != our_pid ? NOTE_SPAWN : NOTE_NONE;
	spawn_counted = 0;
	int r = run(q);
	if (noting == NOTE_SPAWN)
		profil__record_spawn_failed(spawn_counted);
	noting = NOTE_NONE;
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

/*
 * posix_spawn and posix_spawnp (spawn.c).  glibc runs the child with its
 * internal exec, which the wrappers above never see, so the parent looks
 * at the file before the spawn, as the exec wrappers would have, and
 * counts a child that will not be recorded in its own recording, as a
 * vfork child does; spawn.c takes the count back if the spawn fails.
 * What the spawn's attributes and file actions do in the child is not
 * known here, with two exceptions: POSIX_SPAWN_RESETIDS (the child runs
 * with the real ids), and file actions, which may change the directory a
 * relative name is found in: such a file is not judged (the comparison
 * of CPU times still tells its time, unnamed).  The PATH search is glibc's
 * (as execvp above, without the shell fallback, which glibc's posix_spawnp
 * dropped in 2.15): the first entry with an executable regular file.
 * Not AS-safe (getenv), as posix_spawn is not; no allocation.
 */
int profil__spawn_note(const char *file, bool search, bool actions, bool resetids,
		       char *const envp[])
{
	const char *dir = profil__record_follow_dir();
	if (!dir || !file) /* (NULL: the spawn's EFAULT, not our crash) */
		return 0;
	int saved = errno;
	const char *path = file, *dirs = search_path();
	size_t flen = strnlen(file, NAME_MAX + 1);
	char buf[path_buf_size(dirs, flen <= NAME_MAX ? flen : 0)];
	if (search && !strchr(file, '/') && *file && flen <= NAME_MAX) {
		path = NULL;
		struct stat st;
		for (const char *p = dirs; !path && next_in_path(&p, file, flen, buf);)
			if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111))
				path = buf;
	}
	int counted = 0;
	if (path && *path && !(actions && path[0] != '/')) {
		uint32_t why = check_target(AT_FDCWD, path, 0, envp, dir);
		if (resetids && why == PCPROF_UNF_IDS)
			why = PCPROF_UNF_NONE;
		counted = profil__record_spawn_target(why, path);
	}
	errno = saved;
	return counted;
}

/*
 * _exit and _Exit end the image without its exit handlers: the recording
 * gets its last CPU time first (profil__record_quick_exit), then the
 * process ends as glibc's _exit ends it (exit_group; exit if that ever
 * returned).  Only in the shared library: libc.a's _exit is a strong
 * symbol that exit() pulls in, so a static program keeps its own, and its
 * CPU time after the last stored one is what the summary allows for.
 */
#ifndef PROFIL_STATIC_ARCHIVE
PROFIL_API void _exit(int status)
{
	profil__record_quick_exit();
	syscall(SYS_exit_group, status);
	for (;;)
		syscall(SYS_exit, status);
}

PROFIL_API void _Exit(int status) __attribute__((alias("_exit")));
#endif
