/*
 * record-format.h - the raw per-process recording that libprofil writes for
 * `pcprof run`, shared between the library (writer, lib/record.c) and pcprof
 * (reader, cli/).  Not a public interface and not a file format users keep:
 * pcprof turns these files into its versioned data file (docs/formats.md).
 *
 * Protocol.  pcprof creates a private directory and starts the program with
 *   LD_PRELOAD=<libprofil.so.1>   the library, first in the list
 *   LD_AUDIT=<libprofil-audit.so.1>  module tracker (every load and unload,
 *                                 dlopen/dlclose included, without changing
 *                                 how dlopen resolves names); optional: without
 *                                 it modules are listed at start and at exit
 *   PCPROF_DIR=<dir>              where each process image writes its file
 *   PCPROF_ROOT=<pid>             the pid of the program pcprof started
 *   PCPROF_FOLLOW=0|1             record forked children and exec'd images
 *                                 (0: only the first image of PCPROF_ROOT)
 *   PCPROF_SLOTS=<n>              most pc table slots per process (and
 *                                 stack nodes, with stacks)
 *   PCPROF_STACKS=0|1             record each sample's call stack
 *   PCPROF_TIMELINE=0|1           stamp each sample with its time bucket
 *                                 (absent: 1)
 *   PROFIL_HZ, PROFIL_ENGINE      as for the library
 * A secure-execution process (AT_SECURE: set-user-ID, set-group-ID, file
 * capabilities) ignores all of them and records nothing.
 *
 * Each process image (the program, every forked child, every image after an
 * exec) has one file "<dir>/<pid>.<seq>.raw" (seq 0, 1, ... per pid: an exec'd
 * image takes the next free one), created by the audit module when the image
 * starts (or by the library if there is none, and by the library in a forked
 * child), mapped MAP_SHARED.  Everything is written in place, so the data
 * survives _exit, abort, SIGSEGV and SIGKILL: the kernel keeps the pages.
 *
 * Space.  The file is as large as its tables can grow, but only the parts in
 * use are backed, and mapped: the creator reserves the header and the first
 * level of each table with posix_fallocate, and a table grows by mapping its
 * next level and reserving it with MADV_POPULATE_WRITE before anyone writes
 * there, so no store can ever meet a full file system (which would be
 * SIGBUS).  Under RLIMIT_AS a table grows only while the process keeps its
 * room (lib/sig/sink.h, profil__sink_room); the error is then ENOMEM.  An
 * image whose first reservation fails runs unrecorded and leaves instead an
 * empty file "<dir>/<pid>.<seq>.<errno>.<token>.lost" (errno decimal, token
 * 16 hex digits), which pcprof reports, and so does each of its fork
 * children; when the image ends (exit, _exit, exec) the marker is renamed
 * "<dir>/<pid>.<seq>.<errno>.<token>.<cpu>.lost", cpu the process CPU
 * clock then, in decimal nanoseconds.
 *
 * All integers are native (x86-64: little-endian), all offsets from the start
 * of the file.  Fields marked (atomic) are updated while the program runs;
 * read them once the process is gone.
 */
#ifndef PROFIL_RECORD_FORMAT_H
#define PROFIL_RECORD_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PCPROF_RAW_MAGIC "PCPROFRAW\0\0\0\0\0\0" /* 16 bytes */
#define PCPROF_RAW_VERSION                                                                         \
	6 /* 3: stacks; 4: time buckets; 5: unfollowed execs;                                      \
	      6: stops, what the schedules covered; 2-5 still read */
#define PCPROF_RAW_V2_HEADER_SIZE 1904
#define PCPROF_RAW_V3_HEADER_SIZE 2104
#define PCPROF_RAW_V4_HEADER_SIZE 2136
#define PCPROF_RAW_V5_HEADER_SIZE 2928

#define PCPROF_RAW_MAX_MODULES 4096
#define PCPROF_RAW_MAX_SEGS    8
#define PCPROF_RAW_PATH        512
#define PCPROF_RAW_LEVELS      20         /* most levels of a growing table */
#define PCPROF_RAW_MAX_BASE    (1u << 24) /* largest first level */

/* Frame values of a recorded stack that are not addresses (no code lives
 * in the first page): the walk could not go on ("[unknown]"), or stopped at
 * the depth limit with more frames to go ("[truncated]"). */
