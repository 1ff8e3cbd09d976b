/*
 * unwind-build.c - the set of loaded modules the stack walker reads (see
 * lib/sig/unwind-tables.h), made in normal context and published to the
 * signal handler (whose side is lib/sig/unwind-tables.c).  Layer L3: it
 * reads the recording's environment (rawfile.h), opens files and takes a
 * mutex, so it is not part of the signal path.
 *
 * Registering a module builds nothing of its rows.  It checks that the
 * module's file is the one loaded (the same GNU build id), notes the
 * file's identity (fstat), reads .eh_frame_hdr's table from the file once
 * to keep every PROFIL_USAMPLE-th entry (for cc1plus, 49,002 entries: 6
 * KiB kept), and maps an empty row cache: the handler fills it with the
 * rows of the pcs samples meet, reading them from the file.  Until
 * 2026-11-29 every module's whole table was built here, 12 bytes a row, in
 * every process image (the run shared them through its directory): cc1plus
 * paid 28 ms of CPU and 12-14 MiB of resident memory for 465,000 rows, of
 * which its samples needed a few thousand (docs/benchmarks.md, "Stacks:
 * per-sample cost and memory").
 */
#include "unwind-build.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rawfile.h"
#include "sig/seal.h"
#include "sig/sink.h"
#include "sig/unwind-tables.h"

static pthread_mutex_t refresh_lock = PTHREAD_MUTEX_INITIALIZER;
static struct profil_uset *retired; /* replaced sets, unmapped when no walk runs */
static struct profil_umod *dropped; /* memory of modules gone, likewise */
static uint32_t ndropped, dropped_cap;
static uint32_t serials; /* the last module serial given */
static uint64_t mapped;  /* bytes of the modules' memory mapped now */
static bool want_caches = true;

/* ---- a module's file ---- */

#define ID_MAX 64 /* longest GNU build id we compare */

/* The module's GNU build id as loaded: its address and length, or false. */
static bool build_id(const struct dl_phdr_info *info, uintptr_t *at, uint32_t *len)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		size_t left = ph->p_memsz;
		while (left >= sizeof(ElfW(Nhdr))) {
			ElfW(Nhdr) nh;
			memcpy(&nh, p, sizeof nh);
			size_t name = (nh.n_namesz + 3) & ~(size_t)3;
			size_t desc = (nh.n_descsz + 3) & ~(size_t)3;
			if (name > left - sizeof nh || desc > left - sizeof nh - name)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp(p + sizeof nh, "GNU", 4) == 0 && nh.n_descsz >= 8 &&
			    nh.n_descsz <= ID_MAX) {
				*at = (uintptr_t)(p + sizeof nh + name);
				*len = nh.n_descsz;
				return true;
			}
			p += sizeof nh + name + desc;
			left -= sizeof nh + name + desc;
		}
	}
	return false;
}

/* Exactly n bytes at offset off of fd. */
static bool read_at(int fd, void *p, size_t n, uint64_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, (char *)p + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

/* The file offset of run-time address a of the module's segment that
 * holds it (a file-backed part of a PT_LOAD), or false. */
static bool file_offset(const struct dl_phdr_info *info, uintptr_t a, size_t n, uint64_t *off)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && a >= lo && n <= ph->p_filesz &&
		    a - lo <= ph->p_filesz - n) {
			*off = ph->p_offset + (a - lo);
			return true;
		}
	}
	return false;
}

/* What registering a module found of its file. */
struct found {
	char path[PATH_MAX];
	struct profil_ufile file;
	uint32_t nfde;
	int fd;
};

/* The absolute name of the file open as fd, into f->path. */
static bool fd_path(int fd, struct found *f)
{
	char link[32];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, f->path, sizeof f->path - 1);
	if (n <= 0 || f->path[0] != '/')
		return false;
	f->path[n] = 0;
	return true;
}

/*
 * Open m's file and check it is the one loaded: the same build id (m has
 * one), .eh_frame_hdr in the file as the walker reads it.  Into f, with
 * f->fd open; false if the module has no such file.
 */
