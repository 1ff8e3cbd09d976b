/*
 * sampler.c - the external sampler of sampler.h.
 *
 * One perf event per thread found in /proc/PID/task (cpu == -1: it follows
 * the thread across CPUs), each with its own ring buffer, because the
 * kernel lets per-thread events share a buffer only within one thread.
 * Events are inherited, so a thread created later is sampled from its
 * first instruction and its samples go to its creator's buffer; the kernel
 * also reports the creation (PERF_RECORD_FORK), which is how the opening
 * rounds know a thread that appeared meanwhile needs no event of its own.
 *
 * A thread can still end up under two events: one inherited and one
 * opened directly when it showed in /proc just before its creation was
 * reported, and then every thread it creates inherits both.  Each thread
 * therefore belongs to the first buffer its samples came from; its samples
 * in any other buffer are counted as duplicates and dropped.
 *
 * The inherited events follow the processes the target forks as well, and
 * theirs: each is a process of its own (struct target), starting with its
 * parent's modules at the fork (a FORK record whose pid is its tid), then
 * its own MMAP2 and COMM-exec records; its end is its EXIT record.  Their
 * CPU times come from the READ records an inherited event leaves when its
 * thread ends (inherit_stat; split_cpu says the rest).
 *
 * User space only (exclude_kernel): perf_event_paranoid 2, the common
 * default, allows nothing else to a user without CAP_PERFMON, and the
 * preloaded library samples user pcs too, so the two modes agree.  A tick
 * that falls in the kernel is not a sample; the CPU time (the events'
 * counts) still includes system time.
 *
 * Modules come from /proc/PID/maps when the sampling starts and from the
 * PERF_RECORD_MMAP2 records of executable mappings after (dlopen, exec);
 * each file's load segments and build id are read from the file (through
 * /proc/PID/root, so a process in another mount namespace works), the
 * vDSO's from pcprof's own, which is the same kernel's image.  Samples are
 * given their module as they arrive, against the modules live then: each
 * poll reads every buffer and takes the records in time order.
 *
 * Stacks (unless turned off) are the kernel's user callchain, a walk of
 * the frame-pointer chain from the sampled registers, and 16 bytes of the
 * user stack at the stack pointer.  A frame-pointer walk is right through
 * code that keeps frame pointers (Go on amd64, -fno-omit-frame-pointer) and
 * may be wrong elsewhere, so each link is checked against the code, read
 * from the module files:
 *  - a return address must be in a module and follow a call instruction,
 *    and where that call is a direct one within the module, its target must
 *    be at most 64 KiB below the pc of the frame it called (the callee's
 *    entry comes before its pc: a walk that skipped a frame shows here);
 *  - a leaf whose function has not set up its frame at the sampled pc (a
 *    function without a frame, as Go's small leaves are, or a pc in a
 *    prologue, or on a ret) left its caller's return address at the stack
 *    pointer, where the walk does not look: it is taken from the stack
 *    copy when its call's target is the leaf's function entry.
 * On x86-64 each sample also carries the user registers and 8 KiB of the
 * stack: where the checked walk failed, or stopped without reaching the
 * stack's outermost frame, unwind-dwarf.c walks that copy with the call-
 * frame tables, and its walk is kept where it goes further.
 * The first link that fails ends the stack with [unknown]; a walk as long
 * as the kernel allows ends with [truncated].
 */
#include "sampler.h"

#include <dirent.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <math.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "data.h"
#include "frames.h"
#include "record-format.h"
#include "symtab-go.h"
#include "unwind-dwarf.h"
#include "util.h"

#define MAX_PAGES   16  /* data pages per buffer to start with (64 KiB) */
#define SIDE_PAGES  16  /* and per side-band buffer (mappings, threads, counts) */
#define STACK_PAGES 64  /* with stacks: a sample is up to 2 KiB, not 48 bytes */
#define DWARF_PAGES 256 /* and with a stack copy, up to 10 KiB */
#define MAX_ROUNDS  64  /* passes over /proc/PID/task while opening */
#define RECORD_MAX  65536
#define MAX_STACK   256   /* frames of a stack, as the preloaded library's */
#define CALLEE_MAX  65536 /* a caller's call target to the pc it called, at most */
#define DW_REGS     UNWIND_DWARF_NREGS
#define DWARF_STACK 8192 /* bytes of user stack a sample copies for unwind-dwarf.c */
/* perf's x86 registers: ax bx cx dx si di bp sp ip (bits 0-8), r8-r15 (16-23) */
#define PERF_DW_MASK 0xff01ffull

/* One event per thread found and CPU; its samples and those of the
 * threads it is inherited by go to the CPU's buffer. */
struct event {
	int fd;
	int32_t tid;
	uint64_t id; /* PERF_EVENT_IOC_ID: what its samples carry */
	bool side;   /* the side-band event (open_thread): it counts the CPU time */
};

struct buffer {
	int cpu;
	int fd;        /* the event that owns the mapping; -1: none yet */
	uint8_t *base; /* the control page, then the data pages */
	size_t pages;
	bool hup;  /* its event's thread and all it created have ended */
	bool side; /* the CPU's side-band buffer (open_thread), else its samples' */
};

struct key {
	uint64_t pc;
	uint32_t module, thread;
	uint32_t frame;
	uint32_t time;  /* pp_sample.time */
	uint64_t count; /* 0: empty slot */
};

/* A module file's bytes, mapped when a stack first needs its code. */
struct code {
	const uint8_t *map; /* NULL: not yet tried, or see failed */
	size_t len;
	bool failed;
	bool switchers_read;
	unsigned nswitchers;
	uint64_t switcher[4][2]; /* link-time [start, end) of Go's stack switchers */
};

struct staged {
	uint64_t time;
	size_t seq, off, len;
	bool side; /* from a side-band buffer */
};

struct thr {
	int32_t tid;
	int32_t root;    /* thread whose events this one's samples come from; 0: none yet */
	bool covered;    /* has an event: opened directly, or inherited (FORK record) */
	bool direct;     /* its events were opened directly (not inherited) */
	bool exited;     /* its EXIT record was read */
	bool read;       /* a READ record gave its CPU time as it ended */
	uint64_t cpu_ns; /* that CPU time */
};

/* One process sampled: the target, or a process it forked while sampled
 * (the events are inherited across fork too). */
struct target {
	pid_t pid;
	size_t pagesize;
	unsigned max_stack; /* sample_max_stack */

	struct thr *thr; /* parallel to proc.threads */
	size_t thrcap;

	struct key *tab;
	size_t tabcap, tabn;

	uint32_t epoch;
	size_t modcap;
	struct pp_process proc; /* modules and threads grow here */
	struct code *code;      /* parallel to proc.modules */
	struct frame_index fi;

	struct unwind_dwarf *dw; /* NULL until a sample needs it */
	size_t dw_nmods;         /* its modules when dw last saw them */
	uint32_t dw_epoch;

	uint64_t exited_ns; /* CPU time of its threads that ended (READ records) */
	bool leader_gone;   /* its main thread's EXIT record was read */
	bool ended;         /* and those of all its threads */
};

struct sampler {
	pid_t pid;
	unsigned hz;
	bool follow; /* follow the processes it forks */
	/* pcprof's own soft RLIMIT_NOFILE before more_files raised it (to be
	 * set back once the events are closed); nofile_raised: it did */
	struct rlimit nofile;
	bool nofile_raised;
	size_t pagesize, pages, side_pages;
	struct event *ev; /* in the order opened, so by increasing id */
	size_t nev, evcap;
	struct buffer *buf;
	size_t nbuf;
	uint64_t closed_ns; /* counts of events already closed */
	uint64_t sys0;      /* the target's system time at the start (proc_sys) */
	bool sys0_known;
	uint64_t cpu0; /* the target's own CPU time before any event (proc_cpu_ns) */

	struct target **tg; /* the target first, then the processes it forked */
	size_t ntg, tgcap;

	bool stacks;
	bool dwarf;         /* stacks with registers and a stack copy (x86-64) */
	unsigned max_stack; /* sample_max_stack */

	/* Samples outside every module known when read: the buffer holding
	 * the mapping's record (another CPU's) may not have been read yet, so
	 * they are taken again after every buffer has been read. */
	uint8_t *pending;
	size_t npending, pendcap;
	/* The records of one drain_all, to be taken in time order. */
	uint8_t *stage;
	size_t nstage, stagecap;
	struct staged *staged;
	size_t nstaged, stagedcap;
	bool again;
	bool maps_read; /* /proc/PID/maps read: pending samples can be placed */

	struct sampler_info info;
	uint8_t rec[RECORD_MAX];
	bool timeline;  /* sampler_timeline */
	uint64_t time0; /* perf time of the first sample + 1: the timeline's origin */
};

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- threads ---- */

static uint32_t thread_of(struct target *s, int32_t tid)
{
	struct pp_process *pr = &s->proc;
	for (size_t i = pr->nthreads; i-- > 0;)
		if (pr->threads[i].tid == tid)
			return (uint32_t)i;
	if (pr->nthreads == s->thrcap) {
		s->thrcap = s->thrcap ? 2 * s->thrcap : 64;
		pr->threads = xrealloc(pr->threads, s->thrcap * sizeof *pr->threads);
		s->thr = xrealloc(s->thr, s->thrcap * sizeof *s->thr);
	}
	struct pp_thread *t = &pr->threads[pr->nthreads];
	memset(t, 0, sizeof *t);
	t->tid = tid;
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)s->pid, (int)tid);
	FILE *f = fopen(path, "re");
	if (f) {
		if (fgets(t->name, sizeof t->name, f))
			t->name[strcspn(t->name, "\n")] = 0;
		fclose(f);
	}
	s->thr[pr->nthreads] = (struct thr){ .tid = tid };
	return (uint32_t)pr->nthreads++;
}

/* ---- modules ---- */

/* Load segments and build id of an ELF image, from a file or memory. */
static bool describe(Elf *elf, struct pp_module *m)
{
	size_t n;
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &n) != 0)
		return false;
	m->nsegs = 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    m->nsegs == sizeof m->seg / sizeof m->seg[0])
			continue;
		m->seg[m->nsegs++] =
			(struct pp_segment){ ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_flags };
	}
	const void *id;
	ssize_t len = dwelf_elf_gnu_build_id(elf, &id);
	if (len > 0 && (size_t)len <= sizeof m->build_id) {
		memcpy(m->build_id, id, (size_t)len);
		m->build_id_len = (uint32_t)len;
	}
	return m->nsegs > 0;
}