#define PCPROF_FRAME_UNKNOWN       ((uint64_t)1)
#define PCPROF_FRAME_TRUNCATED     ((uint64_t)2)
#define PCPROF_FRAME_IS_MARKER(pc) ((uint64_t)(pc) < 4096)

/* How the image ended, as far as the library could tell. */
enum pcprof_raw_end {
	PCPROF_END_RUNNING = 0, /* never marked: killed, _exit, crash */
	PCPROF_END_EXIT = 1,    /* exit() / return from main (destructor ran) */
	PCPROF_END_EXEC = 2,    /* replaced by exec */
};

/* Why the image an exec starts will not be recorded, as the exec wrapper
 * saw it before the exec (lib/exec.c; header.exec_unfollowed). */
enum pcprof_raw_unfollowed {
	PCPROF_UNF_NONE = 0,    /* it should be recorded */
	PCPROF_UNF_STATIC = 1,  /* no PT_INTERP: no loader, no LD_PRELOAD */
	PCPROF_UNF_PRELOAD = 2, /* the new environment lacks our LD_PRELOAD */
	PCPROF_UNF_DIR = 3,     /* the new environment lacks our PCPROF_DIR */
	PCPROF_UNF_SETUID = 4,  /* secure execution: set-user-ID file */
	PCPROF_UNF_SETGID = 5,  /* secure execution: set-group-ID file */
	PCPROF_UNF_IDS = 6,     /* secure execution: real and effective ids differ */
	PCPROF_UNF_USER = 7,    /* its user cannot write the recording directory */
	PCPROF_UNF_CLASS = 8,   /* another ELF class or machine than the library's */
	PCPROF_UNF_MAX = 8
};

/* Why the library stopped recording an image before it ended
 * (header.stop_why, version 6). */
enum pcprof_raw_stop {
	PCPROF_STOP_NONE = 0,
	/* The program installed a seccomp filter, or the image began under
	 * one it had installed: from then on the library makes no system
	 * call of its own (libprofil(7), SECCOMP FILTERS). */
	PCPROF_STOP_SECCOMP = 1,
	/* The program asked for the manual engine (PROFIL_ENGINE=manual in
	 * its environment, or profil_set_engine) for its own profiling,
	 * which pcprof run had not asked for: only __profil_inject feeds it,
	 * and the recording takes nothing from then on. */
	PCPROF_STOP_MANUAL = 2,
	PCPROF_STOP_MAX = 2
};

/*
 * A hash table that grows by levels: level k holds base << k entries and
 * starts right after level k - 1.  New entries go to the top level (open -
 * 1); once it is half full the next level is reserved and opened, and the
 * levels below are only searched (an entry is never moved, so a key may be
 * found in more than one level: readers add them up).  Probing a level
 * stops at its first free entry.  In the thread table, once no level can
 * open, a new thread takes the first free entry of its probes in a level
 * below (lib/sig/sink.c), so that it holds as many threads as it has
 * entries.
 */
struct pcprof_raw_levels {
	uint64_t off;     /* offset of level 0 */
	uint32_t base;    /* entries of level 0, a power of two */
	uint32_t max;     /* levels the file has room for, 1..20 */
	uint32_t open;    /* (atomic) levels reserved and in use */
	uint32_t growing; /* (atomic) 1: a writer is reserving level
			     `open`; stays 1 if that failed */
	int32_t error;    /* (atomic) errno of the failed reservation */
	uint32_t pad;
	uint64_t used[PCPROF_RAW_LEVELS]; /* (atomic) entries taken per level */
};

