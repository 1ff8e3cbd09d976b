/*
 * util.c - CLI helpers: messages go to stderr prefixed with the command name;
 * allocation failure is fatal in the tool (never in the library); names are
 * escaped before anyone reads them (util.h).
 */
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"

const char *progname = "pcprof";
int exit_failure = 1;

/* "pcprof CMD: message", then tail (if any) and a newline on stderr. */
static void vmessage(const char *tail, const char *fmt, va_list ap)
{
	char *msg;
	fprintf(stderr, "%s: ", progname);
	if (vasprintf(&msg, fmt, ap) < 0) {
		fputs("out of memory", stderr);
	} else {
		text_put(stderr, msg);
		free(msg);
	}
	if (tail)
		fputs(tail, stderr);
	fputc('\n', stderr);
}

void die(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage(NULL, fmt, ap);
	va_end(ap);
	exit(status);
}

void warnx_(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage(NULL, fmt, ap);
	va_end(ap);
}

void usage_error(int status, const char *fmt, ...)
{
	char tail[128];
	snprintf(tail, sizeof tail, " (try '%s --help')", progname);
	va_list ap;
	va_start(ap, fmt);
	vmessage(tail, fmt, ap);
	va_end(ap);
	exit(status);
}

void try_help(int status)
{
	die(status, "try '%s --help'", progname);
}

unsigned long number_arg(int status, const char *opt, const char *s, unsigned long lo,
			 unsigned long hi)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < lo || v > hi)
		die(status, "%s: '%s' is not a number from %lu to %lu", opt, s, lo, hi);
	return v;
}

void close_stdout(void)
{
	bool pending = __fpending(stdout) != 0;
	bool failed = ferror(stdout) != 0;
	errno = 0;
	bool close_failed = fclose(stdout) != 0;
	int e = errno;
	/* A closed stdout (">&-") is no error when nothing was written to it;
	 * a failed write before is, even if the close now succeeds. */
	if (failed || (close_failed && (pending || e != EBADF))) {
		if (close_failed && e)
			warnx_("write error on standard output: %s", strerror(e));
		else
			warnx_("write error on standard output");
		_exit(exit_failure);
	}
	/* Messages that could not be written: nothing left to say it with. */
	if (ferror(stderr))
		_exit(exit_failure);
}

void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

uint64_t hash_bytes(const void *p, size_t n, uint64_t h)
{
	for (const unsigned char *c = p; n--; c++)
		h = (h ^ *c) * 0x100000001b3ULL;
	return h;
}

FILE *membuf_open(struct membuf *m)
{
	*m = (struct membuf){ 0 };
	m->f = open_memstream(&m->text, &m->len);
	if (!m->f)
		die(2, "out of memory");
	return m->f;
}

char *membuf_close(struct membuf *m)
{
	if (fclose(m->f) != 0 || !m->text)
		die(2, "out of memory");
	return m->text;
}

static int i32_cmp(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return x < y ? -1 : x > y;
}

size_t distinct_i32(int32_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof *v, i32_cmp);
	size_t d = 1;
	for (size_t i = 1; i < n; i++)
		d += v[i] != v[i - 1];
	return d;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

size_t distinct_u64(uint64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof *v, u64_cmp);
	size_t d = 1;
	for (size_t i = 1; i < n; i++)
		d += v[i] != v[i - 1];
	return d;
}

static const struct image_key *keys_ctx; /* qsort has no context argument */

static int key_order(const void *a, const void *b)
{
	const struct image_key *x = &keys_ctx[*(const size_t *)a],
			       *y = &keys_ctx[*(const size_t *)b];
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (*(const size_t *)a > *(const size_t *)b) -
	       (*(const size_t *)a < *(const size_t *)b);
}

/* Sorted by (pid, seq), not compared pairwise: runs have 40,000
 * processes. */