/* pcprof's own vDSO: the kernel maps one image into every process. */
static bool describe_vdso(struct pp_module *m)
{
	const char *ehdr = (const char *)getauxval(AT_SYSINFO_EHDR);
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long lo = 0, hi = 0;
	char line[512];
	bool found = false;
	while (f && fgets(line, sizeof line, f))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
			found = true;
			break;
		}
	if (f)
		fclose(f);
	if (!ehdr || !found || (unsigned long)ehdr != lo)
		return false;
	Elf *elf = elf_memory((char *)ehdr, hi - lo);
	bool ok = describe(elf, m);
	elf_end(elf);
	return ok;
}

/* A module's file: the very file mapped at [lo, hi) (/proc/PID/map_files,
 * right even when the path now names a rebuilt file, but only for those
 * allowed to open it), else through /proc/PID/root (another mount
 * namespace), then as named; -1 if none opens.  hi 0: no mapping known. */
static int open_module(const struct target *s, const char *path, uint64_t lo, uint64_t hi)
{
	char where[PATH_MAX + 64], dir[64];
	/* (a thread's directory, when the main thread has ended, has no
	 * map_files) */
	bool thread = proc_dir((int)s->pid, dir, sizeof dir);
	snprintf(where, sizeof where, "%s/map_files/%" PRIx64 "-%" PRIx64, dir, lo, hi);
	int fd = hi && !thread ? open(where, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0)
		return fd;
	snprintf(where, sizeof where, "%s/root%s", dir, path);
	fd = open(where, O_RDONLY | O_CLOEXEC);
	return fd >= 0 ? fd : open(path, O_RDONLY | O_CLOEXEC);
}

/* The load segment an executable mapping at file offset pgoff comes from,
 * or NULL.  Several segments may hold that page: a linker that packs them
 * (lld's default) starts the code in the page where the read-only data
 * ends, and both are mapped from offset 0.  So rank those holding the page:
 * an executable one first (the mapping is), then one that starts in that
 * very page rather than runs on into it. */
static const struct pp_segment *mapped_segment(const struct pp_module *m, uint64_t pgoff,
					       uint64_t pagesize)
{
	const struct pp_segment *best = NULL;
	int best_rank = -1;
	for (uint32_t i = 0; i < m->nsegs; i++) {
		const struct pp_segment *g = &m->seg[i];
		uint64_t first = g->offset & ~(pagesize - 1);
		if (pgoff < first || pgoff >= g->offset + (g->memsz ? g->memsz : 1))
			continue;
		int rank = 2 * !!(g->flags & PF_X) + (pgoff == first);
		if (rank > best_rank) {
			best = g;
			best_rank = rank;
		}
	}
	return best;
}

/* Add the module of an executable mapping of path: [start, start + len)
 * from file offset pgoff. */
static void add_module(struct target *s, const char *path, uint64_t start, uint64_t len,
		       uint64_t pgoff)
{
	struct pp_process *pr = &s->proc;
	struct pp_module m = { .path = NULL };
	bool known = false;
	if (strcmp(path, "[vdso]") == 0) {
		known = describe_vdso(&m);
	} else if (path[0] == '/') {
		int fd = open_module(s, path, start, start + len);
		if (fd >= 0) {
			Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
			known = describe(elf, &m);
			elf_end(elf);
			close(fd);
		}
	} else {
		return; /* anonymous code (a JIT): no module */
	}
	/* The bias maps file offset pgoff to start.  Not an ELF file: the
	 * mapping alone. */
	const struct pp_segment *seg = known ? mapped_segment(&m, pgoff, s->pagesize) : NULL;
	if (!seg) {
		memset(&m, 0, sizeof m);
		m.nsegs = 1;
		m.seg[0] = (struct pp_segment){ pgoff, len, pgoff, 5 /* PF_R | PF_X */ };
		m.bias = start - pgoff;
	} else if (strcmp(path, "[vdso]") == 0) {
		m.bias = start - (seg->vaddr & ~(uint64_t)(s->pagesize - 1));
	} else {
		m.bias = start - pgoff - (seg->vaddr - seg->offset);
	}

	for (size_t i = 0; i < pr->nmodules; i++) {
		struct pp_module *o = &pr->modules[i];
		if (o->epoch_unloaded)
			continue;
		if (o->bias == m.bias && strcmp(o->path, path) == 0)
			return;
		/* A new mapping over a live module's code replaces it. */
		if (pp_module_holds(o, start) || pp_module_holds(o, start + len - 1))
			o->epoch_unloaded = s->epoch + 1;
	}
	for (size_t i = 0; i < pr->nmodules; i++)
		if (pr->modules[i].epoch_unloaded == s->epoch + 1) {
			s->epoch++;
			break;
		}
	if (pr->nmodules == s->modcap) {
		s->modcap = s->modcap ? 2 * s->modcap : 32;
		pr->modules = xrealloc(pr->modules, s->modcap * sizeof *pr->modules);
		s->code = xrealloc(s->code, s->modcap * sizeof *s->code);
	}
	s->code[pr->nmodules] = (struct code){ .map = NULL };
	m.path = xstrdup(path);
	m.epoch_loaded = s->epoch;
	pr->modules[pr->nmodules++] = m;
}

/* Every executable file mapping now in the process. */
static void read_maps(struct target *s)
{
	char dir[64], path[80], line[PATH_MAX + 128];
	proc_dir((int)s->pid, dir, sizeof dir);
	snprintf(path, sizeof path, "%s/maps", dir);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		unsigned long lo, hi, off;
		char perms[8];
		int at = 0;
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %n", &lo, &hi, perms, &off, &at) < 4 ||
		    !at || !strchr(perms, 'x'))
			continue;
		add_module(s, line + at, lo, hi - lo, off);
	}
	fclose(f);
}

static uint32_t module_at(const struct target *s, uint64_t pc)
{
	const struct pp_process *pr = &s->proc;
	for (size_t i = pr->nmodules; i-- > 0;)
		if (!pr->modules[i].epoch_unloaded && pp_module_holds(&pr->modules[i], pc))
			return (uint32_t)i;
	return PP_NO_MODULE;
}

/* ---- samples ---- */

static size_t hash(uint64_t pc, uint32_t thread, uint32_t frame, uint32_t time)
{
	uint64_t h = (pc ^ ((uint64_t)thread << 40) ^ ((uint64_t)frame << 20) ^
		      ((uint64_t)time * 0xff51afd7ed558ccdull)) *
		     0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 17);
}

static void add_sample(struct target *s, uint64_t pc, uint32_t module, uint32_t thread,
		       uint32_t frame, uint32_t time)
{
	if (2 * (s->tabn + 1) > s->tabcap) {
		size_t oldcap = s->tabcap;
		struct key *old = s->tab;
		s->tabcap = oldcap ? 2 * oldcap : 4096;
		s->tab = xcalloc(s->tabcap, sizeof *s->tab);
		s->tabn = 0;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].count) {
				size_t j =
					hash(old[i].pc, old[i].thread, old[i].frame, old[i].time) &
					(s->tabcap - 1);
				while (s->tab[j].count)
					j = (j + 1) & (s->tabcap - 1);
				s->tab[j] = old[i];
				s->tabn++;
			}
		free(old);
	}
	size_t j = hash(pc, thread, frame, time) & (s->tabcap - 1);
	for (; s->tab[j].count; j = (j + 1) & (s->tabcap - 1))
		if (s->tab[j].pc == pc && s->tab[j].thread == thread &&
		    s->tab[j].module == module && s->tab[j].frame == frame &&
		    s->tab[j].time == time) {
			s->tab[j].count++;
			return;
		}
	s->tab[j] = (struct key){ pc, module, thread, frame, time, 1 };
	s->tabn++;
}

/* ---- stacks ---- */

/* Map module m's file for its code (once; through /proc/PID/root first). */
static const struct code *code_of(struct target *s, uint32_t m)
{
	struct code *c = &s->code[m];
	const char *path = s->proc.modules[m].path;
	if (c->map || c->failed)
		return c;
	c->failed = true;
	if (path[0] != '/')
		return c;
	int fd = open_module(s, path, 0, 0);
	struct stat st;
	if (fd < 0)
		return c;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			c->map = p;
			c->len = (size_t)st.st_size;
			c->failed = false;
		}
	}
	close(fd);
	return c;
}

/* n bytes of code at runtime address pc of module m, from its file. */
static bool read_code(struct target *s, uint32_t m, uint64_t pc, uint8_t *buf, size_t n)
{
	if (m == PP_NO_MODULE)
		return false;
	const struct pp_module *mod = &s->proc.modules[m];
	uint64_t at = pc - mod->bias;
	for (uint32_t i = 0; i < mod->nsegs; i++) {
		const struct pp_segment *g = &mod->seg[i];
		if (at < g->vaddr || at - g->vaddr >= g->memsz || at - g->vaddr + n > g->memsz)
			continue;
		const struct code *c = code_of(s, m);
		uint64_t off = g->offset + (at - g->vaddr);
		if (!c->map || off > c->len || n > c->len - off)
			return false;
		memcpy(buf, c->map + off, n);
		return true;
	}
	return false;
}

/* Length of an indirect call ff /2 from its ModRM and SIB bytes. */
static unsigned call_len(uint8_t modrm, uint8_t sib)
{
	unsigned mod = modrm >> 6, rm = modrm & 7, len = 2;
	if (mod == 3)
		return len;
	if (rm == 4)
		len++;
	if (mod == 0)
		return len + (rm == 5 || (rm == 4 && (sib & 7) == 5) ? 4 : 0);
	return len + (mod == 1 ? 1 : 4);
}

/*
 * Whether ret, in module m, is a return address: it follows a call.  *to
 * is the target of a direct call, 0 for an indirect one.
 */
