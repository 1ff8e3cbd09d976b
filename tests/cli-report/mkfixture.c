/*
 * mkfixture.c - the known profile of the report/export tests (not a test
 * itself; the t-*.sh scripts run it).
 *
 *   mkfixture write FILE [--changed] [--missing] [--odd] [--huge] [--hostile]
 *       Write a pcprof.data whose samples sit, with exact counts, at this
 *       program's own functions, at libhot.so's (exported and static), at
 *       the stripped libcold.so's, libdbg.so's (stripped, with a debuglink
 *       to its debug file), in libc, libz and the vDSO, and outside every module,
 *       for two processes.  The module table is this process's
 *       own (dl_iterate_phdr), so every address is real and symbolizable.
 *       --changed records a wrong build-id for libhot.so (a rebuilt
 *       library); --rebuilt one for this program (t-merge.sh); --missing adds a module whose file
 * does not exist, and libc under a path that does not exist (its build-id debug file still names
 * it);
 *       --odd adds modules named by a FIFO (created next to FILE), a
 *       device, a directory and a relative path, 10 samples each;
 *       --huge gives fix_hot 20000000 samples instead of 70000;
 *       --plt ADDR (repeatable, up to 192) adds 250 samples in the PLT stub
 *       at link-time address ADDR of this program (the test finds them
 *       with objdump);
 *       --multirow adds 300 samples at the entry of libcold.so's unnamed
 *       cold_lib_multi and 200 in its body, several unwind rows apart;
 *       --twice NAME doubles the samples of the hits named NAME (a
 *       function made twice as slow, for t-diff.sh); --noise SEED draws
 *       the first process's samples again at random (multinomially, with
 *       the fixture's counts as the expected values; SEED seeds it): a
 *       second run of the same program;
 *       --hostile gives names that try to drive a terminal (see hostile()):
 *       escape sequences, BEL, newlines, invalid UTF-8 and a bidi override
 *       in thread names, command lines, the engine name and a module path
 *       (10 samples at its address 0x1100, in thread HOSTILE_THREAD).
 *   mkfixture many FILE N [--distinct]
 *       Write a profile of N short processes (a shell loop's children):
 *       each maps the executable, libhot.so and libc, has two threads and
 *       samples in fix_hot, fix_warm and hot_lib_spin; for the scaling
 *       test (t-scale.sh) and bench/report-scale.  --distinct names each
 *       process's executable differently (a test suite's binaries; the
 *       files do not exist), so that there are N+2 modules.  --idle
 *       leaves three processes of four without samples, ended by exec
 *       (an exec-heavy shell script's; t-procs.sh).
 *   mkfixture samples FILE N
 *       Write a pcprof.data of one process with N sample records (distinct
 *       pc and thread pairs, one sample each): N/100 pcs spread over libc's
 *       code, in each of 100 named threads; for the export benchmarks.
 *   mkfixture stacks FILE [--hostile] [--recursion]
 *       Write a pcprof.data (format 2) of one process whose samples carry
 *       call stacks through this program's main and fix_* functions and
 *       libhot.so, with recursion, a [truncated] stack, a leaf outside
 *       every module and samples without a stack; stacks_fixture() below
 *       lists them with their counts, which the t-*-stacks.sh tests
 *       check report and export against.  --hostile adds 10 samples of
 *       main;HOSTILE_FN, a function of this program whose symbol is HTML
 *       markup with a script in it (t-export-html-flame.sh);
 *       --recursion adds 30 samples of main;fix_cold;fix_warm;fix_cold;
 *       fix_warm, whose edges fix_cold->fix_warm repeat.
 *       --scale K multiplies every count by K, and --twice NAME doubles
 *       the counts of the stacks whose leaf is NAME (the diff of
 *       t-diff-html.sh).
 *   mkfixture tree FILE N
 *       Write a pcprof.data (format 2) of one process whose N frames form
 *       a random call tree (each frame's caller a uniformly chosen earlier
 *       frame, 1% of them roots: depth about ln N) over pcs spread across
 *       libc's code, one stack sample of 1 to 4 samples per frame; for
 *       the HTML page's size at scale (docs/formats.md "HTML").
 *   mkfixture counts
 *       Print the expected counts, "name count", one per line.
 *   mkfixture multi
 *       Print cold_lib_multi's label, and the link-time addresses of the
 *       two pcs --multirow samples, "name value", one per line.
 *   mkfixture pltspin SECONDS
 *       Burn SECONDS of CPU calling getpagesize through the PLT.
 *   mkfixture spin SECONDS [--slow]
 *       Burn SECONDS of CPU: 70% in fix_hot, 20% in hot_lib_spin
 *       (libhot.so; a fifth of it in hot_lib_inner), 10% in fix_warm, by
 *       the CPU clock; for `pcprof run`.  --slow gives fix_warm twice its
 *       time (2/11 of the whole: t-diff-run.sh).
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "data.h"
#include "profile.h"
#include "record-format.h"

void hot_lib_spin(uint64_t n);
void *hot_lib_inner_addr(void);

static volatile uint64_t sink;

__attribute__((noinline)) void fix_hot(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		sink += i * i;
}

__attribute__((noinline)) void fix_warm(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		sink ^= i + 7;
}

__attribute__((noinline)) static void fix_cold(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		sink -= i;
}

/* ---- the module table, from this process ------------------------------------ */

struct modlist {
	struct pp_module *m;
	size_t n;
};

