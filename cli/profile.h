/*
 * profile.h - pcprof's in-memory profile: what `pcprof run` collects from the
 * raw per-process recordings (lib/record-format.h), what the data file
 * stores (docs/formats.md, cli/data.c) and what report and export read.
 *
 * Addresses in samples are runtime pcs; a module's bias turns them into
 * link-time addresses (pc - bias), which is what symbol tables, gprof and
 * the data file's per-module view use.
 */
#ifndef PCPROF_PROFILE_H
#define PCPROF_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#define PP_NO_MODULE UINT32_MAX

struct pp_segment {
	uint64_t vaddr; /* link-time p_vaddr */
	uint64_t memsz;
	uint64_t offset; /* p_offset */
	uint32_t flags;  /* PF_R/PF_W/PF_X */
};

struct pp_module {
	char *path; /* absolute; "[vdso]"; never NULL */
	uint8_t build_id[40];
	uint32_t build_id_len;
	uint64_t bias;                         /* runtime = link-time + bias */
	uint32_t epoch_loaded, epoch_unloaded; /* unloaded 0: loaded at the end */
	uint32_t nsegs;
	struct pp_segment seg[8];
};

struct pp_thread {
	int32_t tid;
	char name[16];
	uint64_t ticks;
};

/*
 * One frame of a call path.  The frames of a process form a tree in which
 * each frame's parent is its caller (PP_NO_FRAME for the outermost), so a
 * whole stack is one index: its leaf.  pc is the runtime address to look
 * up (lib/sig/unwind.h: the interrupted pc for a leaf and for a frame a
 * signal interrupted, the return address minus one for a caller), or a
 * marker PCPROF_FRAME_UNKNOWN / PCPROF_FRAME_TRUNCATED (lib/record-format.h)
 * with module PP_NO_MODULE.  Two frames with the same pc and parent but
 * different modules (an address reused after dlclose) are two frames.
 */
#define PP_NO_FRAME UINT32_MAX

struct pp_frame {
	uint64_t pc;
	uint32_t module; /* index in modules, or PP_NO_MODULE */
	uint32_t parent; /* index in frames, or PP_NO_FRAME */
};

struct pp_sample {
	uint64_t pc;     /* runtime address */
	uint32_t module; /* index in modules, or PP_NO_MODULE */
	uint32_t thread; /* index in threads */
	uint64_t count;  /* weighted ticks */
	uint32_t frame;  /* leaf of its stack (same pc), or PP_NO_FRAME: none recorded */
	uint32_t time;   /* 1 + its time bucket (pp_profile.bucket_ns), or
			    PP_NO_TIME: not known */
};

#define PP_NO_TIME 0u

enum pp_end { PP_END_UNKNOWN = 0, PP_END_EXIT = 1, PP_END_EXEC = 2, PP_END_SIGNAL = 3 };

/*
 * CPU time of an image that no sample stands for, by cause: pcprof run
 * compares each image's samples with its CPU time (the kernel's figure at
 * its exit or exec) and names what it finds missing (cli/raw.c, raw_gaps;
 * docs/formats.md).  The numbers are part of the data file; a cause a
 * newer pcprof wrote that this one does not know is read as UNKNOWN.
 */
enum pp_gap {
	PP_GAP_UNSAMPLED = 0, /* threads no engine could arm (a resource limit,
				 the program closed their timer or event, took
				 every free signal) */
	PP_GAP_BLOCKED = 1,   /* threads that blocked the sampling signal in the
				 kernel (a raw rt_sigprocmask) */
	PP_GAP_IOURING = 2,   /* io_uring's workers: kernel threads of the
				 process that never run user code */
	PP_GAP_FOREIGN = 3,   /* threads the library did not see start (made
				 without pthread_create) */
	PP_GAP_BEFORE = 4,    /* threads' time while no engine ran on them */
	PP_GAP_TEARDOWN = 5,  /* threads after their exit handlers (their
				 teardown in libc and the kernel) */
	PP_GAP_NOEXIT = 6,    /* threads that ended without exit handlers (a
				 raw SYS_exit), after their last payment */
	PP_GAP_NOENGINE = 7,  /* images in which no engine could start (a fork
				 child under a resource limit) */
	PP_GAP_UNKNOWN = 8,   /* beyond every cause the library could see */
	PP_GAP_N = 9
};