struct pcprof_raw_header {
	char magic[16];       /* PCPROF_RAW_MAGIC */
	uint32_t version;     /* PCPROF_RAW_VERSION */
	uint32_t header_size; /* sizeof(struct pcprof_raw_header) */
	uint64_t file_size;   /* the file's size, all mapped; a page multiple */
	uint64_t token;       /* the image that made it: a hash of the kernel's
				 AT_RANDOM bytes (new at each exec) and the pid
				 (new at each fork) */
	int32_t pid, ppid;
	uint32_t seq;                  /* image number for this pid (exec chain) */
	uint32_t hz;                   /* sampling rate in force */
	char engine[24];               /* engine name, "" until started */
	char why[256];                 /* the library's engine choice text */
	char exe[PCPROF_RAW_PATH];     /* /proc/self/exe at start */
	char cmdline[PCPROF_RAW_PATH]; /* argv joined by spaces, truncated */
	uint64_t start_ns;             /* CLOCK_REALTIME at start */
	uint64_t end_ns;               /* (atomic) CLOCK_REALTIME at exit/exec, or 0 */
	uint64_t cpu_ns;               /* (atomic) process CPU time, updated every
					  few samples and at exit/exec */
	uint64_t cpu_start_ns;         /* process CPU time when this image started:
					  the clock runs on across exec, so the
					  image's own CPU time is cpu_ns - this */
	uint32_t end;                  /* (atomic) enum pcprof_raw_end */
	uint32_t epoch;                /* (atomic) module generation, see modules */
	uint64_t signals;              /* (atomic) profiling signals recorded */
	uint64_t ticks;                /* (atomic) weighted ticks recorded */
	uint64_t lost;                 /* (atomic) ticks not stored: the pc table
					  was full, or could not grow (slot.error) */
	uint64_t lost_threads;         /* (atomic) ticks of threads beyond the thread
					  table (still in the slots, with thread
					  UINT32_MAX) */
	uint32_t flags;                /* PCPROF_RAW_F_* */
	uint32_t pad;

