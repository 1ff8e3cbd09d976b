/*
 * unwind-build.c - the compact unwind tables of the loaded modules, built
 * in normal context and published to the signal handler (the handler's
 * side, which reads them, is lib/sig/unwind-tables.c; what both see is in
 * lib/sig/unwind-tables.h).  Layer L3: it reads the recording's
 * environment (rawfile.h) and takes a mutex, so it is not part of the
 * signal path.
 */
#include "unwind-build.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rawfile.h"
#include "sig/unwind-tables.h"

static pthread_mutex_t refresh_lock = PTHREAD_MUTEX_INITIALIZER;
static struct profil_uset *retired; /* replaced sets, unmapped when no walk runs */
static struct profil_umod *dropped; /* rows of modules gone, likewise */
static uint32_t ndropped, dropped_cap;

static const struct profil_urow unknown = PROFIL_UROW_UNKNOWN;

/* ---- reading one FDE ---- */

/* An FDE read straight from a module's memory, bounded by [lo, hi) (the
 * segment that holds it): normal context only. */
static int fde_direct(uintptr_t fde_at, uintptr_t lo, uintptr_t hi, struct profil_cie *cie,
		      struct profil_fde *fde)
{
	if (fde_at < lo || hi - fde_at < 8)
		return -EINVAL;
	uint32_t len = profil__cfi_rd32((const uint8_t *)fde_at);
	uint32_t id = profil__cfi_rd32((const uint8_t *)fde_at + 4);
	if (len < 4 || len == 0xffffffffu || hi - fde_at - 4 < len || id == 0)
		return -EINVAL;
	uintptr_t cie_at = fde_at + 4 - id;
	if (cie_at < lo || cie_at >= hi || hi - cie_at < 8)
		return -EINVAL;
	uint32_t clen = profil__cfi_rd32((const uint8_t *)cie_at);
	if (clen < 4 || clen == 0xffffffffu || hi - cie_at - 4 < clen ||
	    profil__cfi_rd32((const uint8_t *)cie_at + 4) != 0)
		return -EINVAL;
	struct profil_cfi_buf cb = { (const uint8_t *)cie_at + 8,
				     (const uint8_t *)cie_at + 4 + clen, cie_at + 8 };
	struct profil_cfi_buf fb = { (const uint8_t *)fde_at + 8, (const uint8_t *)fde_at + 4 + len,
				     fde_at + 8 };
	return profil__cfi_pair(&cb, &fb, cie, fde);
}

/* ---- building a module's table (normal context) ---- */

struct build {
	struct profil_urow *out; /* mmap'd, grown by mremap */
	uint32_t n, cap;
	bool failed; /* no memory: the module gets no table */
	uintptr_t bias;
	bool have_last;
	uintptr_t last_pc; /* where the last row starts */
	struct profil_urow last;
};

static bool grow(struct build *b)
{
	uint32_t cap = b->cap ? 2 * b->cap : 1024;
	size_t old = (size_t)b->cap * sizeof *b->out, want = (size_t)cap * sizeof *b->out;
	void *p = b->out ? mremap(b->out, old, want, MREMAP_MAYMOVE) : profil__alloc(want);
	if (!p || p == MAP_FAILED) {
		b->failed = true;
		return false;
	}
	b->out = p;
	b->cap = cap;
	return true;
}

static void put(struct build *b, uintptr_t pc, const struct profil_urow *row)
{
	if (pc < b->bias || pc - b->bias > UINT32_MAX || b->failed)
		return;
	if (b->have_last) {
		if (pc < b->last_pc)
			return; /* overlapping FDEs: the first one wins */
		if (row->rule == b->last.rule && row->cfa == b->last.cfa && row->fp == b->last.fp)
			return;
		if (pc == b->last_pc)
			b->n--; /* the same address again: the later row wins */
	}
	if (b->n == b->cap && !grow(b))
		return;
	b->out[b->n] = *row;
	b->out[b->n].off = (uint32_t)(pc - b->bias);
	b->n++;
	b->have_last = true;
	b->last_pc = pc;
	b->last = *row;
}

