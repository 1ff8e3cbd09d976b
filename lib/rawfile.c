/*
 * rawfile.c - see rawfile.h.  The module description is read from the ELF
 * file on disk (program headers, GNU build-id note) rather than from memory,
 * because the audit callbacks see a link_map, which has no program headers,
 * and a file read cannot fault; the vDSO, which has no file, is read from
 * memory, where the kernel guarantees it is mapped.
 */
#include "rawfile.h"

#include "internal.h"
#include "sig/sink.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_SLOTS (UINT64_C(1) << 20)
#define MIN_SLOTS     UINT64_C(1024)
#define MAX_SLOTS     (UINT64_C(1) << 26)

/* First levels: what a process that samples a few hundred distinct pcs in a
 * thread or two needs, so that short-lived processes reserve little (the
 * files stay until pcprof has read them all).  Threads: 32 .. 8192 per
 * level, 16352 in all. */
#define THREAD_BASE   32
#define THREAD_LEVELS 9
#define SLOT_BASE     256
#define NODE_BASE     256
#define FIRST_MODULES 8

#define A32(p)  ((_Atomic uint32_t *)(p))
#define AI32(p) ((_Atomic int32_t *)(p))
#define A64(p)  ((_Atomic uint64_t *)(p))

bool profil__raw_env(struct raw_env *env)
{
	memset(env, 0, sizeof *env);
	if (getauxval(AT_SECURE))
		return false;
	const char *dir = getenv("PCPROF_DIR"), *s;
	if (!dir || !*dir || strlen(dir) >= sizeof env->dir)
		return false;
	strcpy(env->dir, dir);
	env->root = (s = getenv("PCPROF_ROOT")) ? (pid_t)atol(s) : 0;
	env->follow = !((s = getenv("PCPROF_FOLLOW")) && strcmp(s, "0") == 0);
	env->slots = DEFAULT_SLOTS;
	if ((s = getenv("PCPROF_SLOTS"))) {
		unsigned long long v = strtoull(s, NULL, 10);
		if (v >= MIN_SLOTS && v <= MAX_SLOTS && (v & (v - 1)) == 0)
			env->slots = v;
	}
	env->stacks = (s = getenv("PCPROF_STACKS")) && strcmp(s, "1") == 0;
	env->timeline = !((s = getenv("PCPROF_TIMELINE")) && strcmp(s, "0") == 0);
	return true;
}

bool profil__raw_wanted(const struct raw_env *env, pid_t pid, uint32_t seq)
{
	return env->follow || (pid == env->root && seq == 0);
}

uint64_t profil__raw_token(pid_t pid)
{
	uint64_t r[2] = { 0, 0 };
	const void *rnd = (const void *)getauxval(AT_RANDOM);
	if (rnd)
		memcpy(r, rnd, sizeof r);
	return profil__mix64(r[0] ^ profil__mix64(r[1] ^ (uint32_t)pid)) | 1;
}

static void file_name(char *buf, size_t len, const char *dir, pid_t pid, int seq)
{
	snprintf(buf, len, "%s/%d.%d.raw", dir, (int)pid, seq);
}

/* An unsigned number in `base` at s (no sign, no space), up to *end. */
static bool number(const char *s, int base, char **end, unsigned long long *v)
{
	if (!((*s >= '0' && *s <= '9') || (base == 16 && ((*s >= 'a' && *s <= 'f')))))
		return false;
	errno = 0;
	*v = strtoull(s, end, base);
	return errno == 0;
}

/* "<errno>.<token>.lost" */
static bool lost_suffix(const char *s, uint64_t *token)
{
	char *end;
	unsigned long long v;
	if (!number(s, 10, &end, &v) || *end != '.' || !number(end + 1, 16, &end, &v) ||
	    end != s + strcspn(s, ".") + 17 || strcmp(end, ".lost") != 0)
		return false;
	*token = v;
	return true;
}

