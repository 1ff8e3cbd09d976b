/*
 * internal.h - declarations shared by the files of libprofil, never installed.
 *
 * Naming: public calls keep their standard names (profil, sprofil, pcsample)
 * or use profil_ (our extensions); everything declared here is profil__ and
 * hidden.  Internal functions return 0 or -errno; only the public entry
 * points convert that to "-1 and errno" (profil__ret).
 *
 * Every function declared in a header of lib/ says whether it is
 * async-signal-safe ("AS-safe").  Nothing is AS-safe unless it says so.
 */
#ifndef PROFIL_INTERNAL_H
#define PROFIL_INTERNAL_H

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#define PROFIL_HIDDEN __attribute__((visibility("hidden")))
#define PROFIL_API    __attribute__((visibility("default")))

/*
 * PROFIL_CHECK: a broken internal invariant (never a user error).  It writes
 * a compile-time string with a raw write(2) and aborts, so it is usable
 * anywhere, the signal handler included.
 */
#define PROFIL_STR2(x) #x
#define PROFIL_STR(x)  PROFIL_STR2(x)
#define PROFIL_CHECK(cond, msg)                                                                    \
	do {                                                                                       \
		if (__builtin_expect(!(cond), 0))                                                  \
			profil__check_failed("libprofil: " __FILE__                                \
					     ":" PROFIL_STR(__LINE__) ": " msg "\n");              \
	} while (0)

/* AS-safe.  Does not return. */
PROFIL_HIDDEN _Noreturn void profil__check_failed(const char *msg);

/* Convert an internal result (0 or -errno) to the classic "-1 and errno"
 * convention.  errno is left untouched on success.  AS-safe. */
static inline int profil__ret(int r)
{
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return r;
}

/*
 * The body of a public entry point: `expr` returns a count (>= 0) or -errno.
 * On success errno is exactly what the caller had, whatever the system calls
 * inside did (a probe may fail harmlessly before a fallback succeeds); on
 * failure it is the error and the result is -1.  AS-safe.
 */
#define PROFIL_PUBLIC(expr)                                                                        \
	__extension__({                                                                            \
		int saved_errno_ = errno;                                                          \
		long r_ = (expr);                                                                  \
		errno = r_ < 0 ? (int)-r_ : saved_errno_;                                          \
		r_ < 0 ? -1 : r_;                                                                  \
	})

/* ---- memory: mmap-backed, so usable where malloc is not (AS-safe) ---- */

/* Zeroed memory of at least `size` bytes, or NULL.  AS-safe. */
PROFIL_HIDDEN void *profil__alloc(size_t size);
/* Free memory from profil__alloc; `size` must be the size asked for.  AS-safe. */
PROFIL_HIDDEN void profil__free(void *p, size_t size);

/* 0 if [p, p + len) is mapped writable, else -EFAULT.  len 0 is always 0.
 * Has no visible effect on the memory.  AS-safe (raw syscalls only). */
PROFIL_HIDDEN int profil__check_writable(const void *p, size_t len);
/* 0 if [p, p + len) is readable, else -EFAULT.  AS-safe. */
PROFIL_HIDDEN int profil__check_readable(const void *p, size_t len);

/* ---- small AS-safe helpers ---- */

