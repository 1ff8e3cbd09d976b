/*
 * datashim.c - an LD_PRELOAD shim that changes a pcprof.data file under
 * pcprof at a chosen moment of its reading (cli/data.c, pp_read), for the
 * tests/cli-report/t-data-*.sh tests: a file that shrinks or a read that
 * fails at an exact point instead of a race.  It also measures what the
 * reader left allocated.  Never instrumented (the Makefile builds it
 * plain), so it can be preloaded into a plain or a sanitizer build of
 * pcprof; in an ASan build it must come after ASan's runtime in LD_PRELOAD.
 *
 * Environment (nothing happens without DATASHIM_FILE):
 *   DATASHIM_FILE=PATH  the data file; other files are left alone.
 *   DATASHIM_CUT=N@map  truncate the file to N bytes when the reader
 *       installs its SIGBUS handler: the file is mapped and not yet parsed,
 *       so parsing meets the lost pages.
 *   DATASHIM_CUT=N@sum  the checksum thread (a body of 1 MiB or more) waits
 *       at its first read until the parse is over and the main thread joins
 *       it; the file is truncated to N bytes then, before that read.
 *   DATASHIM_READ=eio|eintr|short  the reads past the header (the checksum
 *       thread's): fail with EIO; fail once with EINTR; or return at most
 *       1000 bytes each.
 *   DATASHIM_LOG=PATH   what the shim did, a line each: "cut N at WHEN",
 *       "read eio|eintr|short", and "allocated D fault F" when the reader
 *       restores its SIGBUS handler: D is the bytes allocated then minus
 *       those allocated when it installed it (what parsing kept or
 *       leaked), F the same at the SIGBUS, -1 if none came.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *path, *read_mode, *log_path;
static long long cut = -1;
static char cut_when[8];
static dev_t file_dev;
static ino_t file_ino;
static long long allocated_before;
static size_t (*san_allocated)(void);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t joined = PTHREAD_COND_INITIALIZER;
static int parsing, cut_done, eintr_done, short_done;

static void say(const char *fmt, ...)
{
	if (!log_path)
		return;
	FILE *f = fopen(log_path, "a");
	if (!f)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

static void setup(void)
{
	path = getenv("DATASHIM_FILE");
	read_mode = getenv("DATASHIM_READ");
	log_path = getenv("DATASHIM_LOG");
	/* looked up here: allocated() runs in a signal handler too */
	san_allocated =
		(size_t(*)(void))dlsym(RTLD_DEFAULT, "__sanitizer_get_current_allocated_bytes");
	const char *c = getenv("DATASHIM_CUT");
	if (c && sscanf(c, "%lld@%7s", &cut, cut_when) != 2)
		cut = -1;
	struct stat st;
	if (!path || stat(path, &st) < 0)
		path = NULL;
	else {
		file_dev = st.st_dev;
		file_ino = st.st_ino;
	}
}

static int is_data_file(int fd)
{
	struct stat st;
	pthread_once(&once, setup);
	return path && fstat(fd, &st) == 0 && st.st_dev == file_dev && st.st_ino == file_ino;
}

/* Bytes the program has allocated: the sanitizer's count in a sanitizer
 * build (its allocator replaces malloc), else glibc's (mallinfo2: the chunks in use in every
 * arena plus the mapped ones, so the checksum thread's 1 MiB buffer too,
 * while it lives). */
static long long allocated(void)
{
	if (san_allocated)
		return (long long)san_allocated();
	struct mallinfo2 mi = mallinfo2();
	return (long long)(mi.uordblks + mi.hblkhd);
}

static void do_cut(const char *when)
{
	if (cut < 0 || strcmp(cut_when, when) != 0 || cut_done)
		return;
	if (truncate(path, (off_t)cut) < 0)
		say("truncate %s: %s\n", path, strerror(errno));
	else
		say("cut %lld at %s\n", cut, when);
	cut_done = 1;
}

/* The reader's SIGBUS handler, called from ours, which first notes what
 * was allocated at the fault: what parsing had built when the file's lost
 * pages stopped it.  (Not AS-safe in general; the fault comes from the
 * parser's own reads of the mapping, never from inside malloc.) */
static void (*bus_handler)(int);
static long long fault_allocated = -1;

static void on_bus(int sig)
{
	fault_allocated = allocated() - allocated_before;
	bus_handler(sig);
}

/* pp_read's parse_fd installs its SIGBUS handler after mapping the file
 * (keeping the old action) and puts the old action back when it is done,
 * on every path. */
int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	static int (*real)(int, const struct sigaction *, struct sigaction *);
	if (!real)
		real = (int (*)(int, const struct sigaction *, struct sigaction *))dlsym(
			RTLD_NEXT, "sigaction");
	pthread_once(&once, setup);
	if (path && sig == SIGBUS && act && old && !parsing && !(act->sa_flags & SA_SIGINFO) &&
	    act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN) {
		allocated_before = allocated();
		fault_allocated = -1;
		pthread_mutex_lock(&lock);
		parsing = 1;
		do_cut("map");
		pthread_mutex_unlock(&lock);
		struct sigaction ours = *act;
		bus_handler = act->sa_handler;
		ours.sa_handler = on_bus;
		return real(sig, &ours, old);
	}
	if (path && sig == SIGBUS && act && !old && parsing) {
		parsing = 0;
		say("allocated %lld fault %lld\n", allocated() - allocated_before, fault_allocated);
	}
	return real(sig, act, old);
}

int pthread_join(pthread_t th, void **ret)
{
	static int (*real)(pthread_t, void **);
	if (!real)
		real = (int (*)(pthread_t, void **))dlsym(RTLD_NEXT, "pthread_join");
	pthread_once(&once, setup);
	if (path) {
		pthread_mutex_lock(&lock);
		if (parsing) {
			do_cut("sum");
			pthread_cond_broadcast(&joined);
		}
		pthread_mutex_unlock(&lock);
	}
	return real(th, ret);
}

/* A read past the header (the checksum thread's): held for the cut at
 * "sum", then done as DATASHIM_READ says. */
static ssize_t shim_pread(ssize_t (*real)(int, void *, size_t, off_t), int fd, void *buf, size_t n,
			  off_t off)
{
	if (off < 32 || !is_data_file(fd))
		return real(fd, buf, n, off);
	pthread_mutex_lock(&lock);
	if (cut >= 0 && strcmp(cut_when, "sum") == 0 && !cut_done) {
		/* a bound, so that a reader that never joins does not hang
		 * the test: it finds no "cut" in the log */
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 60;
		while (!cut_done && pthread_cond_timedwait(&joined, &lock, &until) == 0)
			;
	}
	pthread_mutex_unlock(&lock);
	if (read_mode && strcmp(read_mode, "eio") == 0) {
		say("read eio\n");
		errno = EIO;
		return -1;
	}
	if (read_mode && strcmp(read_mode, "eintr") == 0 &&
	    !__atomic_exchange_n(&eintr_done, 1, __ATOMIC_SEQ_CST)) {
		say("read eintr\n");
		errno = EINTR;
		return -1;
	}
	if (read_mode && strcmp(read_mode, "short") == 0 && n > 1000) {
		if (!__atomic_exchange_n(&short_done, 1, __ATOMIC_SEQ_CST))
			say("read short\n");
		n = 1000;
	}
	return real(fd, buf, n, off);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, void *, size_t, off_t);
	if (!real)
		real = (ssize_t(*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
	return shim_pread(real, fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, void *, size_t, off_t);
	if (!real)
		real = (ssize_t(*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread64");
	return shim_pread(real, fd, buf, n, off);
}