static bool after_call(struct target *s, uint32_t m, uint64_t ret, uint64_t *to)
{
	uint8_t b[8]; /* ret - 7 .. ret */
	*to = 0;
	if (ret < 8 || !read_code(s, m, ret - 7, b, sizeof b))
		return false;
	if (b[2] == 0xe8) {
		int32_t rel;
		memcpy(&rel, b + 3, sizeof rel);
		*to = ret + (uint64_t)(int64_t)rel;
		return true;
	}
	for (unsigned k = 2; k <= 7; k++)
		if (b[7 - k] == 0xff && ((b[8 - k] >> 3) & 7) == 2 &&
		    call_len(b[8 - k], b[9 - k]) == k)
			return true;
	return false;
}

/* Whether ret is where Go starts every goroutine's stack: its runtime
 * makes the goroutine's function return into runtime.goexit past a NOP,
 * before a call (of goexit1), not after one. */
static bool goroutine_root(struct target *s, uint32_t m, uint64_t ret)
{
	uint8_t b[2];
	return read_code(s, m, ret - 1, b, 2) && b[0] == 0x90 && b[1] == 0xe8;
}

static bool is_switcher(const char *name)
{
	return strcmp(name, "runtime.systemstack") == 0 ||
	       strcmp(name, "runtime.systemstack.abi0") == 0 ||
	       strcmp(name, "runtime.asmcgocall") == 0 ||
	       strcmp(name, "runtime.asmcgocall.abi0") == 0;
}

/* Find Go's stack switchers in module m's symbol table, else in its
 * .gopclntab (a stripped Go binary). */
static void read_switchers(struct target *s, uint32_t m, struct code *c)
{
	c->switchers_read = true;
	const char *path = s->proc.modules[m].path;
	int fd = path[0] == '/' ? open_module(s, path, 0, 0) : -1;
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	bool symtab = false;
	for (Elf_Scn *scn = NULL; elf && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		symtab = true;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && c->nswitchers < 4; i++) {
			GElf_Sym sym;
			const char *name;
			if (gelf_getsym(d, (int)i, &sym) &&
			    (name = elf_strptr(elf, sh.sh_link, sym.st_name)) && is_switcher(name))
				memcpy(c->switcher[c->nswitchers++],
				       (uint64_t[2]){ sym.st_value, sym.st_value + sym.st_size },
				       sizeof c->switcher[0]);
		}
	}
	struct go_func *go;
	char *names;
	struct go_pcln *g = elf && !symtab ? symtab_go_open(elf) : NULL;
	size_t n = g ? symtab_go_functions(g, &go, &names) : 0;
	symtab_go_close(g);
	for (size_t i = 0; i < n && c->nswitchers < 4; i++)
		if (is_switcher(go[i].name))
			memcpy(c->switcher[c->nswitchers++],
			       (uint64_t[2]){ go[i].start, go[i].start + go[i].size },
			       sizeof c->switcher[0]);
	if (n) {
		free(go);
		free(names);
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
}

/*
 * Whether pc is in one of Go's stack switchers (runtime.systemstack,
 * runtime.asmcgocall): they have no frame and call on another stack, so
 * the walk's next link is their caller's caller, which the check of
 * calls_toward would refuse.  The caller is lost, the rest is right.
 */
static bool in_switcher(struct target *s, uint32_t m, uint64_t pc)
{
	if (m == PP_NO_MODULE)
		return false;
	struct code *c = &s->code[m];
	if (!c->switchers_read)
		read_switchers(s, m, c);
	uint64_t at = pc - s->proc.modules[m].bias;
	for (unsigned i = 0; i < c->nswitchers; i++)
		if (at >= c->switcher[i][0] && at < c->switcher[i][1])
			return true;
	return false;
}

/* Whether the direct call to `to` can have led to pc (a frame inside the
 * function at to): unknown targets and calls to other modules (a PLT
 * stub's jump) are let through. */
static bool calls_toward(uint64_t to, uint32_t to_mod, uint32_t pc_mod, uint64_t pc)
{
	return !to || to_mod != pc_mod || (to <= pc && pc - to < CALLEE_MAX);
}

/*
 * Whether a leaf at ip (module m) whose entry is not known (called through
 * a pointer or a PLT stub) has no frame: the walk's first return address
 * `first` then belongs to its caller's caller, so its call leads to the
 * caller (where sp0 returns), not to the leaf.
 */
static bool walk_skipped_caller(struct target *s, uint64_t ip, uint32_t m, uint64_t sp0,
				uint64_t first)
{
	uint64_t to;
	uint32_t fm = first ? module_at(s, first - 1) : PP_NO_MODULE;
	if (fm == PP_NO_MODULE || !after_call(s, fm, first, &to) || !to)
		return false;
	uint32_t tm = module_at(s, to);
	bool to_leaf = tm == m && to <= ip && ip - to < CALLEE_MAX;
	bool to_caller = tm == module_at(s, sp0 - 1) && to < sp0 && sp0 - 1 - to < CALLEE_MAX;
	return to_caller && !to_leaf;
}

/*
 * The return address a leaf at ip left at the stack pointer, if its
 * function has not (or no longer) its own frame there, else 0.  sp0 and
 * sp1 are the stack's two first words, first the walk's first return
 * address (0: none).
 */
static uint64_t leaf_return(struct target *s, uint64_t ip, uint32_t m, uint64_t sp0, uint64_t sp1,
			    uint64_t first)
{
	uint8_t op;
	uint64_t to;
	if (!read_code(s, m, ip, &op, 1))
		return 0;
	uint32_t rm = module_at(s, sp0);
	if (op == 0xc3) /* ret: the frame is gone */
		return after_call(s, rm, sp0, &to) ? sp0 : 0;
	/* The caller's call names the leaf's entry: find its frame set-up
	 * (push %rbp; mov %rsp,%rbp) near it. */
	if (!after_call(s, rm, sp0, &to))
		return 0;
	if (!to || module_at(s, to) != m || to > ip || ip - to >= CALLEE_MAX)
		return walk_skipped_caller(s, ip, m, sp0, first) ? sp0 : 0;
	uint8_t code[64];
	size_t n = sizeof code;
	while (n >= 4 && !read_code(s, m, to, code, n))
		n /= 2;
	for (size_t o = 0; o + 4 <= n; o++)
		if (code[o] == 0x55 && code[o + 1] == 0x48 && code[o + 2] == 0x89 &&
		    code[o + 3] == 0xe5) {
			if (ip <= to + o)
				return sp0; /* not pushed yet */
			if (ip == to + o + 1)
				return after_call(s, module_at(s, sp1), sp1, &to) ? sp1 : 0;
			return 0; /* its frame is set up: the walk saw the caller */
		}
	return sp0; /* no frame at all */
}

/*
 * The leaf frame of a sample at ip (module m) from its callchain (nchain
 * entries, leaf first, PERF_CONTEXT_* markers among them) and the two
 * stack words (stack: 0, 1 or 2 of them).
 */
/* A sample's user registers (perf's order, PERF_DW_MASK; NULL: none) and
 * its stack copy. */
struct sample_regs {
	const uint64_t *regs;
	const uint8_t *stack;
	size_t len;
};

/*
 * Where the frame-pointer walk failed: the call-frame tables' walk of the
 * stack copy, into ret[0..MAX_STACK), if it goes further than good frames;
 * returns how many frames (0: not further), *complete if it reached the
 * stack's end.
 */
static size_t dwarf_walk(struct target *s, const struct sample_regs *sr, uint64_t *ret, size_t good,
			 bool *complete)
{
	static const int dw_of[DW_REGS] = {
		0, 3, 2, 1, 4, 5, 6, 7, 16, 8, 9, 10, 11, 12, 13, 14, 15
	};
	if (!sr->regs || !sr->stack)
		return 0;
	if (!s->dw)
		s->dw = unwind_dwarf_new(s->pid);
	if (s->dw_nmods != s->proc.nmodules || s->dw_epoch != s->epoch) {
		unwind_dwarf_modules_changed(s->dw);
		s->dw_nmods = s->proc.nmodules;
		s->dw_epoch = s->epoch;
	}
	uint64_t regs[DW_REGS], got[MAX_STACK];
	for (int i = 0; i < DW_REGS; i++)
		regs[dw_of[i]] = sr->regs[i];
	size_t n =
		unwind_dwarf(s->dw, &s->proc, regs, sr->stack, sr->len, got, MAX_STACK, complete);
	if (n <= good)
		return 0;
	memcpy(ret, got, n * sizeof *got);
	return n;
}

static uint32_t sample_frame(struct target *s, uint64_t ip, uint32_t m, const uint64_t *chain,
			     size_t nchain, const uint64_t *stack, size_t nstack,
			     const struct sample_regs *sr)
{
	uint64_t ret[MAX_STACK + 1];
	size_t n = 0, nuser = 0;
	for (size_t i = 0; i < nchain; i++) {
		if (chain[i] >= (uint64_t)PERF_CONTEXT_MAX)
			continue;
		if (nuser++ == 0)
			continue; /* the leaf: ip */
		if (n < MAX_STACK)
			ret[n++] = chain[i];
	}
	if (nstack == 2) {
		uint64_t r = leaf_return(s, ip, m, stack[0], stack[1], n ? ret[0] : 0);
		if (r && (n == 0 || ret[0] != r)) {
			memmove(ret + 1, ret, (n < MAX_STACK ? n : MAX_STACK - 1) * sizeof *ret);
			ret[0] = r;
			n += n < MAX_STACK;
		}
	}
	/* Check the links from the leaf out; keep what holds. */
	uint64_t pc = ip;
	uint32_t pm = m;
	size_t good = 0;
	for (; good < n; good++) {
		uint64_t to;
		uint32_t rm = module_at(s, ret[good] - 1);
		bool ok = rm != PP_NO_MODULE && after_call(s, rm, ret[good], &to)
				  ? calls_toward(to, module_at(s, to), pm, pc) ||
					    in_switcher(s, pm, pc)
				  : rm != PP_NO_MODULE && good == n - 1 &&
					    goroutine_root(s, rm, ret[good]);
		if (!ok)
			break;
		pc = ret[good] - 1;
		pm = rm;
	}
	/* A failed link, or no walk at all.  A walk that passed the checks
	 * may still have stopped early (at a frame pointer that was not
	 * one): the tables' walk replaces it where it goes further, and
	 * where the frame-pointer walk failed, if it gets further than the
	 * links that held, or where it gave no caller at all (the kernel
	 * found no frame pointer): a part of the stack, marked [unknown]
	 * where the tables' walk ran out of the copy, is more than none. */
	bool lost = good < n || nuser == 0, complete = false;
	uint64_t dret[MAX_STACK];
	size_t dn = dwarf_walk(s, sr, dret, good, &complete);
	if (dn && (lost || complete || n == 0)) {
		memcpy(ret, dret, dn * sizeof *dret);
		good = n = dn;
		lost = !complete;
	}
	uint32_t parent = PP_NO_FRAME;
	if (lost)
		parent = frame_intern(&s->fi, &s->proc, PCPROF_FRAME_UNKNOWN, PP_NO_MODULE, parent);
	else if (nchain >= s->max_stack)
		parent = frame_intern(&s->fi, &s->proc, PCPROF_FRAME_TRUNCATED, PP_NO_MODULE,
				      parent);
	while (good-- > 0) {
		pc = ret[good] - 1;
		parent = frame_intern(&s->fi, &s->proc, pc, module_at(s, pc), parent);
	}
	return frame_intern(&s->fi, &s->proc, ip, m, parent);
}

