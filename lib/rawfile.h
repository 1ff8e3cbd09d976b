/*
 * rawfile.h - creating, attaching and filling the raw per-process recording
 * of lib/record-format.h.  Shared by the library (record.c) and the audit
 * module (audit/audit.c), which run in different linker namespaces of the
 * same process and meet only in the shared file.  Normal context only (not
 * AS-safe) unless said otherwise: these run from constructors, fork
 * handlers and audit callbacks.
 *
 * Trust.  A recording is only ever written by the image it was made for: a
 * file is attached only if it is a regular file (never through a symbolic
 * link) owned by our effective user, mode 0600, one link, exactly the size
 * its header says, with our format, our image's token and every table inside
 * it.  What the writers use of the layout is the copy checked here
 * (struct raw_map), never the shared header read again.
 */
#ifndef PROFIL_RAWFILE_H
#define PROFIL_RAWFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "record-format.h"

/* A growing table as checked at creation or attach. */
struct raw_table {
	uint64_t off;
	uint32_t base, max;
};

struct raw_map {
	struct pcprof_raw_header *h; /* NULL: none */
	size_t size;                 /* of the mapping, = file_size */
	size_t page;
	uint64_t mod_off;
	uint32_t mod_cap;
	struct raw_table thr, slot;
	struct raw_table node; /* max 0: no stacks (PCPROF_RAW_F_STACKS unset) */
};

/* Settings from the environment (PCPROF_*).  False when not recording:
 * PCPROF_DIR unset or unusable, or a secure-execution process (AT_SECURE),
 * which must not let its caller's environment choose where it writes. */
struct raw_env {
	char dir[4096];
	pid_t root;
	bool follow;
	uint64_t slots; /* most pc table slots; as many stack nodes */
	bool stacks;    /* PCPROF_STACKS=1: record call stacks */
	bool timeline;  /* not PCPROF_TIMELINE=0: stamp samples with time buckets */
};
bool profil__raw_env(struct raw_env *env);

/* Should this process image record?  (follow rules; seq is the image's.) */
bool profil__raw_wanted(const struct raw_env *env, pid_t pid, uint32_t seq);

/* This image's token (record-format.h) for process pid.  The same in the
 * library and the audit module of one image, different after fork or exec. */
uint64_t profil__raw_token(pid_t pid);

/* The newest file of pid in dir: seq -1 if none; lost: it is a .lost
 * marker, made by the image with that token. */
struct raw_latest {
	int seq;
	bool lost;
	uint64_t token;
};
void profil__raw_latest(const char *dir, pid_t pid, struct raw_latest *out);

/*
 * Create the next file for pid ("<dir>/<pid>.<seq>.raw", seq one past the
 * newest), reserve its header and the first level of each table (at least
 * `modules` module entries), map it and fill the fixed header fields.
 * Returns 0, or -errno; when the file was made but not its reservation, it
 * is left as the empty marker "<pid>.<seq>.<errno>.<token>.lost" and nothing
 * stays mapped.
 */
int profil__raw_create(const struct raw_env *env, pid_t pid, uint32_t modules, struct raw_map *m);

/* Map "<dir>/<pid>.<seq>.raw" if it passes every check above and carries
 * `token`.  Returns 0, or -errno (-EPERM for a file that is not trusted,
 * -EINVAL for a bad header, -ESTALE for another image's). */
int profil__raw_attach(const char *dir, pid_t pid, int seq, uint64_t token, struct raw_map *m);

/* Read the header of "<dir>/<pid>.<seq>.raw", made by another image of pid
 * (an earlier image of the exec chain), if it passes the same checks: only
 * for its values, never to write there.  Returns 0, or -errno as above. */
int profil__raw_read_header(const char *dir, pid_t pid, int seq, struct pcprof_raw_header *h);

void profil__raw_unmap(struct raw_map *m);

/* Back [off, off + len) of the file (rounded out to pages) with memory or
 * blocks before anything is stored there: afterwards a store there cannot
 * fault.  MADV_POPULATE_WRITE needs no descriptor and reports a full file
 * system as an error, where a store would get SIGBUS.  Returns 0 or -errno
 * (-ENOSPC for the kernel's EFAULT: no room or quota).  AS-safe. */
int profil__raw_reserve(const struct raw_map *m, uint64_t off, uint64_t len);

static inline struct pcprof_raw_module *profil__raw_modules(const struct raw_map *m)
{
	return (struct pcprof_raw_module *)((char *)m->h + m->mod_off);
}

/*
 * Describe the object at `path` loaded with `bias` and append it at the
 * current epoch, unless a loaded entry with the same path and bias exists;
 * reserves more entries when needed.  mem_ehdr, if not NULL, is the object's
 * ELF header in memory (the vDSO, which has no file).  Returns the entry
 * index, or -errno (-ENOSPC: no room; counted in lost_modules).
 */
int profil__raw_add_module(const struct raw_map *m, const char *path, uint64_t bias,
			   const void *mem_ehdr);

/* Mark entry idx unloaded and start a new epoch. */
void profil__raw_unload_module(const struct raw_map *m, uint32_t idx);

/* The pid that names this process's recordings, and pcprof knows it by:
 * as /proc shows it (readlink /proc/self), which, in a process that runs
 * in a pid namespace of its own without a /proc of its own, is the id of
 * the namespace that mounted /proc (pcprof's) rather than getpid()'s (1
 * for the first process of the namespace); getpid() where /proc cannot
 * be read.  profil__raw_ppid: its parent's, in the same view. */
pid_t profil__raw_pid(void);
pid_t profil__raw_ppid(void);

/* Path of the running executable (readlink /proc/self/exe), for the main
 * program, which the loader names "". */
void profil__raw_exe_path(char *buf, size_t len);

#endif
