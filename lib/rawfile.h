/*
 * rawfile.h - creating, attaching and filling the raw per-process recording
 * of lib/record-format.h.  Shared by the library (record.c) and the audit
 * module (audit/audit.c), which run in different linker namespaces of the
 * same process and meet only in the shared file.  Normal context only (not
 * AS-safe): these run from constructors, fork handlers and audit callbacks.
 */
#ifndef PROFIL_RAWFILE_H
#define PROFIL_RAWFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "record-format.h"

struct raw_map {
	struct pcprof_raw_header *h; /* NULL: none */
	size_t size;
};

/* Settings from the environment (PCPROF_*); dir[0] == 0 when not recording. */
struct raw_env {
	char dir[4096];
	pid_t root;
	bool follow;
	uint64_t slots;
};
bool profil__raw_env(struct raw_env *env);

/* Should this process image record?  (follow rules; seq is the image's.) */
bool profil__raw_wanted(const struct raw_env *env, pid_t pid, uint32_t seq);

/* Create the next file for pid ("<dir>/<pid>.<seq>.raw", seq = one past the
 * highest existing), size it and map it.  Fills the fixed header fields.
 * Returns 0 or -errno. */
int profil__raw_create(const struct raw_env *env, pid_t pid, struct raw_map *m);

/* Highest seq existing for pid, or -1. */
int profil__raw_last_seq(const char *dir, pid_t pid);

/* Map an existing file "<dir>/<pid>.<seq>.raw".  Returns 0 or -errno. */
int profil__raw_attach(const char *dir, pid_t pid, int seq, struct raw_map *m);

void profil__raw_unmap(struct raw_map *m);

static inline struct pcprof_raw_module *profil__raw_modules(struct pcprof_raw_header *h)
{
	return (struct pcprof_raw_module *)((char *)h + h->mod_off);
}

/*
 * Describe the object at `path` loaded with `bias` and append it at the
 * current epoch, unless a loaded entry with the same path and bias exists.
 * mem_ehdr, if not NULL, is the object's ELF header in memory (the vDSO,
 * which has no file).  Returns the entry index, or -errno.
 */
int profil__raw_add_module(struct pcprof_raw_header *h, const char *path, uint64_t bias,
			   const void *mem_ehdr);

/* Mark entry idx unloaded and start a new epoch. */
void profil__raw_unload_module(struct pcprof_raw_header *h, uint32_t idx);

/* Path of the running executable (readlink /proc/self/exe), for the main
 * program, which the loader names "". */
void profil__raw_exe_path(char *buf, size_t len);

#endif