static void build_id(struct dl_phdr_info *info, struct pp_module *m)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		const uint8_t *end = p + ph->p_memsz;
		while (p + 12 <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			size_t name = (nh->n_namesz + 3) & ~3u, desc = (nh->n_descsz + 3) & ~3u;
			const uint8_t *d = p + 12 + name;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(p + 12, "GNU", 4) == 0 && nh->n_descsz <= sizeof m->build_id) {
				memcpy(m->build_id, d, nh->n_descsz);
				m->build_id_len = nh->n_descsz;
				return;
			}
			p = d + desc;
		}
	}
}

static int add_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct modlist *l = arg;
	l->m = realloc(l->m, (l->n + 1) * sizeof *l->m);
	struct pp_module *m = &l->m[l->n++];
	memset(m, 0, sizeof *m);
	char path[4096];
	const char *name = info->dlpi_name;
	if (!name[0]) {
		ssize_t k = readlink("/proc/self/exe", path, sizeof path - 1);
		path[k > 0 ? k : 0] = '\0';
		name = path;
	} else if (strstr(name, "linux-vdso") || strstr(name, "linux-gate")) {
		name = "[vdso]";
	} else if (realpath(name, path)) {
		name = path;
	}
	m->path = strdup(name);
	m->bias = info->dlpi_addr;
	for (int i = 0; i < info->dlpi_phnum && m->nsegs < 8; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD)
			m->seg[m->nsegs++] = (struct pp_segment){ ph->p_vaddr, ph->p_memsz,
								  ph->p_offset, ph->p_flags };
	}
	build_id(info, m);
	return 0;
}

/* pp_write in format version MKFIXTURE_VERSION (an older one). */
static int write_old(const char *file, const struct pp_profile *prof, char *err, size_t len)
{
	uint8_t *buf;
	size_t n;
	if (pp_encode_version(prof, (uint32_t)atoi(getenv("MKFIXTURE_VERSION")), &buf, &n, err,
			      len) < 0)
		return -1;
	FILE *f = fopen(file, "wb");
	int r = f && fwrite(buf, 1, n, f) == n ? 0 : -1;
	if (f && fclose(f) != 0)
		r = -1;
	if (r < 0)
		snprintf(err, len, "cannot write");
	free(buf);
	return r;
}

/* Write prof to file (in format version MKFIXTURE_VERSION if set) and
 * free it and the module list l. */
static int save(const char *file, struct pp_profile *prof, struct modlist *l)
{
	char err[256];
	if ((getenv("MKFIXTURE_VERSION") ? write_old(file, prof, err, sizeof err)
					 : pp_write(file, prof, err, sizeof err)) != 0) {
		fprintf(stderr, "mkfixture: %s: %s\n", file, err);
		return 1;
	}
	pp_free(prof);
	for (size_t i = 0; i < l->n; i++)
		free(l->m[i].path);
	free(l->m);
	return 0;
}

/* ---- the samples -------------------------------------------------------------- */

struct hit {
	const char *name; /* expected report label ("" for none) */
	uint64_t pc;
	uint32_t thread;
	uint64_t count;
};

/* A symbol of libcold.so or libdbg.so, which sit next to this program
 * and are loaded here (by dlopen, so that the program links without them). */
static void *lib_sym(const char *lib, const char *name)
{
	char path[4096];
	ssize_t k = readlink("/proc/self/exe", path, sizeof path - 32);
	if (k <= 0)
		return NULL;
	path[k] = '\0';
	strcpy(strrchr(path, '/') + 1, lib);
	void *h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "mkfixture: %s\n", dlerror());
		exit(1);
	}
	return dlsym(h, name);
}

static void *cold_sym(const char *name)
{
	return lib_sym("libcold.so", name);
}

/* The address of the vDSO's __vdso_clock_gettime, or 0: the vDSO is a whole
 * ELF image in memory, section headers included. */
static uint64_t vdso_clock_gettime(void)
{
	const uint8_t *base = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	if (!base)
		return 0;
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)base;
	const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(base + eh->e_shoff);
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + eh->e_phoff);
	uint64_t bias = (uint64_t)(uintptr_t)base; /* base - p_vaddr of the first PT_LOAD */
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD) {
			bias -= ph[i].p_vaddr;
			break;
		}
	for (int i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		const ElfW(Sym) *sym = (const ElfW(Sym) *)(base + sh[i].sh_offset);
		const char *str = (const char *)(base + sh[sh[i].sh_link].sh_offset);
		for (size_t k = 0; k < sh[i].sh_size / sizeof *sym; k++)
			if (strcmp(str + sym[k].st_name, "__vdso_clock_gettime") == 0)
				return bias + sym[k].st_value;
	}
	return 0;
}