static int emit_build(void *ctx, uintptr_t pc, const struct profil_urow *row)
{
	put(ctx, pc, row);
	return 0;
}

/* The hdr's binary-search table, checked: its entries, or NULL. */
static const int32_t *hdr_table(uintptr_t hdr, uintptr_t hi, uint32_t *count)
{
	const uint8_t *h = (const uint8_t *)hdr;
	if (hi - hdr < 12 || h[0] != 1 || h[3] != PROFIL_EH_HDR_TABLE_ENC)
		return NULL;
	struct profil_cfi_buf b = { h, (const uint8_t *)hi, hdr };
	const uint8_t *p = h + 4;
	uintptr_t frame, n;
	if (profil__cfi_pointer(&b, &p, h[1], hdr, &frame) < 0 ||
	    profil__cfi_pointer(&b, &p, h[2], hdr, &n) < 0 || n > (hi - (uintptr_t)p) / 8)
		return NULL;
	*count = (uint32_t)n;
	return (const int32_t *)p;
}

static void build_rows(struct build *b, uintptr_t hdr, uintptr_t lo, uintptr_t hi)
{
	uint32_t n;
	const int32_t *t = hdr_table(hdr, hi, &n);
	if (!t)
		return;
	uintptr_t end = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct profil_cie cie;
		struct profil_fde fde;
		if (fde_direct(hdr + (uintptr_t)(intptr_t)t[2 * i + 1], lo, hi, &cie, &fde) < 0)
			continue;
		if (fde.pc_begin == fde.pc_end)
			continue;
		if (b->have_last && end && fde.pc_begin > end)
			put(b, end, &unknown); /* a gap between functions */
		/* An instruction it does not know ends the FDE's rows with
		 * an unknown one, up to the next FDE. */
		profil__cfi_run(&cie, &fde, emit_build, b);
		if (fde.pc_end > end)
			end = fde.pc_end;
	}
	if (b->have_last)
		put(b, end, &unknown);
}

/* The module's final mapping: its rows, then its page index. */
static int finish(struct profil_umod *m, const struct build *b)
{
	if (!b->n)
		return 0;
	uint32_t npages = (uint32_t)(((m->hi - m->lo) >> PROFIL_UPAGE_SHIFT) + 1);
	size_t rows = (size_t)b->n * sizeof *b->out;
	size_t size = rows + (size_t)npages * sizeof *m->page;
	char *mem = profil__alloc(size);
	if (!mem)
		return -ENOMEM;
	memcpy(mem, b->out, rows);
	m->mem = mem;
	m->rows = (struct profil_urow *)mem;
	m->nrows = b->n;
	m->page = (uint32_t *)(mem + rows);
	m->npages = npages;
	m->rows_size = size;
	uint32_t r = 0;
	for (uint32_t p = 0; p < npages; p++) {
		uintptr_t start = m->lo + ((uintptr_t)p << PROFIL_UPAGE_SHIFT) - m->bias;
		while (r + 1 < b->n && m->rows[r + 1].off <= start)
			r++;
		m->page[p] = r;
	}
	return 0;
}

/* ---- tables shared by the process images of one run ----
 *
 * Building a module's table costs about 1.5 ms of CPU and 0.85 MiB of
 * fresh memory for libc and its neighbours, in every process image: a
 * shell loop of 200 short commands built libc's table 200 times
 * (bench/exec-cost).  The table depends only on the module's file, so
 * the first image of a run that builds one writes it to the recording
 * directory, "unwind-<build id>.utab", and later images read that file
 * instead of building (docs/design.md, "Stacks: unwinding").
 *
 * Only a directory the library already records into (PCPROF_DIR, never
 * under AT_SECURE: profil__raw_env), and only if it is a directory of
 * ours that no one else may write to.  A file is written once, under a
 * name of its own (O_EXCL, O_NOFOLLOW) and linked into place complete, so
 * no reader ever sees it half written; a reader checks owner, mode, size,
 * header, key (build id and layout of the module as loaded here), a
 * checksum of everything and the page index's bounds before it uses a
 * row, and builds as before when anything is off or missing.  A full disk
 * only means the next image builds too.  The descriptors are closed
 * before the refresh returns.  Modules without a build id are built, not
 * shared. */

