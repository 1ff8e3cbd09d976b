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
	env->filters = RAW_FILTERS_UNSET;
	if ((s = getenv("PCPROF_SECCOMP"))) {
		char *end;
		long v = strtol(s, &end, 10);
		if (end != s && !*end && v >= -1 && v < 100000)
			env->filters = (int)v; /* -1: PROFIL_FILTERS_SOME */
	}
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

/*
 * Files are named relative to their directory, or by a short whole path
 * (open_in below): the directory's path may be PATH_MAX long, and a
 * buffer that holds it and a name was most of the audit module's 8.5 KiB
 * frame in la_version, which ran off a 16 KiB stack (ulimit -s 16) in half
 * the runs (issue 19).  A name is short: NAME_BUF holds
 * "<pid>.<seq>.<errno>.<token>.lost".
 */
#define NAME_BUF 64

static void file_name(char *buf, size_t len, pid_t pid, int seq)
{
	snprintf(buf, len, "%d.%d.raw", (int)pid, seq);
}

static int open_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * A directory's file by its whole path when that is short, which pcprof's
 * own directories are ($TMPDIR/pcprof.XXXXXX): one descriptor, the
 * file's.  Relative to the directory each time costs two at once, and a
 * program at its descriptor limit with one to spare, or its fork child
 * (tests/targets/gaps forkstarved), lost its recording and its marker to
 * EMFILE.  A longer directory is opened for the call, as above.  The
 * buffer, PATH_SHORT bytes, stays in these frames (noinline), not their
 * callers'.
 */
#define PATH_SHORT 256

static bool short_path(char *buf, const char *dir, const char *name)
{
	size_t d = strlen(dir), n = strlen(name);
	if (d + 1 + n >= PATH_SHORT)
		return false;
	memcpy(buf, dir, d);
	buf[d] = '/';
	memcpy(buf + d + 1, name, n + 1);
	return true;
}

/* openat(dir/name); -errno on failure. */
static __attribute__((noinline)) int open_in(const char *dir, const char *name, int flags)
{
	char path[PATH_SHORT];
	int fd;
	if (short_path(path, dir, name)) {
		fd = openat(AT_FDCWD, path, flags, 0600);
	} else {
		int dfd = open_dir(dir);
		if (dfd < 0)
			return dfd;
		fd = openat(dfd, name, flags, 0600);
		int e = errno;
		close(dfd);
		errno = e;
	}
	return fd < 0 ? -errno : fd;
}

