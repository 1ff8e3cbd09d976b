/*
 * session-int.h - what the files of the control path share, and nothing
 * else in lib/ includes: the session's state (S), the choice of engine
 * (engine-choice.c) and the environment (env.c).  session.c installs
 * configurations, gives signals back, and handles exec, fork and seccomp
 * filters; extensions.c is the public API beyond the classic calls;
 * session-state.c holds the state and its small queries.  Every field is
 * read and written under the control lock (ctl.h) unless it is atomic.
 * Not AS-safe unless stated.
 */
#ifndef PROFIL_SESSION_INT_H
#define PROFIL_SESSION_INT_H

#include "config.h"
#include "session.h"

struct profil_session {
	struct profil_cfg *cfg;           /* installed, owned */
	const struct profil_engine *last; /* last that ran */
	/* By name, or NULL: PROFIL_ENGINE or profil_set_engine, for the
	 * program's own profiling; and for a recording, what pcprof run was
	 * asked for (PCPROF_ENGINE), which a PROFIL_ENGINE the program set
	 * for its children does not change. */
	const struct profil_engine *forced, *rec_forced;
	struct profil_run run; /* of the running engine */
	int sig;               /* handled for the engine */
	int last_sig;          /* the last run's */
	bool guard;            /* SIGSEGV/SIGBUS hook in */
	_Atomic int policy;
	_Atomic unsigned int base_hz;
	char why[256];
	char moved[96];                /* the last move of the sampling signal */
	struct profil_cfg *exec_saved; /* stopped for an exec */
	sigset_t fork_mask;
	/* The program's calls that install a seccomp filter under way
	 * (seccomp.c), whether one of them did, and what profiling was on
	 * before the first, for when none did. */
	_Atomic int installing;
	_Atomic bool filter_in;
	struct profil_cfg *seal_saved;
};

/* One object, named S in these files as musl names its __libc libc
 * (src/internal/libc.h): the control path is one state, split by job
 * into files, not several states. */
PROFIL_HIDDEN extern struct profil_session profil__session;
#define S profil__session

/* ---- engine-choice.c ---- */

/* Start the first engine of the order for run that can (every thread
 * covered; else the first refused only for lack of resources, for the
 * threads it can), saying why in S.why.  Control lock held.  0 or -errno. */
PROFIL_HIDDEN int profil__engine_start(const struct profil_run *run);
/* Start engine e for run; whole: every thread must be covered.  Control
 * lock held.  0 or -errno. */
PROFIL_HIDDEN int profil__engine_try(const struct profil_engine *e, const struct profil_run *run,
				     bool whole);
/* Stop the running engine, if any, and give its signal back unless it
 * lingers.  Control lock held. */
PROFIL_HIDDEN void profil__engine_stop(void);
/* The engine called name, or NULL.  AS-safe. */
PROFIL_HIDDEN const struct profil_engine *profil__engine_by_name(const char *name);
/* Append sig's name as PROFIL_SIGNAL accepts it ("SIGRTMAX-2").  AS-safe. */
PROFIL_HIDDEN void profil__signal_name(char *buf, size_t len, int sig);

/* ---- env.c ---- */

/* Read the PROFIL_* settings into profil__env (nothing in a
 * secure-execution process); what is invalid is named in its `bad`.
 * Once, from the constructor. */
PROFIL_HIDDEN void profil__env_read(void);

#endif
