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
 *   PCPROF_SLOTS=<n>              hash table slots per process (power of 2,
 *                                 default 262144)
 *   PROFIL_HZ, PROFIL_ENGINE      as for the library
 * Each process image (the program, every forked child, every image after an
 * exec) has one file "<dir>/<pid>.<seq>.raw" (seq 0, 1, ... per pid: an exec'd
 * image takes the next free one), created by the audit module when the image
 * starts (or by the library if there is none, and by the library in a forked
 * child), sized with ftruncate and mapped MAP_SHARED.  Everything is written
 * in place, so the data survives _exit, abort, SIGSEGV and SIGKILL: the
 * kernel keeps the page-cache pages.
 *
 * All integers are native (x86-64: little-endian), all offsets from the start
 * of the file.  Fields marked (atomic) are updated while the program runs;
 * read them once the process is gone.
 */
#ifndef PROFIL_RECORD_FORMAT_H
#define PROFIL_RECORD_FORMAT_H

#include <stdint.h>

#define PCPROF_RAW_MAGIC   "PCPROFRAW\0\0\0\0\0\0" /* 16 bytes */
#define PCPROF_RAW_VERSION 1

#define PCPROF_RAW_MAX_MODULES 4096
#define PCPROF_RAW_MAX_THREADS 8192 /* thread table slots (open addressing) */
#define PCPROF_RAW_MAX_SEGS    8
#define PCPROF_RAW_PATH        512

/* How the image ended, as far as the library could tell. */
enum pcprof_raw_end {
	PCPROF_END_RUNNING = 0, /* never marked: killed, _exit, crash */
	PCPROF_END_EXIT = 1,    /* exit() / return from main (destructor ran) */
	PCPROF_END_EXEC = 2,    /* replaced by exec */
};

struct pcprof_raw_header {
	char magic[16];       /* PCPROF_RAW_MAGIC */
	uint32_t version;     /* PCPROF_RAW_VERSION */
	uint32_t header_size; /* sizeof(struct pcprof_raw_header) */
	uint64_t file_size;   /* bytes mapped */
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
	uint64_t lost;                 /* (atomic) ticks not stored: table full */
	uint64_t lost_threads;         /* (atomic) ticks of threads beyond the table
					  (still in the slots, with thread UINT32_MAX) */
	uint32_t flags;                /* PCPROF_RAW_F_* */
	uint32_t pad;

	uint64_t mod_off; /* struct pcprof_raw_module[mod_cap] */
	uint32_t mod_cap;
	uint32_t mod_count; /* (atomic) entries written (release order) */
	uint64_t thr_off;   /* struct pcprof_raw_thread[thr_cap] */
	uint32_t thr_cap;   /* power of two */
	uint32_t thr_used;  /* (atomic) */
	uint64_t slot_off;  /* struct pcprof_raw_slot[slot_cap] */
	uint64_t slot_cap;  /* power of two */
	uint64_t slot_used; /* (atomic) */

	/* (atomic) Ticks of `ticks` that no signal of the engine brought: CPU
	 * time before a thread's first signal or after its last, and expiries
	 * the kernel folded or dropped (owed ticks, libprofil(7)). */
	uint64_t owed;
	/* (atomic) Ticks of CPU time that could not be sampled at all
	 * (threads the engine could not attach to), estimated from their CPU
	 * clocks; not in `ticks`. */
	uint64_t unsampled;
	/* END_EXEC: CPU time of the thread that called exec, up to which this
	 * image accounted its ticks; the next image of the pid counts its main
	 * thread from there. */
	uint64_t exec_cpu_ns;
	uint64_t reserved[3];
};

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

/* One thread, found by open addressing on tid. */
struct pcprof_raw_thread {
	int32_t tid; /* (atomic) 0: free */
	uint32_t pad;
	char name[16];  /* comm at first sample */
	uint64_t ticks; /* (atomic) */
};

/* One (pc, thread, epoch) with its count.  key 0: empty; key UINT64_MAX: being
 * filled (the writer sets meta, then key).  A key may appear in more than one
 * slot (a writer that met a slot being filled moves on); readers sum. */
struct pcprof_raw_slot {
	uint64_t key;    /* (atomic) the pc */
	uint32_t thread; /* index into the thread table */
	uint32_t epoch;  /* module generation at the sample */
	uint64_t count;  /* (atomic) weighted ticks */
};

#define PCPROF_RAW_SLOT_BUSY UINT64_MAX

/* header.flags */
#define PCPROF_RAW_F_AUDIT   1u /* modules tracked by the audit module */
#define PCPROF_RAW_F_SAMPLER 2u /* the library attached and is sampling */
/* The engine saw user time only (perf without permission to sample the
 * kernel): system time is not in the counts. */
#define PCPROF_RAW_F_USER_TIME 4u

/*
 * Reading modules: a sample (pc, epoch) belongs to the module whose epoch
 * range contains epoch and whose segments (vaddr + bias .. + memsz) contain
 * pc.  The loader also reports every object as closed while the process
 * exits, so a sample taken during exit may match no module by epoch: then
 * take the most recently loaded module whose segments contain pc.
 */

#endif
