/*
 * nolibc.c - the few C library functions the audit module uses (audit.c and
 * rawfile.c), made of raw system calls, so that libprofil-audit.so.1 needs
 * no shared library at all (no DT_NEEDED).
 *
 * Why.  The dynamic loader gives an audit module a link-map namespace of its
 * own; a module that needs libc.so.6 gets a second copy of it loaded,
 * relocated and initialised there, in every process image of the run: about
 * 0.2 ms of CPU and 40 page faults per exec (docs/benchmarks.md, "Cost per
 * exec").  Without DT_NEEDED the module is one small object.
 *
 * Only what those two files call, only as far as they use it:
 *   - getenv sees the PCPROF_* variables of the environment the process
 *     started with (/proc/self/environ, read once), the only ones asked for;
 *   - getauxval reads /proc/self/auxv once; when it cannot, AT_SECURE reads
 *     1, so that a process whose auxiliary vector is unknown records nothing;
 *   - snprintf knows %s, %.*s, %d and %016llx / %llx;
 *   - errno is one variable: the loader calls the audit functions under its
 *     own lock, never two at a time;
 *   - no thread-local storage, no stack protector, no fortified calls (the
 *     Makefile's audit flags).
 * Nothing here is exported: the library is built with -fvisibility=hidden.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ---- system calls ---- */

#include "../arch/sys6.h"

#ifndef PROFIL_HAVE_SYS6
#error "the audit module's system calls are written for x86_64 and aarch64 (Makefile)"
#endif

static int err_no;

int *__errno_location(void)
{
	return &err_no;
}

#define SYS(n, a, b, c, d, e, f)                                                                   \
	profil_sys6((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))

/* The kernel's -errno convention to the C library's -1 and errno. */
static long ret(long r)
{
	if (r < 0 && r > -4096) {
		err_no = (int)-r;
		return -1;
	}
	return r;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int mode = (flags & O_CREAT) ? va_arg(ap, int) : 0;
	va_end(ap);
	return (int)ret(SYS(SYS_openat, AT_FDCWD, path, flags, mode, 0, 0));
}

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int mode = (flags & O_CREAT) ? va_arg(ap, int) : 0;
	va_end(ap);
	return (int)ret(SYS(SYS_openat, dirfd, path, flags, mode, 0, 0));
}

int close(int fd)
{
	return (int)ret(SYS(SYS_close, fd, 0, 0, 0, 0, 0));
}

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	return ret(SYS(SYS_pread64, fd, buf, len, off, 0, 0));
}

int fstat(int fd, struct stat *st)
{
	return (int)ret(SYS(SYS_newfstatat, fd, "", st, AT_EMPTY_PATH, 0, 0));
}

int fchmod(int fd, mode_t mode)
{
	return (int)ret(SYS(SYS_fchmod, fd, mode, 0, 0, 0, 0));
}

int ftruncate(int fd, off_t len)
{
	return (int)ret(SYS(SYS_ftruncate, fd, len, 0, 0, 0, 0));
}

/* fallocate, and where the file system has none, what glibc does then:
 * write a zero into each block that reads as zero or lies past the end. */
int posix_fallocate(int fd, off_t off, off_t len)
{
	long r = SYS(SYS_fallocate, fd, 0, off, len, 0, 0);
	if (r != -EOPNOTSUPP)
		return (int)-r;
	for (off_t at = off; at < off + len; at += 4096) {
		char c = 0;
		r = SYS(SYS_pread64, fd, &c, 1, at, 0, 0);
		if (r < 0)
			return (int)-r;
		if (c == 0 && (r = SYS(SYS_pwrite64, fd, &c, 1, at, 0, 0)) < 0)
			return (int)-r;
	}
	return 0;
}

int unlinkat(int dirfd, const char *path, int flags)
{
	return (int)ret(SYS(SYS_unlinkat, dirfd, path, flags, 0, 0, 0));
}

int renameat(int fromfd, const char *from, int tofd, const char *to)
{
#ifdef SYS_renameat
	return (int)ret(SYS(SYS_renameat, fromfd, from, tofd, to, 0, 0));
#else
	return (int)ret(SYS(SYS_renameat2, fromfd, from, tofd, to, 0, 0));
#endif
}

ssize_t readlink(const char *restrict path, char *restrict buf, size_t len)
{
	return ret(SYS(SYS_readlinkat, AT_FDCWD, path, buf, len, 0, 0));
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	long r = SYS(SYS_mmap, addr, len, prot, flags, fd, off);
	return ret(r) == -1 ? MAP_FAILED : (void *)r;
}

int munmap(void *addr, size_t len)
{
	return (int)ret(SYS(SYS_munmap, addr, len, 0, 0, 0, 0));
}