/* The hits of the first process (the second's are in main). */
static size_t hits(struct hit *h)
{
	void *(*cold_inner)(void) = (void *(*)(void))cold_sym("cold_lib_inner_addr");
	uint64_t cold = (uint64_t)(uintptr_t)cold_inner();
	size_t n = 0;
	h[n++] = (struct hit){ "fix_hot", (uint64_t)(uintptr_t)fix_hot + 4, 0, 70000 };
	h[n++] = (struct hit){ "hot_lib_spin", (uint64_t)(uintptr_t)hot_lib_spin + 4, 0, 14000 };
	h[n++] = (struct hit){ "hot_lib_spin", (uint64_t)(uintptr_t)hot_lib_spin + 4, 1, 6000 };
	h[n++] = (struct hit){ "hot_lib_inner", (uint64_t)(uintptr_t)hot_lib_inner_addr() + 2, 1,
			       5000 };
	h[n++] = (struct hit){ "fix_warm", (uint64_t)(uintptr_t)fix_warm + 4, 1, 3000 };
	h[n++] = (struct hit){ "fix_cold", (uint64_t)(uintptr_t)fix_cold + 4, 0, 1000 };
	h[n++] = (struct hit){ "cold_lib_spin", (uint64_t)(uintptr_t)cold_sym("cold_lib_spin") + 4,
			       0, 800 };
	/* two pcs of one unnamed function: one row, found by its unwind entry */
	h[n++] = (struct hit){ "", cold + 1, 0, 400 };
	h[n++] = (struct hit){ "", cold + 5, 0, 400 };
	void *(*dbg_inner)(void) = (void *(*)(void))lib_sym("libdbg.so", "dbg_lib_inner_addr");
	h[n++] = (struct hit){ "dbg_lib_inner", (uint64_t)(uintptr_t)dbg_inner() + 3, 0, 700 };
	h[n++] = (struct hit){ "getppid", (uint64_t)(uintptr_t)getppid + 1, 0, 500 };
	if (vdso_clock_gettime())
		h[n++] = (struct hit){ "__vdso_clock_gettime", vdso_clock_gettime() + 2, 0, 60 };
	h[n++] = (struct hit){ "crc32", (uint64_t)(uintptr_t)crc32 + 2, 0, 300 };
	h[n++] = (struct hit){ "", 0x1234, 0, 100 };
	return n;
}

static void set_samples(struct pp_process *p, const struct hit *h, size_t n)
{
	p->samples = calloc(n, sizeof *p->samples);
	p->nsamples = n;
	for (size_t i = 0; i < n; i++) {
		p->samples[i] = (struct pp_sample){ h[i].pc, pp_find_module(p, h[i].pc, 0),
						    h[i].thread, h[i].count, PP_NO_FRAME, PP_NO_TIME };
		p->ticks += h[i].count;
	}
	p->signals = p->ticks > 7 ? p->ticks - 7 : 0; /* (an idle process: none, not -7) */
	p->cpu_ns = p->ticks * 1000000ull; /* exactly 1000 Hz achieved */
	pp_sort_samples(p);
}

static struct pp_module *copy_modules(const struct modlist *l)
{
	struct pp_module *m = calloc(l->n + 5, sizeof *m); /* room for --missing, --odd */
	for (size_t i = 0; i < l->n; i++) {
		m[i] = l->m[i];
		m[i].path = strdup(l->m[i].path);
	}
	return m;
}

static void fill_profile(struct pp_profile *prof, const char *command, size_t nprocs)
{
	*prof = (struct pp_profile){ 0 };
	prof->command = strdup(command);
	prof->start_ns = 1700000000000000000ull;
	prof->end_ns = prof->start_ns + 2000000000ull;
	prof->nprocs = nprocs;
	prof->procs = calloc(nprocs, sizeof *prof->procs);
}

static void fill_process(struct pp_process *p, int pid, int ppid, const char *exe, const char *cmd)
{
	p->pid = pid;
	p->ppid = ppid;
	p->exe = strdup(exe);
	p->cmdline = strdup(cmd);
	p->hz = 1000;
	strcpy(p->engine, "thread-timer");
	p->why = strdup("fixture");
	p->start_ns = 1700000000000000000ull;
	p->end_ns = p->start_ns + 2000000000ull;
	p->end = PP_END_EXIT;
	p->lost = 3;
}

/* The link-time address of a runtime address in a loaded module. */
static uint64_t link_addr(const void *p)
{
	Dl_info di;
	struct link_map *lm;
	if (!dladdr1(p, &di, (void **)&lm, RTLD_DL_LINKMAP)) {
		fprintf(stderr, "mkfixture: no module at %p\n", p);
		exit(1);
	}
	return (uint64_t)(uintptr_t)p - lm->l_addr;
}

static void multi_pcs(void **start, void **mid)
{
	void (*pcs)(void **, void **) = (void (*)(void **, void **))cold_sym("cold_lib_multi_pcs");
	pcs(start, mid);
}

/* Names as a hostile program or file could make them (t-names.sh). */
#define HOSTILE_THREAD  "\033[2J\a"                     /* clear the screen, ring */
#define HOSTILE_THREAD0 "bad\xff\xfe\xc3"               /* not UTF-8 */
#define HOSTILE_CMD     "mkfixture\nspin\033]0;pwned\a" /* newline, set title */
#define HOSTILE_CHILD   "child \xe2\x80\xae evil"       /* U+202E, right-to-left */
#define HOSTILE_COMMAND "mkfixture \033[31mred\nline"
#define HOSTILE_ENGINE  "thread\033[5m\x9b"
#define HOSTILE_MODULE  "/nonexistent/lib\033[2J\n.so"

static void hostile(struct pp_profile *prof, struct hit *h, size_t *n)
{
	free(prof->command);
	prof->command = strdup(HOSTILE_COMMAND);
	struct pp_process *p = &prof->procs[0];
	strcpy(p->threads[0].name, HOSTILE_THREAD0);
	strcpy(p->threads[1].name, HOSTILE_THREAD);
	free(p->cmdline);
	p->cmdline = strdup(HOSTILE_CMD);
	strcpy(p->engine, HOSTILE_ENGINE);
	struct pp_module *m = &p->modules[p->nmodules++];
	memset(m, 0, sizeof *m);
	m->path = strdup(HOSTILE_MODULE);
	m->bias = 0x7f0000000000ull;
	m->nsegs = 1;
	m->seg[0] = (struct pp_segment){ 0x1000, 0x1000, 0x1000, PF_R | PF_X };
	h[(*n)++] = (struct hit){ "", 0x7f0000001100ull, 1, 10 };
}