#define UTAB_MAGIC   "PCPUTAB"
#define UTAB_VERSION 1 /* bump whenever the builder's rows change */
#define UTAB_ID_MAX  32
#define UTAB_MAX     (UINT64_C(1) << 32)

/* What the table was built from; compared byte for byte. */
struct ukey {
	uint8_t id[UTAB_ID_MAX]; /* GNU build id, zero-padded */
	uint32_t id_len;
	uint32_t fdes;                           /* entries of .eh_frame_hdr's table */
	uint64_t lo, hi, eh_hdr, seg_lo, seg_hi; /* from the load bias */
};

struct utab_head {
	char magic[8];
	uint32_t version, head_size; /* head_size: sizeof (struct utab_head) */
	uint32_t row_size, page_shift;
	uint64_t file_size;
	struct ukey key;
	uint32_t nrows, npages; /* rows follow the head, then the page index */
	uint64_t sum_body;      /* of rows and page index */
	uint64_t sum_head;      /* of the head with this field 0 */
};
_Static_assert(sizeof(struct utab_head) == 136, "no padding: the head is compared whole");

static _Atomic uint32_t shared_in, shared_out;           /* tables read, written */
static char cache_dir[sizeof((struct raw_env *)0)->dir]; /* "": no sharing */

/* A checksum that catches damage, not an adversary (who, being the same
 * user, could change the program itself): four lanes of xxhash-like
 * rounds, about 0.1 ms for libc's table. */
static uint64_t rotl(uint64_t v, int k)
{
	return (v << k) | (v >> (64 - k));
}

static uint64_t checksum(const void *p, size_t n)
{
	const uint64_t k1 = 0x9e3779b185ebca87u, k2 = 0xc2b2ae3d27d4eb4fu;
	uint64_t h[4] = { k1, k2, ~k1, ~k2 };
	const uint8_t *b = p;
	size_t i = 0;
	for (; n - i >= 32; i += 32)
		for (int l = 0; l < 4; l++) {
			uint64_t w;
			memcpy(&w, b + i + 8 * l, 8);
			h[l] = rotl(h[l] + w * k2, 31) * k1;
		}
	uint64_t r = n ^ rotl(h[0], 1) ^ rotl(h[1], 7) ^ rotl(h[2], 12) ^ rotl(h[3], 18);
	for (; i < n; i++)
		r = (r ^ b[i]) * k1;
	return profil__mix64(r);
}

/* [vaddr, vaddr + size) lies in the file-backed part of one of the
 * module's loaded segments: mapped, so read without the fault guard (the
 * constructor runs before it is taken). */
static bool loaded(const struct dl_phdr_info *info, uint64_t vaddr, uint64_t size)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr && size <= ph->p_filesz &&
		    vaddr - ph->p_vaddr <= ph->p_filesz - size)
			return true;
	}
	return false;
}

/* The module's GNU build id, from its notes as loaded. */
static bool build_id(const struct dl_phdr_info *info, struct ukey *k)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE || !loaded(info, ph->p_vaddr, ph->p_memsz))
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
			    nh.n_descsz <= UTAB_ID_MAX) {
				memcpy(k->id, p + sizeof nh + name, nh.n_descsz);
				k->id_len = nh.n_descsz;
				return true;
			}
			p += sizeof nh + name + desc;
			left -= sizeof nh + name + desc;
		}
	}
	return false;
}

static bool make_key(const struct dl_phdr_info *info, const struct profil_umod *m, uintptr_t seg_lo,
		     uintptr_t seg_hi, struct ukey *k)
{
	memset(k, 0, sizeof *k);
	if (!cache_dir[0] || !build_id(info, k) || !hdr_table(m->eh_hdr, seg_hi, &k->fdes))
		return false;
	k->lo = m->lo - m->bias;
	k->hi = m->hi - m->bias;
	k->eh_hdr = m->eh_hdr - m->bias;
	k->seg_lo = seg_lo - m->bias;
	k->seg_hi = seg_hi - m->bias;
	return true;
}