PROFIL_HIDDEN pid_t profil__gettid(void); /* AS-safe */
/* clock_gettime in nanoseconds, 0 if the clock cannot be read.  AS-safe. */
static inline uint64_t profil__clock_ns(clockid_t clock)
{
	struct timespec ts;
	if (clock_gettime(clock, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A 64-bit finaliser (xor-shift-multiply): spreads keys over a hash table
 * and mixes the pseudo-random sequence.  AS-safe. */
static inline uint64_t profil__mix64(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185u;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44du;
	return x ^ (x >> 33);
}

/* A pseudo-random number in [0, n), n > 0; not for secrets.  AS-safe. */
PROFIL_HIDDEN uint64_t profil__random_below(uint64_t n);
/* Seed it from the kernel: at start-up and in every fork child.  AS-safe. */
PROFIL_HIDDEN void profil__random_seed(void);
/* Parse an unsigned decimal; -EINVAL on junk or overflow above max.  AS-safe. */
PROFIL_HIDDEN int profil__parse_uint(const char *s, unsigned long max, unsigned long *out);
/* Append a NUL-terminated string to buf (bounded, always terminated).  AS-safe. */
PROFIL_HIDDEN void profil__strlcat(char *buf, size_t len, const char *s);
/* Symbolic name of an errno value ("EACCES"), or "errno N" form in a static
 * buffer for unknown ones... never NULL.  AS-safe for the known values. */
PROFIL_HIDDEN const char *profil__errname(int err);
/* Append an unsigned decimal.  AS-safe. */
PROFIL_HIDDEN void profil__strlcat_u(char *buf, size_t len, unsigned long v);

/* Read the file at path (a /proc file: no allocation, raw system calls)
 * into buf, at most len - 1 bytes, NUL-terminated.  Returns the length or
 * -errno.  AS-safe. */
PROFIL_HIDDEN long profil__read_small(const char *path, char *buf, size_t len);
/* Call fn(name, ctx) for each entry of directory path except "." and ".."
 * (raw getdents64 into a stack buffer, no allocation).  Returns 0, the first
 * nonzero value fn returned, or -errno if the directory cannot be opened
 * (the open takes one descriptor for the duration).  AS-safe. */
PROFIL_HIDDEN int profil__each_dirent(const char *path, int (*fn)(const char *name, void *ctx),
				      void *ctx);
/* The number after "key:" in /proc/self/status (the first number of a
 * field like "SigQ:\t3/7813"), or -errno: -ENOENT without such a field,
 * -EINVAL if it holds no number.  AS-safe. */
PROFIL_HIDDEN long profil__status_number(const char *key);
/* The value of "key:" in the status file at path (/proc/self/task/TID/
 * status), blanks before it skipped, into out (at most len - 1 bytes, and
 * at most the first 255 bytes of its line); returns its length, -ENOENT
 * without such a line, or -errno.  A line at a time, small buffers.
 * AS-safe. */
PROFIL_HIDDEN long profil__status_text(const char *path, const char *key, char *out, size_t len);

/* ---- locks whose holder may die in them ---- */

/*
 * A spin lock that knows its holder (a thread id; 0: free).  A seccomp
 * filter's SECCOMP_RET_KILL_THREAD ends one thread in the middle of a
 * system call, whatever it holds: a waiter that has spun a while asks
 * whether the holder still lives (profil__thread_gone), and takes the lock
 * from a dead one.  The caller blocks signals first.  Returns false when
 * it took the lock so: what the holder was changing may be half done.
 * AS-safe.
 */
PROFIL_HIDDEN bool profil__spin_lock(_Atomic pid_t *holder);
static inline void profil__spin_unlock(_Atomic pid_t *holder)
{
	atomic_store_explicit(holder, 0, memory_order_release);
}
/* In a fork child, before any lock: the calling thread's id as the locks
 * keep it (read once per thread) is its parent's.  AS-safe. */
PROFIL_HIDDEN void profil__self_tid_forget(void);
/* Has thread tid of this process ended (gone, or a zombie: a main thread
 * that ended while others run)?  AS-safe. */
PROFIL_HIDDEN bool profil__thread_gone(pid_t tid);

/* ---- a seccomp filter: from then on, no system call of our own ---- */

/*
 * Why the library stopped for good in this process (docs/design.md,
 * "Seccomp filters"); PROFIL_SEALED_NO while it runs.  Once sealed, no
 * control path makes a system call of its own (every one returns first),
 * and the handler drops the signals of ours still armed: a filter the
 * program installed may answer any of them with SECCOMP_RET_KILL_* or
 * SECCOMP_RET_TRAP.  A fork child and an exec'd image inherit the filter
 * (the first this state too; the second finds it, session.c).
 */
enum {
	PROFIL_SEALED_NO = 0,
	PROFIL_SEALED_CALL,      /* the program installs a filter: prctl, syscall (seccomp.c) */
	PROFIL_SEALED_FOUND,     /* a filter found in force that no call of libc installed */
	PROFIL_SEALED_INHERITED, /* this image began under a filter the program installed */
	PROFIL_SEALED_DEAD,      /* a thread died holding a lock of the library */
};
PROFIL_HIDDEN extern _Atomic int profil__sealed_why;
/* Sealed?  AS-safe. */
static inline bool profil__sealed(void)
{
	return atomic_load_explicit(&profil__sealed_why, memory_order_acquire) != PROFIL_SEALED_NO;
}
/* What profil_stats() and the recording say of it ("" if not sealed).
 * AS-safe. */
PROFIL_HIDDEN const char *profil__sealed_text(void);

/* ---- pid namespaces ----
 *
 * A process in a pid namespace of its own (unshare(CLONE_NEWPID), then
 * fork) has ids of its own: getpid() may be 1, and timer_create, tgkill
 * and perf_event_open take its own thread ids.  /proc, unless the
 * namespace mounted one of its own, still shows the ids of the namespace
 * that mounted it (pcprof's, as a rule): /proc/self/task lists those, and
 * /proc/self/task/TID is named by them.  These translate. */

/* The calling process's id as /proc shows it (readlink /proc/self):
 * getpid() unless /proc belongs to another pid namespace; getpid() too if
 * /proc cannot be read.  Cached per process.  AS-safe. */
PROFIL_HIDDEN pid_t profil__proc_pid(void);
/* A thread id from /proc's view (a /proc/self/task entry) to the process's
 * own (what gettid returns), from the last field of its NSpid line; 0 if
 * it cannot be read.  AS-safe. */
PROFIL_HIDDEN pid_t profil__tid_from_proc(pid_t proc_tid);
/* The calling thread's id as /proc shows it (readlink /proc/thread-self),
 * for paths under /proc/self/task; gettid() when the views agree.
 * AS-safe. */
PROFIL_HIDDEN pid_t profil__proc_tid_self(void);
/* Another thread's id as /proc shows it (a search of /proc/self/task when
 * the views differ); 0 if not found.  AS-safe. */
PROFIL_HIDDEN pid_t profil__proc_tid(pid_t tid);

/* ---- environment, read once by the library constructor ---- */

struct profil_env {
	unsigned long hz;    /* PROFIL_HZ, 0 if unset */
	int overflow;        /* PROFIL_OVERFLOW, -1 if unset */
	int signo;           /* PROFIL_SIGNAL, 0 if unset */
	char engine[24];     /* PROFIL_ENGINE, "" if unset */
	char rec_engine[24]; /* PCPROF_ENGINE (pcprof run's --engine), "" if unset */
	char perf_mode[16];  /* PROFIL_PERF_MODE, "" if unset */
	char bad[160];       /* names of variables that had invalid values */
};
PROFIL_HIDDEN extern struct profil_env profil__env;

#endif
