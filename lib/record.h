/*
 * record.h - the whole-process recorder used by `pcprof run`: every sample's
 * pc is counted in a table in memory shared with pcprof, so the data
 * survives any death of the program.  Started by the library constructor
 * when the PCPROF_* environment is present.  See docs/formats.md.
 *
 * The control half (normal context).  What the handler calls, and the
 * struct profil_rec it reads, are in sig/sink.h, which this includes.
 */
#ifndef PROFIL_RECORD_H
#define PROFIL_RECORD_H

#include "internal.h"
#include "sig/sink.h"

#include <stdbool.h>

/* Called by session.c: at start-up (not AS-safe), in the child after fork
 * (control lock held), and around exec (control lock held).  record_init
 * records at hz (the base rate) and says whether a recording started:
 * then session.c starts the engine for it and tells it which one runs
 * (record_note_engine).  The recorder never calls up into session.c. */
PROFIL_HIDDEN bool profil__record_init(unsigned int hz);
PROFIL_HIDDEN void profil__record_note_engine(const char *engine, const char *why, bool user_time);
PROFIL_HIDDEN void profil__record_fork_child(void);
/* In the child after fork when the library is sealed (internal.h): memory
 * only, the parent's recording is forgotten, never written.  AS-safe. */
PROFIL_HIDDEN void profil__record_fork_child_sealed(void);
/* Control lock held: the recording stops for `why` (enum pcprof_raw_stop)
 * at the process CPU time now, which it keeps (sig/sink.h); nothing more is
 * recorded, the exit still ends the file.  unstop takes it back (a seccomp
 * filter that was not installed after all). */
PROFIL_HIDDEN void profil__record_stop(uint32_t why);
PROFIL_HIDDEN void profil__record_unstop(void);
PROFIL_HIDDEN void profil__record_exec(uint64_t thread_cpu);
PROFIL_HIDDEN void profil__record_exec_failed(void);
/* _exit or _Exit (exec.c): the image ends without its exit handlers.  Its
 * owed ticks, its CPU time so far (stored only every few signals
 * otherwise) and its peak resident set go into the recording; the end stays unknown, for whoever
 * reaps it to tell.  Nothing in a vfork child.  AS-safe. */
PROFIL_HIDDEN void profil__record_quick_exit(void);

/* An image whose recording could not be made (its marker stands for it)
 * ends here, by exec: the marker gets the process CPU time.  Nothing in
 * any other image, or in a vfork child.  AS-safe. */
PROFIL_HIDDEN void profil__record_lost_end(void);

/* For the exec wrappers (exec.c), between record_exec and the exec, in the
 * thread that execs (never a vfork child): the recording directory when
 * exec'd images are to be recorded (a recording runs and follows them),
 * else NULL; and what the image about to start will be, with why it will
 * not be recorded (enum pcprof_raw_unfollowed) if the wrapper can tell.
 * A later call replaces an earlier one (the PATH search tries several
 * files); record_exec_failed clears it.  Not AS-safe; no allocation. */
PROFIL_HIDDEN const char *profil__record_follow_dir(void);
PROFIL_HIDDEN void profil__record_exec_target(uint32_t why, const char *path, char *const argv[]);

/* In a vfork child (sharing the recording image's memory, so its file):
 * about to exec `path`, which will not be recorded for `why`; returns
 * whether it was counted, to be undone with profil__record_spawn_failed
 * if the exec fails.  No allocation, no lock: atomics on the shared
 * header only. */
PROFIL_HIDDEN int profil__record_spawn_target(uint32_t why, const char *path);
PROFIL_HIDDEN void profil__record_spawn_failed(int counted);

#endif
