/*
 * audit.c - libprofil-audit.so: the module tracker for `pcprof run`,
 * loaded by the dynamic linker through LD_AUDIT.
 *
 * Why an audit module: `pcprof report` must name code in every object the
 * program ever loaded, including plugins closed before exit, and samples
 * taken at an address that a later object reused must not be charged to it.
 * Interposing dlopen() would see most loads, but it makes our library the
 * "caller" whose DT_RUNPATH glibc searches, so a program that finds its
 * plugins through its own RUNPATH would stop finding them; and it misses
 * glibc's internal loads (NSS, iconv).  The loader's audit interface reports
 * every load and unload, changes nothing about name resolution, and costs
 * nothing per call as long as no symbol-binding callback is defined.
 *
 * This module lives in its own linker namespace; it shares nothing with
 * libprofil.so except the raw file.  Where nolibc.c has system calls it
 * needs no libc either (the Makefile), so that the loader does not load and
 * relocate a second libc for it in every process image.  It creates the
 * image's file at la_version time (the earliest moment), records each object
 * opened in the main namespace, and on each close marks the entry unloaded
 * and starts a new module epoch (lib/record-format.h).  It maps only the
 * header and the module entries in use (rawfile.h), and the library those
 * and the table levels the samples go to: a few KiB mapped twice, where
 * each mapped the whole file (120 MiB of address space a process).
 */
#include <link.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "../sig/filters.h"
#include "../rawfile.h"

#define EXPORT __attribute__((visibility("default")))

static struct raw_env env;
static struct raw_map map;
static pid_t map_pid;
static bool enabled;
static bool started; /* la_preinit seen: the start-up set is complete */

/* Cookies of objects loaded before main: the loader never unmaps those
 * until the process exits, and then it reports each as closed; those
 * closes are not unloads the samples need to know about. */
#define STARTUP_BIT ((uintptr_t)1 << (sizeof(uintptr_t) * 8 - 2))

/* Is the image under a seccomp filter the program installed (more than
 * pcprof run's own, PCPROF_SECCOMP)?  Then the module makes no system call
 * more: the filter may refuse any fatally (lib/sig/filters.h). */
static bool sandboxed(void)
{
	return env.filters != RAW_FILTERS_UNSET && profil__filters_beyond(env.filters, true);
}

/* After fork the child runs on with our state: find the child's own file
 * (made by the library's fork handler), or stop if there is none. */
static bool current(void)
{
	if (!enabled)
		return false;
	/* The library stopped the recording for a seccomp filter: nothing
	 * from here, not even getpid (memory only). */
	if (map.h && atomic_load((_Atomic uint32_t *)&map.h->stop_why) == PCPROF_STOP_SECCOMP)
		return false;
	pid_t pid = getpid();
	if (pid == map_pid)
		return map.h != NULL;
	if (sandboxed()) {
		enabled = false; /* a child under the program's filter */
		return false;
	}
	profil__raw_unmap(&map);
	map_pid = pid;
	pid_t named = profil__raw_pid(); /* the files' pid (rawfile.h) */
	struct raw_latest last;
	profil__raw_latest(env.dir, named, &last);
	return last.seq >= 0 && !last.lost &&
	       profil__raw_attach(env.dir, named, last.seq, profil__raw_token(named), NULL, &map) ==
		       0;
}

/* A file that cannot be made, or whose space cannot be reserved, leaves the
 * image unrecorded (and, in the second case, a marker saying why): the
 * library sees the marker and does not try again. */
EXPORT unsigned int la_version(unsigned int version)
{
	if (version < 1)
		return 0;
	if (profil__raw_env(&env) && !sandboxed()) {
		pid_t pid = profil__raw_pid(); /* the files' pid (rawfile.h) */
		struct raw_latest last;
		profil__raw_latest(env.dir, pid, &last);
		if (profil__raw_wanted(&env, pid, (uint32_t)(last.seq + 1)) &&
		    profil__raw_create(&env, pid, 0, NULL, &map) == 0) {
			map.h->flags |= PCPROF_RAW_F_AUDIT;
			map_pid = getpid();
			enabled = true;
		}
	}
	return LAV_CURRENT;
}

EXPORT unsigned int la_objopen(struct link_map *lm, Lmid_t lmid, uintptr_t *cookie)
{
	*cookie = UINTPTR_MAX;
	if (lmid != LM_ID_BASE || !current())
		return 0;
	/* Not on the stack, which may be small (ulimit -s): the loader calls
	 * audit functions one at a time. */
	static char exe[PCPROF_RAW_PATH];
	const char *path = lm->l_name;
	const void *mem = NULL;
	if (!path[0]) {
		profil__raw_exe_path(exe, sizeof exe);
		path = exe;
	} else if (strcmp(path, "linux-vdso.so.1") == 0 || strcmp(path, "linux-gate.so.1") == 0) {
		mem = (const void *)getauxval(AT_SYSINFO_EHDR);
		path = "[vdso]";
		if (!mem)
			return 0;
	}
	int idx = profil__raw_add_module(&map, path, lm->l_addr, mem);
	if (idx >= 0)
		*cookie = (uintptr_t)idx | (started ? 0 : STARTUP_BIT);
	return 0; /* no LA_FLG_BIND*: no symbol-binding audit, no PLT cost */
}

EXPORT void la_preinit(uintptr_t *cookie)
{
	(void)cookie;
	started = true;
}

EXPORT unsigned int la_objclose(uintptr_t *cookie)
{
	if (*cookie == UINTPTR_MAX || (*cookie & STARTUP_BIT) || !current())
		return 0;
	/* A plugin still loaded at exit is closed by the exit itself. */
	if (atomic_load((_Atomic uint32_t *)&map.h->end) != PCPROF_END_RUNNING)
		return 0;
	profil__raw_unload_module(&map, (uint32_t)*cookie);
	return 0;
}
