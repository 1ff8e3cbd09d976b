/*
 * reserve.h - how many kernel objects the engines may take from resource
 * limits the program shares with them (reserve.c).
 *
 * Per-thread engines take one object per thread: a descriptor (perf) or a
 * POSIX timer, which holds one queued-signal slot of RLIMIT_SIGPENDING
 * (thread-timer; process-timer takes one).  Every object is taken through
 * profil__reserve_take and given back through profil__reserve_give, so that
 * the library never holds more than half of the headroom the soft limit
 * leaves (libprofil(7), LIMITS).
 *
 * Called with the control lock held (engine attach, detach, start, stop,
 * fork_child).  AS-safe: raw system calls and static data only.
 */
#ifndef PROFIL_RESERVE_H
#define PROFIL_RESERVE_H

#include "internal.h"

enum profil_res {
	PROFIL_RES_FD,   /* a descriptor: RLIMIT_NOFILE */
	PROFIL_RES_SIGQ, /* a queued-signal slot: RLIMIT_SIGPENDING */
	PROFIL_NRES
};

/* May the library take one more object of kind r?  0 (now counted as held)
 * or the error the limit itself would give: -EMFILE for descriptors,
 * -EAGAIN for queued signals.  AS-safe. */
PROFIL_HIDDEN int profil__reserve_take(enum profil_res r);

/* One object of kind r taken with profil__reserve_take is gone (closed,
 * deleted, or taken away by the program).  AS-safe. */
PROFIL_HIDDEN void profil__reserve_give(enum profil_res r);

/* In the child after fork: it holds none of the parent's objects.  AS-safe. */
PROFIL_HIDDEN void profil__reserve_fork_child(void);

#endif