/* Only as rawfile.c calls it: a moving remap, no new address. */
void *mremap(void *old, size_t old_len, size_t len, int flags, ...)
{
	long r = SYS(SYS_mremap, old, old_len, len, flags, 0, 0);
	return ret(r) == -1 ? MAP_FAILED : (void *)r;
}

/* As glibc's: six arguments go to the kernel whatever the caller passed.
 * Both ABIs here pass them in registers, so the ones a call does not use
 * are whatever the registers held, which that system call ignores (glibc's
 * is assembly that does the same). */
long syscall(long n, ...)
{
	va_list ap;
	va_start(ap, n);
	long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
	long d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
	va_end(ap);
	return ret(SYS(n, a, b, c, d, e, f));
}

int madvise(void *addr, size_t len, int advice)
{
	return (int)ret(SYS(SYS_madvise, addr, len, advice, 0, 0, 0));
}

int prctl(int option, ...)
{
	va_list ap;
	va_start(ap, option);
	long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long), d = va_arg(ap, long);
	va_end(ap);
	return (int)ret(SYS(SYS_prctl, option, a, b, c, d, 0));
}

pid_t getpid(void)
{
	return (pid_t)SYS(SYS_getpid, 0, 0, 0, 0, 0, 0);
}

pid_t getppid(void)
{
	return (pid_t)SYS(SYS_getppid, 0, 0, 0, 0, 0, 0);
}

uid_t geteuid(void)
{
	return (uid_t)SYS(SYS_geteuid, 0, 0, 0, 0, 0, 0);
}

int getrlimit(__rlimit_resource_t what, struct rlimit *lim)
{
	return (int)ret(SYS(SYS_prlimit64, 0, what, NULL, lim, 0, 0));
}

int clock_gettime(clockid_t clock, struct timespec *ts)
{
	return (int)ret(SYS(SYS_clock_gettime, clock, ts, 0, 0, 0, 0));
}

/* ---- directories ---- */

struct __dirstream {
	bool open;
	int fd;
	long len, at;
	char buf[2048] __attribute__((aligned(8)));
};

static struct __dirstream dir_one; /* rawfile.c has one open at a time */

DIR *opendir(const char *path)
{
	if (dir_one.open) {
		err_no = EMFILE;
		return NULL;
	}
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	dir_one = (struct __dirstream){ .open = true, .fd = fd };
	return &dir_one;
}

struct dirent *readdir(DIR *d)
{
	if (d->at >= d->len) {
		d->len = ret(SYS(SYS_getdents64, d->fd, d->buf, sizeof d->buf, 0, 0, 0));
		d->at = 0;
		if (d->len <= 0)
			return NULL;
	}
	struct dirent *e = (struct dirent *)(d->buf + d->at);
	d->at += e->d_reclen;
	return e;
}

int closedir(DIR *d)
{
	int r = close(d->fd);
	d->open = false;
	return r;
}

/* ---- memory and strings ---- */

void *memcpy(void *restrict to, const void *restrict from, size_t n)
{
	char *t = to;
	const char *f = from;
	while (n--)
		*t++ = *f++;
	return to;
}

void *memset(void *to, int c, size_t n)
{
	unsigned char *t = to;
	while (n--)
		*t++ = (unsigned char)c;
	return to;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	const char *p = s;
	while (*p)
		p++;
	return (size_t)(p - s);
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++)
		if (*a != *b || !*a)
			return (unsigned char)*a - (unsigned char)*b;
	return 0;
}

int strcmp(const char *a, const char *b)
{
	return strncmp(a, b, SIZE_MAX);
}

char *strcpy(char *restrict to, const char *restrict from)
{
	return memcpy(to, from, strlen(from) + 1);
}

size_t strcspn(const char *s, const char *reject)
{
	size_t n = 0;
	for (; s[n]; n++)
		for (const char *r = reject; *r; r++)
			if (s[n] == *r)
				return n;
	return n;
}

unsigned long long strtoull(const char *s, char **end, int base)
{
	unsigned long long v = 0;
	bool over = false;
	for (;; s++) {
		int d = *s >= '0' && *s <= '9'   ? *s - '0'
			: *s >= 'a' && *s <= 'z' ? *s - 'a' + 10
			: *s >= 'A' && *s <= 'Z' ? *s - 'A' + 10
						 : 99;
		if (d >= base)
			break;
		over |= v > (ULLONG_MAX - (unsigned)d) / (unsigned)base;
		v = v * (unsigned)base + (unsigned)d;
	}
	if (end)
		*end = (char *)s;
	if (over) {
		err_no = ERANGE;
		return ULLONG_MAX;
	}
	return v;
}

long strtol(const char *s, char **end, int base)
{
	bool neg = *s == '-';
	unsigned long long v = strtoull(s + neg, end, base);
	return neg ? -(long)v : (long)v;
}

