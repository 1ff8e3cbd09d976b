/*
 * util.h - helpers for the pcprof command (never linked into the library):
 * messages, dying, checked allocation, text made safe to show.
 */
#ifndef PCPROF_UTIL_H
#define PCPROF_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

extern const char *progname; /* "pcprof" or "pcprof CMD" for messages */

/* "pcprof: message" on stderr, then exit(status).  The message goes
 * through text_put: a name quoted in it cannot reach the terminal raw. */
__attribute__((noreturn, format(printf, 2, 3))) void die(int status, const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void warnx_(const char *fmt, ...);

/* A usage mistake: "pcprof CMD: message (try 'pcprof CMD --help')" on
 * stderr, one line, then exit(status). */
__attribute__((noreturn, format(printf, 2, 3))) void usage_error(int status, const char *fmt, ...);

/* After getopt's own message on a bad option: "pcprof CMD: try 'pcprof
 * CMD --help'", then exit(status). */
__attribute__((noreturn)) void try_help(int status);

/* The decimal number s, from lo to hi, or die(status) naming opt. */
unsigned long number_arg(int status, const char *opt, const char *s, unsigned long lo,
			 unsigned long hi);

/* The status close_stdout exits with (1; `pcprof run` uses its own). */
extern int exit_failure;

/* For atexit(): flush and close standard output and check standard error,
 * as coreutils' close_stdout does, so that `pcprof report > /dev/full`
 * fails.  A write error not reported yet is reported ("write error on
 * standard output: ..."); any write error on either stream ends the
 * process with exit_failure. */
void close_stdout(void);

/* A one-line message in err (for functions that report, not print). */
__attribute__((format(printf, 3, 4))) void set_err(char *err, size_t errlen, const char *fmt, ...);

/* FNV-1a over n bytes, continuing from h (HASH_INIT to start). */
#define HASH_INIT 0xcbf29ce484222325ULL
uint64_t hash_bytes(const void *p, size_t n, uint64_t h);

/* A string written with stdio (open_memstream); out of memory is fatal.
 * membuf_close returns the text, for the caller to free. */
struct membuf {
	char *text;
	size_t len;
	FILE *f;
};
FILE *membuf_open(struct membuf *m);
char *membuf_close(struct membuf *m);

/* /proc/PID/stat of process pid read into buf (len bytes), as what follows
 * its command's closing parenthesis (" S ppid ..."), or NULL if unreadable. */
const char *proc_stat(int pid, char *buf, size_t len);

/*
 * A thread of process pid other than its main one that has not ended, or
 * 0: a process whose main thread called pthread_exit lives on in its other
 * threads, while /proc/PID/stat says 'Z' (the main thread's state) and
 * the main thread's entries there (maps, exe, cmdline, root, map_files)
 * are empty or gone.
 */
int proc_live_thread(int pid);

/* Where /proc shows process pid's memory and files: "/proc/PID", or
 * "/proc/PID/task/TID" of a thread that lives on when the main thread
 * has ended (proc_live_thread; it has no map_files).  Returns false in
 * the first case, true in the second. */
bool proc_dir(int pid, char *buf, size_t len);

/* The CPU time (user + system, its ended threads included) of process pid
 * from /proc/PID/stat, a zombie's too, in ns; 0 if unreadable. */
uint64_t proc_cpu_ns(int pid);

/* The kernel tick rate (CONFIG_HZ), from the resolution of
 * CLOCK_MONOTONIC_COARSE as the library measures it (lib/session.c); 0 if
 * that resolution is not a tick. */
unsigned kernel_tick_hz(void);

/* pcprof run's rate when neither --hz nor PROFIL_HZ gives one, on a kernel
 * whose tick is tick_hz (0: unknown): PCPROF_DEFAULT_HZ, but never above the
 * tick (cmd.h says why). */
unsigned run_default_hz(unsigned tick_hz);

/* How many different values v[0..n) holds (pids, thread ids); sorts v. */
size_t distinct_i32(int32_t *v, size_t n);
/* The same for 64-bit values ((process << 32) | thread id); sorts v. */
size_t distinct_u64(uint64_t *v, size_t n);

/*
 * Which process each image is.  An image is the process of the image of
 * its pid one number (seq) before it when that one ended by exec; any
 * other starts a process of its own, because pids are used again (the pid
 * space wraps: a run of 3,001 processes on a machine whose pids wrapped
 * was counted as 2,939 by pid).  proc[i] gets image i's process number
 * (0 to the count - 1); returns the count.
 */
struct image_key {
	int32_t pid;
	uint32_t seq;
	bool execd; /* this image ended by exec */
};
size_t number_processes(const struct image_key *k, size_t n, uint32_t *proc);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/*
 * Names from a profile (thread and process names, command lines, paths,
 * symbols) are whatever a program or a file made them: a thread can name
 * itself "\033[2J".  Text for a person - the terminal, report tables,
 * messages, notes, the HTML page - shows them through text_put, which
 * writes s as UTF-8 with these shown as C-style escapes, so that nothing
 * in a name can move the cursor, clear the screen, ring the bell, start a
 * new line or reorder what follows:
 *   control characters (C0, DEL, C1 U+0080-U+009F)  \n \t \r \a \b \f \v,
 *                                                   else \xHH or \u0085
 *   Unicode bidirectional and line-separator controls (U+061C, U+200E,
 *   U+200F, U+2028-U+202E, U+2066-U+2069)            \u202e
 *   each byte that is not part of valid UTF-8         \xHH
 *   the backslash itself                              \\
 * so the escaped text says exactly which bytes the name held.  Returns the
 * columns written, one per character (East Asian wide characters count
 * one, as the locale is not consulted).  f NULL: only count.
 */
int text_put(FILE *f, const char *s);
/* Does s hold anything text_put escapes, but for backslashes? */
bool text_needs_escape(const char *s);
/* A command line: as it is when it holds nothing to escape but
 * backslashes, so that a shell-quoted command can be pasted back (pcprof
 * run quotes control characters as $'\n'); else text_put, which doubles
 * its backslashes so that its escapes say which bytes it held. */
int text_put_command(FILE *f, const char *s);
/* text_put, then spaces up to width columns (left-justified). */
void text_pad(FILE *f, const char *s, int width);
/* The columns text_put would write. */
int text_width(const char *s);
/* What text_put would write, as a malloc'd string. */
char *text_dup(const char *s);

/* The length (1-4) of the valid UTF-8 character that starts s, its code
 * point in *cp; 0 if s does not start one (a stray continuation byte, an
 * overlong form, a surrogate, beyond U+10FFFF, cut short). */
size_t utf8_char(const char *s, uint32_t *cp);

#endif