static bool open_file(const struct dl_phdr_info *info, const struct profil_umod *m, struct found *f)
{
	const char *name = info->dlpi_name;
	uintptr_t id_at = m->id_at;
	uint32_t id_len = m->id_len;
	uint64_t id_off, hdr_off;
	if (!file_offset(info, id_at, id_len, &id_off) ||
	    !file_offset(info, m->eh_hdr, 12, &hdr_off))
		return false;
	/* The main program by its kernel link, the one file exec mapped even
	 * if a name now leads elsewhere; libraries by the name the loader
	 * opened, made absolute (the working directory may change). */
	if (!name || !name[0])
		name = "/proc/self/exe";
	else if (strcmp(name, "linux-vdso.so.1") == 0)
		return false;
	f->fd = open(name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (f->fd < 0)
		return false;
	struct stat st;
	uint8_t id[ID_MAX], h[12];
	bool ok = fstat(f->fd, &st) == 0 && S_ISREG(st.st_mode) &&
		  (name[0] == '/' ? strlen(name) < sizeof f->path : fd_path(f->fd, f)) &&
		  read_at(f->fd, id, id_len, id_off) &&
		  memcmp(id, (const void *)id_at, id_len) == 0 &&
		  read_at(f->fd, h, sizeof h, hdr_off) && h[0] == 1 &&
		  h[3] == PROFIL_EH_HDR_TABLE_ENC && h[2] == 0x03 /* udata4 */ &&
		  ((h[1] & 0x0f) == 0x0b || (h[1] & 0x0f) == 0x03);
	if (ok && name[0] == '/')
		memcpy(f->path, name, strlen(name) + 1);
	if (ok) {
		f->nfde = profil__cfi_rd32(h + 4 + 4);
		ok = f->nfde > 0 && f->nfde <= (m->seg_hi - m->eh_hdr - 12) / 8;
	}
	if (!ok) {
		close(f->fd);
		return false;
	}
	f->file = (struct profil_ufile){ (uint64_t)st.st_dev, (uint64_t)st.st_ino,
					 (uint64_t)st.st_size, st.st_mtim.tv_sec,
					 st.st_mtim.tv_nsec };
	return true;
}

/* Every PROFIL_USAMPLE-th entry of the table of f's module (start and
 * FDE), read from its file at off, into sample (nfde / PROFIL_USAMPLE
 * rounded up pairs). */
static bool read_sample(const struct found *f, uint64_t off, int32_t *sample)
{
	static int32_t buf[1024]; /* under refresh_lock; not on the stack (issue 19) */
	for (uint32_t i = 0; i < f->nfde; i += sizeof buf / sizeof buf[0] / 2) {
		uint32_t n = f->nfde - i < sizeof buf / sizeof buf[0] / 2
				     ? f->nfde - i
				     : (uint32_t)(sizeof buf / sizeof buf[0] / 2);
		if (!read_at(f->fd, buf, 8 * (size_t)n, off + 12 + 8 * (uint64_t)i))
			return false;
		for (uint32_t j = 0; j < n; j++)
			if ((i + j) % PROFIL_USAMPLE == 0) {
				sample[2 * ((i + j) / PROFIL_USAMPLE)] = buf[2 * j];
				sample[2 * ((i + j) / PROFIL_USAMPLE) + 1] = buf[2 * j + 1];
			}
	}
	return true;
}

/* ---- registering a module ---- */

/* Sets of the row cache for a module with `code` bytes of code: a set of 8
 * for every 4 KiB, 8 to 2048 sets (cc1plus: 16,384 entries, 128 KiB, for
 * the 5,600 distinct pcs of 2,000 samples; the cache is mapped, and only
 * the pages that rows land in are touched). */
static uint32_t cache_sets(uintptr_t code)
{
	uint32_t sets = 8;
	while (sets < 2048 && (uintptr_t)sets * 2 <= code >> 12)
		sets *= 2;
	return sets;
}

/*
 * m's memory, one mapping: what walks write (live, a cache line), the row
 * cache, the table of functions whose rows are kept, the group index, the
 * sample, the path, and the arena of function rows (its pages touched only
 * once filled).  Within what the address-space limit leaves (the rule of
 * the recording's tables, profil__sink_room): without room, no cache and no
 * function rows (each row is read again), then no file.
 */
static void give_memory(struct profil_umod *m, const struct found *f)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), line = 64;
	uint32_t nsample = f ? (f->nfde + PROFIL_USAMPLE - 1) / PROFIL_USAMPLE : 0;
	uint32_t code_pages = f ? (uint32_t)(((m->hi - m->lo) >> 12) + 1) : 0;
	size_t tail = f ? (size_t)code_pages * 4 + (size_t)nsample * 2 * sizeof(int32_t) +
				      strlen(f->path) + 1
			: 0;
	uint32_t sets = want_caches ? cache_sets(m->hi - m->lo) : 0;
	/* The function rows: a table entry for every two cache entries, and
	 * an arena of a 16th of the code (cc1plus: 8,192 entries, 1.3 MiB of
	 * address space, of which its walks filled 0.5 MiB). */
	uint32_t nfuncs = sets && f ? sets * 4 : 0;
	size_t arena = nfuncs ? ((m->hi - m->lo) / 16 + page - 1) / page * page : 0;
	for (;; sets = 0, nfuncs = 0, arena = 0) {
		size_t size = line + (size_t)sets * 64 + (size_t)nfuncs * 8 + tail;
		size = (size + page - 1) / page * page;
		size_t rows = size;
		size += arena;
		char *mem = (sets || f) && profil__sink_room(mapped, size, page)
				    ? profil__alloc(size)
				    : NULL;
		if (mem) {
			m->mem = mem;
			m->mem_size = size;
			mapped += size;
			m->live = (struct profil_ulive *)mem;
			atomic_store(&m->live->fd, -1);
			m->cache = (_Atomic uint64_t *)(sets ? mem + line : NULL);
			m->cache_sets = sets;
			m->funcs = nfuncs ? (_Atomic uint64_t *)(mem + line + (size_t)sets * 64)
					  : NULL;
			m->nfuncs = nfuncs;
			m->arena = arena ? mem + rows : NULL;
			m->arena_size = arena;
			if (f) {
				uint32_t *groups = (uint32_t *)(mem + line + (size_t)sets * 64 +
								(size_t)nfuncs * 8);
				int32_t *sample = (int32_t *)(groups + code_pages);
				char *path = (char *)(sample + 2 * (size_t)nsample);
				memcpy(path, f->path, strlen(f->path) + 1);
				uint64_t hdr_off = m->seg_off + (m->eh_hdr - m->seg_lo);
				if (read_sample(f, hdr_off, sample)) {
					/* The group at each page of code's start. */
					uint32_t a = 0;
					for (uint32_t p = 0; p < code_pages; p++) {
						intptr_t rel =
							(intptr_t)(m->lo + ((uintptr_t)p << 12) -
								   m->eh_hdr);
						while (a + 1 < nsample &&
						       sample[2 * (a + 1)] <= rel)
							a++;
						groups[p] = a;
					}
					m->groups = groups;
					m->npages = code_pages;
					m->sample = sample;
					m->path = path;
					m->file = f->file;
					m->nfde = f->nfde;
				}
			}
			return;
		}
		if (!sets)
			return;
	}
}