	uint64_t mod_off;              /* struct pcprof_raw_module[mod_cap] */
	uint32_t mod_cap;              /* entries the file has room for */
	uint32_t mod_reserved;         /* (atomic) entries whose space is reserved */
	uint32_t mod_count;            /* (atomic) entries written (release order) */
	int32_t mod_error;             /* (atomic) errno of a reservation that failed */
	uint64_t lost_modules;         /* (atomic) modules not listed: no room */
	struct pcprof_raw_levels thr;  /* struct pcprof_raw_thread */
	struct pcprof_raw_levels slot; /* struct pcprof_raw_slot */
	/* Threads the engine did not sample, wholly or in part (a resource
	 * limit, an attach error, or the program closed their timer or
	 * event), and threads that ended without exit handlers (raw
	 * SYS_exit, raw clone), whose CPU after the last sample is not
	 * counted.  (atomic) */
	uint64_t threads_unsampled;
	uint64_t threads_unseen;
	/* (atomic) Ticks of `ticks` that no signal of the engine brought: CPU
	 * time before a thread's first signal or after its last, and expiries
	 * the kernel folded or dropped (owed ticks, libprofil(7)). */
	uint64_t owed;
	/* (atomic) Ticks of CPU time that could not be sampled at all (the
	 * CPU time of threads the engine could not attach to, from their CPU
	 * clocks); not in `ticks`.  threads_unsampled counts those threads. */
	uint64_t unsampled;
	/* END_EXEC: CPU time of the thread that called exec, up to which this
	 * image accounted its ticks; the next image of the pid counts its main
	 * thread from there. */
	uint64_t exec_cpu_ns;
	/* At exit or _exit: the process's resident set (/proc/self/statm)
	 * then, in KiB, or 0 (older files: reserved, 0).  The
	 * kernel frees that memory after the last word of the library, on
	 * the process's CPU time: pcprof run allows for it before it calls a
	 * gap in the tree's CPU time unsampled. */
	uint64_t exit_rss_kib;
	/* ---- version 3: everything above is version 2's header, unchanged ---- */
	/* (atomic) Ticks whose stack was cut: the node table had no room for
	 * all its callers, so only the outermost were kept (slot flag CUT). */
	uint64_t stack_cut;
	/* struct pcprof_raw_node, with PCPROF_RAW_F_STACKS; all zero without. */
	struct pcprof_raw_levels node;
	/* ---- version 4: the timeline ---- */
	/* CLOCK_MONOTONIC time from which buckets count: the first image's
	 * start, handed on to forked children and exec'd images, so that one
	 * bucket number means one period in every file of a run. */
	uint64_t tl_origin_ns;
	uint64_t tl_bucket_ns; /* a bucket's length; 0: no timeline (slots
				  all PCPROF_RAW_NO_BUCKET) */
	/* (atomic) Ticks stored without their bucket: the pc table had
	 * opened its last level (kept for the untimed profile) or had no
	 * room for the timed slot. */
	uint64_t tl_lost;
	/* (atomic) 1 + the bucket of the first such tick; 0: none.  The
	 * timeline is partial from there on. */
	uint32_t tl_lost_from;
	uint32_t pad4;
	/* ---- version 5: where an exec went ---- */
	/* END_EXEC: enum pcprof_raw_unfollowed, why the next image of this
	 * pid will not be recorded; PCPROF_UNF_NONE: it should be. */
	uint32_t exec_unfollowed;
	uint32_t pad5;
	/* 256 bytes each, truncated: the header and the thread table's first
	 * level still share one page. */
	char exec_path[256];    /* END_EXEC: the file exec'd, as named */
	char exec_cmdline[256]; /* END_EXEC: its argv joined by spaces */
	/* (atomic) Children sharing this image's memory (vfork) whose exec
	 * went where the library will not follow (a reason other than NONE),
	 * and children this image started with posix_spawn that will not be
	 * entered (exec.c), and the first one: its reason and file.  spawn_state: 0 free, 1 a
	 * child is writing, 2 spawn_why and spawn_path are valid. */
	uint32_t spawn_unfollowed;
	uint32_t spawn_state;
	uint32_t spawn_why;
	uint32_t pad6;
	char spawn_path[256];
	/* ---- version 6: a recording that stopped before its image ended ---- */
	/* (atomic) enum pcprof_raw_stop, and the process CPU time then (as
	 * cpu_ns: cpu_start_ns is the image's start).  Nothing is recorded
	 * after it; cpu_ns is still stored at the end, except after a seccomp
	 * filter, where the library makes no system call (cpu_ns then stays
	 * at stop_cpu_ns, and whoever reaped the process knows its total). */
	uint32_t stop_why;
	uint32_t pad7;
	uint64_t stop_cpu_ns;
	/* ---- version 6, too: the image's CPU time that no sample stands for ----
	 * Written at exit, exec and _exit (record.c; 0 in an image that ended
	 * otherwise).  The image's CPU time (cpu_ns - cpu_start_ns) less
	 * covered_ns is what no tick schedule reached (threads.c): the parts
	 * below name some of it, pcprof run names the rest. */
	uint64_t covered_ns;                   /* CPU time the threads' schedules covered, from
						  each origin to the last payment */
	uint64_t before_ns;                    /* threads' CPU time while no engine ran on them
						  (before the library started, between engines) */
	uint64_t threads_ended;                /* threads that ended through their exit
						  handlers: their teardown (libc, the kernel)
						  comes after their last payment */
	uint64_t iou_ns;                       /* io_uring's workers alive at the end (iou-wrk-,
						  iou-sqp-): kernel threads of the process that
						  never run user code, so no signal samples them */
	uint64_t foreign_ns;                   /* threads alive at the end that no schedule knew
						  (made without pthread_create after the engine
						  started) */
	uint64_t blocked;                      /* (atomic) ticks threads were due while they
						  blocked the sampling signal in the kernel (a
						  raw rt_sigprocmask, past the library's view of
						  masks): not in ticks, as unsampled */
	uint64_t unslotted;                    /* ticks signalled to threads without a slot (made
						  without pthread_create, covered by an inherited
						  perf event or a process-wide timer): in ticks,
						  outside every schedule */
	uint32_t iou_threads, foreign_threads; /* how many of each */
	uint32_t blocked_threads;              /* (atomic) */
	uint32_t gap_flags;                    /* (atomic) PCPROF_RAW_G_* */
	int32_t own_pid; /* getpid(), where it differs from pid: the image runs
			    in a pid namespace of its own, its thread ids are
			    that namespace's (pid is /proc's view, rawfile.h) */
	uint32_t pad8;
};

/* docs/formats.md lists every field's offset: keep them in step. */
_Static_assert(sizeof(struct pcprof_raw_header) == 3024, "header size as in docs/formats.md");
_Static_assert(offsetof(struct pcprof_raw_header, owed) == 1872, "offsets as in docs/formats.md");
_Static_assert(offsetof(struct pcprof_raw_header, stack_cut) == PCPROF_RAW_V2_HEADER_SIZE,
	       "version 3 appends to version 2's header");
_Static_assert(offsetof(struct pcprof_raw_header, tl_origin_ns) == PCPROF_RAW_V3_HEADER_SIZE,
	       "version 4 appends to version 3's header");
_Static_assert(offsetof(struct pcprof_raw_header, exec_unfollowed) == PCPROF_RAW_V4_HEADER_SIZE,
	       "version 5 appends to version 4's header");
_Static_assert(offsetof(struct pcprof_raw_header, stop_why) == PCPROF_RAW_V5_HEADER_SIZE,
	       "version 6 appends to version 5's header");
