/*
 * model.h - the profile model that report and every export format share:
 * the samples of the selected processes, symbolized (cli/symtab.h) and
 * summed by pc, by function, by source line, by module, by process and by
 * thread, with their call stacks as one tree of nodes.
 *
 * Time: a row's self count (samples) is the samples whose leaf is in it;
 * its total is the samples whose stack holds it anywhere, counted once
 * per sample however often the stack holds it (recursion).  A sample
 * recorded without a stack has the one-frame stack of its leaf.
 *
 * A module here is one file (path + recorded build-id) however many
 * processes mapped it, and its addresses are link-time addresses
 * (pc - bias), so that the same function in a parent and its forked or
 * exec'd children is one row.  Samples outside every module keep their
 * runtime pc and have mod == MODEL_NO_MOD.
 *
 * Not thread-safe; everything is owned by the struct model and freed by
 * model_free.  Allocation failure is fatal (util.h).
 */
#ifndef PCPROF_MODEL_H
#define PCPROF_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"
#include "symtab.h"
#include "timeline.h"

#define MODEL_NO_MOD  UINT32_MAX
#define MODEL_NO_NODE UINT32_MAX
#define MODEL_NO_PC   UINT32_MAX

struct model_opts {
	int32_t pid;          /* only processes with this pid; 0: all */
	const char *module;   /* fnmatch pattern on path or basename; NULL: all */
	const char *function; /* fnmatch pattern on the function label or symbol; NULL: all */
	bool no_demangle;     /* labels are the symbols as the binary spells them */
	bool no_inline;       /* inlined code is its caller's (no inline frames) */
	bool threads;         /* build threads (report -T, the one reader): its build
				 is a tenth of an export of 10M records, so only on request */
	const struct tl_range *time; /* model_open: only this period; NULL: all */
};

struct model_mod {
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
	uint64_t samples, total;
	double seconds;
};

struct model_fn {
	uint32_t mod;         /* index in mods, or MODEL_NO_MOD */
	const char *name;     /* symbol name as in the binary (raw, mangled), or NULL */
	char *label;          /* name demangled, "module+0xADDRESS", "[unknown]", ... (marker) */
	bool marker;          /* a stack's [unknown] or [truncated] end, or the main
				 executable's [startup] (symtab.h) (name = label) */
	uint64_t start, size; /* link-time range (size 0: unknown) */
	const char *file;     /* where it is defined (DW_AT_decl_file, else the file of */
	int line;             /* its first line), or NULL / 0 */
	bool inlined;         /* a function inlined at these pcs (start: the lowest) */
	uint64_t samples, total;
	double seconds;
};

/*
 * One location: an address, and the function and source line it stands
 * for.  In inlined code (unless no_inline) one address is several
 * locations, one per function of its inline chain (symtab.h): the
 * innermost is the one samples and stacks name, and each one's inl_caller
 * is the location of the function it was inlined into, down to the one of
 * the function that holds the code (inl_caller MODEL_NO_PC), whose line is
 * the call.  A stack holds them all, outermost first: they are frames.
 */
struct model_pc {
	uint32_t mod, fn;
	uint64_t addr;    /* link-time (runtime if mod == MODEL_NO_MOD) */
	const char *file; /* source position, or NULL / 0 */
	int line;
	uint32_t lineix; /* index in lines, or UINT32_MAX (no samples) */
	uint64_t samples, total;
	double seconds;
	uint32_t inl_caller; /* see above; MODEL_NO_PC: not inlined here */
	bool inl_outer;      /* some other location's inl_caller: not innermost */

	const char *comp_dir; /* DWARF compilation directory of file's unit, or NULL */
};

/* One source line (lines of a function kept apart per function). */
struct model_line {
	uint32_t fn;
	const char *file; /* NULL if unknown */
	int line;
	uint64_t addr; /* lowest sampled address on it */
	uint64_t samples, total;
	double seconds;

	const char *comp_dir; /* DWARF compilation directory of file's unit, or NULL */
};

struct model_proc {
	const struct pp_process *p;
	uint64_t samples; /* shown (after --module/--function) */
	double seconds;
};

struct model_thread {
	uint32_t proc; /* index in procs */
	const struct pp_thread *t;
	uint64_t samples;
	double seconds;
	uint32_t top_fn; /* its function with most samples */
	uint64_t top_samples;
};

/* One node of the call tree: a location (a pc) and the node of its
 * caller.  Merged across processes: one chain of locations is one node,
 * and a stack is its leaf node. */
struct model_node {
	uint32_t pc;     /* index in pcs */
	uint32_t parent; /* MODEL_NO_NODE: a root */
	uint32_t depth;  /* 1 for a root */
};

/* One sample kept: (process, thread, pc, stack) with its count. */
struct model_hit {
	uint32_t proc, thread, pc;
	uint32_t node; /* its stack's leaf (whose pc is pc) */
	uint64_t count;
	uint32_t time; /* its sample's (profile.h), PP_NO_TIME: unknown */
};