static const char *twice_name;   /* --twice */
static unsigned long noise_seed; /* --noise, 0: none */
static uint64_t stk_scale = 1;   /* stacks --scale */

/* Resample the counts of h[0..n) as the same number of draws from the
 * distribution they describe (xorshift64*, seeded). */
static void resample(struct hit *h, size_t n, unsigned long seed)
{
	uint64_t total = 0, x = seed * 0x9e3779b97f4a7c15ull + 1;
	uint64_t old[256];
	for (size_t i = 0; i < n; i++) {
		old[i] = h[i].count;
		total += h[i].count;
		h[i].count = 0;
	}
	for (uint64_t k = 0; k < total; k++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		uint64_t r = ((x * 0x2545f4914f6cdd1dull) >> 11) % total;
		size_t i = 0;
		while (r >= old[i])
			r -= old[i++];
		h[i].count++;
	}
}

static int write_fixture(const char *file, int changed, int missing, int odd, int huge,
			 const uint64_t *plt, size_t nplt, int multirow, int hostile_names)
{
	struct modlist l = { 0 };
	dl_iterate_phdr(add_module, &l);
	/* loaded before the module list is taken */
	cold_sym("cold_lib_spin");
	lib_sym("libdbg.so", "dbg_lib_spin");
	free(l.m);
	l.m = NULL;
	l.n = 0;
	dl_iterate_phdr(add_module, &l);
	const char *exe = l.m[0].path;

	struct pp_profile prof;
	fill_profile(&prof, "mkfixture spin 100", 2);

	/* process 1: this one */
	struct pp_process *p = &prof.procs[0];
	int pid = getpid();
	fill_process(p, pid, getppid(), exe, "mkfixture spin 100");
	p->modules = copy_modules(&l);
	p->nmodules = l.n;
	p->threads = calloc(2, sizeof *p->threads);
	p->nthreads = 2;
	p->threads[0] = (struct pp_thread){ .tid = pid, .name = "mkfixture", .ticks = 0 };
	p->threads[1] = (struct pp_thread){ .tid = pid + 1, .name = "worker", .ticks = 0 };
	struct hit h[512];
	size_t n = hits(h);
	if (odd) {
		/* paths that must not be opened as ELF files, or hang the report:
		 * a FIFO next to FILE, a device, a directory, a relative path */
		static char fifo[4200];
		snprintf(fifo, sizeof fifo, "%s", file);
		char *slash = strrchr(fifo, '/');
		strcpy(slash ? slash + 1 : fifo, "fifo");
		if (mkfifo(fifo, 0600) != 0) {
			perror(fifo);
			return 1;
		}
		const char *odd_paths[] = { fifo, "/dev/zero", "/", "relative.so" };
		for (int i = 0; i < 4; i++) {
			struct pp_module *m = &p->modules[p->nmodules++];
			memset(m, 0, sizeof *m);
			m->path = strdup(odd_paths[i]);
			m->bias = 0x7d0000000000ull + 0x100000000ull * (uint64_t)i;
			m->nsegs = 1;
			m->seg[0] = (struct pp_segment){ 0x1000, 0x1000, 0x1000, PF_R | PF_X };
			h[n++] = (struct hit){ "", m->bias + 0x1010, 0, 10 };
		}
	}
	if (missing) {
		/* a library that is gone since the recording */
		struct pp_module *m = &p->modules[p->nmodules++];
		memset(m, 0, sizeof *m);
		m->path = strdup("/nonexistent/libgone.so");
		m->bias = 0x7e0000000000ull;
		m->nsegs = 1;
		m->seg[0] = (struct pp_segment){ 0x1000, 0x1000, 0x1000, PF_R | PF_X };
		h[n++] = (struct hit){ "libgone.so+0x1100", 0x7e0000001100ull, 0, 50 };
		/* libc as if moved away since: its debug file (libc6-dbg), found
		 * by build-id, still names getppid */
		for (size_t i = 0; i < l.n; i++) {
			if (!strstr(l.m[i].path, "/libc.so.6"))
				continue;
			const uint64_t shift = 0x100000000000ull;
			m = &p->modules[p->nmodules++];
			*m = l.m[i];
			m->path = strdup("/nonexistent/libc.so.6");
			m->bias += shift;
			h[n++] = (struct hit){ "getppid", (uint64_t)(uintptr_t)getppid + 1 + shift,
					       0, 40 };
			break;
		}
	}
	for (size_t i = 0; i < nplt; i++)
		h[n++] = (struct hit){ "", l.m[0].bias + plt[i] + 2, 0, 250 };
	if (multirow) {
		void *start, *mid;
		multi_pcs(&start, &mid);
		h[n++] = (struct hit){ "", (uint64_t)(uintptr_t)start, 0, 300 };
		h[n++] = (struct hit){ "", (uint64_t)(uintptr_t)mid, 0, 200 };
	}
	if (huge) /* beyond what 256 copies of a 16-bit counter hold */
		h[0].count = 20000000;
	if (hostile_names)
		hostile(&prof, h, &n);
	for (size_t i = 0; twice_name && i < n; i++)
		if (strcmp(h[i].name, twice_name) == 0)
			h[i].count *= 2;
	if (noise_seed)
		resample(h, n, noise_seed);
	set_samples(p, h, n);
	for (size_t i = 0; i < p->nsamples; i++)
		p->threads[p->samples[i].thread].ticks += p->samples[i].count;
	if (changed)
		for (size_t i = 0; i < p->nmodules; i++)
			if (changed == 2 ? i == 0 : strstr(p->modules[i].path, "libhot.so") != NULL)
				p->modules[i].build_id[0] ^= 0xff;

	/* process 2: a child with libhot.so mapped elsewhere (ASLR) */
	struct pp_process *c = &prof.procs[1];
	fill_process(c, pid + 1000, pid, exe, hostile_names ? HOSTILE_CHILD : "mkfixture child");
	c->modules = copy_modules(&l);
	c->nmodules = l.n;
	const uint64_t shift = 0x10000000;
	for (size_t i = 0; i < c->nmodules; i++)
		if (strstr(c->modules[i].path, "libhot.so"))
			c->modules[i].bias += shift;
	c->threads = calloc(1, sizeof *c->threads);
	c->nthreads = 1;
	c->threads[0] = (struct pp_thread){ .tid = pid + 1000, .name = "child", .ticks = 3000 };
	struct hit ch[2] = {
		{ "fix_warm", (uint64_t)(uintptr_t)fix_warm + 4, 0, 2000 },
		{ "hot_lib_spin", (uint64_t)(uintptr_t)hot_lib_spin + 4 + shift, 0, 1000 },
	};
	set_samples(c, ch, 2);
	if (changed)
		for (size_t i = 0; i < c->nmodules; i++)
			if (changed == 2 ? i == 0 : strstr(c->modules[i].path, "libhot.so") != NULL)
				c->modules[i].build_id[0] ^= 0xff;

	return save(file, &prof, &l);
}