_Static_assert(offsetof(struct pcprof_raw_header, covered_ns) == PCPROF_RAW_V5_HEADER_SIZE + 16,
	       "version 6's gap figures follow its stop");

/* One loaded object.  Appended (never removed) when loaded; a module that is
 * unloaded gets epoch_unloaded set and the header's epoch is incremented, so
 * a sample (pc, epoch) belongs to the module with
 * epoch_loaded <= epoch < epoch_unloaded (0 meaning "still loaded") whose
 * segments contain pc. */
struct pcprof_raw_module {
	char path[PCPROF_RAW_PATH]; /* absolute path; "[vdso]" for the vDSO */
	uint8_t build_id[40];       /* GNU build-id note, build_id_len bytes */
	uint32_t build_id_len;
	uint32_t nsegs;
	uint64_t bias; /* load bias: runtime = link-time + bias */
	uint32_t epoch_loaded;
	uint32_t epoch_unloaded; /* (atomic) 0 while loaded */
	struct {
		uint64_t vaddr; /* link-time p_vaddr */
		uint64_t memsz;
		uint64_t offset; /* p_offset in the file */
		uint32_t flags;  /* PF_X | PF_W | PF_R */
		uint32_t pad;
	} seg[PCPROF_RAW_MAX_SEGS]; /* PT_LOAD segments */
};

/* One thread, found by open addressing on tid in the levels of hdr.thr; its
 * index is its position counted from level 0's first entry. */
struct pcprof_raw_thread {
	int32_t tid; /* (atomic) 0: free */
	uint32_t pad;
	char name[16];  /* comm at first sample */
	uint64_t ticks; /* (atomic) */
};

/* One (pc, thread, epoch, stack) with its count, in the levels of
 * hdr.slot.  key 0: empty; key UINT64_MAX: being filled (the writer sets
 * meta, then key).  A key may appear in more than one slot (a writer that
 * met a slot being filled moves on; a key stays in a level after the next
 * one opens); readers sum. */
struct pcprof_raw_slot {
	uint64_t key;    /* (atomic) the pc */
	uint32_t thread; /* index in the thread table, UINT32_MAX: none */
	uint32_t epoch;  /* module generation at the sample */
	uint64_t count;  /* (atomic) weighted ticks */
	/* version 3: */
	uint32_t node;  /* the callers: the node of the pc's caller, or
			   PCPROF_RAW_ROOT (the pc is the outermost frame), or
			   PCPROF_RAW_NO_STACK (none recorded) */
	uint32_t flags; /* PCPROF_RAW_SLOT_CUT */
	/* version 4: */
	uint32_t bucket; /* time bucket: the sample was taken in
			    [tl_origin_ns + bucket * tl_bucket_ns, + tl_bucket_ns);
			    PCPROF_RAW_NO_BUCKET: unknown */
	uint32_t pad;
};

/* Version 2 and 3 slots: the first 24 and 32 bytes of a version 4 one. */
#define PCPROF_RAW_V2_SLOT_SIZE 24
#define PCPROF_RAW_V3_SLOT_SIZE 32
#define PCPROF_RAW_NO_BUCKET    UINT32_MAX
#define PCPROF_RAW_BUCKET_NS    10000000u /* 10 ms: the bucket the library uses */

#define PCPROF_RAW_SLOT_BUSY UINT64_MAX
#define PCPROF_RAW_SLOT_CUT  1u /* the stack lost its innermost callers */

/*
 * One frame of a recorded call stack, in the levels of hdr.node: a trie on
 * (parent, pc), found by open addressing, so that stacks that share callers
 * share their nodes.  A stack is the index of its innermost caller's node;
 * following parents leads to the outermost frame, whose parent is
 * PCPROF_RAW_ROOT.  pc is a caller's address to look up (lib/sig/unwind.h)
 * or a marker (PCPROF_FRAME_*); the sampled pc itself is the slot's key.
 * pc 0: free; UINT64_MAX: being filled (the writer sets parent, then pc).
 * A node's index is its position counted from level 0, and it never moves;
 * one (parent, pc) may be in more than one node (readers merge them).
 */
struct pcprof_raw_node {
	uint64_t pc;     /* (atomic) */
	uint32_t parent; /* node index, or PCPROF_RAW_ROOT */
	uint32_t pad;
};