struct scan {
	struct profil_uset *old;
	struct profil_umod *mods;
	uint32_t n, cap;
};

/* The name a module's file is opened by (open_file below). */
static const char *file_name(const struct dl_phdr_info *info)
{
	return info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
}

/* m's entry in the old set, if m is that module still: the same place,
 * layout and build id (an object dlopen()ed where a closed one was can
 * have the same layout: tests/stacks/t-unwind-cache), and the same file
 * name: what the entry learned of its file (the descriptor kept, that the
 * file was replaced) is that file's, and a copy of the object loaded from
 * another path where the first was has a file of its own. */
static struct profil_umod *reuse(const struct profil_uset *old, const struct profil_umod *m,
				 const char *name)
{
	for (uint32_t i = 0; old && i < old->n; i++) {
		struct profil_umod *o = (struct profil_umod *)&old->m[i];
		if (o->lo == m->lo && o->hi == m->hi && o->bias == m->bias &&
		    o->eh_hdr == m->eh_hdr && o->id_at == m->id_at && o->id_len == m->id_len &&
		    memcmp(o->id, m->id, m->id_len) == 0 &&
		    (!o->path || strcmp(o->path, name) == 0))
			return o;
	}
	return NULL;
}

static int add_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct scan *s = arg;
	struct profil_umod m = { .lo = UINTPTR_MAX, .bias = info->dlpi_addr };
	const ElfW(Phdr) *eh = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_GNU_EH_FRAME)
			eh = ph;
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			uintptr_t a = info->dlpi_addr + ph->p_vaddr;
			if (a < m.lo)
				m.lo = a;
			if (a + ph->p_memsz > m.hi)
				m.hi = a + ph->p_memsz;
		}
	}
	if (m.lo >= m.hi || s->n == s->cap)
		return 0;
	if (eh) {
		m.eh_hdr = info->dlpi_addr + eh->p_vaddr;
		for (int i = 0; i < info->dlpi_phnum; i++) {
			const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
			uintptr_t a = info->dlpi_addr + ph->p_vaddr;
			if (ph->p_type == PT_LOAD && m.eh_hdr >= a && m.eh_hdr < a + ph->p_filesz) {
				m.seg_lo = a;
				m.seg_hi = a + ph->p_filesz;
				m.seg_off = ph->p_offset;
			}
		}
	}
	uintptr_t id_at;
	uint32_t id_len;
	if (build_id(info, &id_at, &id_len) && id_len <= sizeof m.id) {
		m.id_at = id_at;
		m.id_len = id_len;
		memcpy(m.id, (const void *)id_at, id_len);
	}
	struct profil_umod *o = reuse(s->old, &m, file_name(info));
	if (o) {
		s->mods[s->n++] = *o;
		return 0;
	}
	m.serial = ++serials;
	/* Static, not on the stack: a path is 4 KiB, and the constructor may
	 * run on a small stack (issue 19); under refresh_lock. */
	static struct found f;
	bool file = m.id_len && m.eh_hdr && m.seg_hi && open_file(info, &m, &f);
	if (m.id_len)
		give_memory(&m, file ? &f : NULL);
	if (file)
		close(f.fd);
	s->mods[s->n++] = m;
	return 0;
}

