/*
 * helpers/scratch.h - a test's scratch directory under /tmp, and a small
 * tmpfs mounted inside it to play a full file system; both go away at exit,
 * also when the test fails (a mounted tmpfs left behind would outlive every
 * rm -rf).  Header only; include as "helpers/scratch.h".
 */
#ifndef SCRATCH_H
#define SCRATCH_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "test.h"

static char scratch[64], scratch_fs[80];

static void scratch_cleanup(void)
{
	if (scratch_fs[0] && umount(scratch_fs) < 0)
		umount2(scratch_fs, MNT_DETACH);
	char cmd[96];
	snprintf(cmd, sizeof cmd, "rm -rf %s", scratch);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", scratch);
}

static inline void scratch_init(const char *name)
{
	snprintf(scratch, sizeof scratch, "/tmp/%s.XXXXXX", name);
	T_OK(mkdtemp(scratch));
	atexit(scratch_cleanup);
}

/* Mount a tmpfs of `size` (as mount(8) takes it: "20k") at scratch/fs and
 * return its path; NULL with errno if mounting is not allowed. */
static inline const char *scratch_tmpfs(const char *size)
{
	char opts[32];
	snprintf(scratch_fs, sizeof scratch_fs, "%s/fs", scratch);
	snprintf(opts, sizeof opts, "size=%s", size);
	T_OK(mkdir(scratch_fs, 0700) == 0);
	if (mount("scratch", scratch_fs, "tmpfs", 0, opts) < 0) {
		scratch_fs[0] = 0;
		return NULL;
	}
	return scratch_fs;
}

static inline void scratch_umount(void)
{
	T_OK(umount(scratch_fs) == 0);
	scratch_fs[0] = 0;
}

#endif
