/*
 * spawn.c - posix_spawn and posix_spawnp: children that will not be
 * recorded are counted (exec.c, profil__spawn_note), the spawn itself is
 * libc's, unchanged: its arguments, return value and errno.
 *
 * libprofil.so interposes both and spawns with the next definition
 * (libc's), found with dlsym(RTLD_NEXT), as pthread-create.c does.
 * glibc 2.15 and later export these as posix_spawn@@GLIBC_2.15, which
 * RTLD_NEXT finds; programs bound to the older version (which ran a file
 * of unknown format with the shell) get the new behaviour through us.
 *
 * libprofil.a, as for pthread_create, defines no posix_spawn: libc.a's is
 * weak, but the archive could only reach it by its internal name
 * (__posix_spawn), which libc.so.6 does not export.  It defines
 * __wrap_posix_spawn and __wrap_posix_spawnp for the linker's --wrap,
 * which libprofil.pc's static flags carry; without them a static program
 * keeps libc's, and pcprof's comparison of CPU times tells a spawned
 * child's time unnamed.  This file is an object of its own in the
 * archive, pulled in only by those names.
 */
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>

#include "exec.h"
#include "record.h"

typedef int spawn_fn(pid_t *, const char *, const posix_spawn_file_actions_t *,
		     const posix_spawnattr_t *, char *const[], char *const[]);

/* The spawn, with the child counted before and the count taken back if it
 * failed (its error is the return value; errno is left as the spawn left
 * it). */
static int spawn(spawn_fn *real, bool search, pid_t *pid, const char *file,
		 const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attr,
		 char *const argv[], char *const envp[])
{
	short flags = 0;
	if (attr) {
		int saved = errno;
		posix_spawnattr_getflags(attr, &flags);
		errno = saved;
	}
	int counted = profil__spawn_note(file, search, actions != NULL,
					 (flags & POSIX_SPAWN_RESETIDS) != 0, envp);
	int r = real(pid, file, actions, attr, argv, envp);
	if (r)
		profil__record_spawn_failed(counted);
	return r;
}

#ifdef PROFIL_STATIC_ARCHIVE

extern spawn_fn __real_posix_spawn, __real_posix_spawnp;

PROFIL_API int __wrap_posix_spawn(pid_t *pid, const char *path,
				  const posix_spawn_file_actions_t *actions,
				  const posix_spawnattr_t *attr, char *const argv[],
				  char *const envp[])
{
	return spawn(__real_posix_spawn, false, pid, path, actions, attr, argv, envp);
}

PROFIL_API int __wrap_posix_spawnp(pid_t *pid, const char *file,
				   const posix_spawn_file_actions_t *actions,
				   const posix_spawnattr_t *attr, char *const argv[],
				   char *const envp[])
{
	return spawn(__real_posix_spawnp, true, pid, file, actions, attr, argv, envp);
}

#else

/* libc's posix_spawn (search: posix_spawnp); racing first calls store the
 * same value.  NULL if there is none (ENOSYS then). */
static spawn_fn *next(bool search)
{
	static spawn_fn *real[2];
	spawn_fn *f = __atomic_load_n(&real[search], __ATOMIC_RELAXED);
	if (!f) {
		int saved = errno;
		f = (spawn_fn *)dlsym(RTLD_NEXT, search ? "posix_spawnp" : "posix_spawn");
		errno = saved;
		__atomic_store_n(&real[search], f, __ATOMIC_RELAXED);
	}
	return f;
}

static int spawn_next(bool search, pid_t *pid, const char *file,
		      const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attr,
		      char *const argv[], char *const envp[])
{
	spawn_fn *f = next(search);
	return f ? spawn(f, search, pid, file, actions, attr, argv, envp) : ENOSYS;
}

PROFIL_API int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
			   const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn_next(false, pid, path, actions, attr, argv, envp);
}

PROFIL_API int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
			    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn_next(true, pid, file, actions, attr, argv, envp);
}

/* The same, for the static flags' --wrap (libprofil.pc). */
PROFIL_API __typeof__(posix_spawn) __wrap_posix_spawn __attribute__((alias("posix_spawn")));
PROFIL_API __typeof__(posix_spawnp) __wrap_posix_spawnp __attribute__((alias("posix_spawnp")));

#endif