#define PCPROF_RAW_ROOT      UINT32_MAX  /* parent of an outermost frame */
#define PCPROF_RAW_NO_STACK  0xfffffffeu /* slot.node: no stack recorded */
#define PCPROF_RAW_NODE_BUSY UINT64_MAX

/* header.flags */
#define PCPROF_RAW_F_AUDIT   1u /* modules tracked by the audit module */
#define PCPROF_RAW_F_SAMPLER 2u /* the library attached and is sampling */
/* The engine saw user time only (perf without permission to sample the
 * kernel): system time is not in the counts. */
#define PCPROF_RAW_F_USER_TIME 4u
/* Version 3: samples carry call stacks (PCPROF_STACKS=1): the node table
 * exists. */
#define PCPROF_RAW_F_STACKS 8u
/* Version 5, with END_EXEC: the exec'd image was to be recorded (execs
 * followed): if it has no recording, it ran unrecorded. */
#define PCPROF_RAW_F_FOLLOWED 16u

/* header.gap_flags (version 6): what the library saw of causes of CPU
 * time without samples, beyond what the counts above measure. */
/* A thread without a slot (made without pthread_create) took a profiling
 * signal (unslotted): such threads ran, and what they used beyond their
 * samples is known only as CPU time. */
#define PCPROF_RAW_G_UNKNOWN_THREADS 1u
/* io_uring workers ran in this image (some may have ended before the
 * exit: their CPU time is then in no count). */
#define PCPROF_RAW_G_IOURING 2u
/* SIGEV_THREAD timers beyond the library's table were left to glibc:
 * their callbacks ran unsampled (lib/sigev.c). */
#define PCPROF_RAW_G_TIMERS 4u
/* The version 6 figures were written (at exit, exec or _exit) by an image
 * whose engine keeps tick schedules: covered_ns and the rest can be
 * compared with its CPU time. */
#define PCPROF_RAW_G_SPAN 8u

/*
 * Reading modules: a sample (pc, epoch) belongs to the module whose epoch
 * range contains epoch and whose segments (vaddr + bias .. + memsz) contain
 * pc.  The loader also reports every object as closed while the process
 * exits, so a sample taken during exit may match no module by epoch: then
 * take the most recently loaded module whose segments contain pc.
 */

/* ---- layout arithmetic and checks, for writer and reader alike ---- */

/* Index of the first entry of level k. */
static inline uint64_t pcprof_raw_level_first(const struct pcprof_raw_levels *l, uint32_t k)
{
	return ((uint64_t)l->base << k) - l->base;
}

/* Is [off, off + count * size) inside [lo, limit)?  (No overflow.) */
static inline bool pcprof_raw_region_ok(uint64_t off, uint64_t count, size_t size, uint64_t lo,
					uint64_t limit)
{
	return off >= lo && off <= limit && count <= (limit - off) / size;
}

static inline const char *pcprof_raw_levels_error(const struct pcprof_raw_levels *l, size_t entry,
						  uint64_t lo, uint64_t limit)
{
	if (l->base == 0 || l->base > PCPROF_RAW_MAX_BASE || (l->base & (l->base - 1)) ||
	    l->max == 0 || l->max > PCPROF_RAW_LEVELS || l->open == 0 || l->open > l->max)
		return "bad level sizes";
	if (!pcprof_raw_region_ok(l->off, pcprof_raw_level_first(l, l->max), entry, lo, limit))
		return "out of bounds";
	return NULL;
}

/* The header size of a file of this version (2 to 6). */
static inline size_t pcprof_raw_header_size(uint32_t version)
{
	return version == 2   ? PCPROF_RAW_V2_HEADER_SIZE
	       : version == 3 ? PCPROF_RAW_V3_HEADER_SIZE
	       : version == 4 ? PCPROF_RAW_V4_HEADER_SIZE
	       : version == 5 ? PCPROF_RAW_V5_HEADER_SIZE
			      : sizeof(struct pcprof_raw_header);
}

/* A header read with sizeof(struct pcprof_raw_header) bytes from a version
 * 2 to 5 file holds the start of its tables past its own end: clear that
 * part (those versions had none of it). */
static inline void pcprof_raw_header_trim(struct pcprof_raw_header *h)
{
	if (h->version >= 2 && h->version <= 5)
		memset((char *)h + pcprof_raw_header_size(h->version), 0,
		       sizeof *h - pcprof_raw_header_size(h->version));
}

