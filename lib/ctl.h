/*
 * ctl.h - the control core: the control lock, and the state of the running
 * engine that the control files read.  Layer L2 of lib/ (lib/sig/README):
 * above the signal path, below threads.c, record.c, exec.c and session.c.
 * session.c writes the state; threads.c, record.c and exec.c read it here,
 * so none of them calls up into session.c (docs/design.md, "Layers").
 * May include: lib/internal.h, lib/engine.h (types), lib/sig/.
 */
#ifndef PROFIL_CTL_H
#define PROFIL_CTL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "internal.h"
#include "sig/seal.h"

/*
 * Take / release the control lock.  Blocks every asynchronous signal in the
 * calling thread first (restored by unlock), so a signal handler that calls
 * pcsample() can never deadlock against its own thread.  Takes nothing and
 * returns false when the library is sealed (internal.h), or becomes so:
 * the calling thread is under a filter that is not the program's
 * (profil__filter_check, before anything is held), its holder died in it
 * (taken from it, and sealed), or another thread sealed it while this one
 * waited.  The holder may make its system calls; a caller that gets false
 * makes none and leaves.  AS-safe.
 */
PROFIL_HIDDEN bool profil__lock(sigset_t *saved) __attribute__((warn_unused_result));
/* The same, looking harder for a filter (profil__filter_check): at the
 * moments that are not per thread (start, fork, exec, exit). */
PROFIL_HIDDEN bool profil__lock_thorough(sigset_t *saved) __attribute__((warn_unused_result));
PROFIL_HIDDEN void profil__unlock(const sigset_t *saved);
/* The lock if it is free now, else false (and the mask as it was): for
 * _exit, which a signal handler may call while its thread holds the lock.
 * AS-safe. */
PROFIL_HIDDEN bool profil__trylock(sigset_t *saved) __attribute__((warn_unused_result));
/* Block every asynchronous signal in the calling thread, saving the old
 * mask (synchronous ones stay deliverable).  AS-safe. */
PROFIL_HIDDEN void profil__block_async(sigset_t *saved);
/* The lock holder's mask from before profil__lock (for choosing and
 * reserving a sampling signal, sigown.h); NULL when the lock is free. */
PROFIL_HIDDEN sigset_t *profil__lock_saved(void);
/* In the child after fork: the lock, held by the forking thread, is free. */
PROFIL_HIDDEN void profil__lock_fork_child(void);

/* The engine running now (NULL if none).  Set by session.c under the
 * control lock; read anywhere.  AS-safe (atomic). */
PROFIL_HIDDEN const struct profil_engine *profil__running_engine(void);
PROFIL_HIDDEN void profil__set_running_engine(const struct profil_engine *e);
/* The running engine sees only user time (engine.h, user_only).  AS-safe. */
PROFIL_HIDDEN bool profil__user_time_only(void);
/* Incremented by session.c each time an engine starts. */
PROFIL_HIDDEN extern _Atomic uint32_t profil__start_seq;

#endif