static int by_lo(const void *a, const void *b)
{
	const struct profil_umod *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static bool in_set(const struct profil_uset *set, const struct profil_umod *m)
{
	for (uint32_t i = 0; i < set->n; i++)
		if (set->m[i].serial == m->serial)
			return true;
	return false;
}

static void keep_dropped(const struct profil_umod *m)
{
	if (ndropped == dropped_cap) {
		uint32_t cap = dropped_cap ? 2 * dropped_cap : 16;
		struct profil_umod *d = profil__alloc(cap * sizeof *d);
		if (!d)
			return; /* kept mapped for good: a leak, never a fault */
		if (dropped)
			memcpy(d, dropped, ndropped * sizeof *d);
		profil__free(dropped, dropped_cap * sizeof *d);
		dropped = d;
		dropped_cap = cap;
	}
	dropped[ndropped++] = *m;
}

/* Close the descriptor walks kept for m's file, if it is still that file
 * (the program may have closed it and opened one of its own there: never
 * closed by us). */
static void close_kept(const struct profil_umod *m)
{
	int fd = m->live ? atomic_load(&m->live->fd) : -1;
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_dev == m->file.dev &&
	    (uint64_t)st.st_ino == m->file.ino && st.st_mtim.tv_sec == m->file.mtime_s &&
	    st.st_mtim.tv_nsec == m->file.mtime_ns)
		close(fd);
}

/* Unmap what no walk can still see: every walk that began before the swap
 * has ended once the count was seen at zero after it. */
static void reclaim(void)
{
	if (atomic_load(&profil__unwind_walkers) != 0)
		return;
	while (retired) {
		struct profil_uset *next = retired->retired_next;
		profil__free(retired, retired->size);
		retired = next;
	}
	for (uint32_t i = 0; i < ndropped; i++) {
		close_kept(&dropped[i]);
		profil__free(dropped[i].mem, dropped[i].mem_size);
		mapped -= dropped[i].mem_size;
	}
	ndropped = 0;
}

static int count_modules(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)info, (void)size;
	++*(uint32_t *)arg;
	return 0;
}

int profil__unwind_refresh(void)
{
	/* Sealed, or the calling thread under a seccomp filter the program
	 * installed: the files, maps and memory a refresh needs are system
	 * calls of ours (sig/seal.h).  Before the lock. */
	if (profil__filter_check(false))
		return -EAGAIN;
	pthread_mutex_lock(&refresh_lock);
	atomic_store(&profil__unwind_stale, false);
	uint32_t cap = 0;
	dl_iterate_phdr(count_modules, &cap);
	cap += 8; /* loads between the two calls */
	size_t size = sizeof(struct profil_uset) + cap * sizeof(struct profil_umod);
	struct profil_uset *set = profil__alloc(size);
	if (set) {
		set->size = size;
		struct scan s = { atomic_load(&profil__unwind_set), set->m, 0, cap };
		dl_iterate_phdr(add_module, &s);
		set->n = s.n;
		qsort(set->m, set->n, sizeof set->m[0], by_lo);
		struct profil_uset *old = atomic_exchange(&profil__unwind_set, set);
		if (old) {
			for (uint32_t i = 0; i < old->n; i++)
				if (old->m[i].mem && !in_set(set, &old->m[i]))
					keep_dropped(&old->m[i]);
			old->retired_next = retired;
			retired = old;
		}
	}
	reclaim();
	pthread_mutex_unlock(&refresh_lock);
	return set ? 0 : -ENOMEM;
}