struct model {
	const struct pp_profile *prof;
	struct model_opts opts;
	struct model_proc *procs; /* the selected processes, in file order */
	size_t nprocs;
	struct model_mod *mods; /* with samples, and each process's executable */
	size_t nmods;
	struct model_fn *fns; /* includes functions hidden by filters (samples 0) */
	size_t nfns;
	struct model_pc *pcs;
	size_t npcs;
	struct model_line *lines;
	size_t nlines;
	struct model_thread *threads;
	size_t nthreads;
	struct model_node *nodes; /* parents first */
	size_t nnodes;
	struct model_hit *hits; /* in process order: each process's hits are contiguous */
	size_t nhits;
	bool stacks;    /* some sample has a recorded stack of more than one frame */
	uint64_t total; /* samples of the selected processes */
	uint64_t shown; /* of those, passing --module/--function */
	double total_seconds, shown_seconds;
	/* summed over the selected processes */
	uint64_t ticks, signals, lost, cpu_ns;
	/* images no engine sampled (an exec the library could not enter:
	 * pcprof run adds them with their CPU time, cpu_ns holds it too) */
	size_t nunsampled;
	uint64_t unsampled_cpu_ns;
	const char *unsampled_why; /* the first one's reason, or NULL */
	/* images whose recording stopped, by reason (pp_process.stop), and
	 * the CPU time not sampled since (cpu_ns holds it too) */
	size_t nstopped[PP_STOP_MAX + 1];
	uint64_t stopped_ns[PP_STOP_MAX + 1];
	struct symtab **st;       /* per selected process */
	struct tl_kept time_kept; /* what opts.time kept (model_open) */
};

/* Build the flat profile.  Returns NULL with err set if no process
 * matches opts->pid. */
struct model *model_build(const struct pp_profile *prof, const struct model_opts *opts, char *err,
			  size_t errlen);

/* For the commands: read FILE (pp_read) into *prof and build its flat
 * profile; on any problem print "pcprof CMD: FILE: problem" and exit 1.
 * model_close frees both. */
struct model *model_open(const char *file, const struct model_opts *opts, struct pp_profile *prof);
void model_close(struct model *f, struct pp_profile *prof);

/* The argument of --pid: a positive pid, or exit 2 with a message. */
int32_t model_parse_pid(const char *s);

/* Print symbolization notes and warnings once each ("note: ...").  full
 * false: the modules that only lack debug symbols share one short line
 * (symtab_notes), for the end of a report; true: each its own note, with
 * the build id and the places searched. */
void model_notes(const struct model *f, FILE *out, bool full);
/* The same, as a malloc'd string ("" if none). */
char *model_notes_text(const struct model *f, bool full);

void model_free(struct model *f);

enum model_sort {
	MODEL_SORT_SAMPLES,
	MODEL_SORT_NAME,
	MODEL_SORT_MODULE,
	MODEL_SORT_ADDRESS,
	MODEL_SORT_TOTAL
};

/* Parse "samples", "name", "module", "address" or "total"; -1 if none. */
int model_sort_parse(const char *s);

/* Indexes of the functions with samples (self or total), in the given
 * order (a new array of *n entries, for the caller to free). */
uint32_t *model_sorted_fns(const struct model *f, enum model_sort by, size_t *n);
uint32_t *model_sorted_lines(const struct model *f, enum model_sort by, size_t *n);
/* Modules with samples (self or total): by samples, by total, or by name
 * for MODEL_SORT_NAME/MODULE. */
uint32_t *model_sorted_mods(const struct model *f, enum model_sort by, size_t *n);

/* The functions of the stack whose leaf is node, root first, into
 * (*fn)[0..depth) (a malloc'd buffer of *cap entries, grown as needed;
 * NULL and 0 to begin with); returns the depth. */
size_t model_stack_fns(const struct model *f, uint32_t node, uint32_t **fn, size_t *cap);

/* Per node, the first node whose stack has the same functions (stacks
 * that differ only in pcs within the functions): a new array of nnodes. */
uint32_t *model_fn_stacks(const struct model *f);

/*
 * The call tree by function path: the nodes whose stacks have the same
 * functions are one (model_fn_stacks), as `pcprof report --tree` and the
 * HTML flame graph show it.  Built in one pass over the nodes, whatever
 * the tree's shape (a walk of every stack from its root costs stacks x
 * depth).  Indexes are model nodes: the canonical node of each path.
 */
struct model_ftree {
	uint32_t *canon;        /* model_fn_stacks */
	uint64_t *total, *self; /* per canonical node: samples under it, at it */
	/* The children with samples of canonical node n, by total (most
	 * first), then label: kids[first[n]..first[n + 1]); the roots at
	 * n = nnodes. */
	uint32_t *first, *kids;
};
void model_ftree(const struct model *f, struct model_ftree *t);
void model_ftree_free(struct model_ftree *t);

/*
 * The call tree's nodes in preorder, each before its children, and the
 * shown samples under each node (its subtree's): a walk that keeps the
 * path from a root (a node's depth says where it joins the path) sees
 * every stack's nodes in time linear in the nodes, where walking each
 * stack from its leaf costs stacks x depth.
 */
struct model_walk {
	uint32_t *pre; /* nnodes nodes */
	uint64_t *sub; /* per node */
};
struct model_walk model_walk(const struct model *f);
void model_walk_free(struct model_walk *w);

/* Call fn once per distinct stack of the shown samples (by leaf node, in
 * node order) with its functions root first and its samples. */
void model_each_stack(const struct model *f,
		      void (*fn)(void *ctx, uint32_t node, const uint32_t *fns, size_t depth,
				 uint64_t count),
		      void *ctx);

/* "name" of a module index, "[unknown]" for MODEL_NO_MOD. */
const char *model_mod_name(const struct model *f, uint32_t mod);

/* The selected processes' engines (hz false) or rates (hz true), each
 * distinct value once with its number of processes if not all: "perf",
 * "100 Hz (2), 1000 Hz (1)".  A malloc'd string. */
/* An image that no engine sampled: no engine named, no rate. */
bool model_unsampled_image(const struct pp_process *p);
char *model_distinct(const struct model *f, bool hz);

/* The processes among the selected images (procs): their distinct pids.
 * Each exec makes a new image of the same process, so a shell script that
 * execs its last command is one process of two images. */
size_t model_processes(const struct model *f);

/* Achieved sampling rate: ticks per CPU second (0 if unknown). */
double model_achieved_hz(const struct model *f);

#endif
