/*
 * util.c - small helpers for the rest of the library.  Everything here uses
 * raw system calls and no libc state, so all of it is async-signal-safe
 * (pcsample() must be, and it shares the control path).
 */
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>

#include "internal.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

void *profil__alloc(size_t size)
{
	void *p = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void profil__free(void *p, size_t size)
{
	/* Sealed (a seccomp filter): kept, rather than a system call of ours. */
	if (p && !profil__sealed())
		munmap(p, size ? size : 1);
}

pid_t profil__gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

bool profil__thread_gone(pid_t tid)
{
	int saved = errno;
	bool gone = syscall(SYS_tgkill, syscall(SYS_getpid), tid, 0) < 0 && errno == ESRCH;
	if (!gone) {
		/* A main thread that ended while others run stays a zombie, to
		 * which a signal can still be sent: its state tells. */
		char path[48] = "/proc/self/task/", buf[256];
		/* By /proc's id for it: in a pid namespace of its own, the
		 * holder's is the namespace's (internal.h). */
		pid_t ptid = profil__proc_tid(tid);
		profil__strlcat_u(path, sizeof path, (unsigned long)ptid);
		profil__strlcat(path, sizeof path, "/stat");
		if (ptid && profil__read_small(path, buf, sizeof buf) > 0) {
			const char *p = strrchr(buf, ')');
			gone = p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
		}
	}
	errno = saved;
	return gone;
}

/* The calling thread's id, read once (a lock taken per thread creation
 * and exit would pay a system call each time).  A fork child's thread has
 * a new one: session.c forgets it first thing there. */
static __thread pid_t self_tid __attribute__((tls_model("initial-exec")));

void profil__self_tid_forget(void)
{
	self_tid = 0;
}

_Atomic pid_t profil__fork_tid;

bool profil__spin_lock(_Atomic pid_t *holder)
{
	pid_t me = self_tid;
	if (!me)
		self_tid = me = profil__gettid();
	/* A holder that is alive may hold for long (an engine start over
	 * many threads): the checks thin out, from every 64 tries to every
	 * 4096. */
	for (unsigned n = 1, next = 64;; n++) {
		pid_t cur = 0;
		if (atomic_compare_exchange_weak_explicit(holder, &cur, me, memory_order_acquire,
							  memory_order_relaxed))
			return true;
		if (cur && n == next) {
			next += next < 4096 ? next : 4096;
			if (cur != atomic_load(&profil__fork_tid) && profil__thread_gone(cur) &&
			    atomic_compare_exchange_strong_explicit(
				    holder, &cur, me, memory_order_acquire, memory_order_relaxed))
				return false;
		}
		sched_yield();
	}
}

_Atomic int profil__sealed_why;

const char *profil__sealed_text(void)
{
	switch (atomic_load(&profil__sealed_why)) {
	case PROFIL_SEALED_CALL:
		return "the program installed a seccomp filter";
	case PROFIL_SEALED_FOUND:
		return "a seccomp filter was found in force (installed without libc)";
	case PROFIL_SEALED_INHERITED:
		return "the image began under a seccomp filter the program installed";
	case PROFIL_SEALED_DEAD:
		return "a thread died holding a lock of the library (a seccomp filter killed it)";
	}
	return "";
}

int profil__parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	unsigned long v = 0;
	if (!s || !*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		unsigned d = (unsigned)(*s - '0');
		if (v > (max - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

void profil__strlcat(char *buf, size_t len, const char *s)
{
	size_t n = strlen(buf);
	while (*s && n + 1 < len)
		buf[n++] = *s++;
	if (n < len)
		buf[n] = '\0';
}

void profil__strlcat_u(char *buf, size_t len, unsigned long v)
{
	char tmp[24];
	int i = (int)sizeof tmp - 1;
	tmp[i] = '\0';
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	profil__strlcat(buf, len, tmp + i);
}

/* 0 until seeded.  The sequence must differ in every image (a fixed start
 * would give every exec'd program the same tick phases) and in every fork
 * child (else parent and child would draw the same ones). */
static _Atomic uint64_t rng;

void profil__random_seed(void)
{
	uint64_t s = 0;
	if (syscall(SYS_getrandom, &s, sizeof s, GRND_NONBLOCK) != (long)sizeof s) {
		/* No getrandom (before Linux 3.17, or filtered): the kernel's
		 * per-exec AT_RANDOM bytes, never used as they are (they also
		 * seed the stack protector), with the pid and the time. */
		const uint64_t *at = (const uint64_t *)getauxval(AT_RANDOM);
		s = profil__clock_ns(CLOCK_MONOTONIC) ^ (uint64_t)syscall(SYS_getpid) << 32;
		if (at)
			s = profil__mix64(s ^ profil__mix64(at[0] + at[1]));
	}
	atomic_store(&rng, s | 1);
}

uint64_t profil__random_below(uint64_t n)
{
	if (!atomic_load_explicit(&rng, memory_order_relaxed))
		profil__random_seed(); /* asked before our constructor ran */
	uint64_t x = atomic_fetch_add(&rng, 0x9e3779b97f4a7c15u) ^ (uint64_t)profil__gettid();
	return profil__mix64(x) % n;
}

const char *profil__errname(int err)
{
	switch (err) {
	case EACCES:
		return "EACCES (permission denied)";
	case EPERM:
		return "EPERM (operation not permitted)";
	case ENOSYS:
		return "ENOSYS (no such system call)";
	case ENOENT:
		return "ENOENT (no such event)";
	case ENODEV:
		return "ENODEV (no such device)";
	case EMFILE:
		return "EMFILE (out of file descriptors)";
	case ENFILE:
		return "ENFILE (system file table full)";
	case EAGAIN:
		return "EAGAIN (resource temporarily unavailable)";
	case EINVAL:
		return "EINVAL (not supported by this kernel)";
	case E2BIG:
		return "E2BIG (attribute not supported by this kernel)";
	case EOPNOTSUPP:
		return "EOPNOTSUPP (not supported)";
	case ENOMEM:
		return "ENOMEM (out of memory)";
	case EBUSY:
		return "EBUSY (signal in use)";
	case ESRCH:
		return "ESRCH (no such thread)";
	default:
		return "unexpected error";
	}
}

/* ---- access checks ---- */

static int parse_hex(const char **s, uint64_t *out)
{
	uint64_t v = 0;
	int n = 0;
	for (;; (*s)++, n++) {
		char c = **s;
		unsigned d;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else
			break;
		v = v << 4 | d;
	}
	*out = v;
	return n;
}

/*
 * Call fn with the start of each line of the file at path, NUL-terminated
 * without its newline (at most LINE_HEAD - 1 bytes of a longer line; the
 * rest is not a line), until fn returns non-zero.  Returns what fn
 * returned, 0 at the end, or -errno if the file cannot be opened.  The
 * buffer is small on purpose: /proc files are read here on whatever stack
 * the caller has (a constructor under a tiny RLIMIT_STACK, a coroutine's),
 * where a page-sized buffer each was too much (issue 19).
 */
#define LINE_HEAD 256

static int each_line(const char *path, int (*fn)(const char *line, void *ctx), void *ctx)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	char buf[LINE_HEAD];
	size_t have = 0;
	bool eof = false, tail = false; /* tail: in the rest of a line cut short */
	int result = 0;
	while (!result) {
		char *nl = have ? memchr(buf, '\n', have) : NULL;
		if (nl || have == sizeof buf - 1 || (eof && have)) {
			size_t len = nl ? (size_t)(nl - buf) : have;
			if (!tail) {
				buf[len] = '\0';
				result = fn(buf, ctx);
			}
			tail = !nl;
			size_t used = nl ? len + 1 : len;
			memmove(buf, buf + used, have - used);
			have -= used;
			continue;
		}
		if (eof)
			break;
		ssize_t r = (ssize_t)syscall(SYS_read, fd, buf + have, sizeof buf - 1 - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			eof = true;
		else
			have += (size_t)r;
	}
	syscall(SYS_close, fd);
	return result;
}

struct maps_walk {
	uint64_t need, hi; /* need: first address not yet known to be good */
	char perm;
};

/* One line of /proc/self/maps, "start-end perms ...": 1 ends the walk (all
 * of [need, hi) is covered, or a hole or a mapping without the permission
 * comes first). */
static int maps_line(const char *line, void *ctx)
{
	struct maps_walk *w = ctx;
	const char *s = line;
	uint64_t start, end;
	if (!(parse_hex(&s, &start) > 0 && *s++ == '-' && parse_hex(&s, &end) > 0 && *s++ == ' '))
		return 0;
	bool has = (w->perm == 'r' ? s[0] : s[1]) == w->perm;
	if (start > w->need)
		return 1; /* a hole before the next mapping */
	if (end > w->need) {
		if (!has)
			return 1;
		w->need = end;
	}
	return w->need >= w->hi;
}

/*
 * Walk /proc/self/maps (sorted by address) and check that [lo, hi) is covered
 * by consecutive mappings that all carry permission `perm` ('r' or 'w').
 * Returns 0, -EFAULT, or -ENOSYS if /proc is not available.  No allocation.
 */
static int check_maps(uint64_t lo, uint64_t hi, char perm)
{
	struct maps_walk w = { lo, hi, perm };
	if (each_line("/proc/self/maps", maps_line, &w) < 0)
		return -ENOSYS;
	return w.need >= hi ? 0 : -EFAULT;
}

static int check_access(const void *p, size_t len, char perm)
{
	if (len == 0)
		return 0;
	uint64_t lo = (uintptr_t)p, hi = lo + len;
	if (hi < lo)
		return -EFAULT;
	int r = check_maps(lo, hi, perm);
	if (r != -ENOSYS)
		return r;
	if (perm == 'w') {
		/* No /proc: MADV_POPULATE_WRITE (Linux 5.14) fails exactly when a
		 * write would fault, without writing; it does fault pages in. */
		uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
		uint64_t a = lo & ~(page - 1);
		if (syscall(SYS_madvise, (void *)a, (size_t)(hi - a), MADV_POPULATE_WRITE) == 0)
			return 0;
		return errno == EINVAL || errno == ENOMEM || errno == EFAULT ? -EFAULT : 0;
	}
	return 0; /* cannot tell: accept; the fault guard still protects us */
}

int profil__check_writable(const void *p, size_t len)
{
	return check_access(p, len, 'w');
}

int profil__check_readable(const void *p, size_t len)
{
	return check_access(p, len, 'r');
}

int profil__each_dirent(const char *path, int (*fn)(const char *name, void *ctx), void *ctx)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Room for one entry of the longest name (280 bytes) and a few more:
	 * small, for the stacks this runs on (each_line above says why). */
	char buf[512] __attribute__((aligned(8)));
	int result = 0;
	long n;
	while (result == 0 && (n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
		for (long off = 0; off < n && result == 0;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			off += d->d_reclen;
			if (strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0)
				result = fn(d->d_name, ctx);
		}
	}
	syscall(SYS_close, fd);
	return result;
}

long profil__read_small(const char *path, char *buf, size_t len)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t have = 0;
	while (have + 1 < len) {
		long n = syscall(SYS_read, fd, buf + have, len - 1 - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	syscall(SYS_close, fd);
	buf[have] = '\0';
	return (long)have;
}

struct status_text {
	const char *key;
	size_t keylen;
	char *out;
	size_t len;
	long got;
};

/* A line "Name:\tvalue" of a status file: 1 once it is the key's, its
 * value copied. */
static int status_text_line(const char *p, void *ctx)
{
	struct status_text *k = ctx;
	if (strncmp(p, k->key, k->keylen) != 0 || p[k->keylen] != ':')
		return 0;
	for (p += k->keylen + 1; *p == ' ' || *p == '\t'; p++)
		;
	k->out[0] = '\0';
	profil__strlcat(k->out, k->len, p);
	k->got = (long)strlen(k->out);
	return 1;
}

long profil__status_text(const char *path, const char *key, char *out, size_t len)
{
	struct status_text k = { key, strlen(key), out, len, -ENOENT };
	if (len)
		out[0] = '\0';
	int r = each_line(path, status_text_line, &k);
	return r < 0 ? r : k.got;
}

/* The leading number of a /proc/self/status value ("SigQ:\t3/127837": 3),
 * read through the same line matcher as the text. */
long profil__status_number(const char *key)
{
	char buf[32];
	long n = profil__status_text("/proc/self/status", key, buf, sizeof buf);
	if (n < 0)
		return n;
	if (buf[0] < '0' || buf[0] > '9')
		return -EINVAL;
	long v = 0;
	for (const char *p = buf; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (*p - '0');
	return v;
}

/* ---- pid namespaces (internal.h) ---- */

/* The number a /proc link names: "1234" for /proc/self, "1234/task/1240"
 * for /proc/thread-self (last: the number after the last '/').  0 if the
 * link cannot be read. */
static pid_t proc_link(const char *path, bool last)
{
	char buf[64];
	long n = syscall(SYS_readlinkat, AT_FDCWD, path, buf, sizeof buf - 1);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	const char *s = buf;
	if (last) {
		const char *slash = strrchr(buf, '/');
		s = slash ? slash + 1 : buf;
	}
	unsigned long v;
	return profil__parse_uint(s, 0x7fffffff, &v) == 0 ? (pid_t)v : 0;
}

/* (getpid() << 32 | /proc's pid) of the last look: a fork child has
 * another pid, and may be in another namespace than its parent. */
static _Atomic uint64_t proc_pid_cache;

pid_t profil__proc_pid(void)
{
	pid_t me = (pid_t)syscall(SYS_getpid);
	uint64_t c = atomic_load_explicit(&proc_pid_cache, memory_order_relaxed);
	if (c && (pid_t)(c >> 32) == me)
		return (pid_t)(uint32_t)c;
	pid_t p = proc_link("/proc/self", false);
	if (!p)
		p = me;
	atomic_store_explicit(&proc_pid_cache, (uint64_t)(uint32_t)me << 32 | (uint32_t)p,
			      memory_order_relaxed);
	return p;
}

static bool proc_differs(void)
{
	return profil__proc_pid() != (pid_t)syscall(SYS_getpid);
}

/* The last number of the "NSpid:" line of /proc/self/task/TID/status:
 * the thread's id in its own namespace.  Read a line at a time into small
 * buffers (each_line: these run on the program's stacks, tests/abi/
 * t-frames.sh); a line of up to 255 bytes holds 28 nested namespaces of
 * 7-digit ids. */
static pid_t own_ns_tid(pid_t proc_tid)
{
	char path[48] = "/proc/self/task/", buf[LINE_HEAD];
	profil__strlcat_u(path, sizeof path, (unsigned long)proc_tid);
	profil__strlcat(path, sizeof path, "/status");
	if (profil__status_text(path, "NSpid", buf, sizeof buf) <= 0)
		return 0;
	const char *p = buf, *end = p + strlen(p);
	while (end > p && (end[-1] < '0' || end[-1] > '9'))
		end--; /* trailing blanks */
	const char *start = end;
	while (start > p && start[-1] >= '0' && start[-1] <= '9')
		start--;
	unsigned long v = 0;
	for (; start < end && v < 0x7fffffff; start++)
		v = v * 10 + (unsigned long)(*start - '0');
	return (pid_t)v;
}

pid_t profil__tid_from_proc(pid_t proc_tid)
{
	return proc_differs() ? own_ns_tid(proc_tid) : proc_tid;
}

pid_t profil__proc_tid_self(void)
{
	pid_t t = proc_differs() ? proc_link("/proc/thread-self", true) : 0;
	return t ? t : profil__gettid();
}

struct find_tid {
	pid_t want, found;
};

static int find_tid_entry(const char *name, void *p)
{
	struct find_tid *f = p;
	unsigned long v;
	if (profil__parse_uint(name, 0x7fffffff, &v) < 0 || own_ns_tid((pid_t)v) != f->want)
		return 0;
	f->found = (pid_t)v;
	return 1;
}

pid_t profil__proc_tid(pid_t tid)
{
	if (!proc_differs())
		return tid;
	if (tid == profil__gettid())
		return profil__proc_tid_self();
	struct find_tid f = { tid, 0 };
	profil__each_dirent("/proc/self/task", find_tid_entry, &f);
	return f.found;
}