static void file_name(char *buf, size_t len, const struct ukey *k, const char *tail)
{
	static const char hex[] = "0123456789abcdef";
	char id[2 * UTAB_ID_MAX + 1];
	for (uint32_t i = 0; i < k->id_len; i++) {
		id[2 * i] = hex[k->id[i] >> 4];
		id[2 * i + 1] = hex[k->id[i] & 15];
	}
	id[2 * k->id_len] = 0;
	snprintf(buf, len, "unwind-%s%s.utab", id, tail);
}

/* The recording directory, if it is ours alone: a descriptor, or -1. */
static int cache_open(void)
{
	if (!cache_dir[0])
		return -1;
	int fd = open(cache_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void head_fill(struct utab_head *h, const struct ukey *k, const struct profil_umod *m)
{
	memset(h, 0, sizeof *h);
	memcpy(h->magic, UTAB_MAGIC, sizeof UTAB_MAGIC);
	h->version = UTAB_VERSION;
	h->head_size = sizeof *h;
	h->row_size = sizeof(struct profil_urow);
	h->page_shift = PROFIL_UPAGE_SHIFT;
	h->key = *k;
	h->nrows = m->nrows;
	h->npages = m->npages;
	h->file_size = sizeof *h + (uint64_t)m->nrows * sizeof *m->rows +
		       (uint64_t)m->npages * sizeof *m->page;
}

/* Exactly n bytes from the start of fd. */
static bool read_all(int fd, void *p, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, (char *)p + got, n - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

/* The size bytes of fd in fresh memory of our own, or NULL.  Copied, not
 * mapped: a file truncated under its mapping, even a private one whose
 * pages were all copied on write, raises SIGBUS at the next read there;
 * the fault guard would then cut short every walk through that module,
 * and a walk runs only while the guard is ours. */
static void *copy_in(int fd, size_t size)
{
	void *p = profil__alloc(size);
	if (p && !read_all(fd, p, size)) {
		profil__free(p, size);
		p = NULL;
	}
	return p;
}

/* The run's table for k, into m (rows, pages, mapping); or -1. */
static int cache_load(int dfd, const struct ukey *k, struct profil_umod *m)
{
	char name[128];
	file_name(name, sizeof name, k, "");
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	void *mem = NULL;
	size_t size = 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    !(st.st_mode & 077) && (uint64_t)st.st_size > sizeof(struct utab_head) &&
	    (uint64_t)st.st_size < UTAB_MAX)
		mem = copy_in(fd, size = (size_t)st.st_size);
	close(fd);
	if (!mem)
		return -1;
	const struct utab_head *h = mem;
	struct utab_head want;
	struct profil_umod t = *m;
	t.nrows = h->nrows;
	t.npages = (uint32_t)(((m->hi - m->lo) >> PROFIL_UPAGE_SHIFT) + 1);
	head_fill(&want, k, &t);
	want.sum_body = h->sum_body;
	want.sum_head = checksum(&want, sizeof want);
	bool ok = memcmp(h, &want, sizeof want) == 0 && want.file_size == size && t.nrows &&
		  checksum((char *)mem + sizeof want, size - sizeof want) == h->sum_body;
	t.rows = (struct profil_urow *)((char *)mem + sizeof want);
	t.page = (uint32_t *)(t.rows + (ok ? t.nrows : 0));
	/* The bounds the handler relies on: every page's first row is a
	 * row, in order (checked here once; the handler does not). */
	for (uint32_t p = 0; ok && p < t.npages; p++)
		ok = t.page[p] < t.nrows && (!p || t.page[p] >= t.page[p - 1]);
	if (!ok) {
		profil__free(mem, size);
		return -1;
	}
	t.mem = mem;
	t.rows_size = size;
	*m = t;
	atomic_fetch_add(&shared_in, 1);
	return 0;
}

static bool write_all(int fd, const void *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p = (const char *)p + w;
		n -= (size_t)w;
	}
	return true;
}

/* Offer m's fresh table to the run's later images.  Anything failing
 * (full disk, another image first) leaves no file and costs nothing
 * else.  Not past RLIMIT_FSIZE: that write would earn the program a
 * SIGXFSZ, which kills by default. */
static void cache_store(int dfd, const struct ukey *k, const struct profil_umod *m)
{
	struct utab_head h;
	head_fill(&h, k, m);
	struct rlimit lim;
	if (getrlimit(RLIMIT_FSIZE, &lim) < 0 ||
	    (lim.rlim_cur != RLIM_INFINITY && h.file_size > lim.rlim_cur))
		return;
	char name[128], tmp[160];
	file_name(name, sizeof name, k, "");
	char pid[24];
	snprintf(pid, sizeof pid, ".%d.new", (int)getpid());
	file_name(tmp, sizeof tmp, k, pid);
	int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400);
	if (fd < 0)
		return;
	size_t rows = (size_t)m->nrows * sizeof *m->rows;
	/* finish() put the page index right after the rows. */
	h.sum_body = checksum(m->rows, rows + (size_t)m->npages * sizeof *m->page);
	h.sum_head = checksum(&h, sizeof h);
	bool ok = write_all(fd, &h, sizeof h) && write_all(fd, m->rows, h.file_size - sizeof h);
	ok = close(fd) == 0 && ok;
	if (ok && linkat(dfd, tmp, dfd, name, 0) == 0) /* EEXIST: another image was first */
		atomic_fetch_add(&shared_out, 1);
	unlinkat(dfd, tmp, 0);
}