/* The size of a slot in a file of this version (2 to 6). */
static inline size_t pcprof_raw_slot_size(uint32_t version)
{
	return version == 2   ? PCPROF_RAW_V2_SLOT_SIZE
	       : version == 3 ? PCPROF_RAW_V3_SLOT_SIZE
			      : sizeof(struct pcprof_raw_slot);
}

/* Where a table of `entry`-byte entries ends in the file. */
static inline uint64_t pcprof_raw_levels_end(const struct pcprof_raw_levels *l, size_t entry)
{
	return l->off + pcprof_raw_level_first(l, l->max) * entry;
}

/* Do two tables [a, a_end) and [b, b_end) overlap? */
static inline bool pcprof_raw_overlap(uint64_t a, uint64_t a_end, uint64_t b, uint64_t b_end)
{
	return a < b_end && b < a_end;
}

/*
 * Check a header against the size of its file: magic, version, sizes, and
 * every table inside the file, after the header, none overlapping another.
 * Version 2 files (header_size 1904, 24-byte slots, no stacks) and version 3
 * ones (2104, 32-byte slots, no timeline) pass too: a reader that read only
 * their header_size bytes must zero the rest of *h first.  Returns NULL, or what is wrong.  A zero
 * magic is an image that died before it started recording.  Callers must also clamp what changes
 * while the program runs (open, counts) when they use it.
 */
static inline const char *pcprof_raw_header_error(const struct pcprof_raw_header *h, uint64_t size)
{
	static const char zero[16];
	if (memcmp(h->magic, zero, sizeof zero) == 0)
		return "empty: the process ended before it started recording";
	if (memcmp(h->magic, PCPROF_RAW_MAGIC, sizeof h->magic) != 0)
		return "not a libprofil recording (bad magic)";
	if (h->version < 2 || h->version > PCPROF_RAW_VERSION)
		return "recording format version not supported (libprofil and pcprof differ)";
	uint64_t hsize = pcprof_raw_header_size(h->version);
	if (h->header_size != hsize)
		return "header size does not match this pcprof";
	if (h->file_size != size)
		return "file size differs from its header's";
	if (h->mod_cap > PCPROF_RAW_MAX_MODULES || h->mod_reserved > h->mod_cap ||
	    !pcprof_raw_region_ok(h->mod_off, h->mod_cap, sizeof(struct pcprof_raw_module), hsize,
				  size))
		return "module table out of bounds";
	if (pcprof_raw_levels_error(&h->thr, sizeof(struct pcprof_raw_thread), hsize, size))
		return "thread table out of bounds";
	size_t slot = pcprof_raw_slot_size(h->version);
	if (pcprof_raw_levels_error(&h->slot, slot, hsize, size))
		return "pc table out of bounds";
	uint64_t m_end = h->mod_off + (uint64_t)h->mod_cap * sizeof(struct pcprof_raw_module);
	uint64_t t_end = pcprof_raw_levels_end(&h->thr, sizeof(struct pcprof_raw_thread));
	uint64_t s_end = pcprof_raw_levels_end(&h->slot, slot);
	if (pcprof_raw_overlap(h->mod_off, m_end, h->thr.off, t_end) ||
	    pcprof_raw_overlap(h->mod_off, m_end, h->slot.off, s_end) ||
	    pcprof_raw_overlap(h->thr.off, t_end, h->slot.off, s_end))
		return "tables overlap";
	static const struct pcprof_raw_levels none;
	if (!(h->flags & PCPROF_RAW_F_STACKS)) {
		if (memcmp(&h->node, &none, sizeof none) != 0)
			return "stack node table without the stacks flag";
		return NULL;
	}
	if (h->version == 2)
		return "stacks in a version 2 recording";
	if (pcprof_raw_levels_error(&h->node, sizeof(struct pcprof_raw_node), hsize, size))
		return "stack node table out of bounds";
	uint64_t n_end = pcprof_raw_levels_end(&h->node, sizeof(struct pcprof_raw_node));
	if (pcprof_raw_overlap(h->node.off, n_end, h->mod_off, m_end) ||
	    pcprof_raw_overlap(h->node.off, n_end, h->thr.off, t_end) ||
	    pcprof_raw_overlap(h->node.off, n_end, h->slot.off, s_end))
		return "tables overlap";
	return NULL;
}

#endif