/* dir/from renamed dir/to (to NULL: no new name), or else removed. */
static __attribute__((noinline)) void rename_in(const char *dir, const char *from, const char *to)
{
	char a[PATH_SHORT], b[PATH_SHORT];
	if (short_path(a, dir, from) && (!to || short_path(b, dir, to))) {
		if (!to || renameat(AT_FDCWD, a, AT_FDCWD, b) < 0)
			unlinkat(AT_FDCWD, a, 0);
		return;
	}
	int dfd = open_dir(dir);
	if (dfd < 0)
		return;
	if (!to || renameat(dfd, from, dfd, to) < 0)
		unlinkat(dfd, from, 0);
	close(dfd);
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

/* "<errno>.<token>.lost", or "<errno>.<token>.<cpu>.lost" once the image
 * ended (record.c, lost_end). */
static bool lost_suffix(const char *s, int *err, uint64_t *token)
{
	char *end;
	unsigned long long e, v, cpu;
	if (!number(s, 10, &end, &e) || e > INT32_MAX || *end != '.' ||
	    !number(end + 1, 16, &end, &v) || end != s + strcspn(s, ".") + 17)
		return false;
	if (*end == '.' && end[1] >= '0' && end[1] <= '9' && !number(end + 1, 10, &end, &cpu))
		return false;
	if (strcmp(end, ".lost") != 0)
		return false;
	*err = (int)e;
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
		int err = 0;
		if (strncmp(e->d_name, prefix, (size_t)plen) != 0 ||
		    !number(name, 10, &end, &seq) || seq >= 1000000 || (long long)seq <= out->seq ||
		    *end != '.')
			continue;
		bool lost = strcmp(end, ".raw") != 0;
		if (lost && !lost_suffix(end + 1, &err, &token))
			continue;
		*out = (struct raw_latest){ (int)seq, lost, token, err };
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

static uint64_t page_down(uint64_t v, size_t page)
{
	return v / page * page;
}

static struct profil_levels levels_of(struct pcprof_raw_levels *l, const struct raw_table *c,
				      size_t entry)
{
	return (struct profil_levels){
		.l = l, .off = c->off, .base = c->base, .max = c->max, .entry = entry
	};
}

/* Where the module entries' mapping starts in the file, and how long it is
 * for the first n entries. */
static void module_span(const struct raw_map *m, uint32_t n, uint64_t *start, uint64_t *len)
{
	*start = page_down(m->mod_off, m->page);
	*len = round_up(m->mod_off + (uint64_t)n * sizeof(struct pcprof_raw_module), m->page) -
	       *start;
}

static char *module_base(const struct raw_map *m)
{
	return (char *)m->mods - (m->mod_off - page_down(m->mod_off, m->page));
}

static uint64_t module_len(const struct raw_map *m)
{
	uint64_t start, len;
	module_span(m, m->mod_mapped, &start, &len);
	return len;
}

/* Bytes mapped for this recording, which profil__sink_room weighs. */
static uint64_t mapped_bytes(const struct raw_map *m)
{
	return m->rec ? atomic_load(&m->rec->mapped)
	       : m->h ? m->head_len + (m->mods ? module_len(m) : 0)
		      : 0;
}

static int map_at(int fd, uint64_t off, uint64_t len, void **p)
{
	void *q = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
	if (q == MAP_FAILED)
		return -errno;
	*p = q;
	return 0;
}

/* Map the header, the first `modules` module entries and, with m->rec, the
 * first open[i] levels of each table (threads, slots, nodes): what this
 * process touches, never the whole file (rawfile.h).  The counts, not a
 * header: a header copy is 2.9 KiB of a stack that may be small (issue 19).
 * On failure nothing stays mapped. */
static int map_file(int fd, struct raw_map *m, uint32_t modules, const uint32_t open_in[3])
{
	struct profil_rec *rec = m->rec;
	m->h = NULL;
	m->mods = NULL;
	m->mod_mapped = 0;
	m->head_len = round_up(sizeof(struct pcprof_raw_header), m->page);
	if (modules == 0)
		modules = 1;
	uint64_t mstart, mlen, total = m->head_len;
	module_span(m, modules, &mstart, &mlen);
	total += mlen;
	uint32_t open[3] = { 0, 0, 0 };
	struct profil_levels t[3];
	if (rec) {
		memset(rec, 0, sizeof *rec);
		/* The levels' pointers are set once the header is mapped. */
		t[0] = levels_of(NULL, &m->thr, sizeof(struct pcprof_raw_thread));
		t[1] = levels_of(NULL, &m->slot, sizeof(struct pcprof_raw_slot));
		t[2] = levels_of(NULL, &m->node, sizeof(struct pcprof_raw_node));
		open[0] = open_in[0];
		open[1] = open_in[1];
		open[2] = m->node.max ? open_in[2] : 0;
		for (int i = 0; i < 3; i++)
			for (uint32_t k = 0; k < open[i]; k++) {
				uint64_t start, len;
				profil__level_span(&t[i], m->page, k, &start, &len);
				total += len;
			}
		if (!profil__sink_room(0, total, m->page))
			return -ENOMEM;
	}
	void *p = NULL;
	int r = map_at(fd, 0, m->head_len, &p);
	if (r < 0)
		return r;
	m->h = p;
	r = map_at(fd, mstart, mlen, &p);
	if (r < 0) {
		profil__raw_unmap(m);
		return r;
	}
	m->mods = (struct pcprof_raw_module *)((char *)p + (m->mod_off - mstart));
	m->mod_mapped =
		(uint32_t)((mlen - (m->mod_off - mstart)) / sizeof(struct pcprof_raw_module));
	if (m->mod_mapped > m->mod_cap)
		m->mod_mapped = m->mod_cap;
	if (!rec)
		return 0;
	/* The levels' pointers in m->h, the mapping kept. */
	t[0].l = &m->h->thr;
	t[1].l = &m->h->slot;
	t[2].l = &m->h->node;
	rec->h = m->h;
	rec->size = m->size;
	rec->page = m->page;
	rec->thr = t[0];
	rec->slot = t[1];
	if (m->node.max)
		rec->node = t[2];
	atomic_store(&rec->mapped, m->head_len + mlen);
	struct profil_levels *to[3] = { &rec->thr, &rec->slot, &rec->node };
	for (int i = 0; i < 3; i++)
		for (uint32_t k = 0; k < open[i]; k++) {
			uint64_t start, len;
			profil__level_span(to[i], m->page, k, &start, &len);
			r = map_at(fd, start, len, &p);
			if (r < 0) {
				profil__raw_unmap(m);
				return r;
			}
			atomic_fetch_add(&rec->mapped, len);
			atomic_store(&to[i]->at[k],
				     (char *)p + (profil__level_off(to[i], k) - start));
		}
	return 0;
}

/* An image that cannot record leaves its reason where pcprof looks, in a
 * file that takes no space (which a full file system still allows). */
static void leave_marker(int fd, const char *dir, const char *name, pid_t pid, int seq,
			 uint64_t token, int err)
{
	char lost[NAME_BUF];
	snprintf(lost, sizeof lost, "%d.%d.%d.%016llx.lost", (int)pid, seq, err,
		 (unsigned long long)token);
	bool emptied = ftruncate(fd, 0) == 0;
	close(fd); /* first: a longer directory's rename opens it */
	rename_in(dir, name, emptied ? lost : NULL);
}

int profil__raw_mark_lost(const struct raw_env *env, pid_t pid, int err)
{
	struct raw_latest last;
	profil__raw_latest(env->dir, pid, &last);
	int seq = last.seq + 1;
	if (!profil__raw_wanted(env, pid, (uint32_t)seq))
		return -EPERM;
	char name[NAME_BUF];
	snprintf(name, sizeof name, "%d.%d.%d.%016llx.lost", (int)pid, seq, err,
		 (unsigned long long)profil__raw_token(pid));
	int fd = open_in(env->dir, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return fd;
	int r = fchmod(fd, 0600) < 0 ? -errno : seq; /* as every file of the directory */
	close(fd);
	return r;
}

static void init_levels(struct pcprof_raw_levels *l, const struct raw_table *t)
{
	l->off = t->off;
	l->base = t->base;
	l->max = t->max;
	l->open = 1;
}

int profil__raw_create(const struct raw_env *env, pid_t pid, uint32_t modules,
		       struct profil_rec *rec, struct raw_map *m)
{
	memset(m, 0, sizeof *m);
	m->rec = rec;
	char name[NAME_BUF];
	struct raw_latest last;
	profil__raw_latest(env->dir, pid, &last);
	int fd = -1, seq = last.seq + 1;
	for (int tries = 0; tries < 64 && fd < 0; tries++, seq++) {
		file_name(name, sizeof name, pid, seq);
		fd = open_in(env->dir, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && fd != -EEXIST)
			return fd;
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
	static const uint32_t first[3] = { 1, 1, 1 }; /* init_levels below */
	if (!r)
		r = map_file(fd, m, modules, first);
	if (r < 0) {
		leave_marker(fd, env->dir, name, pid, seq, token, -r);
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

/* Open "<dir>/<pid>.<seq>.raw" (mode: O_RDONLY or O_RDWR) if it is a file
 * we trust (the checks above, but for its header), its size into *size.
 * Returns the descriptor, or -errno (-EPERM: not trusted). */
static int open_trusted(const char *dir, pid_t pid, int seq, int mode, uint64_t *size)
{
	char name[NAME_BUF];
	file_name(name, sizeof name, pid, seq);
	int fd = open_in(dir, name, mode | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return fd;
	int r = 0;
	struct stat st;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 07777) != 0600 ||
		 st.st_nlink != 1)
		r = -EPERM;
	if (r) {
		close(fd);
		return r;
	}
	*size = (uint64_t)st.st_size;
	return fd;
}

/* Whether a header read from a file of `size` bytes describes it: -EINVAL
 * if not.  Only this version is written; an older one is only read (the
 * previous image of an exec chain). */
static int header_check(const struct pcprof_raw_header *h, uint64_t size, int mode, size_t page)
{
	if (pcprof_raw_header_error(h, size) ||
	    (mode == O_RDWR && h->version != PCPROF_RAW_VERSION) || h->file_size % page ||
	    h->file_size > SIZE_MAX)
		return -EINVAL;
	return 0;
}

static size_t page_size(void)
{
	long page = sysconf(_SC_PAGESIZE);
	return page > 0 ? (size_t)page : 4096;
}

/* The header is checked where it is mapped, not copied: a copy on the
 * stack (2.9 KiB) under the audit module's la_objopen and the library's
 * constructor is stack a small RLIMIT_STACK does not have (issue 19).  A
 * file we write must have this version's header, so whole: no trim.  The
 * header's page is mapped once to read what map_file needs, then again by
 * map_file with the rest. */
int profil__raw_attach(const char *dir, pid_t pid, int seq, uint64_t token, struct profil_rec *rec,
		       struct raw_map *m)
{
	memset(m, 0, sizeof *m);
	m->rec = rec;
	m->page = page_size();
	uint64_t size;
	int fd = open_trusted(dir, pid, seq, O_RDWR, &size);
	if (fd < 0)
		return fd;
	size_t hlen = round_up(sizeof(struct pcprof_raw_header), m->page);
	void *p = NULL;
	int r = size < hlen || size % m->page || size > SIZE_MAX ? -EINVAL : map_at(fd, 0, hlen, &p);
	uint32_t modules = 0, open[3] = { 0, 0, 0 };
	if (!r) {
		const struct pcprof_raw_header *h = p;
		r = h->version != PCPROF_RAW_VERSION ? -EINVAL
						      : header_check(h, size, O_RDWR, m->page);
		if (!r && (h->token != token || h->pid != pid))
			r = -ESTALE;
		if (!r) {
			m->size = h->file_size;
			m->mod_off = h->mod_off;
			m->mod_cap = h->mod_cap;
			m->thr = (struct raw_table){ h->thr.off, h->thr.base, h->thr.max };
			m->slot = (struct raw_table){ h->slot.off, h->slot.base, h->slot.max };
			if (h->flags & PCPROF_RAW_F_STACKS)
				m->node = (struct raw_table){ h->node.off, h->node.base,
							      h->node.max };
			modules = h->mod_reserved;
			open[0] = h->thr.open;
			open[1] = h->slot.open;
			open[2] = h->node.open;
		}
		munmap(p, hlen);
	}
	if (!r)
		r = map_file(fd, m, modules, open);
	close(fd);
	return r;
}

int profil__raw_read_header(const char *dir, pid_t pid, int seq, struct pcprof_raw_header *h)
{
	uint64_t size;
	int fd = open_trusted(dir, pid, seq, O_RDONLY, &size);
	if (fd < 0)
		return fd;
	int r = pread(fd, h, sizeof *h, 0) == (ssize_t)sizeof *h ? 0 : -EINVAL;
	close(fd);
	if (!r) {
		pcprof_raw_header_trim(h);
		r = header_check(h, size, O_RDONLY, page_size());
	}
	if (r)
		return r;
	return h->pid == pid ? 0 : -ESTALE;
}

void profil__raw_unmap(struct raw_map *m)
{
	struct profil_rec *rec = m->rec;
	if (rec) {
		struct profil_levels *t[3] = { &rec->thr, &rec->slot, &rec->node };
		for (int i = 0; i < 3; i++)
			for (uint32_t k = 0; k < PCPROF_RAW_LEVELS; k++) {
				char *at = atomic_load(&t[i]->at[k]);
				if (!at)
					continue;
				uint64_t start, len;
				profil__level_span(t[i], m->page, k, &start, &len);
				munmap(at - (profil__level_off(t[i], k) - start), len);
				atomic_store(&t[i]->at[k], NULL);
			}
		atomic_store(&rec->mapped, 0);
		rec->h = NULL;
	}
	if (m->mods)
		munmap(module_base(m), module_len(m));
	if (m->h)
		munmap(m->h, m->head_len);
	m->h = NULL;
	m->mods = NULL;
	m->mod_mapped = 0;
}

int profil__raw_map_modules(struct raw_map *m, uint32_t n)
{
	if (n > m->mod_cap)
		n = m->mod_cap;
	if (n <= m->mod_mapped)
		return 0;
	uint64_t start, len, old = module_len(m);
	module_span(m, n, &start, &len);
	if (!profil__sink_room(mapped_bytes(m), len - old, m->page))
		return -ENOMEM;
	void *p = mremap(module_base(m), old, len, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		return -errno;
	m->mods = (struct pcprof_raw_module *)((char *)p + (m->mod_off - start));
	m->mod_mapped = (uint32_t)((len - (m->mod_off - start)) / sizeof(struct pcprof_raw_module));
	if (m->mod_mapped > m->mod_cap)
		m->mod_mapped = m->mod_cap;
	if (m->rec)
		atomic_fetch_add(&m->rec->mapped, len - old);
	return 0;
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

/* The GNU build-id note of a PT_NOTE segment, read note by note (at most
 * the segment's first 2 KiB, as before): no buffer for the segment,
 * which was 2 KiB of stack under the audit module's la_objopen. */
static void read_build_id(const struct elf_src *s, const Elf64_Phdr *ph,
			  struct pcprof_raw_module *mod)
{
	uint64_t len = ph->p_filesz < 2048 ? ph->p_filesz : 2048;
	/* In memory a note segment is found at its vaddr, in a file at its
	 * offset; for the vDSO the two coincide. */
	uint64_t at = s->fd >= 0 ? ph->p_offset : ph->p_vaddr;
	for (uint64_t off = 0; off + sizeof(Elf64_Nhdr) <= len;) {
		Elf64_Nhdr n;
		char name[4];
		if (!src_read(s, &n, sizeof n, at + off))
			return;
		uint64_t nm = off + sizeof n, desc = nm + ((n.n_namesz + 3u) & ~3u);
		uint64_t next = desc + ((n.n_descsz + 3u) & ~3u);
		if (next > len)
			return;
		if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 &&
		    n.n_descsz <= sizeof mod->build_id && src_read(s, name, 4, at + nm) &&
		    memcmp(name, "GNU", 4) == 0) {
			if (src_read(s, mod->build_id, n.n_descsz, at + desc))
				mod->build_id_len = n.n_descsz;
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
static int grow_modules(struct raw_map *m, uint32_t have)
{
	if (have >= m->mod_cap)
		return -ENOSPC;
	uint32_t want = have < FIRST_MODULES ? FIRST_MODULES : 2 * have;
	if (want > m->mod_cap)
		want = m->mod_cap;
	int r = profil__raw_map_modules(m, want);
	if (r == 0)
		r = profil__sink_populate(module_base(m), module_len(m), m->page,
					  (m->mod_off - page_down(m->mod_off, m->page)) +
						  (uint64_t)have * sizeof(struct pcprof_raw_module),
					  (uint64_t)(want - have) *
						  sizeof(struct pcprof_raw_module));
	if (r == 0)
		atomic_store(A32(&m->h->mod_reserved), want);
	return r;
}

/* Entries that are ours to read: the count, within what is reserved and
 * mapped (the library maps more if the audit module reserved more). */
static uint32_t module_count(struct raw_map *m, uint32_t *reserved)
{
	uint32_t n = atomic_load(A32(&m->h->mod_count));
	*reserved = atomic_load(A32(&m->h->mod_reserved));
	if (*reserved > m->mod_cap)
		*reserved = m->mod_cap;
	if (profil__raw_map_modules(m, *reserved) < 0)
		*reserved = m->mod_mapped;
	return n < *reserved ? n : *reserved;
}

int profil__raw_add_module(struct raw_map *m, const char *path, uint64_t bias, const void *mem_ehdr)
{
	struct pcprof_raw_header *h = m->h;
	uint32_t reserved, n = module_count(m, &reserved);
	struct pcprof_raw_module *mods = profil__raw_modules(m);
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

	struct pcprof_raw_module *mod = &profil__raw_modules(m)[n]; /* grown: moved */
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

void profil__raw_unload_module(struct raw_map *m, uint32_t idx)
{
	struct pcprof_raw_header *h = m->h;
	uint32_t reserved;
	if (idx >= module_count(m, &reserved))
		return;
	struct pcprof_raw_module *mods = profil__raw_modules(m);
	if (mods[idx].epoch_unloaded)
		return;
	uint32_t e = atomic_load(A32(&h->epoch));
	atomic_store(A32(&mods[idx].epoch_unloaded), e + 1);
	atomic_store(A32(&h->epoch), e + 1);
}
