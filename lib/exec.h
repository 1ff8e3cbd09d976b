/*
 * exec.h - what exec.c offers the posix_spawn wrappers (spawn.c).
 */
#ifndef PROFIL_EXEC_H
#define PROFIL_EXEC_H

#include <stdbool.h>

#include "internal.h"

/* Before posix_spawn (search: posix_spawnp) of file with envp: if the
 * child will not be recorded and this image's recording follows children,
 * count and maybe name it there.  actions: the spawn has file actions;
 * resetids: POSIX_SPAWN_RESETIDS.  Returns what was counted, for
 * profil__record_spawn_failed if the spawn fails.  errno unchanged.  Not
 * AS-safe; no allocation. */
PROFIL_HIDDEN int profil__spawn_note(const char *file, bool search, bool actions, bool resetids,
				     char *const envp[]);

#endif