void sampler_set_end(struct pp_process *pr, int status)
{
	if (WIFEXITED(status)) {
		pr->end = PP_END_EXIT;
		pr->exit_status = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		pr->end = PP_END_SIGNAL;
		pr->exit_status = WTERMSIG(status);
	}
}

/* ---- processes ---- */

static char proc_state(pid_t pid, int *exit_code, int32_t *ppid);
static void read_identity(struct target *s, const char *comm);

static struct target *target_of(const struct sampler *s, pid_t pid)
{
	for (size_t i = s->ntg; i-- > 0;)
		if (s->tg[i]->pid == pid)
			return s->tg[i];
	return NULL;
}

static struct target *new_target(struct sampler *s, pid_t pid)
{
	if (s->ntg == s->tgcap) {
		s->tgcap = s->tgcap ? 2 * s->tgcap : 8;
		s->tg = xrealloc(s->tg, s->tgcap * sizeof *s->tg);
	}
	struct target *t = xcalloc(1, sizeof *t);
	t->pid = pid;
	t->pagesize = s->pagesize;
	t->max_stack = s->max_stack;
	t->proc.pid = pid;
	t->proc.exit_status = -1;
	s->tg[s->ntg++] = t;
	return t;
}

/*
 * Process pid, just forked by parent: a copy of its address space, so its
 * modules are the parent's live ones; its identity is the parent's until
 * it execs.  Its only thread is the one that forked.
 */
static void forked(struct sampler *s, const struct target *parent, pid_t pid)
{
	struct target *t = new_target(s, pid);
	struct pp_process *pr = &t->proc;
	pr->ppid = parent->pid;
	pr->start_ns = clock_ns(CLOCK_REALTIME);
	pr->exe = xstrdup(parent->proc.exe ? parent->proc.exe : "");
	pr->cmdline = xstrdup(parent->proc.cmdline ? parent->proc.cmdline : "");
	for (size_t i = 0; i < parent->proc.nmodules; i++) {
		const struct pp_module *m = &parent->proc.modules[i];
		if (m->epoch_unloaded)
			continue;
		if (pr->nmodules == t->modcap) {
			t->modcap = t->modcap ? 2 * t->modcap : 32;
			pr->modules = xrealloc(pr->modules, t->modcap * sizeof *pr->modules);
			t->code = xrealloc(t->code, t->modcap * sizeof *t->code);
		}
		t->code[pr->nmodules] = (struct code){ .map = NULL };
		pr->modules[pr->nmodules] = *m;
		pr->modules[pr->nmodules].path = xstrdup(m->path);
		pr->modules[pr->nmodules].epoch_loaded = 0;
		pr->nmodules++;
	}
	uint32_t k = thread_of(t, (int32_t)pid);
	t->thr[k].covered = true;
	s->info.children++;
}

/* A followed process that has ended: how, if it is a zombie yet. */
static void process_ended(struct target *t)
{
	int code;
	t->ended = true;
	t->proc.end_ns = clock_ns(CLOCK_REALTIME);
	if (proc_state(t->pid, &code, NULL) == 'Z' && code >= 0)
		sampler_set_end(&t->proc, code);
}

/* ---- records ---- */

/* The thread whose directly opened event sample id came from (its own or
 * one inherited from it); 0 if unknown. */
