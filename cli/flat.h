/*
 * flat.h - the flat profile that report and every export format share:
 * the samples of the selected processes, symbolized (cli/symtab.h) and
 * summed by pc, by function, by source line, by module, by process and by
 * thread.
 *
 * A module here is one file (path + recorded build-id) however many
 * processes mapped it, and its addresses are link-time addresses
 * (pc - bias), so that the same function in a parent and its forked or
 * exec'd children is one row.  Samples outside every module keep their
 * runtime pc and have mod == FLAT_NO_MOD.
 *
 * Not thread-safe; everything is owned by the struct flat and freed by
 * flat_free.  Allocation failure is fatal (util.h).
 */
#ifndef PCPROF_FLAT_H
#define PCPROF_FLAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"
#include "symtab.h"

#define FLAT_NO_MOD UINT32_MAX

struct flat_opts {
	int32_t pid;          /* only processes with this pid; 0: all */
	const char *module;   /* fnmatch pattern on path or basename; NULL: all */
	const char *function; /* fnmatch pattern on the function label; NULL: all */
};

struct flat_mod {
	char *path;
	const char *name; /* basename of path */
	uint8_t build_id[40];
	uint32_t build_id_len;
	bool is_exe;                   /* the executable of some selected process */
	uint64_t text_lo, text_hi;     /* link-time span of its executable segments */
	uint64_t text_offset;          /* file offset of text_lo */
	uint64_t bias;                 /* its bias in the first process that mapped it */
	const char *symfile;           /* ELF with its .symtab (for gprof), or NULL */
	bool has_functions, has_lines; /* some pc got a name / a file:line */
	uint64_t samples;
	double seconds;
};

struct flat_fn {
	uint32_t mod;         /* index in mods, or FLAT_NO_MOD */
	const char *name;     /* symbol name, or NULL */
	char *label;          /* name, or "module+0xADDRESS" */
	uint64_t start, size; /* link-time range (size 0: unknown) */
	const char *file;     /* source file of its first line, or NULL */
	int line;             /* that line, or 0 */
	uint64_t samples;
	double seconds;
};

struct flat_pc {
	uint32_t mod, fn;
	uint64_t addr;    /* link-time (runtime if mod == FLAT_NO_MOD) */
	const char *file; /* source position, or NULL / 0 */
	int line;
	uint64_t samples;
	double seconds;
};

/* One source line (lines of a function kept apart per function). */
struct flat_line {
	uint32_t fn;
	const char *file; /* NULL if unknown */
	int line;
	uint64_t addr; /* lowest sampled address on it */
	uint64_t samples;
	double seconds;
};

struct flat_proc {
	const struct pp_process *p;
	uint64_t samples; /* shown (after --module/--function) */
	double seconds;
};

struct flat_thread {
	uint32_t proc; /* index in procs */
	const struct pp_thread *t;
	uint64_t samples;
	double seconds;
	uint32_t top_fn; /* its function with most samples */
	uint64_t top_samples;
};

/* One sample kept: (process, thread, pc) with its count. */
struct flat_hit {
	uint32_t proc, thread, pc;
	uint64_t count;
};

struct flat {
	const struct pp_profile *prof;
	struct flat_opts opts;
	struct flat_proc *procs; /* the selected processes, in file order */
	size_t nprocs;
	struct flat_mod *mods; /* with samples, and each process's executable */
	size_t nmods;
	struct flat_fn *fns; /* includes functions hidden by filters (samples 0) */
	size_t nfns;
	struct flat_pc *pcs;
	size_t npcs;
	struct flat_line *lines;
	size_t nlines;
	struct flat_thread *threads;
	size_t nthreads;
	struct flat_hit *hits; /* in process order: each process's hits are contiguous */
	size_t nhits;
	uint64_t total; /* samples of the selected processes */
	uint64_t shown; /* of those, passing --module/--function */
	double total_seconds, shown_seconds;
	/* summed over the selected processes */
	uint64_t ticks, signals, lost, cpu_ns;
	struct symtab **st; /* per selected process */
};

/* Build the flat profile.  Returns NULL with err set if no process
 * matches opts->pid. */
struct flat *flat_build(const struct pp_profile *prof, const struct flat_opts *opts, char *err,
			size_t errlen);

/* For the commands: read FILE (pp_read) into *prof and build its flat
 * profile; on any problem print "pcprof CMD: FILE: problem" and exit 1.
 * flat_close frees both. */
struct flat *flat_open(const char *file, const struct flat_opts *opts, struct pp_profile *prof);
void flat_close(struct flat *f, struct pp_profile *prof);

/* The argument of --pid: a positive pid, or exit 2 with a message. */
int32_t flat_parse_pid(const char *s);

/* Print symbolization notes and warnings once each ("note: ..."). */
void flat_notes(const struct flat *f, FILE *out);
/* The same, as a malloc'd string ("" if none). */
char *flat_notes_text(const struct flat *f);

void flat_free(struct flat *f);

enum flat_sort { FLAT_SORT_SAMPLES, FLAT_SORT_NAME, FLAT_SORT_MODULE, FLAT_SORT_ADDRESS };

/* Parse "samples", "name", "module" or "address"; -1 if none. */
int flat_sort_parse(const char *s);

/* Indexes of the functions with samples, in the given order (a new array of
 * *n entries, for the caller to free). */
uint32_t *flat_sorted_fns(const struct flat *f, enum flat_sort by, size_t *n);
uint32_t *flat_sorted_lines(const struct flat *f, enum flat_sort by, size_t *n);
/* Modules with samples: by samples, or by name for FLAT_SORT_NAME/MODULE. */
uint32_t *flat_sorted_mods(const struct flat *f, enum flat_sort by, size_t *n);

/* "name" of a module index, "[unknown]" for FLAT_NO_MOD. */
const char *flat_mod_name(const struct flat *f, uint32_t mod);

/* The selected processes' engines (hz false) or rates (hz true), each
 * distinct value once with its number of processes if not all: "perf",
 * "100 Hz (2), 1000 Hz (1)".  A malloc'd string. */
char *flat_distinct(const struct flat *f, bool hz);

/* Achieved sampling rate: ticks per CPU second (0 if unknown). */
double flat_achieved_hz(const struct flat *f);

#endif