struct pp_gap_part {
	uint64_t ns;      /* CPU time */
	uint32_t threads; /* threads it is known to be of (0: not known) */
};

struct pp_process {
	int32_t pid, ppid;
	uint32_t seq;  /* image number within pid (exec chain) */
	char *exe;     /* never NULL */
	char *cmdline; /* never NULL */
	uint32_t hz;
	char engine[24];
	char *why; /* engine choice text; never NULL */
/* How `why` begins for an image pcprof run added for an exec the library
 * could not enter (raw.c), the reason following. */
#define PP_WHY_NOT_RECORDED "not recorded: "
	uint64_t start_ns, end_ns;
	uint64_t cpu_ns;
	uint64_t signals, ticks, lost;
	uint32_t end;        /* enum pp_end */
	int32_t exit_status; /* if known: exit code, or signal number for PP_END_SIGNAL */
	uint64_t mem_bytes;  /* recording memory the target used */
	size_t nmodules, nthreads, nsamples, nframes;
	struct pp_module *modules;
	struct pp_frame *frames;
	struct pp_thread *threads;
	struct pp_sample *samples; /* sorted by (module, pc, thread, frame, time) */
	/* The timeline: ticks recorded without their time (the recording's
	 * table had no room for timed samples), and 1 + the bucket from which
	 * on that happened (0: never): the timeline is partial from there. */
	uint64_t tl_lost;
	uint32_t tl_partial;
	/* The recording stopped before the image ended (enum pp_stop), and
	 * the CPU time not sampled from then on, part of cpu_ns.  After a
	 * seccomp filter that counts the image's own CPU time, and for the
	 * first such image of a run also that of the processes the filter
	 * kept out of the recordings (its descendants, reaped without one:
	 * cmd-run.c), which cpu_ns then holds too.  Version 3 records carry
	 * it at their end (0 in older files). */
	uint32_t stop;
	uint64_t stop_ns;
	/* CPU time without samples, by enum pp_gap (all 0 in older files,
	 * and for an image whose recording could not say), stop_ns aside:
	 * the two never count the same time. */
	struct pp_gap_part gap[PP_GAP_N];
};

/* Why a recording stopped (the raw recordings' reasons, record-format.h). */
enum pp_stop {
	PP_STOP_NONE = 0,
	PP_STOP_SECCOMP = 1, /* the program installed a seccomp filter */
	PP_STOP_MANUAL = 2,  /* the program chose the manual engine */
	PP_STOP_MAX = 2
};

struct pp_profile {
	char *command; /* the command line pcprof ran; never NULL */
	uint64_t start_ns, end_ns;
	size_t nprocs;
	struct pp_process *procs;
	/* Length of a time bucket (samples' time); 0: no timeline (recorded
	 * without one, or a data file older than version 3). */
	uint64_t bucket_ns;
	uint32_t version; /* of the data file read (pp_read); 0: made in memory */
};

/*
 * Read a data file.  Returns 0, or -1 with a one-line message in err naming
 * the problem (the caller adds the file name): truncated, corrupted, foreign
 * or newer-version files are errors, never crashes.
 */
int pp_read(const char *path, struct pp_profile *out, char *err, size_t errlen);

/* Write atomically: a temporary file in the same directory, fsync, rename.
 * Returns 0 or -1 with err set. */
int pp_write(const char *path, const struct pp_profile *p, char *err, size_t errlen);

void pp_free(struct pp_profile *p);

/* The module containing runtime address pc at module generation epoch, or
 * PP_NO_MODULE. */
uint32_t pp_find_module(const struct pp_process *proc, uint64_t pc, uint32_t epoch);

#endif