static int32_t root_of(const struct sampler *s, uint64_t id)
{
	size_t lo = 0, hi = s->nev;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->ev[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nev && s->ev[lo].id == id ? s->ev[lo].tid : 0;
}

/* The timeline (pp_sample.time) of a sample taken at perf time `when`:
 * counted from the first sample's time, which is within a period of the
 * program's start (records are taken in time order, drain_all). */
static uint32_t sample_time(struct sampler *s, uint64_t when)
{
	if (!s->timeline)
		return PP_NO_TIME;
	if (!s->time0)
		s->time0 = when + 1;
	uint64_t b = when + 1 > s->time0 ? (when + 1 - s->time0) / SAMPLER_BUCKET_NS : 0;
	return b < UINT32_MAX - 1 ? (uint32_t)b + 1 : PP_NO_TIME;
}

static void on_sample(struct sampler *s, const uint8_t *r, size_t len)
{
	struct {
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time;
		uint64_t id;
	} v;
	const uint8_t *p = r + sizeof(struct perf_event_header), *end = r + len;
	if (len < sizeof(struct perf_event_header) + sizeof v)
		return;
	memcpy(&v, p, sizeof v);
	p += sizeof v;
	struct target *tg = target_of(s, (pid_t)v.pid);
	if (!tg) {
		s->info.child_samples++;
		return;
	}
	uint32_t m = module_at(tg, v.ip), frame = PP_NO_FRAME;
	if (m == PP_NO_MODULE && !s->again) {
		if (s->npending + len > s->pendcap) {
			s->pendcap = 2 * (s->npending + len);
			s->pending = xrealloc(s->pending, s->pendcap);
		}
		memcpy(s->pending + s->npending, r, len);
		s->npending += len;
		return;
	}
	uint32_t t = thread_of(tg, (int32_t)v.tid);
	int32_t root = root_of(s, v.id);
	if (!tg->thr[t].root)
		tg->thr[t].root = root;
	else if (root && tg->thr[t].root != root) {
		s->info.duplicates++;
		return;
	}
	tg->proc.threads[t].ticks++;
	tg->proc.ticks++;
	if (s->stacks) {
		/* callchain: nr, ips[nr]; regs_user: abi, regs[DW_REGS] (none
		 * if abi is 0); stack_user: size, data[size], dyn_size */
		uint64_t nr = 0, size = 0, dyn = 0, words[2] = { 0, 0 }, abi = 0;
		uint64_t chain[MAX_STACK + 8], regs[DW_REGS];
		const uint8_t *copy = NULL;
		if ((size_t)(end - p) >= 8) {
			memcpy(&nr, p, 8);
			p += 8;
			if (nr > (uint64_t)(end - p) / 8)
				nr = 0;
			size_t keep = nr < MAX_STACK + 8 ? (size_t)nr : MAX_STACK + 8;
			memcpy(chain, p, keep * 8);
			p += nr * 8;
			nr = keep;
		}
		if (s->dwarf && (size_t)(end - p) >= 8) {
			memcpy(&abi, p, 8);
			p += 8;
			if (abi && (size_t)(end - p) >= sizeof regs) {
				memcpy(regs, p, sizeof regs);
				p += sizeof regs;
			} else {
				abi = 0;
			}
		}
		if ((size_t)(end - p) >= 8) {
			memcpy(&size, p, 8);
			if (size <= (uint64_t)(end - p) - 8 &&
			    (uint64_t)(end - p) - 8 - size >= 8) {
				memcpy(&dyn, p + 8 + size, 8);
				memcpy(words, p + 8, (dyn < size ? dyn : size) >= 16 ? 16 : 0);
				copy = p + 8;
			}
		}
		size_t nw = (dyn < size ? dyn : size) >= 16 ? 2 : 0;
		struct sample_regs sr = { abi ? regs : NULL, copy, dyn < size ? dyn : size };
		frame = sample_frame(tg, v.ip, m, chain, (size_t)nr, words, nw, &sr);
	}
	add_sample(tg, v.ip, m, t, frame, sample_time(s, v.time));
}

/* side: the record came from a side-band buffer (open_thread). */
static void on_record(struct sampler *s, const uint8_t *r, size_t len, bool side)
{
	struct perf_event_header h;
	memcpy(&h, r, sizeof h);
	const uint8_t *p = r + sizeof h;
	size_t n = len - sizeof h;
	uint32_t v[4]; /* the first fields of most records: pid, tid or pid, ppid, tid, ptid */
	struct target *t = NULL;
	if (n >= sizeof v) {
		memcpy(v, p, sizeof v);
		t = target_of(s, (pid_t)v[0]);
	}
	switch (h.type) {
	case PERF_RECORD_SAMPLE:
		on_sample(s, r, len);
		break;
	case PERF_RECORD_LOST:
		/* Records the kernel had no room for, of every kind its
		 * buffer takes: samples, or side-band records. */
		if (n >= 16) {
			uint64_t lost;
			memcpy(&lost, p + 8, sizeof lost);
			if (side)
				s->info.lost_records += lost;
			else
				s->info.lost += lost;
		}
		break;
	case PERF_RECORD_FORK: /* pid, ppid, tid, ptid */
		if (n < sizeof v)
			break;
		if (t) {
			uint32_t k = thread_of(t, (int32_t)v[2]);
			t->thr[k].covered = true;
		} else if (v[0] == v[2]) { /* a new process */
			const struct target *parent = target_of(s, (pid_t)v[1]);
			if (parent) /* followed even if not wanted: its CPU time is */
				forked(s, parent, (pid_t)v[0]);
		}
		break;
	case PERF_RECORD_EXIT: /* pid, ppid, tid, ptid */
		if (!t)
			break;
		uint32_t x = thread_of(t, (int32_t)v[2]); /* first: it may move t->thr */
		t->thr[x].exited = true;
		/* A followed process ends with its last thread: its main
		 * thread may end first (pthread_exit) and the others run on.
		 * Each of its threads was created while sampled, so each
		 * has its EXIT record. */
		if (t != s->tg[0]) {
			t->leader_gone |= v[0] == v[2];
			bool all = t->leader_gone && !t->ended;
			for (size_t i = 0; all && i < t->proc.nthreads; i++)
				all = t->thr[i].exited;
			if (all)
				process_ended(t);
		}
		break;
	case PERF_RECORD_READ: /* pid, tid, value: a thread of an inherited event ended */
		if (n >= 16) {
			uint64_t ns;
			memcpy(&ns, p + 8, sizeof ns);
			if (t) {
				uint32_t k = thread_of(t, (int32_t)v[1]);
				t->exited_ns += ns;
				t->thr[k].read = true;
				t->thr[k].cpu_ns += ns;
			}
		}
		break;
	case PERF_RECORD_COMM: /* pid, tid, name */
		if (!t || n <= 8)
			break;
		uint32_t c = thread_of(t, (int32_t)v[1]); /* first: it may move the threads */
		struct pp_thread *th = &t->proc.threads[c];
		snprintf(th->name, sizeof th->name, "%.*s",
			 (int)strnlen((const char *)p + 8, n - 8), (const char *)p + 8);
		if (h.misc & PERF_RECORD_MISC_COMM_EXEC) {
			/* A new image: the old one's modules are gone. */
			if (t == s->tg[0])
				s->info.execs++;
			read_identity(t, th->name);
			t->epoch++;
			for (size_t i = 0; i < t->proc.nmodules; i++)
				if (!t->proc.modules[i].epoch_unloaded)
					t->proc.modules[i].epoch_unloaded = t->epoch;
		}
		break;
	case PERF_RECORD_MMAP2: {
		struct {
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint8_t id[24]; /* maj, min, ino, generation; or a build id */
			uint32_t prot, flags;
		} m;
		if (n <= sizeof m)
			break;
		memcpy(&m, p, sizeof m);
		const char *file = (const char *)p + sizeof m;
		if (!t || !(m.prot & PROT_EXEC) || strnlen(file, n - sizeof m) == n - sizeof m)
			break;
		add_module(t, file, m.addr, m.len, m.pgoff);
		break;
	}
	default:
		break;
	}
}

/* Read every complete record in one buffer. */
static void drain(struct sampler *s, const struct buffer *b)
{
	if (!b->base)
		return;
	struct perf_event_mmap_page *mp = (struct perf_event_mmap_page *)b->base;
	const uint8_t *data = b->base + s->pagesize;
	uint64_t size = (uint64_t)b->pages * s->pagesize;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail;
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		/* Records are 8-byte aligned: a header never wraps. */
		memcpy(&h, data + (tail % size), sizeof h);
		if (h.size < sizeof h || h.size > head - tail)
			break;
		uint64_t at = tail % size, first = size - at < h.size ? size - at : h.size;
		if (s->nstage + h.size > s->stagecap) {
			s->stagecap = 2 * (s->nstage + h.size);
			s->stage = xrealloc(s->stage, s->stagecap);
		}
		uint8_t *r = s->stage + s->nstage;
		memcpy(r, data + at, first);
		memcpy(r + first, data, h.size - first);
		/* Its time: a sample's third field, every other record's
		 * sample_id trailer's (pid, tid, time, id). */
		uint64_t time = 0;
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof h + 24)
			memcpy(&time, r + sizeof h + 16, sizeof time);
		else if (h.size >= sizeof h + 24)
			memcpy(&time, r + h.size - 16, sizeof time);
		if (s->nstaged == s->stagedcap) {
			s->stagedcap = s->stagedcap ? 2 * s->stagedcap : 1024;
			s->staged = xrealloc(s->staged, s->stagedcap * sizeof *s->staged);
		}
		s->staged[s->nstaged] =
			(struct staged){ time, s->nstaged, s->nstage, h.size, b->side };
		s->nstaged++;
		s->nstage += h.size;
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

/* ---- events ---- */

static long perf_event_open(struct perf_event_attr *a, pid_t tid, int cpu)
{
	return syscall(SYS_perf_event_open, a, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int read_int_file(const char *path, int dflt)
{
	FILE *f = fopen(path, "re");
	int v = dflt;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = dflt;
		fclose(f);
	}
	return v;
}

/* Why perf_event_open refused: the settings and rights that decide it. */
static void explain_denied(const struct sampler *s, int err, char *msg, size_t len)
{
	int paranoid = read_int_file("/proc/sys/kernel/perf_event_paranoid", 2);
	char path[64];
	snprintf(path, sizeof path, "/proc/%d", (int)s->pid);
	if (paranoid > 2)
		snprintf(msg, len,
			 "perf_event_open: %s: kernel.perf_event_paranoid is %d, which "
			 "refuses perf events to users without CAP_PERFMON (set it to 2 or "
			 "lower, or run pcprof with CAP_PERFMON)",
			 strerror(err), paranoid);
	else
		snprintf(msg, len,
			 "perf_event_open on process %d: %s: profiling another process needs "
			 "the same user as the target (and a target that is not set-user-ID "
			 "or otherwise undumpable), or CAP_PERFMON or CAP_SYS_PTRACE "
			 "(kernel.perf_event_paranoid is %d)",
			 (int)s->pid, strerror(err), paranoid);
}

static void open_failed(struct sampler *s, int e, int32_t tid, char *err, size_t errlen)
{
	if (e == EACCES || e == EPERM)
		explain_denied(s, e, err, errlen);
	else if (e == EMFILE) {
		struct rlimit rl = { 0, 0 };
		getrlimit(RLIMIT_NOFILE, &rl);
		snprintf(err, errlen,
			 "perf_event_open: %s: two descriptors per thread and CPU are needed, "
			 "%zu threads so far on %zu CPUs, and the limit of open files is %llu "
			 "(pcprof raises its soft limit to the hard one; raise that: ulimit -Hn)",
			 strerror(e), s->info.events + 1, s->nbuf / 2, (unsigned long long)rl.rlim_cur);
	} else if (e == ENFILE)
		snprintf(err, errlen,
			 "perf_event_open: %s: two descriptors per thread and CPU are needed, beyond "
			 "the system's limit (fs.file-max)",
			 strerror(e));
	else if (e == ENOENT || e == ENOSYS || e == EOPNOTSUPP)
		snprintf(err, errlen,
			 "perf_event_open: %s: this kernel has no software cpu-clock perf events",
			 strerror(e));
	else
		snprintf(err, errlen, "perf_event_open on thread %d: %s", (int)tid, strerror(e));
}

/* Map the first event of a CPU as that CPU's buffer.  Buffers are locked
 * memory: past perf_event_mlock_kb they count against RLIMIT_MEMLOCK, so
 * smaller ones are tried before giving up. */
static int map_buffer(struct sampler *s, struct buffer *b, int fd, char *err, size_t errlen)
{
	void *base;
	size_t *pages = b->side ? &s->side_pages : &s->pages;
	for (;;) {
		base = mmap(NULL, (*pages + 1) * s->pagesize, PROT_READ | PROT_WRITE, MAP_SHARED,
			    fd, 0);
		if (base != MAP_FAILED || *pages == 1 || (errno != EPERM && errno != ENOMEM))
			break;
		*pages /= 2;
	}
	if (base == MAP_FAILED) {
		snprintf(err, errlen,
			 "mapping a perf buffer for CPU %d: %s (kernel.perf_event_mlock_kb and "
			 "RLIMIT_MEMLOCK bound the buffers)",
			 b->cpu, strerror(errno));
		return -1;
	}
	b->fd = fd;
	b->base = base;
	b->pages = *pages;
	return 0;
}

/*
 * Every thread found needs two descriptors per CPU, its events' (the kernel
 * lets per-CPU events, not per-thread ones, be both inherited and mapped):
 * with one a thread, 600 threads on 2 CPUs passed the usual soft limit of
 * 1024 (with two, 300 do), and the attach failed ("raise the limit with
 * ulimit -n").  So at the first EMFILE pcprof raises its own soft
 * RLIMIT_NOFILE to the hard one, once, and sets it back when the events
 * are closed (close_all).  Nothing pcprof starts
 * gets the raised limit: pcprof attach starts no process, and pcprof run
 * --mode external has started its program (which keeps its own limit)
 * before it opens the first event.  false: it could not be raised.
 */
static bool more_files(struct sampler *s)
{
	struct rlimit rl;
	if (s->nofile_raised || getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= rl.rlim_max)
		return false;
	s->nofile = rl;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		return false;
	s->nofile_raised = true;
	return true;
}

/*
 * Events on thread tid, two per CPU, each output to a buffer of the CPU:
 * per-CPU events are the ones the kernel lets both inherit and be mapped.
 * The sampling event goes to the CPU's sample buffer; a counting event of
 * the same clock, which also reports mappings, execs, thread and process
 * births and ends, and each inherited copy's count as its thread ends,
 * goes to its side-band buffer.  Apart, because a full buffer tells only
 * how many records it dropped, not of what kind: one buffer for both
 * counted a program's dropped mapping records as samples ("lost: 38262
 * samples" for 0.41 s at 500 Hz: tests/targets/gaps maps 0.4), and they
 * ate the room of the samples.  Returns 1, 0 if the thread has ended, -1
 * with err set.
 */
static int open_thread(struct sampler *s, int32_t tid, char *err, size_t errlen)
{
	struct perf_event_attr a = {
		.size = sizeof a,
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 1000000000u / s->hz,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID,
		.inherit = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.sample_id_all = 1, /* times on every record: drain_all orders them */
		.watermark = 1,     /* wakeup_watermark 0: half the buffer wakes us */
	};
	struct perf_event_attr side = {
		.size = sizeof side,
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK, /* counting: no sample_period */
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID,
		.inherit = 1,
		.inherit_stat = 1, /* an inherited event's count at its thread's end */
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.mmap = 1,
		.mmap2 = 1,
		.comm = 1,
		.comm_exec = 1,
		.task = 1,
		.sample_id_all = 1, /* the same trailer as the samples' records */
		.watermark = 1,
	};
	if (s->stacks) {
		a.sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER;
		a.exclude_callchain_kernel = 1;
		a.sample_max_stack = (uint16_t)s->max_stack;
		/* the leaf's return address (leaf_return), and with the
		 * registers the stack the call-frame tables unwind */
		a.sample_stack_user = s->dwarf ? DWARF_STACK : 16;
		if (s->dwarf) {
			a.sample_type |= PERF_SAMPLE_REGS_USER;
			a.sample_regs_user = PERF_DW_MASK;
		}
	}
	for (size_t i = 0; i < s->nbuf; i++) {
		struct buffer *b = &s->buf[i];
		struct perf_event_attr *attr = b->side ? &side : &a;
		int fd = (int)perf_event_open(attr, tid, b->cpu);
		if (fd < 0 && errno == EMFILE && more_files(s))
			fd = (int)perf_event_open(attr, tid, b->cpu);
		if (fd < 0 && s->dwarf && s->nev == 0 &&
		    (errno == EINVAL || errno == E2BIG || errno == EOVERFLOW)) {
			/* no user registers or no room for the stack copy: the
			 * frame-pointer walks alone */
			s->dwarf = false;
			return open_thread(s, tid, err, errlen);
		}
		if (fd < 0 && s->stacks && s->nev == 0 &&
		    (errno == EINVAL || errno == E2BIG || errno == EOVERFLOW)) {
			/* A kernel without callchain limits or user stack
			 * samples (before 4.8): pcs only, and the summary says. */
			s->info.stacks_refused = errno;
			s->stacks = false;
			s->pages = MAX_PAGES;
			return open_thread(s, tid, err, errlen);
		}
		if (fd < 0) {
			if (errno == ESRCH)
				return 0; /* the thread ended meanwhile */
			open_failed(s, errno, tid, err, errlen);
			return -1;
		}
		uint64_t id = 0;
		if (s->nev == s->evcap) {
			s->evcap = s->evcap ? 2 * s->evcap : 64;
			s->ev = xrealloc(s->ev, s->evcap * sizeof *s->ev);
		}
		if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0 ||
		    (b->fd < 0 ? map_buffer(s, b, fd, err, errlen)
			       : ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, b->fd)) < 0) {
			if (b->fd != fd)
				snprintf(err, errlen, "perf event on thread %d, CPU %d: %s",
					 (int)tid, b->cpu, strerror(errno));
			if (b->fd == fd)
				b->fd = -1;
			close(fd);
			return -1;
		}
		s->ev[s->nev++] = (struct event){ fd, tid, id, b->side };
	}
	uint32_t t = thread_of(s->tg[0], tid);
	s->tg[0]->thr[t].covered = true;
	s->tg[0]->thr[t].direct = true;
	s->info.events++;
	return 1;
}