/* N processes like those of `pcprof run -- sh -c 'for ...; do prog; done'`:
 * every one maps the same few files, and most have their own pid. */
static int many_idle; /* many --idle */

static int write_many(const char *file, size_t nprocs, int distinct)
{
	struct modlist l = { 0 };
	dl_iterate_phdr(add_module, &l);
	struct modlist few = { calloc(3, sizeof *few.m), 0 };
	for (size_t i = 0; i < l.n; i++)
		if (i == 0 || strstr(l.m[i].path, "libhot.so") || strstr(l.m[i].path, "/libc.so.6"))
			few.m[few.n++] = l.m[i];
	const char *exe = l.m[0].path;
	struct pp_profile prof = { 0 };
	prof.command = strdup("sh -c 'for i in $(seq N); do mkfixture; done'");
	prof.start_ns = 1700000000000000000ull;
	prof.end_ns = prof.start_ns + 2000000000ull;
	prof.nprocs = nprocs;
	prof.procs = calloc(nprocs, sizeof *prof.procs);
	if (!prof.procs || !few.m)
		return 1;
	int base = 100000;
	for (size_t i = 0; i < nprocs; i++) {
		struct pp_process *p = &prof.procs[i];
		char cmd[64];
		snprintf(cmd, sizeof cmd, "mkfixture %zu", i);
		fill_process(p, base + (int)i, base - 1, exe, cmd);
		p->modules = copy_modules(&few);
		p->nmodules = few.n;
		if (distinct) {
			free(p->modules[0].path);
			if (asprintf(&p->modules[0].path, "/nonexistent/test-%zu", i) < 0)
				return 1;
			p->modules[0].build_id_len = 0;
		}
		p->threads = calloc(2, sizeof *p->threads);
		p->nthreads = 2;
		p->threads[0] = (struct pp_thread){ .tid = p->pid, .name = "mkfixture" };
		p->threads[1] = (struct pp_thread){ .tid = p->pid + 1, .name = "worker" };
		struct hit h[3] = {
			{ "fix_hot", (uint64_t)(uintptr_t)fix_hot + 4, 0, 5 + i % 7 },
			{ "fix_warm", (uint64_t)(uintptr_t)fix_warm + 4, 1, 1 + i % 3 },
			{ "hot_lib_spin", (uint64_t)(uintptr_t)hot_lib_spin + 4, 1, 2 },
		};
		set_samples(p, h, many_idle && i % 4 ? 0 : 3);
		if (many_idle && i % 4)
			p->end = PP_END_EXEC;
		for (size_t k = 0; k < p->nsamples; k++)
			p->threads[p->samples[k].thread].ticks += p->samples[k].count;
	}
	char err[256];
	if (pp_write(file, &prof, err, sizeof err) != 0) {
		fprintf(stderr, "mkfixture: %s: %s\n", file, err);
		return 1;
	}
	pp_free(&prof);
	free(few.m);
	for (size_t i = 0; i < l.n; i++)
		free(l.m[i].path);
	free(l.m);
	return 0;
}

static int write_samples(const char *file, size_t n)
{
	struct modlist l = { 0 };
	dl_iterate_phdr(add_module, &l);
	struct pp_profile prof;
	fill_profile(&prof, "mkfixture samples", 1);
	struct pp_process *p = &prof.procs[0];
	int pid = getpid();
	fill_process(p, pid, getppid(), l.m[0].path, "mkfixture samples");
	p->modules = copy_modules(&l);
	p->nmodules = l.n;
	const size_t nthreads = 100;
	p->threads = calloc(nthreads, sizeof *p->threads);
	p->nthreads = nthreads;
	for (size_t t = 0; t < nthreads; t++) {
		p->threads[t].tid = pid + (int)t;
		snprintf(p->threads[t].name, sizeof p->threads[t].name, "worker-%zu", t);
	}
	uint32_t libc = pp_find_module(p, (uint64_t)(uintptr_t)getppid, 0);
	const struct pp_segment *text = NULL;
	for (uint32_t i = 0; libc != PP_NO_MODULE && i < p->modules[libc].nsegs; i++)
		if (p->modules[libc].seg[i].flags & PF_X)
			text = &p->modules[libc].seg[i];
	if (!text) {
		fprintf(stderr, "mkfixture: no libc code segment\n");
		return 1;
	}
	size_t npcs = (n + nthreads - 1) / nthreads;
	p->samples = calloc(n, sizeof *p->samples);
	p->nsamples = n;
	for (size_t i = 0; i < n; i++) {
		/* pcs a few bytes apart, in order, across all of libc's code */
		uint64_t off = (i / nthreads) * (text->memsz / npcs);
		p->samples[i] = (struct pp_sample){ p->modules[libc].bias + text->vaddr + off, libc,
						    (uint32_t)(i % nthreads), 1, PP_NO_FRAME, PP_NO_TIME };
		p->threads[i % nthreads].ticks++;
	}
	p->ticks = n;
	p->signals = n;
	p->cpu_ns = n * 1000000ull;
	char err[256];
	if (pp_write(file, &prof, err, sizeof err) != 0) {
		fprintf(stderr, "mkfixture: %s: %s\n", file, err);
		return 1;
	}
	pp_free(&prof);
	return 0;
}