/* ---- formatting ---- */

struct out {
	char *buf;
	size_t len, n;
};

static void put(struct out *o, char c)
{
	if (o->n + 1 < o->len)
		o->buf[o->n] = c;
	o->n++;
}

static void put_num(struct out *o, unsigned long long v, unsigned base, int width, bool neg)
{
	char digits[24];
	int n = 0;
	do
		digits[n++] = "0123456789abcdef"[v % base];
	while ((v /= base));
	if (neg)
		put(o, '-');
	for (int i = n; i < width; i++)
		put(o, '0');
	while (n)
		put(o, digits[--n]);
}

int snprintf(char *restrict buf, size_t len, const char *restrict fmt, ...)
{
	struct out o = { buf, len, 0 };
	va_list ap;
	va_start(ap, fmt);
	for (const char *f = fmt; *f; f++) {
		if (*f != '%') {
			put(&o, *f);
			continue;
		}
		f++;
		int width = 0, prec = -1;
		if (*f == '0')
			f++;
		while (*f >= '0' && *f <= '9')
			width = width * 10 + *f++ - '0';
		if (f[0] == '.' && f[1] == '*') {
			prec = va_arg(ap, int);
			f += 2;
		}
		if (*f == 's') {
			const char *s = va_arg(ap, const char *);
			for (int i = 0; s[i] && (prec < 0 || i < prec); i++)
				put(&o, s[i]);
		} else if (*f == 'd') {
			int v = va_arg(ap, int);
			put_num(&o, v < 0 ? -(unsigned long long)v : (unsigned long long)v, 10,
				width, v < 0);
		} else if (f[0] == 'l' && f[1] == 'l' && f[2] == 'x') {
			put_num(&o, va_arg(ap, unsigned long long), 16, width, false);
			f += 2;
		} else { /* not used by the module: shown as is */
			put(&o, '%');
			put(&o, *f);
		}
	}
	va_end(ap);
	if (len)
		buf[o.n < len ? o.n : len - 1] = '\0';
	return (int)o.n;
}

/* ---- the process's start-up values ---- */

/* Read all of a small /proc/self file into buf; bytes read, or -1. */
static long read_proc(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	long n = 0, r;
	while ((size_t)n < len &&
	       (r = ret(SYS(SYS_read, fd, buf + n, len - (size_t)n, 0, 0, 0))) > 0)
		n += r;
	close(fd);
	return n;
}

static unsigned long auxv[64][2];
static int auxv_state; /* 0: not read, 1: read, -1: unreadable */

unsigned long getauxval(unsigned long type)
{
	if (!auxv_state)
		auxv_state =
			read_proc("/proc/self/auxv", (char *)auxv, sizeof auxv - sizeof auxv[0]) > 0
				? 1
				: -1;
	for (int i = 0; auxv_state > 0 && i < 64 && auxv[i][0] != AT_NULL; i++)
		if (auxv[i][0] == type)
			return auxv[i][1];
	return type == AT_SECURE && auxv_state < 0;
}

long sysconf(int name)
{
	unsigned long page = getauxval(AT_PAGESZ);
	return name == _SC_PAGESIZE && page ? (long)page : -1;
}

/* The PCPROF_* entries of the initial environment, one after another, each
 * ending in a zero byte. */
static char env_store[8192];
static bool env_read;

static void read_env(void)
{
	static const char prefix[] = "PCPROF_";
	int fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	size_t kept = 0, entry = 0; /* entry: start of the current one in env_store */
	size_t at = 0;              /* bytes of the current entry seen */
	bool keep = true;
	/* Not on the stack: la_version runs on whatever the loader left of
	 * the main thread's stack, which RLIMIT_STACK may make small, and
	 * the loader calls us one at a time (errno above). */
	static char buf[1024];
	long n;
	while ((n = ret(SYS(SYS_read, fd, buf, sizeof buf, 0, 0, 0))) > 0) {
		for (long i = 0; i < n; i++) {
			char c = buf[i];
			if (keep && at < sizeof prefix - 1 && c != prefix[at])
				keep = false;
			if (keep && kept + 1 >= sizeof env_store)
				keep = false; /* too long for the store: dropped */
			if (keep)
				env_store[kept++] = c;
			at++;
			if (c == '\0') {
				if (!keep)
					kept = entry;
				entry = kept;
				at = 0;
				keep = true;
			}
		}
	}
	close(fd);
	env_store[entry] = '\0'; /* an unfinished last entry is dropped */
}

char *getenv(const char *name)
{
	if (!env_read) {
		read_env();
		env_read = true;
	}
	size_t len = strlen(name);
	for (char *e = env_store; *e; e += strlen(e) + 1)
		if (strncmp(e, name, len) == 0 && e[len] == '=')
			return e + len + 1;
	return NULL;
}
