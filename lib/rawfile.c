/*
 * rawfile.c - see rawfile.h.  The module description is read from the ELF
 * file on disk (program headers, GNU build-id note) rather than from memory,
 * because the audit callbacks see a link_map, which has no program headers,
 * and a file read cannot fault; the vDSO, which has no file, is read from
 * memory, where the kernel guarantees it is mapped.
 */
#include "rawfile.h"

#include "internal.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_SLOTS (UINT64_C(1) << 18)
#define MAX_SLOTS     (UINT64_C(1) << 26)

bool profil__raw_env(struct raw_env *env)
{
	const char *dir = getenv("PCPROF_DIR"), *s;
	memset(env, 0, sizeof *env);
	if (!dir || !*dir || strlen(dir) >= sizeof env->dir)
		return false;
	strcpy(env->dir, dir);
	env->root = (s = getenv("PCPROF_ROOT")) ? (pid_t)atol(s) : 0;
	env->follow = !((s = getenv("PCPROF_FOLLOW")) && strcmp(s, "0") == 0);
	env->slots = DEFAULT_SLOTS;
	if ((s = getenv("PCPROF_SLOTS"))) {
		unsigned long long v = strtoull(s, NULL, 10);
		if (v >= 1024 && v <= MAX_SLOTS && (v & (v - 1)) == 0)
			env->slots = v;
	}
	return true;
}

bool profil__raw_wanted(const struct raw_env *env, pid_t pid, uint32_t seq)
{
	return env->follow || (pid == env->root && seq == 0);
}

static void file_name(char *buf, size_t len, const char *dir, pid_t pid, int seq)
{
	snprintf(buf, len, "%s/%d.%d.raw", dir, (int)pid, seq);
}

int profil__raw_last_seq(const char *dir, pid_t pid)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int best = -1;
	char prefix[32];
	int plen = snprintf(prefix, sizeof prefix, "%d.", (int)pid);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, (size_t)plen) != 0)
			continue;
		char *end;
		long seq = strtol(e->d_name + plen, &end, 10);
		if (end != e->d_name + plen && strcmp(end, ".raw") == 0 && seq > best &&
		    seq < 1000000)
			best = (int)seq;
	}
	closedir(d);
	return best;
}

static int map_fd(int fd, size_t size, struct raw_map *m)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	m->h = p;
	m->size = size;
	return 0;
}

int profil__raw_create(const struct raw_env *env, pid_t pid, struct raw_map *m)
{
	char path[4200];
	int fd = -1, seq = profil__raw_last_seq(env->dir, pid) + 1;
	for (int tries = 0; tries < 64 && fd < 0; tries++, seq++) {
		file_name(path, sizeof path, env->dir, pid, seq);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	seq--;

	size_t hsize = (sizeof(struct pcprof_raw_header) + 63) & ~(size_t)63;
	size_t msize = PCPROF_RAW_MAX_MODULES * sizeof(struct pcprof_raw_module);
	size_t tsize = PCPROF_RAW_MAX_THREADS * sizeof(struct pcprof_raw_thread);
	size_t ssize = env->slots * sizeof(struct pcprof_raw_slot);
	size_t size = hsize + msize + tsize + ssize;
	int r = 0;
	if (ftruncate(fd, (off_t)size) < 0 || (r = map_fd(fd, size, m)) < 0) {
		r = r ? r : -errno;
		close(fd);
		unlink(path);
		return r;
	}
	close(fd);

	struct pcprof_raw_header *h = m->h;
	memcpy(h->magic, PCPROF_RAW_MAGIC, sizeof h->magic);
	h->version = PCPROF_RAW_VERSION;
	h->header_size = sizeof *h;
	h->file_size = size;
	h->pid = pid;
	h->ppid = getppid();
	h->seq = (uint32_t)seq;
	h->start_ns = profil__clock_ns(CLOCK_REALTIME);
	h->mod_off = hsize;
	h->mod_cap = PCPROF_RAW_MAX_MODULES;
	h->thr_off = hsize + msize;
	h->thr_cap = PCPROF_RAW_MAX_THREADS;
	h->slot_off = hsize + msize + tsize;
	h->slot_cap = env->slots;
	profil__raw_exe_path(h->exe, sizeof h->exe);
	return 0;
}

int profil__raw_attach(const char *dir, pid_t pid, int seq, struct raw_map *m)
{
	char path[4200];
	file_name(path, sizeof path, dir, pid, seq);
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct pcprof_raw_header h;
	int r = -EINVAL;
	if (pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h &&
	    memcmp(h.magic, PCPROF_RAW_MAGIC, sizeof h.magic) == 0 &&
	    h.version == PCPROF_RAW_VERSION)
		r = map_fd(fd, h.file_size, m);
	close(fd);
	return r;
}

void profil__raw_unmap(struct raw_map *m)
{
	if (m->h)
		munmap(m->h, m->size);
	m->h = NULL;
}

void profil__raw_exe_path(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
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

int profil__raw_add_module(struct pcprof_raw_header *h, const char *path, uint64_t bias,
			   const void *mem_ehdr)
{
	struct pcprof_raw_module *mods = profil__raw_modules(h);
	uint32_t n = atomic_load((_Atomic uint32_t *)&h->mod_count);
	for (uint32_t i = 0; i < n; i++)
		if (!mods[i].epoch_unloaded && mods[i].bias == bias &&
		    strcmp(mods[i].path, path) == 0)
			return (int)i;
	if (n >= h->mod_cap)
		return -ENOSPC;

	struct pcprof_raw_module *mod = &mods[n];
	memset(mod, 0, sizeof *mod);
	snprintf(mod->path, sizeof mod->path, "%s", path);
	mod->bias = bias;
	mod->epoch_loaded = atomic_load((_Atomic uint32_t *)&h->epoch);
	struct elf_src src = { -1, mem_ehdr };
	if (!mem_ehdr)
		src.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (mem_ehdr || src.fd >= 0)
		describe(&src, mod);
	if (src.fd >= 0)
		close(src.fd);
	/* Publish: readers (pcprof, after the fact) trust mod_count entries. */
	atomic_store_explicit((_Atomic uint32_t *)&h->mod_count, n + 1, memory_order_release);
	return (int)n;
}

void profil__raw_unload_module(struct pcprof_raw_header *h, uint32_t idx)
{
	struct pcprof_raw_module *mods = profil__raw_modules(h);
	if (idx >= atomic_load((_Atomic uint32_t *)&h->mod_count) || mods[idx].epoch_unloaded)
		return;
	uint32_t e = atomic_load((_Atomic uint32_t *)&h->epoch);
	atomic_store((_Atomic uint32_t *)&mods[idx].epoch_unloaded, e + 1);
	atomic_store((_Atomic uint32_t *)&h->epoch, e + 1);
}