void profil__unwind_refresh_if_stale(void)
{
	if (atomic_load_explicit(&profil__unwind_stale, memory_order_relaxed))
		profil__unwind_refresh();
}

void profil__unwind_stats(struct profil_unwind_stats *st)
{
	pthread_mutex_lock(&refresh_lock);
	const struct profil_uset *set = atomic_load(&profil__unwind_set);
	memset(st, 0, sizeof *st);
	for (uint32_t i = 0; set && i < set->n; i++) {
		const struct profil_umod *m = &set->m[i];
		st->modules++;
		st->with_file += m->path != NULL;
		st->cache_entries += 8 * (uint64_t)m->cache_sets;
		for (uint64_t e = 0; e < 8 * (uint64_t)m->cache_sets; e++)
			st->cached += atomic_load_explicit(&m->cache[e], memory_order_relaxed) != 0;
		for (uint32_t e = 0; e < m->nfuncs; e++)
			st->funcs += atomic_load_explicit(&m->funcs[e], memory_order_relaxed) != 0;
		if (m->live) {
			uint64_t used = atomic_load(&m->live->arena_used);
			st->func_bytes += used < m->arena_size ? used : m->arena_size;
		}
	}
	st->mapped = mapped;
	st->func_rows = atomic_load(&profil__unwind_counts.func_rows);
	st->file_rows = atomic_load(&profil__unwind_counts.file_rows);
	st->memory_rows = atomic_load(&profil__unwind_counts.memory_rows);
	st->opened = atomic_load(&profil__unwind_counts.opened);
	st->mismatched = atomic_load(&profil__unwind_counts.mismatched);
	st->lost = atomic_load(&profil__unwind_counts.lost);
	pthread_mutex_unlock(&refresh_lock);
}

void profil__unwind_no_caches(bool off)
{
	pthread_mutex_lock(&refresh_lock);
	want_caches = !off;
	/* The next refresh registers every module anew. */
	struct profil_uset *old = atomic_exchange(&profil__unwind_set, NULL);
	if (old) {
		for (uint32_t i = 0; i < old->n; i++)
			if (old->m[i].mem)
				keep_dropped(&old->m[i]);
		old->retired_next = retired;
		retired = old;
	}
	reclaim();
	pthread_mutex_unlock(&refresh_lock);
}

#ifdef PROFIL_STATIC_ARCHIVE
/* The archive calls nothing through dlsym (tests/static): a weak reference,
 * bound by the linker where libc has the function and NULL in a static
 * program that does not otherwise pull it in (where all code is in the
 * tables anyway). */
extern int _dl_find_object(void *pc, struct dl_find_object *out) __attribute__((weak));
static profil_find_object_fn *lookup_find_object(void)
{
	return _dl_find_object;
}
#else
/* Looked up, not linked: libprofil.so still loads with a glibc before 2.35. */
static profil_find_object_fn *lookup_find_object(void)
{
	return (profil_find_object_fn *)dlsym(RTLD_DEFAULT, "_dl_find_object");
}
#endif

/* A fork while another thread refreshes would leave the child's lock held
 * for good: fork waits for the refresh instead. */
static void fork_prepare(void)
{
	pthread_mutex_lock(&refresh_lock);
}

static void fork_done(void)
{
	pthread_mutex_unlock(&refresh_lock);
}

/* Under pcprof run recording stacks (PCPROF_STACKS=1), the set is made
 * before the first sample; a program that only calls profil(), or a
 * recording without stacks (--no-stacks), whose handler never walks, never
 * pays for it, and a walk without a set still works, through the direct
 * path, until someone refreshes. */
__attribute__((constructor(110))) static void unwind_start(void)
{
	profil__unwind_find_object = lookup_find_object();
	pthread_atfork(fork_prepare, fork_done, fork_done);
	/* Static, not on the stack: its 4 KiB path was a constructor frame
	 * that a small RLIMIT_STACK does not have room for (issue 19); a
	 * constructor runs once. */
	static struct raw_env env;
	if (profil__raw_env(&env) && env.stacks)
		profil__unwind_refresh();
}
