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
#include "sig/sink.h"

/* A growing table as checked at creation or attach. */
struct raw_table {
	uint64_t off;
	uint32_t base, max;
};

/*
 * A recording as this process maps it: never the whole file, which is as
 * large as its tables could grow (60 MiB by default, and RLIMIT_AS counts
 * every byte mapped).  The header's page(s) and the module entries in use
 * are mapped here; with a struct profil_rec (the library), so are the
 * levels of its tables that are open, each on its own (sig/sink.h), and
 * the handler maps each new level as it opens.  The audit module maps
 * only the header and the modules.
 */
struct raw_map {
	struct pcprof_raw_header *h; /* NULL: none */
	size_t size;                 /* of the file */
	size_t page;
	size_t head_len; /* of the header's mapping: the thread table's first level */
	uint64_t mod_off;
	uint32_t mod_cap;
	struct pcprof_raw_module *mods; /* the first mod_mapped entries */
	uint32_t mod_mapped;
	struct raw_table thr, slot;
	struct raw_table node;  /* max 0: no stacks (PCPROF_RAW_F_STACKS unset) */
	struct profil_rec *rec; /* the tables' mappings, or NULL: none */
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
	/* PCPROF_SECCOMP: the seccomp filters pcprof run itself runs under
	 * (filters.h: a count, or PROFIL_FILTERS_SOME), which are not the
	 * program's; RAW_FILTERS_UNSET if not given. */
	int filters;
};
#define RAW_FILTERS_UNSET (-1000)
bool profil__raw_env(struct raw_env *env);

/* Should this process image record?  (follow rules; seq is the image's.) */
bool profil__raw_wanted(const struct raw_env *env, pid_t pid, uint32_t seq);

/* This image's token (record-format.h) for process pid.  The same in the
 * library and the audit module of one image, different after fork or exec. */
uint64_t profil__raw_token(pid_t pid);

/* The newest file of pid in dir: seq -1 if none; lost: it is a .lost
 * marker, made by the image with that token, for errno err. */
struct raw_latest {
	int seq;
	bool lost;
	uint64_t token;
	int err;
};
void profil__raw_latest(const char *dir, pid_t pid, struct raw_latest *out);

/* Leave the marker of an image of pid that will not record, for errno err
 * (a fork child of an image that could not record: it is counted, and the
 * marker gets its CPU time when it ends, record.c), if such an image is
 * wanted.  Returns its seq, or -errno.  Takes no space. */
int profil__raw_mark_lost(const struct raw_env *env, pid_t pid, int err);

/*
 * Create the next file for pid ("<dir>/<pid>.<seq>.raw", seq one past the
 * newest), reserve its header and the first level of each table (at least
 * `modules` module entries), map the header and those module entries, and,
 * with rec (not NULL), the first level of each table into rec, and fill
 * the fixed header fields.  Returns 0, or -errno (-ENOMEM: the mappings
 * would not leave the program room under its RLIMIT_AS, see
 * profil__sink_room); when the file was made but not its reservation or
 * mappings, it is left as the empty marker
 * "<pid>.<seq>.<errno>.<token>.lost" and nothing stays mapped.
 */
int profil__raw_create(const struct raw_env *env, pid_t pid, uint32_t modules,
		       struct profil_rec *rec, struct raw_map *m);

/* Map "<dir>/<pid>.<seq>.raw" as create does (with rec: every level open)
 * if it passes every check above and carries `token`.  Returns 0, or
 * -errno (-EPERM for a file that is not trusted, -EINVAL for a bad header,
 * -ESTALE for another image's, -ENOMEM as for create). */
int profil__raw_attach(const char *dir, pid_t pid, int seq, uint64_t token, struct profil_rec *rec,
		       struct raw_map *m);

/* Read the header of "<dir>/<pid>.<seq>.raw", made by another image of pid
 * (an earlier image of the exec chain), if it passes the same checks: only
 * for its values, never to write there.  Returns 0, or -errno as above. */
int profil__raw_read_header(const char *dir, pid_t pid, int seq, struct pcprof_raw_header *h);

/* Unmap everything create or attach mapped, the levels the handler
 * mapped since included (rec's are cleared).  Not while a handler may use
 * them: at exit of the recording, or in a fork child. */
void profil__raw_unmap(struct raw_map *m);

/* Map at least the first n module entries (n <= mod_cap), if they are not
 * yet: the audit module may have made more since the library mapped them.
 * Returns 0 or -errno. */
int profil__raw_map_modules(struct raw_map *m, uint32_t n);

static inline struct pcprof_raw_module *profil__raw_modules(const struct raw_map *m)
{
	return m->mods;
}

/*
 * Describe the object at `path` loaded with `bias` and append it at the
 * current epoch, unless a loaded entry with the same path and bias exists;
 * reserves more entries when needed.  mem_ehdr, if not NULL, is the object's
 * ELF header in memory (the vDSO, which has no file).  Returns the entry
 * index, or -errno (-ENOSPC: no room; counted in lost_modules).
 */
int profil__raw_add_module(struct raw_map *m, const char *path, uint64_t bias,
			   const void *mem_ehdr);

/* Mark entry idx unloaded and start a new epoch. */
void profil__raw_unload_module(struct raw_map *m, uint32_t idx);

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