/* ---- stacks -------------------------------------------------------------------- */

/*
 * The stacked fixture, root first.  A caller's pc is inside the function
 * (+8: a return address minus one), a leaf's at +4 like the flat fixture.
 * Total 1000 samples; self: fix_hot 680, hot_lib_spin 150, fix_warm 100,
 * fix_cold 50, 0x1234 20; inclusive: main 820, fix_hot 680, fix_warm 550,
 * hot_lib_spin 150, [truncated] 100, fix_cold 50 (once, though it recurses).
 */
#define STK_MAX 5
int main(int argc, char **argv);
struct stk {
	const char *fn[STK_MAX]; /* root first; "[truncated]", "0x1234" */
	uint32_t thread;
	uint64_t count;
	int framed; /* 0: a sample without a stack (a version 1 file's kind) */
};

static const struct stk stacks_fixture[] = {
	{ { "main", "fix_warm", "fix_hot" }, 0, 400, 1 },
	{ { "main", "fix_hot" }, 0, 200, 1 },
	{ { "main", "fix_cold", "fix_warm", "fix_cold" }, 0, 50, 1 },
	{ { "main", "hot_lib_spin" }, 1, 150, 1 },
	{ { "[truncated]", "fix_warm" }, 1, 100, 1 },
	{ { "main", "0x1234" }, 0, 20, 1 },
	{ { "fix_hot" }, 0, 80, 0 },
};

/* A function whose name is markup that would run a script if a page
 * pasted it as HTML: its symbol, spelled by the assembler (C cannot), and
 * a pointer to it. */
#define HOSTILE_FN "</script><img src=x onerror=document.title='pwned'>&amp;"
__asm__(".text\n"
	".globl \"" HOSTILE_FN "\"\n"
	".type \"" HOSTILE_FN "\", @function\n"
	"\"" HOSTILE_FN "\":\n"
	"\t.fill 15, 1, 0x90\n"
	"\tret\n"
	".size \"" HOSTILE_FN "\", 16\n"
	".section .data.rel.ro\n"
	".balign 8\n"
	"mkfixture_hostile_fn:\n"
	"\t.quad \"" HOSTILE_FN "\"\n"
	".text\n");
extern const uintptr_t mkfixture_hostile_fn;

static uint64_t stk_pc(const char *fn, int leaf)
{
	uint64_t off = leaf ? 4 : 8;
	if (strcmp(fn, HOSTILE_FN) == 0)
		return (uint64_t)mkfixture_hostile_fn + off;
	if (strcmp(fn, "main") == 0)
		return (uint64_t)(uintptr_t)main + off;
	if (strcmp(fn, "fix_hot") == 0)
		return (uint64_t)(uintptr_t)fix_hot + off;
	if (strcmp(fn, "fix_warm") == 0)
		return (uint64_t)(uintptr_t)fix_warm + off;
	if (strcmp(fn, "fix_cold") == 0)
		return (uint64_t)(uintptr_t)fix_cold + off;
	if (strcmp(fn, "hot_lib_spin") == 0)
		return (uint64_t)(uintptr_t)hot_lib_spin + off;
	if (strcmp(fn, "[truncated]") == 0)
		return PCPROF_FRAME_TRUNCATED;
	return 0x1234;
}

/* The frame (pc, module) under parent, added unless it is there already:
 * frames are a tree, parents first. */
static uint32_t stk_frame(struct pp_process *p, uint64_t pc, uint32_t parent)
{
	uint32_t mod = PCPROF_FRAME_IS_MARKER(pc) ? PP_NO_MODULE : pp_find_module(p, pc, 0);
	for (size_t i = 0; i < p->nframes; i++)
		if (p->frames[i].pc == pc && p->frames[i].parent == parent)
			return (uint32_t)i;
	p->frames[p->nframes] = (struct pp_frame){ pc, mod, parent };
	return (uint32_t)p->nframes++;
}