size_t number_processes(const struct image_key *k, size_t n, uint32_t *proc)
{
	size_t *ix = xmalloc((n ? n : 1) * sizeof *ix), count = 0;
	for (size_t i = 0; i < n; i++)
		ix[i] = i;
	keys_ctx = k;
	qsort(ix, n, sizeof *ix, key_order);
	for (size_t j = 0; j < n; j++) {
		const struct image_key *x = &k[ix[j]], *prev = j ? &k[ix[j - 1]] : NULL;
		bool same = prev && prev->pid == x->pid && prev->seq + 1 == x->seq && prev->execd;
		if (!same)
			count++;
		proc[ix[j]] = (uint32_t)(count - 1);
	}
	free(ix);
	return count;
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die(2, "out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		die(2, "out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die(2, "out of memory (%zu bytes)", n);
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

/* ---- text for people ------------------------------------------------------ */

size_t utf8_char(const char *str, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t v, min;
	size_t n;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2, v = s[0] & 0x1f, min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3, v = s[0] & 0x0f, min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4, v = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) /* also stops at the terminating NUL */
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

/* Characters that change how the rest of a line is shown. */
static bool format_control(uint32_t c)
{
	return c == 0x061c || c == 0x200e || c == 0x200f || (c >= 0x2028 && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069);
}

/* text_put, but for backslash (doubled only if bs); *changed: whether the
 * text written differs from s. */
static int escape(FILE *f, const char *s, bool bs, bool *changed)
{
	int cols = 0;
	*changed = false;
	const char *run = s; /* characters shown as they are, not written yet */
	while (*s) {
		uint32_t c;
		size_t n = utf8_char(s, &c);
		char esc[16];
		const char *out = esc;
		if (n == 0) {
			snprintf(esc, sizeof esc, "\\x%02x", (unsigned char)*s);
			n = 1;
		} else if (c == '\\' && bs) {
			out = "\\\\";
		} else if (c < 0x20 || c == 0x7f) {
			/* the C escapes: \a (7) to \r (13), in order */
			static const char named[] = "abtnvfr";
			if (c >= '\a' && c <= '\r')
				snprintf(esc, sizeof esc, "\\%c", named[c - '\a']);
			else
				snprintf(esc, sizeof esc, "\\x%02x", (unsigned)c);
		} else if ((c >= 0x80 && c <= 0x9f) || format_control(c)) {
			snprintf(esc, sizeof esc, "\\u%04x", (unsigned)c);
		} else {
			s += n;
			cols++;
			continue;
		}
		*changed = true;
		if (f) {
			fwrite(run, 1, (size_t)(s - run), f);
			fputs(out, f);
		}
		cols += (int)strlen(out);
		s += n;
		run = s;
	}
	if (f)
		fwrite(run, 1, (size_t)(s - run), f);
	return cols;
}

int text_put(FILE *f, const char *s)
{
	bool changed;
	return escape(f, s, true, &changed);
}

bool text_needs_escape(const char *s)
{
	bool changed;
	escape(NULL, s, false, &changed);
	return changed;
}

int text_put_command(FILE *f, const char *s)
{
	bool changed;
	return text_needs_escape(s) ? text_put(f, s) : escape(f, s, false, &changed);
}

void text_pad(FILE *f, const char *s, int width)
{
	for (int n = text_put(f, s); n < width; n++)
		fputc(' ', f);
}

int text_width(const char *s)
{
	return text_put(NULL, s);
}

char *text_dup(const char *s)
{
	struct membuf m;
	text_put(membuf_open(&m), s);
	return membuf_close(&m);
}

const char *proc_stat(int pid, char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || len < 2)
		return NULL;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	const char *p = strrchr(buf, ')');
	return p && p[1] ? p + 1 : NULL;
}

unsigned kernel_tick_hz(void)
{
	/* The coarse clocks advance once per tick: 4 ms with CONFIG_HZ=250.
	 * sysconf(_SC_CLK_TCK) is USER_HZ, 100 whatever the tick. */
	struct timespec res;
	if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) != 0 || res.tv_sec != 0 || res.tv_nsec <= 0)
		return 0;
	return (unsigned)((1000000000L + res.tv_nsec / 2) / res.tv_nsec);
}

unsigned run_default_hz(unsigned tick_hz)
{
	return tick_hz && tick_hz < PCPROF_DEFAULT_HZ ? tick_hz : PCPROF_DEFAULT_HZ;
}

int proc_live_thread(int pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/task", pid);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	int live = 0;
	struct dirent *e;
	while (!live && (e = readdir(d))) {
		int tid = atoi(e->d_name);
		if (tid <= 0 || tid == pid)
			continue;
		snprintf(path, sizeof path, "/proc/%d/task/%d/stat", pid, tid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
		if (fd >= 0)
			close(fd);
		if (n <= 0)
			continue;
		buf[n] = 0;
		const char *p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] && p[2] != 'Z' && p[2] != 'X')
			live = tid;
	}
	closedir(d);
	return live;
}

bool proc_dir(int pid, char *buf, size_t len)
{
	char stat[512];
	const char *p = proc_stat(pid, stat, sizeof stat);
	int live = p && (p[1] == 'Z' || p[1] == 'X') ? proc_live_thread(pid) : 0;
	if (live)
		snprintf(buf, len, "/proc/%d/task/%d", pid, live);
	else
		snprintf(buf, len, "/proc/%d", pid);
	return live != 0;
}

uint64_t proc_cpu_ns(int pid)
{
	char buf[1024];
	/* after "pid (comm)": state is field 3, utime 14, stime 15 */
	const char *p = proc_stat(pid, buf, sizeof buf);
	unsigned long long ut, st;
	long hz = sysconf(_SC_CLK_TCK);
	if (!p || hz <= 0 ||
	    sscanf(p, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return 0;
	return (ut + st) * (1000000000ull / (unsigned long long)hz);
}