/* The CPUs events can be opened on: /sys's online list, else all. */
static void find_cpus(struct sampler *s)
{
	char line[4096] = "";
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	if (f) {
		if (!fgets(line, sizeof line, f))
			line[0] = 0;
		fclose(f);
	}
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	s->buf = xcalloc(2 * (conf > 0 ? (size_t)conf + 4096 : 4096), sizeof *s->buf);
	for (char *p = line; *p && *p != '\n';) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;
		if (end == p)
			break;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (long c = lo; c <= hi && s->nbuf < 4096; c++)
			s->buf[s->nbuf++] = (struct buffer){ .cpu = (int)c, .fd = -1 };
		p = *end == ',' ? end + 1 : end;
	}
	for (long c = 0; !s->nbuf && c < (conf > 0 ? conf : 1); c++)
		s->buf[s->nbuf++] = (struct buffer){ .cpu = (int)c, .fd = -1 };
	/* Then each CPU's side-band buffer (open_thread): the sample
	 * buffers come first, so that a thread's first event is a sampling
	 * one (the fallbacks of open_thread look at it). */
	for (size_t i = 0, n = s->nbuf; i < n; i++)
		s->buf[s->nbuf++] = (struct buffer){ .cpu = s->buf[i].cpu, .fd = -1, .side = true };
}

static void drain_all(struct sampler *s);

/* Stop every event, read what is buffered and the CPU time counted, then
 * close and unmap everything. */
static void close_all(struct sampler *s)
{
	for (size_t i = 0; i < s->nev; i++)
		ioctl(s->ev[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	drain_all(s);
	for (size_t i = 0; i < s->nev; i++) {
		uint64_t count;
		if (s->ev[i].side &&
		    read(s->ev[i].fd, &count, sizeof count) == (ssize_t)sizeof count)
			s->closed_ns += count;
		close(s->ev[i].fd);
	}
	s->nev = 0;
	if (s->nofile_raised) { /* (more_files) */
		setrlimit(RLIMIT_NOFILE, &s->nofile);
		s->nofile_raised = false;
	}
	for (size_t i = 0; i < s->nbuf; i++) {
		if (s->buf[i].base)
			munmap(s->buf[i].base, (s->buf[i].pages + 1) * s->pagesize);
		s->buf[i].base = NULL;
		s->buf[i].fd = -1;
	}
	for (size_t k = 0; k < s->ntg; k++) {
		struct target *t = s->tg[k];
		for (size_t i = 0; i < t->proc.nmodules; i++)
			if (t->code[i].map) {
				munmap((void *)t->code[i].map, t->code[i].len);
				t->code[i] = (struct code){ .failed = true };
			}
	}
}

/* The ids in /proc/PID/task. */
static size_t list_tasks(pid_t pid, int32_t **out)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	size_t n = 0, cap = 0;
	*out = NULL;
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		(*out)[n++] = (int32_t)atoi(e->d_name);
	}
	closedir(d);
	return n;
}

/* Process state from /proc/PID/stat ('Z' zombie, 'X' dead; 0 gone), and
 * the exit code a zombie left (-1 if not readable).  The state of the
 * process as a whole: when its main thread has ended (pthread_exit) and
 * another lives on, that one's (util.h proc_live_thread), and no exit
 * code. */
static char proc_state(pid_t pid, int *exit_code, int32_t *ppid)
{
	char buf[4096];
	const char *p = proc_stat((int)pid, buf, sizeof buf);
	if (!p)
		return 0;
	char state = p[1];
	/* Fields after the command: state is field 3, ppid 4, exit_code 52. */
	int field = 3;
	if (exit_code)
		*exit_code = -1;
	for (const char *t = p + 1; *t; field++) {
		if (field == 4 && ppid)
			*ppid = (int32_t)atoi(t);
		if (field == 52 && exit_code)
			*exit_code = atoi(t);
		t = strchr(t, ' ');
		if (!t)
			break;
		t++;
	}
	if ((state == 'Z' || state == 'X') && proc_live_thread((int)pid)) {
		if (exit_code)
			*exit_code = -1;
		return 'R';
	}
	return state;
}

/* Whether pid is a kernel thread (PF_KTHREAD in the flags, field 9 of
 * /proc/PID/stat): it has no user space, so there is nothing to sample. */
static bool kernel_thread(pid_t pid)
{
	char buf[4096];
	const char *p = proc_stat((int)pid, buf, sizeof buf);
	unsigned long flags;
	return p && sscanf(p, " %*c %*d %*d %*d %*d %*d %lu", &flags) == 1 && (flags & 0x00200000);
}

/* The program and its arguments, read while the process is alive (a
 * zombie has neither) and again after an exec; a process gone meanwhile
 * is named by its command name comm (NULL: none). */