struct scan {
	struct profil_uset *old;
	struct profil_umod *mods;
	uint32_t n, cap;
	int err;
	int cache; /* the run's directory of shared tables, or -1 */
};

static struct profil_umod *reuse(const struct profil_uset *old, const struct profil_umod *m)
{
	for (uint32_t i = 0; old && i < old->n; i++) {
		struct profil_umod *o = (struct profil_umod *)&old->m[i];
		if (o->lo == m->lo && o->hi == m->hi && o->bias == m->bias &&
		    o->eh_hdr == m->eh_hdr)
			return o;
	}
	return NULL;
}

static int add_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct scan *s = arg;
	struct profil_umod m = { .lo = UINTPTR_MAX, .bias = info->dlpi_addr };
	uintptr_t seg_lo = 0, seg_hi = 0;
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
				seg_lo = a;
				seg_hi = a + ph->p_filesz;
			}
		}
	}
	struct profil_umod *o = reuse(s->old, &m);
	if (o) {
		m = *o;
	} else if (m.eh_hdr && seg_hi) {
		struct ukey k;
		bool keyed = s->cache >= 0 && make_key(info, &m, seg_lo, seg_hi, &k);
		if (keyed && cache_load(s->cache, &k, &m) == 0) {
			s->mods[s->n++] = m;
			return 0;
		}
		struct build b = { .bias = m.bias };
		build_rows(&b, m.eh_hdr, seg_lo, seg_hi);
		if (b.failed) {
			profil__free(b.out, (size_t)b.cap * sizeof *b.out);
			s->err = -ENOMEM;
			return 1;
		}
		int e = finish(&m, &b);
		profil__free(b.out, (size_t)b.cap * sizeof *b.out);
		if (e < 0) {
			s->err = e;
			return 1;
		}
		if (keyed && m.nrows)
			cache_store(s->cache, &k, &m);
	}
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
		if (set->m[i].rows == m->rows)
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
	for (uint32_t i = 0; i < ndropped; i++)
		profil__free(dropped[i].mem, dropped[i].rows_size);
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
	pthread_mutex_lock(&refresh_lock);
	atomic_store(&profil__unwind_stale, false);
	uint32_t cap = 0;
	dl_iterate_phdr(count_modules, &cap);
	cap += 8; /* loads between the two calls */
	size_t size = sizeof(struct profil_uset) + cap * sizeof(struct profil_umod);
	struct profil_uset *set = profil__alloc(size);
	int err = set ? 0 : -ENOMEM;
	if (set) {
		set->size = size;
		struct scan s = {
			atomic_load(&profil__unwind_set), set->m, 0, cap, 0, cache_open()
		};
		dl_iterate_phdr(add_module, &s);
		if (s.cache >= 0)
			close(s.cache);
		set->n = s.n;
		err = s.err;
		if (err == 0) {
			qsort(set->m, set->n, sizeof set->m[0], by_lo);
			struct profil_uset *old = atomic_exchange(&profil__unwind_set, set);
			if (old) {
				for (uint32_t i = 0; i < old->n; i++)
					if (old->m[i].rows && !in_set(set, &old->m[i]))
						keep_dropped(&old->m[i]);
				old->retired_next = retired;
				retired = old;
			}
		} else {
			/* Rows built for this set only: none is published. */
			struct profil_uset *old = atomic_load(&profil__unwind_set);
			for (uint32_t i = 0; i < set->n; i++)
				if (set->m[i].rows && !(old && in_set(old, &set->m[i])))
					profil__free(set->m[i].mem, set->m[i].rows_size);
			profil__free(set, size);
		}
	}
	reclaim();
	pthread_mutex_unlock(&refresh_lock);
	return err;
}