static int write_stacks(const char *file, int hostile_fn, int recursion)
{
	struct modlist l = { 0 };
	dl_iterate_phdr(add_module, &l);
	struct pp_profile prof;
	fill_profile(&prof, "mkfixture stacks", 1);
	struct pp_process *p = &prof.procs[0];
	fill_process(p, 4242, 4241, l.m[0].path, "mkfixture stacks");
	p->lost = 0;
	p->modules = copy_modules(&l);
	p->nmodules = l.n;
	p->nthreads = 2;
	p->threads = calloc(2, sizeof *p->threads);
	p->threads[0] = (struct pp_thread){ .tid = 4242, .name = "mkfixture" };
	p->threads[1] = (struct pp_thread){ .tid = 4243, .name = "worker" };
	static const struct stk extra[] = {
		{ { "main", HOSTILE_FN }, 0, 10, 1 },
		{ { "main", "fix_cold", "fix_warm", "fix_cold", "fix_warm" }, 0, 30, 1 },
	};
	const size_t nfix = sizeof stacks_fixture / sizeof stacks_fixture[0];
	size_t n = nfix + (hostile_fn != 0) + (recursion != 0);
	p->frames = calloc(n * STK_MAX, sizeof *p->frames);
	p->samples = calloc(n, sizeof *p->samples);
	for (size_t i = 0; i < n; i++) {
		const struct stk *k = i < nfix                  ? &stacks_fixture[i]
				      : i == nfix && hostile_fn ? &extra[0]
								: &extra[1];
		int depth = 0;
		while (depth < STK_MAX && k->fn[depth])
			depth++;
		uint32_t frame = PP_NO_FRAME;
		for (int d = 0; d < depth && k->framed; d++)
			frame = stk_frame(p, stk_pc(k->fn[d], d == depth - 1), frame);
		uint64_t pc = stk_pc(k->fn[depth - 1], 1);
		uint64_t count = k->count * stk_scale *
				 (twice_name && strcmp(k->fn[depth - 1], twice_name) == 0 ? 2 : 1);
		p->samples[p->nsamples++] = (struct pp_sample){ pc,    pp_find_module(p, pc, 0),
								k->thread, count,
								frame, PP_NO_TIME };
		p->threads[k->thread].ticks += count;
		p->ticks += count;
	}
	p->signals = p->ticks;
	p->cpu_ns = p->ticks * 1000000ull;
	pp_sort_samples(p);
	return save(file, &prof, &l);
}

static int write_tree(const char *file, size_t n)
{
	struct modlist l = { 0 };
	dl_iterate_phdr(add_module, &l);
	struct pp_profile prof;
	fill_profile(&prof, "mkfixture tree", 1);
	struct pp_process *p = &prof.procs[0];
	fill_process(p, 4242, 4241, l.m[0].path, "mkfixture tree");
	p->lost = 0;
	p->modules = copy_modules(&l);
	p->nmodules = l.n;
	p->nthreads = 1;
	p->threads = calloc(1, sizeof *p->threads);
	p->threads[0] = (struct pp_thread){ .tid = 4242, .name = "mkfixture" };
	uint32_t libc = pp_find_module(p, (uint64_t)(uintptr_t)getppid, 0);
	const struct pp_segment *text = NULL;
	for (uint32_t i = 0; libc != PP_NO_MODULE && i < p->modules[libc].nsegs; i++)
		if (p->modules[libc].seg[i].flags & PF_X)
			text = &p->modules[libc].seg[i];
	if (!text || !n) {
		fprintf(stderr, "mkfixture: no libc code segment or N is 0\n");
		return 1;
	}
	p->frames = calloc(n, sizeof *p->frames);
	p->samples = calloc(n, sizeof *p->samples);
	uint64_t x = 88172645463325252ull; /* xorshift64, fixed seed */
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t pc = p->modules[libc].bias + text->vaddr + (x >> 20) % text->memsz;
		uint32_t parent = i == 0 || (x & 127) == 0 ? PP_NO_FRAME : (uint32_t)((x >> 7) % i);
		p->frames[i] = (struct pp_frame){ pc, libc, parent };
		p->samples[i] = (struct pp_sample){ pc, libc, 0, 1 + (x >> 40) % 4, (uint32_t)i, PP_NO_TIME };
		p->ticks += p->samples[i].count;
	}
	p->nframes = n;
	p->nsamples = n;
	p->threads[0].ticks = p->ticks;
	p->signals = p->ticks;
	p->cpu_ns = p->ticks * 1000000ull;
	pp_sort_samples(p);
	return save(file, &prof, &l);
}

/* Expected totals per label, both processes together. */
static int print_counts(void)
{
	struct hit h[32];
	size_t n = hits(h);
	const char *names[] = { "fix_hot",  "hot_lib_spin",        "hot_lib_inner", "fix_warm",
				"fix_cold", "cold_lib_spin",       "dbg_lib_inner", "getppid",
				"crc32",    "__vdso_clock_gettime" };
	uint64_t total = 3000;
	for (size_t i = 0; i < n; i++)
		total += h[i].count;
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
		uint64_t c = 0;
		for (size_t i = 0; i < n; i++)
			if (strcmp(h[i].name, names[k]) == 0)
				c += h[i].count;
		if (strcmp(names[k], "fix_warm") == 0)
			c += 2000;
		if (strcmp(names[k], "hot_lib_spin") == 0)
			c += 1000;
		printf("%s %llu\n", names[k], (unsigned long long)c);
	}
	printf("cold_inner 800\nunknown 100\ntotal %llu\n", (unsigned long long)total);
	/* rows of the report: the named ones, the unnamed one, 0x1234; and the
	 * modules with samples: mkfixture, libhot, libcold, libdbg, libc, libz,
	 * and the vDSO if this kernel has one */
	int vdso = vdso_clock_gettime() != 0;
	printf("functions %zu\nmodules %d\n", sizeof names / sizeof names[0] + 1 + vdso, 6 + vdso);
	/* the unnamed function's label: libcold.so+0x(link-time address) */
	void *(*cold_inner)(void) = (void *(*)(void))cold_sym("cold_lib_inner_addr");
	printf("cold_inner_label libcold.so+0x%llx\n", (unsigned long long)link_addr(cold_inner()));
	return 0;
}