static void read_identity(struct target *s, const char *comm)
{
	free(s->proc.exe);
	free(s->proc.cmdline);
	char dir[64], path[80], buf[PATH_MAX];
	proc_dir((int)s->pid, dir, sizeof dir);
	snprintf(path, sizeof path, "%s/exe", dir);
	ssize_t k = readlink(path, buf, sizeof buf - 1);
	buf[k > 0 ? k : 0] = 0;
	s->proc.exe = xstrdup(buf);
	snprintf(path, sizeof path, "%s/cmdline", dir);
	FILE *f = fopen(path, "re");
	size_t len = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	while (len && buf[len - 1] == 0)
		len--;
	for (size_t i = 0; i < len; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[len] = 0;
	s->proc.cmdline = xstrdup(buf);
	if (!s->proc.cmdline[0] && comm) {
		free(s->proc.cmdline);
		s->proc.cmdline = xstrdup(comm);
	}
	if (!s->proc.exe[0]) {
		free(s->proc.exe);
		s->proc.exe = xstrdup(s->proc.cmdline);
	}
}

/* System time of pid and of the children it waited for (stime and
 * cstime, fields 15 and 17 of /proc/PID/stat; a zombie's too), in *ns. */
static bool proc_sys(pid_t pid, uint64_t *ns)
{
	char buf[4096];
	const char *p = proc_stat((int)pid, buf, sizeof buf);
	unsigned long long st;
	long long cst;
	long hz = sysconf(_SC_CLK_TCK);
	if (!p || hz <= 0 ||
	    sscanf(p, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %llu %*d %lld", &st,
		   &cst) != 2 ||
	    cst < 0)
		return false;
	*ns = (st + (unsigned long long)cst) * (1000000000ull / (unsigned long long)hz);
	return true;
}

/* The target's system time since sampling started, as last seen: read at
 * every poll, as a process that is not pcprof's child may be reaped (and
 * its /proc gone) before sampler_finish. */
static void note_sys(struct sampler *s)
{
	uint64_t ns;
	if (s->sys0_known && proc_sys(s->pid, &ns) && ns > s->sys0)
		s->info.sys_ns = ns - s->sys0;
}

static bool ended(const struct sampler *s)
{
	char st = proc_state(s->pid, NULL, NULL);
	return st == 0 || st == 'Z' || st == 'X';
}

static int staged_cmp(const void *a, const void *b)
{
	const struct staged *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Read every buffer, then take their records in time order: a thread's
 * exec or mapping and its samples may sit in different CPUs' buffers. */
static void drain_all(struct sampler *s)
{
	s->nstage = s->nstaged = 0;
	for (size_t i = 0; i < s->nbuf; i++)
		drain(s, &s->buf[i]);
	if (s->nstaged)
		qsort(s->staged, s->nstaged, sizeof *s->staged, staged_cmp);
	for (size_t i = 0; i < s->nstaged; i++) {
		const struct staged *g = &s->staged[i];
		memcpy(s->rec, s->stage + g->off, g->len);
		on_record(s, s->rec, g->len, g->side);
	}
	if (!s->maps_read)
		return;
	s->again = true;
	for (size_t at = 0; at < s->npending;) {
		struct perf_event_header h;
		memcpy(&h, s->pending + at, sizeof h);
		memcpy(s->rec, s->pending + at, h.size);
		on_sample(s, s->rec, h.size);
		at += h.size;
	}
	s->npending = 0;
	s->again = false;
}

static void free_sampler(struct sampler *s)
{
	close_all(s);
	for (size_t k = 0; k < s->ntg; k++) {
		struct target *t = s->tg[k];
		frame_index_free(&t->fi, &t->proc);
		unwind_dwarf_free(t->dw);
		pp_process_free(&t->proc);
		free(t->code);
		free(t->thr);
		free(t->tab);
		free(t);
	}
	free(s->tg);
	free(s->pending);
	free(s->stage);
	free(s->staged);
	free(s->ev);
	free(s->buf);
	free(s);
}

struct sampler *sampler_open(pid_t pid, unsigned hz, bool stacks, bool follow, char *err,
			     size_t errlen)
{
	if (pid <= 0 || hz == 0 || hz > 1000000) {
		snprintf(err, errlen, "bad process id or rate");
		return NULL;
	}
	elf_version(EV_CURRENT);
	struct sampler *s = xcalloc(1, sizeof *s);
	s->pid = pid;
	s->hz = hz;
	s->pagesize = (size_t)sysconf(_SC_PAGESIZE);
	s->stacks = stacks;
#ifdef __x86_64__
	s->dwarf = stacks;
#endif
	s->follow = follow;
	s->pages = s->dwarf ? DWARF_PAGES : stacks ? STACK_PAGES : MAX_PAGES;
	s->side_pages = SIDE_PAGES;
	/* The kernel refuses a sample_max_stack above its own limit. */
	int limit = read_int_file("/proc/sys/kernel/perf_event_max_stack", 127);
	s->max_stack = limit < 1 ? 1 : limit > MAX_STACK ? MAX_STACK : (unsigned)limit;
	struct target *root = new_target(s, pid);
	find_cpus(s);
	char st = proc_state(pid, NULL, &root->proc.ppid);
	if (st == 0 || st == 'Z' || st == 'X') {
		snprintf(err, errlen, "no process %d%s", (int)pid, st ? " (it has ended)" : "");
		free_sampler(s);
		return NULL;
	}
	if (kernel_thread(pid)) {
		snprintf(err, errlen,
			 "process %d is a kernel thread: it has no user space to sample", (int)pid);
		free_sampler(s);
		return NULL;
	}

	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
	root->proc.start_ns = clock_ns(CLOCK_REALTIME);
	s->sys0_known = proc_sys(pid, &s->sys0);
	s->cpu0 = proc_cpu_ns(pid);
	/* Open an event on every thread not yet covered, until a pass over
	 * /proc/PID/task finds none: the threads created meanwhile by a
	 * thread already sampled were reported by FORK records, read before
	 * each pass decides. */
	size_t listed = 0;
	for (int round = 0; round < MAX_ROUNDS; round++) {
		int32_t *tids;
		size_t n = list_tasks(pid, &tids), opened = 0;
		listed += n;
		drain_all(s);
		/* A main thread that has ended (pthread_exit) stays listed, a
		 * zombie, while the others run on: no thread of the profile. */
		char buf[512];
		const char *leader = proc_stat((int)pid, buf, sizeof buf);
		bool leader_ended = leader && (leader[1] == 'Z' || leader[1] == 'X');
		for (size_t i = 0; i < n; i++) {
			if (tids[i] == pid && leader_ended)
				continue;
			uint32_t t = thread_of(root, tids[i]);
			if (root->thr[t].covered)
				continue;
			int r = open_thread(s, tids[i], err, errlen);
			if (r < 0) {
				free(tids);
				free_sampler(s);
				return NULL;
			}
			opened += (size_t)r;
		}
		free(tids);
		if (!opened)
			break;
	}
	s->info.attach_ns = clock_ns(CLOCK_MONOTONIC) - t0;
	if (s->nev == 0) {
		/* Every thread ended while its events were opened, or the
		 * process did: which, for whoever has to find out why. */
		st = proc_state(pid, NULL, NULL);
		if (st == 0 || st == 'Z' || st == 'X')
			snprintf(err, errlen, "no process %d (it has ended)", (int)pid);
		else if (!listed)
			snprintf(err, errlen,
				 "process %d (state %c): no thread listed in /proc/%d/task",
				 (int)pid, st, (int)pid);
		else
			snprintf(err, errlen,
				 "process %d (state %c): each of its threads had ended when "
				 "its perf event was opened",
				 (int)pid, st);
		free_sampler(s);
		return NULL;
	}
	/* After the events: a module mapped between the two is in the maps,
	 * one mapped later in an MMAP2 record. */
	read_identity(root, NULL);
	for (size_t k = 0; k < s->ntg; k++) /* and those it forked meanwhile */
		read_maps(s->tg[k]);
	s->maps_read = true;
	return s;
}

void sampler_peek(const struct sampler *s, struct sampler_info *info)
{
	*info = s->info;
	info->pages = s->pages;
}

int sampler_poll(struct sampler *s, int timeout_ms, const sigset_t *sigmask)
{
	struct pollfd *pfd = xcalloc(s->nbuf, sizeof *pfd);
	size_t n = 0;
	for (size_t i = 0; i < s->nbuf; i++)
		if (s->buf[i].fd >= 0 && !s->buf[i].hup)
			pfd[n++] = (struct pollfd){ .fd = s->buf[i].fd, .events = POLLIN };
	struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000 };
	int r = n ? ppoll(pfd, n, &ts, sigmask) : 0;
	if (!n)
		pselect(0, NULL, NULL, NULL, &ts, sigmask);
	/* A buffer whose owner thread has ended stays readable as a hang-up;
	 * the threads that inherited its event may still be writing to it,
	 * so it is still drained, only no longer waited for. */
	for (size_t k = 0; r > 0 && k < n; k++)
		if (pfd[k].revents & POLLHUP)
			for (size_t i = 0; i < s->nbuf; i++)
				if (s->buf[i].fd == pfd[k].fd)
					s->buf[i].hup = true;
	free(pfd);
	drain_all(s);
	note_sys(s);
	return ended(s);
}

/* Fill t's process from what was gathered; it ended at end unless its
 * EXIT record said when. */
static void finish_target(struct sampler *s, struct target *t, uint64_t end)
{
	struct pp_process *pr = &t->proc;
	if (!t->ended)
		pr->end_ns = end;
	pr->hz = s->hz;
	snprintf(pr->engine, sizeof pr->engine, "external");
	char why[160];
	snprintf(why, sizeof why,
		 "pcprof sampled from outside: perf cpu-clock every %u us of thread CPU time, "
		 "user space only",
		 1000000u / s->hz);
	pr->why = xstrdup(why);
	pr->signals = pr->ticks;
	pr->samples = xcalloc(t->tabn ? t->tabn : 1, sizeof *pr->samples);
	for (size_t i = 0; i < t->tabcap; i++)
		if (t->tab[i].count)
			pr->samples[pr->nsamples++] =
				(struct pp_sample){ t->tab[i].pc,     t->tab[i].module,
						    t->tab[i].thread, t->tab[i].count,
						    t->tab[i].frame,  t->tab[i].time };
	pp_sort_samples(pr);
	frame_index_free(&t->fi, pr);
}

/*
 * Each process's CPU time, from the counts.  An inherited event (inherit_stat)
 * ends with its thread in a READ record of its count, which the kernel
 * also adds to the directly opened event it came from; the counts follow
 * the threads, but the kernel may swap two threads' contexts, events and
 * all, at a switch between them, so a thread can end up holding a directly
 * opened event and end without a READ record, its time left in that
 * event.  So: each process gets its READ records, and what the direct
 * events counted beyond all READ records goes to the process of the
 * threads that ended without one (other than those opened directly), else
 * to the target (whose directly opened threads never have one).  A child
 * still running has its /proc time if that is more.
 */
static void split_cpu(struct sampler *s)
{
	uint64_t reads = 0, holders_ticks = 0;
	for (size_t k = 0; k < s->ntg; k++)
		reads += s->tg[k]->exited_ns;
	uint64_t rest = s->closed_ns > reads ? s->closed_ns - reads : 0;
	bool *holder = xcalloc(s->ntg, sizeof *holder);
	for (size_t k = 0; k < s->ntg; k++) {
		const struct target *t = s->tg[k];
		for (size_t i = 0; i < t->proc.nthreads && !holder[k]; i++)
			holder[k] = t->thr[i].exited && !t->thr[i].read && !t->thr[i].direct;
		if (holder[k])
			holders_ticks += t->proc.ticks + 1;
	}
	for (size_t k = 0; k < s->ntg; k++) {
		struct target *t = s->tg[k];
		uint64_t ns = t->exited_ns;
		if (!holders_ticks && k == 0)
			ns += rest;
		else if (holder[k])
			ns += (uint64_t)((double)rest * (double)(t->proc.ticks + 1) /
					 (double)holders_ticks);
		if (ns > t->proc.cpu_ns)
			t->proc.cpu_ns = ns;
	}
	free(holder);
}

/*
 * What utime+stime of /proc cannot show yet, beyond what it says: each of
 * `readings` figures (one process's, or the difference of two readings
 * of one) is short by up to two clock ticks of rounding (utime and stime
 * each), and each CPU may run up to a scheduler tick (10 ms at most) that
 * the kernel has not accounted yet.
 */
static uint64_t unshown_ns(size_t readings)
{
	long tck = sysconf(_SC_CLK_TCK), cpus = sysconf(_SC_NPROCESSORS_ONLN);
	return (uint64_t)readings * 2 * (1000000000u / (uint64_t)(tck > 0 ? tck : 100)) +
	       (uint64_t)(cpus > 0 ? cpus : 1) * 10000000u;
}

/*
 * The counts are perf's cpu-clock, which runs while a thread is on a CPU
 * by the machine's clock; the kernel's CPU time (/proc, getrusage) leaves
 * out what a hypervisor took meanwhile (steal time).  On a busy virtual
 * machine the counts of an attach came to 2.19 s where /proc said at most
 * 1.72 s, and the 0.5 s beyond showed as "not sampled": the hrtimer that
 * samples fires once for a stolen stretch.  So the target's CPU time is
 * never more than the kernel's for the same stretch: its own utime+stime
 * after the events closed less before they opened, plus what /proc cannot
 * show yet.  A target already reaped by another parent (st is 0 or
 * 'X') leaves no figure, and keeps its counts.
 */
static void cap_cpu(struct sampler *s, char st)
{
	struct target *root = s->tg[0];
	uint64_t cpu1 = proc_cpu_ns(s->pid);
	if (st == 0 || st == 'X' || cpu1 < s->cpu0)
		return;
	uint64_t cap = cpu1 - s->cpu0 + unshown_ns(1);
	if (root->proc.cpu_ns > cap)
		root->proc.cpu_ns = cap;
}

void sampler_bound_cpu(struct sampler_info *in, uint64_t reaped_ns)
{
	if (reaped_ns)
		in->kernel_ns = reaped_ns + in->running_ns + unshown_ns(in->running);
}

void sampler_finish(struct sampler *s, struct pp_process **out, size_t *nout,
		    struct sampler_info *info)
{
	uint64_t end = clock_ns(CLOCK_REALTIME);
	/* A child still running: its CPU time so far, before the events go.
	 * (One whose main thread has ended, and whose last thread's EXIT
	 * record was lost, has ended if /proc says so.) */
	for (size_t k = 1; k < s->ntg; k++) {
		char st = s->tg[k]->leader_gone && !s->tg[k]->ended
				  ? proc_state(s->tg[k]->pid, NULL, NULL)
				  : 'R';
		if (st == 0 || st == 'Z' || st == 'X')
			process_ended(s->tg[k]);
		s->tg[k]->proc.cpu_ns = s->tg[k]->ended ? 0 : proc_cpu_ns(s->tg[k]->pid);
		if (!s->tg[k]->ended) {
			s->info.running++;
			s->info.running_ns += s->tg[k]->proc.cpu_ns;
		}
	}
	note_sys(s);
	close_all(s);
	split_cpu(s);
	/* Ended: a zombie still tells how (exit_code of /proc/PID/stat is
	 * wait's status); a process already reaped does not. */
	int code;
	char st = proc_state(s->pid, &code, NULL);
	cap_cpu(s, st);
	struct target *root = s->tg[0];
	s->info.exited = st == 0 || st == 'Z' || st == 'X';
	root->proc.end = PP_END_UNKNOWN;
	if (st == 'Z' && code >= 0)
		sampler_set_end(&root->proc, code);
	root->proc.lost = s->info.lost;
	/* Not followed: the children were sampled all the same, for the
	 * target's CPU time, and are left out now. */
	*nout = s->follow ? s->ntg : 1;
	for (size_t k = *nout; k < s->ntg; k++)
		s->info.child_samples += s->tg[k]->proc.ticks;
	/* Threads that ended before their first sample was due, known by
	 * their counts (READ records): a cpu-clock event starts each thread
	 * with a whole period, and the kernel offers no way to start an
	 * inherited one part-way. */
	uint64_t period = 1000000000u / s->hz;
	for (size_t k = 0; k < *nout; k++) {
		const struct target *t = s->tg[k];
		for (size_t i = 0; i < t->proc.nthreads; i++)
			if (t->thr[i].read && !t->proc.threads[i].ticks &&
			    t->thr[i].cpu_ns < period) {
				s->info.short_threads++;
				s->info.short_ns += t->thr[i].cpu_ns;
			}
	}
	*out = xcalloc(*nout, sizeof **out);
	for (size_t k = 0; k < *nout; k++) {
		finish_target(s, s->tg[k], end);
		(*out)[k] = s->tg[k]->proc;
		memset(&s->tg[k]->proc, 0, sizeof s->tg[k]->proc);
	}
	sampler_peek(s, info);
	free_sampler(s);
}

void sampler_timeline(struct sampler *s, bool on)
{
	s->timeline = on;
}

int sampler_probe(char *err, size_t errlen)
{
	struct sampler s = { .pid = getpid() };
	struct perf_event_attr a = {
		.size = sizeof a,
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 10000000,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	int fd = (int)perf_event_open(&a, 0, -1);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	int e = errno, paranoid = read_int_file("/proc/sys/kernel/perf_event_paranoid", 2);
	/* The paranoid level allows a process its own events: refused all the
	 * same, a policy above it (seccomp, a container's) said no. */
	if ((e == EACCES || e == EPERM) && paranoid <= 2)
		snprintf(err, errlen,
			 "perf_event_open: %s: refused although kernel.perf_event_paranoid is %d "
			 "(a seccomp filter or a container's policy)",
			 strerror(e), paranoid);
	else
		open_failed(&s, e, s.pid, err, errlen);
	return -1;
}

/*
 * What the CPU time counted has no sample for.  A cpu-clock event samples
 * every period of a thread's CPU time, so samples x period falls short of
 * the CPU time only by the part of each thread's last period it did not
 * finish, by the ticks that fell in the kernel (user space only: they are
 * dropped, and the counts include them), and by threads that ended before
 * their first period did.  Those last two are known apart (the short
 * threads' counts, the system time); a cause is named only beyond the
 * noise of the count, 5 standard deviations of it (taken as Poisson,
 * which overstates a clock's), and what no cause explains only beyond
 * that plus a period per thread, so a CPU-bound run stays "lost: none".
 */
size_t sampler_shortfall(const struct pp_process *pr, size_t n, const struct sampler_info *in,
			 char *buf, size_t len)
{
	uint64_t cpu = 0, ticks = in->lost, period = n && pr[0].hz ? 1000000000u / pr[0].hz : 0;
	size_t threads = 0, k = 0;
	for (size_t i = 0; i < n; i++) {
		cpu += pr[i].cpu_ns;
		ticks += pr[i].ticks;
		threads += pr[i].nthreads;
	}
	if (in->kernel_ns && cpu > in->kernel_ns)
		cpu = in->kernel_ns; /* steal time, counted by perf's clock */
	buf[0] = 0;
	if (!period || cpu <= ticks * period)
		return 0;
	uint64_t gap = cpu - ticks * period;
	double noise = 5 * sqrt((double)cpu / (double)period) * (double)period;
	uint64_t few = in->short_ns < gap ? in->short_ns : gap;
	uint64_t kern = in->sys_ns < gap - few ? in->sys_ns : gap - few;
	uint64_t rest = gap - few - kern;
	size_t longer = threads > in->short_threads ? threads - in->short_threads : 0;
	if ((double)few > noise && k < len)
		k += (size_t)snprintf(buf + k, len - k,
				      "%.2f s CPU of %zu thread%s shorter than a sample period "
				      "(%llu us)",
				      (double)few * 1e-9, in->short_threads,
				      in->short_threads == 1 ? "" : "s",
				      (unsigned long long)period / 1000);
	if ((double)kern > noise && k < len)
		k += (size_t)snprintf(buf + k, len - k,
				      "%s%.2f s CPU in the kernel (external sampling sees user "
				      "space only)",
				      k ? ", " : "", (double)kern * 1e-9);
	if ((double)rest > noise + (double)longer * (double)period && k < len)
		k += (size_t)snprintf(buf + k, len - k,
				      "%s%.2f s CPU not sampled (of %.2f s of CPU time)",
				      k ? ", " : "", (double)rest * 1e-9, (double)cpu * 1e-9);
	return k < len ? k : len - 1;
}

void sampler_summary(const struct pp_process *pr, size_t n, const struct sampler_info *in,
		     const char *mode, int attached, const char *unsampled, const char *out)
{
	char gap[512];
	sampler_shortfall(pr, n, in, gap, sizeof gap);
	double cpu = (double)pr->cpu_ns * 1e-9;
	fprintf(stderr, "%s: %llu samples, %.2f s CPU", progname, (unsigned long long)pr->ticks,
		cpu);
	if (pr->ticks && cpu > 0)
		fprintf(stderr, ", %.0f Hz of %u", (double)pr->ticks / cpu, pr->hz);
	fprintf(stderr, " (%s), process %d, %zu thread%s", mode, (int)pr->pid, pr->nthreads,
		pr->nthreads == 1 ? "" : "s");
	if (attached)
		fprintf(stderr, ", attached in %.1f ms", (double)in->attach_ns * 1e-6);
	if (n > 1) {
		uint64_t ticks = 0;
		for (size_t i = 1; i < n; i++)
			ticks += pr[i].ticks;
		fprintf(stderr, ", %zu child process%s followed (%llu samples)", n - 1,
			n == 2 ? "" : "es", (unsigned long long)ticks);
	}
	fprintf(stderr, "; lost: ");
	const char *sep = "";
	if (in->lost) {
		fprintf(stderr, "%llu samples (perf buffers full)", (unsigned long long)in->lost);
		sep = ", ";
	}
	/* Each kind apart (open_thread): these are no samples, but what
	 * placed them (a mapping: its samples' module; a thread's or a
	 * process's end: its CPU time, its exit). */
	if (in->lost_records) {
		fprintf(stderr,
			"%s%llu side-band record%s (perf buffers full: mappings, execs, thread "
			"and process ends; modules or CPU times may be missing)",
			sep, (unsigned long long)in->lost_records,
			in->lost_records == 1 ? "" : "s");
		sep = ", ";
	}
	if (gap[0]) {
		fprintf(stderr, "%s%s", sep, gap);
		sep = ", ";
	}
	if (unsampled)
		fprintf(stderr, "%s%s", sep, unsampled);
	else if (!*sep)
		fprintf(stderr, "none");
	if (attached && in->exited)
		fprintf(stderr, "; the process ended");
	if (in->children + 1 > n)
		fprintf(stderr, "; %zu child process%s not followed (%llu samples dropped)",
			in->children + 1 - n, in->children + 1 - n == 1 ? "" : "es",
			(unsigned long long)in->child_samples);
	if (in->execs)
		fprintf(stderr, "; exec'd %zu time%s", in->execs, in->execs == 1 ? "" : "s");
	if (in->stacks_refused)
		fprintf(stderr, "; no call stacks: this kernel refused them (%s)",
			strerror(in->stacks_refused));
	fprintf(stderr, " -> %s\n", out);
}