void profil__unwind_refresh_if_stale(void)
{
	if (atomic_load_explicit(&profil__unwind_stale, memory_order_relaxed))
		profil__unwind_refresh();
}

void profil__unwind_table_stats(uint32_t *modules, uint64_t *rows, uint64_t *bytes)
{
	pthread_mutex_lock(&refresh_lock);
	const struct profil_uset *set = atomic_load(&profil__unwind_set);
	*modules = set ? set->n : 0;
	*rows = *bytes = 0;
	for (uint32_t i = 0; set && i < set->n; i++) {
		*rows += set->m[i].nrows;
		*bytes += set->m[i].rows_size;
	}
	pthread_mutex_unlock(&refresh_lock);
}

void profil__unwind_share_stats(uint32_t *in, uint32_t *out, uint64_t *digest)
{
	pthread_mutex_lock(&refresh_lock);
	const struct profil_uset *set = atomic_load(&profil__unwind_set);
	uint64_t d = 0; /* a sum: the same whatever order the modules are in */
	for (uint32_t i = 0; set && i < set->n; i++) {
		const struct profil_umod *m = &set->m[i];
		uint64_t lo = m->lo - m->bias;
		d += profil__mix64(
			checksum(&lo, sizeof lo) ^
			checksum(m->rows, (size_t)m->nrows * sizeof *m->rows) ^
			rotl(checksum(m->page, (size_t)m->npages * sizeof *m->page), 17));
	}
	*in = atomic_load(&shared_in);
	*out = atomic_load(&shared_out);
	*digest = d;
	pthread_mutex_unlock(&refresh_lock);
}

uint64_t profil__unwind_checksum(const void *p, size_t n)
{
	return checksum(p, n);
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

/* A fork while another thread rebuilds would leave the child's lock held
 * for good: fork waits for the rebuild instead. */
static void fork_prepare(void)
{
	pthread_mutex_lock(&refresh_lock);
}

static void fork_done(void)
{
	pthread_mutex_unlock(&refresh_lock);
}

/* Under pcprof run recording stacks (PCPROF_STACKS=1), the tables are built
 * before the first sample; a program that only calls profil(), or a
 * recording without stacks (--no-stacks), whose handler never walks, never
 * pays for them (about 1.5 ms of CPU per process image, libc's most:
 * bench/exec-cost), and a walk without tables still works, through the
 * direct path, until someone refreshes. */
__attribute__((constructor(110))) static void unwind_start(void)
{
	profil__unwind_find_object = lookup_find_object();
	pthread_atfork(fork_prepare, fork_done, fork_done);
	/* Static, not on the stack: its 4 KiB path was a constructor frame
	 * that a small RLIMIT_STACK does not have room for (issue 19); a
	 * constructor runs once. */
	static struct raw_env env;
	if (profil__raw_env(&env) && env.stacks) {
		/* PCPROF_UNWIND_SHARE=0: every image builds its own (tests, bench). */
		const char *share = getenv("PCPROF_UNWIND_SHARE");
		if (!(share && strcmp(share, "0") == 0))
			memcpy(cache_dir, env.dir, sizeof cache_dir);
		profil__unwind_refresh();
	}
}