void profil__raw_latest(const char *dir, pid_t pid, struct raw_latest *out)
{
	*out = (struct raw_latest){ .seq = -1 };
	DIR *d = opendir(dir);
	if (!d)
		return;
	char prefix[32];
	int plen = snprintf(prefix, sizeof prefix, "%d.", (int)pid);
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *name = e->d_name + plen;
		char *end;
		unsigned long long seq;
		uint64_t token = 0;
		if (strncmp(e->d_name, prefix, (size_t)plen) != 0 ||
		    !number(name, 10, &end, &seq) || seq >= 1000000 || (long long)seq <= out->seq ||
		    *end != '.')
			continue;
		bool lost = strcmp(end, ".raw") != 0;
		if (lost && !lost_suffix(end + 1, &token))
			continue;
		*out = (struct raw_latest){ (int)seq, lost, token };
	}
	closedir(d);
}

static uint64_t round_up(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

static uint64_t table_bytes(const struct raw_table *t, size_t entry)
{
	return (((uint64_t)t->base << t->max) - t->base) * entry;
}

/* Where everything goes for a pc table (and a stack node table, if
 * stacks) of `levels` levels; returns the file size.  Each table starts on
 * a page, so that its first level takes as few pages as it can. */
static uint64_t plan(struct raw_map *m, uint32_t levels, bool stacks)
{
	m->thr = (struct raw_table){ round_up(sizeof(struct pcprof_raw_header), 64), THREAD_BASE,
				     THREAD_LEVELS };
	m->slot = (struct raw_table){
		round_up(m->thr.off + table_bytes(&m->thr, sizeof(struct pcprof_raw_thread)),
			 m->page),
		SLOT_BASE, levels
	};
	uint64_t end = round_up(m->slot.off + table_bytes(&m->slot, sizeof(struct pcprof_raw_slot)),
				m->page);
	m->node = (struct raw_table){ 0, 0, 0 };
	if (stacks) {
		m->node = (struct raw_table){ end, NODE_BASE, levels };
		end = round_up(end + table_bytes(&m->node, sizeof(struct pcprof_raw_node)),
			       m->page);
	}
	m->mod_off = end;
	m->mod_cap = PCPROF_RAW_MAX_MODULES;
	return round_up(m->mod_off + (uint64_t)m->mod_cap * sizeof(struct pcprof_raw_module),
			m->page);
}

/* The largest layout within `slots` and the file size limit: a file grown
 * past RLIMIT_FSIZE would earn the program a SIGXFSZ. */
static int choose_layout(struct raw_map *m, uint64_t slots, bool stacks)
{
	long page = sysconf(_SC_PAGESIZE);
	m->page = page > 0 ? (size_t)page : 4096;
	uint32_t levels = 1; /* the most whose slots add up to at most `slots` */
	while (levels < PCPROF_RAW_LEVELS &&
	       ((uint64_t)SLOT_BASE << (levels + 1)) - SLOT_BASE <= slots)
		levels++;
	struct rlimit lim;
	uint64_t most = getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY
				? lim.rlim_cur
				: UINT64_MAX;
	while ((m->size = plan(m, levels, stacks)) > most && levels > 1)
		levels--;
	return m->size > most ? -EFBIG : 0;
}

static int reserve_file(int fd, const struct raw_map *m, uint64_t off, uint64_t len)
{
	uint64_t start = off / m->page * m->page;
	return -posix_fallocate(fd, (off_t)start, (off_t)(round_up(off + len, m->page) - start));
}

/* The header, the first level of each table and `modules` module entries. */
static int reserve_first(int fd, const struct raw_map *m, uint32_t modules)
{
	int r = reserve_file(fd, m, 0, m->thr.off + m->thr.base * sizeof(struct pcprof_raw_thread));
	if (!r)
		r = reserve_file(fd, m, m->slot.off, m->slot.base * sizeof(struct pcprof_raw_slot));
	if (!r && m->node.max)
		r = reserve_file(fd, m, m->node.off, m->node.base * sizeof(struct pcprof_raw_node));
	if (!r)
		r = reserve_file(fd, m, m->mod_off, modules * sizeof(struct pcprof_raw_module));
	return r;
}

static int map_fd(int fd, struct raw_map *m)
{
	void *p = mmap(NULL, m->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	m->h = p;
	return 0;
}

/* An image that cannot record leaves its reason where pcprof looks, in a
 * file that takes no space (which a full file system still allows). */
static void leave_marker(int fd, const char *path, const char *dir, pid_t pid, int seq,
			 uint64_t token, int err)
{
	char lost[4200];
	snprintf(lost, sizeof lost, "%s/%d.%d.%d.%016llx.lost", dir, (int)pid, seq, err,
		 (unsigned long long)token);
	if (ftruncate(fd, 0) < 0 || rename(path, lost) < 0)
		unlink(path);
	close(fd);
}

static void init_levels(struct pcprof_raw_levels *l, const struct raw_table *t)
{
	l->off = t->off;
	l->base = t->base;
	l->max = t->max;
	l->open = 1;
}

int profil__raw_create(const struct raw_env *env, pid_t pid, uint32_t modules, struct raw_map *m)
{
	memset(m, 0, sizeof *m);
	char path[4200];
	struct raw_latest last;
	profil__raw_latest(env->dir, pid, &last);
	int fd = -1, seq = last.seq + 1;
	for (int tries = 0; tries < 64 && fd < 0; tries++, seq++) {
		file_name(path, sizeof path, env->dir, pid, seq);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	seq--;

	if (modules < FIRST_MODULES)
		modules = FIRST_MODULES;
	if (modules > PCPROF_RAW_MAX_MODULES)
		modules = PCPROF_RAW_MAX_MODULES;
	uint64_t token = profil__raw_token(pid);
	/* 0600 whatever the umask: readers and the attach check want it. */
	int r = fchmod(fd, 0600) < 0 ? -errno : choose_layout(m, env->slots, env->stacks);
	if (!r && ftruncate(fd, (off_t)m->size) < 0)
		r = -errno;
	if (!r)
		r = reserve_first(fd, m, modules);
	if (!r)
		r = map_fd(fd, m);
	if (r < 0) {
		leave_marker(fd, path, env->dir, pid, seq, token, -r);
		m->h = NULL;
		return r;
	}
	close(fd);

	struct pcprof_raw_header *h = m->h;
	memcpy(h->magic, PCPROF_RAW_MAGIC, sizeof h->magic);
	h->version = PCPROF_RAW_VERSION;
	h->header_size = sizeof *h;
	h->file_size = m->size;
	h->token = token;
	h->pid = pid;
	h->ppid = profil__raw_ppid();
	h->seq = (uint32_t)seq;
	h->start_ns = profil__clock_ns(CLOCK_REALTIME);
	/* The library moves the origin back to its parent's or previous
	 * image's (record.c), so that buckets line up across the run. */
	h->tl_origin_ns = profil__clock_ns(CLOCK_MONOTONIC);
	h->tl_bucket_ns = env->timeline ? PCPROF_RAW_BUCKET_NS : 0;
	h->mod_off = m->mod_off;
	h->mod_cap = m->mod_cap;
	h->mod_reserved = modules;
	init_levels(&h->thr, &m->thr);
	init_levels(&h->slot, &m->slot);
	if (m->node.max) {
		init_levels(&h->node, &m->node);
		h->flags |= PCPROF_RAW_F_STACKS;
	}
	profil__raw_exe_path(h->exe, sizeof h->exe);
	return 0;
}

/* Open "<dir>/<pid>.<seq>.raw" (mode: O_RDONLY or O_RDWR) and read its
 * header, if the file passes every check above.  Returns the descriptor,
 * or -errno (-EPERM: not trusted, -EINVAL: a bad header). */
static int open_checked(const char *dir, pid_t pid, int seq, int mode, size_t page,
			struct pcprof_raw_header *h)
{
	char path[4200];
	file_name(path, sizeof path, dir, pid, seq);
	int fd = open(path, mode | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	int r = 0;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 07777) != 0600 ||
		 st.st_nlink != 1)
		r = -EPERM;
	else if (pread(fd, h, sizeof *h, 0) != (ssize_t)sizeof *h)
		r = -EINVAL;
	if (!r) {
		pcprof_raw_header_trim(h);
		/* Only this version is written; an older one is only read
		 * (the previous image of an exec chain). */
		if (pcprof_raw_header_error(h, (uint64_t)st.st_size) ||
		    (mode == O_RDWR && h->version != PCPROF_RAW_VERSION) || h->file_size % page ||
		    h->file_size > SIZE_MAX)
			r = -EINVAL;
	}
	if (r) {
		close(fd);
		return r;
	}
	return fd;
}

static size_t page_size(void)
{
	long page = sysconf(_SC_PAGESIZE);
	return page > 0 ? (size_t)page : 4096;
}

int profil__raw_attach(const char *dir, pid_t pid, int seq, uint64_t token, struct raw_map *m)
{
	memset(m, 0, sizeof *m);
	m->page = page_size();
	struct pcprof_raw_header h;
	int fd = open_checked(dir, pid, seq, O_RDWR, m->page, &h);
	if (fd < 0)
		return fd;
	int r = 0;
	if (h.token != token || h.pid != pid)
		r = -ESTALE;
	if (!r) {
		m->size = h.file_size;
		m->mod_off = h.mod_off;
		m->mod_cap = h.mod_cap;
		m->thr = (struct raw_table){ h.thr.off, h.thr.base, h.thr.max };
		m->slot = (struct raw_table){ h.slot.off, h.slot.base, h.slot.max };
		if (h.flags & PCPROF_RAW_F_STACKS)
			m->node = (struct raw_table){ h.node.off, h.node.base, h.node.max };
		r = map_fd(fd, m);
	}
	close(fd);
	return r;
}

int profil__raw_read_header(const char *dir, pid_t pid, int seq, struct pcprof_raw_header *h)
{
	int fd = open_checked(dir, pid, seq, O_RDONLY, page_size(), h);
	if (fd < 0)
		return fd;
	close(fd);
	return h->pid == pid ? 0 : -ESTALE;
}

void profil__raw_unmap(struct raw_map *m)
{
	if (m->h)
		munmap(m->h, m->size);
	m->h = NULL;
}

int profil__raw_reserve(const struct raw_map *m, uint64_t off, uint64_t len)
{
	return profil__sink_populate(m->h, m->size, m->page, off, len);
}

void profil__raw_exe_path(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

/* A decimal number at s, up to a '\0', '/' or ' '; 0 if there is none. */
static pid_t leading_pid(const char *s)
{
	unsigned long long v = 0;
	const char *p = s;
	while (*p >= '0' && *p <= '9' && v < 0x7fffffff)
		v = v * 10 + (unsigned long long)(*p++ - '0');
	return p > s && (*p == '\0' || *p == '/' || *p == ' ') && v <= 0x7fffffff ? (pid_t)v : 0;
}

pid_t profil__raw_pid(void)
{
	char buf[32];
	ssize_t n = readlink("/proc/self", buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = '\0';
	pid_t p = leading_pid(buf);
	return p ? p : getpid();
}

pid_t profil__raw_ppid(void)
{
	if (profil__raw_pid() == getpid())
		return getppid();
	/* "pid (comm) state ppid ...", the comm possibly holding ") " */
	char buf[512];
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf - 1, 0) : -1;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	const char *p = NULL; /* past the last ") " (the module has no strstr) */
	for (const char *q = buf; *q; q++)
		if (q[0] == ')' && q[1] == ' ')
			p = q + 2;
	pid_t pp = p && *p && p[1] == ' ' ? leading_pid(p + 2) : 0;
	return pp ? pp : getppid();
}

/* ---- ELF ---- */

/* Reads from a file or from memory through one interface. */
struct elf_src {
	int fd;          /* >= 0: file */
	const char *mem; /* else: memory */
};

static bool src_read(const struct elf_src *s, void *buf, size_t len, uint64_t off)
{
	if (s->fd >= 0)
		return pread(s->fd, buf, len, (off_t)off) == (ssize_t)len;
	memcpy(buf, s->mem + off, len);
	return true;
}

static void read_build_id(const struct elf_src *s, const Elf64_Phdr *ph,
			  struct pcprof_raw_module *mod)
{
	char notes[2048];
	uint64_t len = ph->p_filesz < sizeof notes ? ph->p_filesz : sizeof notes;
	/* In memory a note segment is found at its vaddr, in a file at its
	 * offset; for the vDSO the two coincide. */
	if (!src_read(s, notes, len, s->fd >= 0 ? ph->p_offset : ph->p_vaddr))
		return;
	for (uint64_t off = 0; off + sizeof(Elf64_Nhdr) <= len;) {
		const Elf64_Nhdr *n = (const Elf64_Nhdr *)(notes + off);
		uint64_t name = off + sizeof *n, desc = name + ((n->n_namesz + 3u) & ~3u);
		uint64_t next = desc + ((n->n_descsz + 3u) & ~3u);
		if (next > len)
			break;
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
		    memcmp(notes + name, "GNU", 4) == 0 && n->n_descsz <= sizeof mod->build_id) {
			memcpy(mod->build_id, notes + desc, n->n_descsz);
			mod->build_id_len = n->n_descsz;
			return;
		}
		off = next;
	}
}

static void describe(const struct elf_src *s, struct pcprof_raw_module *mod)
{
	Elf64_Ehdr eh;
	if (!src_read(s, &eh, sizeof eh, 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phnum > 128)
		return;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (!src_read(s, &ph, sizeof ph, eh.e_phoff + i * sizeof ph))
			return;
		if (ph.p_type == PT_LOAD && mod->nsegs < PCPROF_RAW_MAX_SEGS) {
			mod->seg[mod->nsegs].vaddr = ph.p_vaddr;
			mod->seg[mod->nsegs].memsz = ph.p_memsz;
			mod->seg[mod->nsegs].offset = ph.p_offset;
			mod->seg[mod->nsegs].flags = ph.p_flags;
			mod->nsegs++;
		} else if (ph.p_type == PT_NOTE && !mod->build_id_len) {
			read_build_id(s, &ph, mod);
		}
	}
}

/* Make room for more module entries: double what is reserved. */
static int grow_modules(const struct raw_map *m, uint32_t have)
{
	if (have >= m->mod_cap)
		return -ENOSPC;
	uint32_t want = have < FIRST_MODULES ? FIRST_MODULES : 2 * have;
	if (want > m->mod_cap)
		want = m->mod_cap;
	int r = profil__raw_reserve(m,
				    m->mod_off + (uint64_t)have * sizeof(struct pcprof_raw_module),
				    (uint64_t)(want - have) * sizeof(struct pcprof_raw_module));
	if (r == 0)
		atomic_store(A32(&m->h->mod_reserved), want);
	return r;
}

/* Entries that are ours to read: the count, within what is reserved. */
static uint32_t module_count(const struct raw_map *m, uint32_t *reserved)
{
	uint32_t n = atomic_load(A32(&m->h->mod_count));
	*reserved = atomic_load(A32(&m->h->mod_reserved));
	if (*reserved > m->mod_cap)
		*reserved = m->mod_cap;
	return n < *reserved ? n : *reserved;
}

int profil__raw_add_module(const struct raw_map *m, const char *path, uint64_t bias,
			   const void *mem_ehdr)
{
	struct pcprof_raw_header *h = m->h;
	struct pcprof_raw_module *mods = profil__raw_modules(m);
	uint32_t reserved, n = module_count(m, &reserved);
	for (uint32_t i = 0; i < n; i++)
		if (!mods[i].epoch_unloaded && mods[i].bias == bias &&
		    strcmp(mods[i].path, path) == 0)
			return (int)i;
	int r = n < reserved ? 0 : grow_modules(m, reserved);
	if (r < 0) {
		int32_t none = 0;
		atomic_compare_exchange_strong(AI32(&h->mod_error), &none, -r);
		atomic_fetch_add(A64(&h->lost_modules), 1);
		return r;
	}

	struct pcprof_raw_module *mod = &mods[n];
	memset(mod, 0, sizeof *mod);
	snprintf(mod->path, sizeof mod->path, "%s", path);
	mod->bias = bias;
	mod->epoch_loaded = atomic_load(A32(&h->epoch));
	struct elf_src src = { -1, mem_ehdr };
	if (!mem_ehdr)
		src.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (mem_ehdr || src.fd >= 0)
		describe(&src, mod);
	if (src.fd >= 0)
		close(src.fd);
	/* Publish: readers (pcprof, after the fact) trust mod_count entries. */
	atomic_store_explicit(A32(&h->mod_count), n + 1, memory_order_release);
	return (int)n;
}

void profil__raw_unload_module(const struct raw_map *m, uint32_t idx)
{
	struct pcprof_raw_header *h = m->h;
	struct pcprof_raw_module *mods = profil__raw_modules(m);
	uint32_t reserved;
	if (idx >= module_count(m, &reserved) || mods[idx].epoch_unloaded)
		return;
	uint32_t e = atomic_load(A32(&h->epoch));
	atomic_store(A32(&mods[idx].epoch_unloaded), e + 1);
	atomic_store(A32(&h->epoch), e + 1);
}