static int print_multi(void)
{
	void *start, *mid;
	multi_pcs(&start, &mid);
	printf("multi_label libcold.so+0x%llx\nmulti_start 0x%llx\nmulti_mid 0x%llx\n",
	       (unsigned long long)link_addr(start), (unsigned long long)link_addr(start),
	       (unsigned long long)link_addr(mid));
	return 0;
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Run fn(chunk) (about 0.5 ms on an idle machine) until `secs` of CPU
 * time have passed.  The chunk is long so that the clock, a system call,
 * stays a small share of the samples: at 0.1 ms chunks it took 1.1% of
 * them idle and 1.7% in a loaded CI run, a change of 3 standard errors
 * between two runs of the same program (t-diff-run.sh). */
static void for_cpu(void (*fn)(uint64_t), uint64_t chunk, double secs)
{
	double end = cpu_now() + secs;
	do
		fn(chunk);
	while (cpu_now() < end);
}

/* Each function gets a slice of CPU time, not a number of iterations: the
 * functions' speeds relative to each other moved between runs on a loaded
 * machine (an SMT sibling's or the caches' load: fix_hot 61.8-66.9% in
 * five runs, where sampling alone would spread it by 0.6), and two runs
 * of the same program must differ by sampling noise only (t-diff-run.sh). */
static int spin(double seconds, int slow)
{
	double end = cpu_now() + seconds;
	while (cpu_now() < end) {
		for_cpu(fix_hot, 350000, 0.035);
		for_cpu(hot_lib_spin, 225000, 0.010);
		for_cpu(fix_warm, 450000, slow ? 0.010 : 0.005);
	}
	fix_cold(1);
	return 0;
}

/* getpagesize is almost free (a load and a return), so the PLT stub in
 * front of it takes a large share of each call.  It is declared const:
 * the wrapper, opaque to the optimizer, keeps the calls in the loop. */
__attribute__((noipa)) static int page_size(void)
{
	return getpagesize();
}

static int pltspin(double seconds)
{
	double end = cpu_now() + seconds;
	long n = 0;
	while (cpu_now() < end)
		for (int i = 0; i < 1000000; i++)
			n += page_size();
	return n == 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "write") == 0) {
		int changed = 0, missing = 0, odd = 0, huge = 0, multirow = 0, hostile_names = 0;
		uint64_t plt[192];
		size_t nplt = 0;
		for (int i = 3; i < argc; i++) {
			if (strcmp(argv[i], "--changed") == 0)
				changed = 1;
			else if (strcmp(argv[i], "--rebuilt") == 0)
				changed = 2;
			else if (strcmp(argv[i], "--missing") == 0)
				missing = 1;
			else if (strcmp(argv[i], "--odd") == 0)
				odd = 1;
			else if (strcmp(argv[i], "--huge") == 0)
				huge = 1;
			else if (strcmp(argv[i], "--multirow") == 0)
				multirow = 1;
			else if (strcmp(argv[i], "--plt") == 0 && i + 1 < argc && nplt < 192)
				plt[nplt++] = strtoull(argv[++i], NULL, 16);
			else if (strcmp(argv[i], "--hostile") == 0)
				hostile_names = 1;
			else if (strcmp(argv[i], "--twice") == 0 && i + 1 < argc)
				twice_name = argv[++i];
			else if (strcmp(argv[i], "--noise") == 0 && i + 1 < argc)
				noise_seed = strtoul(argv[++i], NULL, 10);
		}
		return write_fixture(argv[2], changed, missing, odd, huge, plt, nplt, multirow,
				     hostile_names);
	}
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "many") == 0) {
		many_idle = argc == 5 && strcmp(argv[4], "--idle") == 0;
		return write_many(argv[2], strtoul(argv[3], NULL, 10),
				  argc == 5 && strcmp(argv[4], "--distinct") == 0);
	}
	if (argc == 4 && strcmp(argv[1], "samples") == 0)
		return write_samples(argv[2], strtoull(argv[3], NULL, 0));
	if (argc >= 3 && strcmp(argv[1], "stacks") == 0) {
		int hostile_fn = 0, recursion = 0;
		for (int i = 3; i < argc; i++)
			if (strcmp(argv[i], "--hostile") == 0)
				hostile_fn = 1;
			else if (strcmp(argv[i], "--recursion") == 0)
				recursion = 1;
			else if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc)
				stk_scale = strtoull(argv[++i], NULL, 10);
			else if (strcmp(argv[i], "--twice") == 0 && i + 1 < argc)
				twice_name = argv[++i];
			else
				argc = 0; /* usage */
		if (argc)
			return write_stacks(argv[2], hostile_fn, recursion);
	}
	if (argc == 4 && strcmp(argv[1], "tree") == 0)
		return write_tree(argv[2], strtoul(argv[3], NULL, 10));
	if (argc == 2 && strcmp(argv[1], "counts") == 0)
		return print_counts();
	if (argc == 2 && strcmp(argv[1], "multi") == 0)
		return print_multi();
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "spin") == 0)
		return spin(atof(argv[2]), argc == 4 && strcmp(argv[3], "--slow") == 0);
	if (argc == 3 && strcmp(argv[1], "pltspin") == 0)
		return pltspin(atof(argv[2]));
	fprintf(stderr, "usage: mkfixture write FILE [--changed] [--missing] [--odd] [--huge] "
			"[--plt ADDR] [--multirow] [--hostile] | many FILE N [--distinct|--idle] | "
			"samples FILE N | stacks FILE [--hostile] [--recursion] | tree FILE N | "
			"counts | multi | "
			"spin SECONDS [--slow] "
			"| pltspin SECONDS\n");
	return 2;
}
