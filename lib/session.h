/*
 * session.h - the control path shared by the public entry points: install a
 * configuration, choose and run the engine, own the signals.  Not AS-safe
 * unless stated; see the top of session.c for the lock order.
 */
#ifndef PROFIL_SESSION_H
#define PROFIL_SESSION_H

#include <pthread.h>

#include "ctl.h"
#include "engine.h"
#include "sig/sample.h"

/* Who is installing: pcsample keeps the previous session's sample count,
 * any other profiling call resets it (illumos), a deferred teardown or an
 * exec stop is neutral. */
enum { PROFIL_CALL_OTHER = 0, PROFIL_CALL_PCSAMPLE = 1, PROFIL_CALL_SETTLE = 2 };

/*
 * Replace the process-wide configuration by cfg (NULL: off), starting or
 * stopping the engine as needed.  On success the previous configuration is
 * freed and, once this returns, no handler touches its buffers any more.
 * On failure nothing changed and cfg is not consumed.  Control lock NOT held
 * by the caller.  AS-safe (pcsample's path).
 */
PROFIL_HIDDEN int profil__install(struct profil_cfg *cfg, int call);

/* Same, for a caller that already holds the control lock (the AIX entry
 * point decides under the lock whether the call is effective). */
PROFIL_HIDDEN int profil__install_locked(struct profil_cfg *cfg, int call);

/* The configuration installed now (lock held), NULL if off or stopped. */
PROFIL_HIDDEN struct profil_cfg *profil__current_locked(void);

/* Policy and base rate in force for configurations built now.  AS-safe. */
PROFIL_HIDDEN int profil__policy(void);
PROFIL_HIDDEN unsigned int profil__base_hz(void);

/* The engines the library tries, in order, for run when the kernel tick is
 * khz Hz (0: unknown) and no engine is named: into out (room for every
 * engine), returns how many.  Pure; for session.c and the tests. */
PROFIL_HIDDEN size_t profil__engine_order(const struct profil_run *run, unsigned int khz,
					  const struct profil_engine **out);

/* pcsample's count of the previous session (see pcsample.c). */
PROFIL_HIDDEN extern uint64_t profil__pcs_last_count;

/* The program claimed sig (siginterpose.c): if the library samples with
 * it or keeps it as the spare, give it back (session.c). */
PROFIL_HIDDEN void profil__sig_give_back(int sig);

/* seccomp.c: the program is about to install a seccomp filter (begin:
 * profiling stops, the library is sealed), and its call returned (end:
 * installed or not; when none of the calls under way installed one, it
 * goes on as before).  Not AS-safe. */
PROFIL_HIDDEN void profil__seal_begin(void);
PROFIL_HIDDEN void profil__seal_end(bool installed);

/* exec.c: stop before an exec, resume if it failed.  Not AS-safe. */
PROFIL_HIDDEN void profil__exec_prepare(void);
PROFIL_HIDDEN void profil__exec_failed(void);

#endif
