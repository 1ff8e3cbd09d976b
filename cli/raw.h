/*
 * raw.h - reading the raw per-process recordings that libprofil writes for
 * `pcprof run` (lib/record-format.h) into the profile model (profile.h).
 * Not thread-safe; never exits: every problem comes back as a message.
 */
#ifndef PCPROF_RAW_H
#define PCPROF_RAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* What a recording says beyond the profile model, for the run summary. */
struct raw_info {
	uint32_t raw_end;      /* enum pcprof_raw_end */
	uint32_t flags;        /* PCPROF_RAW_F_* */
	uint64_t lost_table;   /* ticks not stored: the pc table was full */
	uint64_t lost_threads; /* ticks of threads beyond the thread table
				  (kept, under the "[other]" thread) */
	uint64_t lost_busy;    /* ticks in slots the process was filling as it died */
	uint64_t lost_modules; /* modules not listed: no room */
	int32_t table_error;   /* errno: the pc or thread table could not grow */
	int32_t mod_error;     /* errno: the module table could not grow */
	int32_t node_error;    /* errno: the stack node table could not grow */
	uint64_t mapped;       /* bytes the recording mapped in the target */
	uint64_t cpu_start_ns; /* process CPU time when the image started */
	uint64_t owed;         /* ticks of pr->ticks no signal brought */
	uint64_t unsampled;    /* ticks of CPU time that could not be sampled */
	uint64_t stack_cut;    /* ticks whose stack lost its innermost callers
				  (the trie was full): [truncated] */
	uint64_t exit_rss_kib; /* peak resident set at exit, KiB (0: unknown) */
	/* Version 6: the process CPU time at which the recording stopped
	 * (pr->stop says why; 0: it did not), as cpu_start_ns counts. */
	uint64_t stop_cpu_ns;

	/* Threads the library did not sample, wholly or in part, and threads
	 * that ended without exit handlers (see record-format.h). */
	uint64_t threads_unsampled;
	uint64_t threads_unseen;
	uint64_t tl_origin_ns, tl_bucket_ns; /* the timeline's clock (version 4) */
	/* Version 6 (record-format.h): what the schedules covered of the
	 * image's CPU time, and what the library saw beside them. */
	bool spanned; /* the image wrote them (exit, exec, _exit) */
	uint64_t covered_ns, before_ns, threads_ended, iou_ns, foreign_ns, blocked, unslotted;
	uint32_t iou_threads, foreign_threads, blocked_threads, gap_flags;
	int32_t own_pid; /* its pid in a pid namespace of its own, else 0 */

	/* An image whose recording could not be made (not a recording:
	 * raw_collect made its entry from its marker, struct raw_unrecorded):
	 * its why names the errno; its CPU time is what its marker says, less
	 * the previous image's (cpu_start_ns), or 0 if it did not say. */
	bool unrecorded;
	/* An image the library never entered (not a recording: raw_collect
	 * made its entry from the exec that started it), and why: enum
	 * pcprof_raw_unfollowed, as the exec wrapper saw it (NONE: it could
	 * not tell).  Its cpu_start_ns is the process CPU time at that exec. */
	bool unentered;
	uint32_t unfollowed;
	/* For an image that exec'd (version 5), else NULL: the file and
	 * arguments (raw_set_free frees them). */
	char *exec_path, *exec_cmdline;
	/* Children that shared this image's memory (vfork) and exec'd where
	 * the library does not follow (version 5), and the first one's reason
	 * and file (NULL if not known). */
	uint32_t spawn_unfollowed, spawn_why;
	char *spawn_path;
};

/*
 * Fill pr->gap (profile.h) from what the recording says: the image's CPU
 * time (pr->cpu_ns, less pr->stop_ns: what it used after its recording
 * stopped is the stop's) less what the tick schedules covered, split by the
 * causes the library measured or saw, the rest named only beyond the
 * noise of the comparison; and what was covered but could not be sampled
 * (threads no engine armed, threads that blocked the signal).  An image
 * that did not write its figures (killed, a recording before version 6,
 * perf sampling user time only) keeps only the second part.
 */
void raw_gaps(struct pp_process *pr, const struct raw_info *in);

/* "statically linked", ...: why an exec'd image was not recorded. */
const char *raw_unfollowed_text(uint32_t why);

/*
 * Read one recording into *out (free with pp_process_free, data.h).  The
 * process may still be running: what it wrote so far is read.  Returns 0,
 * or -1 with a one-line message in err (not a recording, a recording the
 * process never started writing, an inconsistent header, counts beyond
 * what a data file holds, data.h).
 */
int raw_read(const char *path, struct pp_process *out, struct raw_info *info, char *err,
	     size_t errlen);

/* An image that ran unrecorded: its recording could not be made (a
 * "<pid>.<seq>.<errno>.<token>.lost" marker, lib/record-format.h), with the
 * process CPU time at its end when the image could say it
 * ("<pid>.<seq>.<errno>.<token>.<ns>.lost"), and the marker's times. */
struct raw_unrecorded {
	int32_t pid;
	uint32_t seq;
	int err; /* errno */
	bool has_cpu;
	uint64_t cpu_ns;           /* the process CPU clock at the image's end */
	uint64_t start_ns, end_ns; /* the marker made (mtime) and last renamed (ctime) */
};

/* A directory's recordings ("*.raw"), converted and sorted by start time,
 * pid and image number, and the markers of the images that have none
 * (each also an entry of its own, info.unrecorded).
 * An image that exec'd and has neither a next recording nor a marker
 * gets an entry for the image it became (info.unentered): no samples, no
 * modules, its program and arguments from the exec, "?" as how it ended
 * (its status and CPU time are known only to whoever waited for it). */
struct raw_set {
	size_t n;
	struct pp_process *procs;
	struct raw_info *info; /* parallel to procs */
	size_t nbad;           /* recordings that could not be read, or whose counts
				  would take the set's past a data file's bounds */
	char first_bad[512];   /* the message for the first of them */
	size_t nunrecorded;
	struct raw_unrecorded *unrecorded; /* sorted by pid, seq */
	uint64_t bucket_ns;                /* the samples' time buckets (profile.h), 0: none */
};

void raw_set_free(struct raw_set *set); /* info and unrecorded; procs go to pp_free */

/* Returns 0, or -1 with err set if the directory cannot be read. */
int raw_collect(const char *dir, struct raw_set *set, char *err, size_t errlen);

#endif
