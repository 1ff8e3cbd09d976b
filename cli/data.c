/*
 * data.c - pcprof.data, the versioned data file that `pcprof run` writes and
 * report and export read (docs/formats.md, "pcprof.data").
 *
 * Every integer is little-endian and encoded byte by byte, so a file means
 * the same on every host.  The reader trusts nothing: it checks both
 * checksums first, then checks every length and count against the bytes
 * that remain *before* allocating for it, and every index against the table
 * it points into.  It allocates with plain malloc, never xmalloc: a hostile
 * file must produce a message, never end the program.
 *
 * Extensibility: the body is a list of tagged records; a reader skips tags
 * it does not know, and ignores bytes at the end of a record after the
 * fields it knows.  Fields are only ever appended; anything an old reader
 * would misread bumps PP_VERSION.
 */
#include "data.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "file.h"
#include "record-format.h"
#include "util.h"

#define TAG_INFO "INFO"
#define TAG_PROC "PROC"
#define TAG_LEN  4
#define REC_HEAD (TAG_LEN + 8) /* tag, u64 payload length */

/* Smallest encodings, used to bound counts by the bytes that remain. */
#define MIN_MODULE  (4 + 4 + 8 + 4 + 4 + 4)
#define SEG_SIZE    (8 + 8 + 8 + 4)
#define MIN_THREAD  (4 + 4 + 8)
#define SAMPLE_V1   (8 + 4 + 4 + 8)
#define SAMPLE_SIZE (SAMPLE_V1 + 4)
#define SAMPLE_V3   (SAMPLE_SIZE + 4)
#define FRAME_SIZE  (8 + 4 + 4)
#define GAP_SIZE    (4 + 4 + 8)
#define MIN_PROC    (REC_HEAD + 6 * 4 + 7 * 8 + 4 * 4 + 4 + 4 + 8)

static uint32_t crc(const uint8_t *p, size_t n)
{
	uLong c = crc32(0L, Z_NULL, 0);
	/* zlib takes uInt lengths: feed very large bodies in pieces */
	while (n) {
		uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
		c = crc32(c, p, k);
		p += k;
		n -= k;
	}
	return (uint32_t)c;
}

static void le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* ---- writing --------------------------------------------------------------- */

struct wbuf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

static uint8_t *wspace(struct wbuf *w, size_t n)
{
	if (w->oom)
		return NULL;
	if (w->cap - w->len < n) {
		size_t cap = w->cap ? w->cap : 4096;
		while (cap - w->len < n)
			cap *= 2;
		uint8_t *p = realloc(w->p, cap);
		if (!p) {
			w->oom = true;
			return NULL;
		}
		w->p = p;
		w->cap = cap;
	}
	uint8_t *at = w->p + w->len;
	w->len += n;
	return at;
}

static void put(struct wbuf *w, const void *src, size_t n)
{
	uint8_t *at = wspace(w, n);
	if (at && n)
		memcpy(at, src, n);
}

static void put32(struct wbuf *w, uint32_t v)
{
	uint8_t *at = wspace(w, 4);
	if (at)
		le32(at, v);
}

static void put64(struct wbuf *w, uint64_t v)
{
	uint8_t *at = wspace(w, 8);
	if (at)
		le64(at, v);
}

/* Strings longer than PP_STR_MAX are cut (only a command line could be). */
static void put_str(struct wbuf *w, const char *s, size_t max)
{
	size_t n = s ? strnlen(s, max) : 0;
	put32(w, (uint32_t)n);
	put(w, s, n);
}

/* Open a record; returns where its length goes, patched by end_record. */
static size_t begin_record(struct wbuf *w, const char *tag)
{
	put(w, tag, TAG_LEN);
	size_t at = w->len;
	put64(w, 0);
	return at;
}

static void end_record(struct wbuf *w, size_t at)
{
	if (!w->oom)
		le64(w->p + at, w->len - at - 8);
}

static int encode_proc(struct wbuf *w, const struct pp_process *pr, uint32_t version, char *err,
		       size_t errlen)
{
	for (size_t i = 0; i < pr->nmodules; i++) {
		const struct pp_module *m = &pr->modules[i];
		if (m->nsegs > 8 || m->build_id_len > sizeof m->build_id) {
			set_err(err, errlen,
				"process %d: module %zu: %u segments, %u-byte build-id", pr->pid, i,
				m->nsegs, m->build_id_len);
			return -1;
		}
	}
	for (size_t i = 0; i < pr->nsamples; i++) {
		const struct pp_sample *s = &pr->samples[i];
		if ((s->module != PP_NO_MODULE && s->module >= pr->nmodules) ||
		    s->thread >= pr->nthreads) {
			set_err(err, errlen,
				"process %d: sample %zu: module %u / thread %u out of range",
				pr->pid, i, s->module, s->thread);
			return -1;
		}
	}
	if (pr->nmodules > UINT32_MAX || pr->nthreads > UINT32_MAX || pr->nframes >= UINT32_MAX) {
		set_err(err, errlen, "process %d: too many modules, threads or frames", pr->pid);
		return -1;
	}
	if (pp_check_stacks(pr, err, errlen) < 0)
		return -1;

	size_t at = begin_record(w, TAG_PROC);
	put32(w, (uint32_t)pr->pid);
	put32(w, (uint32_t)pr->ppid);
	put32(w, pr->seq);
	put32(w, pr->hz);
	put32(w, pr->end);
	put32(w, (uint32_t)pr->exit_status);
	put64(w, pr->start_ns);
	put64(w, pr->end_ns);
	put64(w, pr->cpu_ns);
	put64(w, pr->signals);
	put64(w, pr->ticks);
	put64(w, pr->lost);
	put64(w, pr->mem_bytes);
	put_str(w, pr->engine, sizeof pr->engine - 1);
	put_str(w, pr->exe, PP_STR_MAX);
	put_str(w, pr->cmdline, PP_STR_MAX);
	put_str(w, pr->why, PP_STR_MAX);

	put32(w, (uint32_t)pr->nmodules);
	for (size_t i = 0; i < pr->nmodules; i++) {
		const struct pp_module *m = &pr->modules[i];
		put_str(w, m->path, PP_STR_MAX);
		put32(w, m->build_id_len);
		put(w, m->build_id, m->build_id_len);
		put64(w, m->bias);
		put32(w, m->epoch_loaded);
		put32(w, m->epoch_unloaded);
		put32(w, m->nsegs);
		for (uint32_t k = 0; k < m->nsegs; k++) {
			put64(w, m->seg[k].vaddr);
			put64(w, m->seg[k].memsz);
			put64(w, m->seg[k].offset);
			put32(w, m->seg[k].flags);
		}
	}
	put32(w, (uint32_t)pr->nthreads);
	for (size_t i = 0; i < pr->nthreads; i++) {
		const struct pp_thread *t = &pr->threads[i];
		put32(w, (uint32_t)t->tid);
		put_str(w, t->name, sizeof t->name - 1);
		put64(w, t->ticks);
	}
	if (version >= 2) {
		put64(w, pr->nframes);
		for (size_t i = 0; i < pr->nframes; i++) {
			put64(w, pr->frames[i].pc);
			put32(w, pr->frames[i].module);
			put32(w, pr->frames[i].parent);
		}
	}
	put64(w, pr->nsamples);
	for (size_t i = 0; i < pr->nsamples; i++) {
		const struct pp_sample *s = &pr->samples[i];
		put64(w, s->pc);
		put32(w, s->module);
		put32(w, s->thread);
		put64(w, s->count);
		if (version >= 2)
			put32(w, s->frame);
		if (version >= 3)
			put32(w, s->time);
	}
	if (version >= 3) {
		put64(w, pr->tl_lost);
		put32(w, pr->tl_partial);
		/* Appended to version 3's record (2026-11-29), in this order: a
		 * reader from before skips them, and a record from before ends
		 * before them. */
		put32(w, pr->stop);
		put64(w, pr->stop_ns);
		uint32_t ngap = 0;
		for (int g = 0; g < PP_GAP_N; g++)
			ngap += pr->gap[g].ns != 0;
		put32(w, ngap);
		for (uint32_t g = 0; g < PP_GAP_N; g++)
			if (pr->gap[g].ns) {
				put32(w, g);
				put32(w, pr->gap[g].threads);
				put64(w, pr->gap[g].ns);
			}
	}
	end_record(w, at);
	return 0;
}

int pp_encode(const struct pp_profile *p, uint8_t **buf, size_t *len, char *err, size_t errlen)
{
	return pp_encode_version(p, PP_VERSION, buf, len, err, errlen);
}

int pp_encode_version(const struct pp_profile *p, uint32_t version, uint8_t **buf, size_t *len,
		      char *err, size_t errlen)
{
	if (version < 1 || version > PP_VERSION) {
		set_err(err, errlen, "cannot write format version %u", version);
		return -1;
	}
	struct wbuf w = { 0 };
	wspace(&w, PP_HEADER_SIZE);

	size_t at = begin_record(&w, TAG_INFO);
	put_str(&w, p->command, PP_STR_MAX);
	put64(&w, p->start_ns);
	put64(&w, p->end_ns);
	put32(&w, (uint32_t)p->nprocs);
	if (version >= 3)
		put64(&w, p->bucket_ns);
	end_record(&w, at);
	for (size_t i = 0; i < p->nprocs; i++) {
		if (encode_proc(&w, &p->procs[i], version, err, errlen) < 0) {
			free(w.p);
			return -1;
		}
	}
	if (w.oom) {
		free(w.p);
		set_err(err, errlen, "out of memory");
		return -1;
	}
	if (pp_check_counts(p, err, errlen) < 0) {
		free(w.p);
		return -1;
	}

	uint8_t *h = w.p;
	memcpy(h, PP_MAGIC, 8);
	le32(h + 8, version);
	le32(h + 12, 0); /* flags */
	le64(h + 16, w.len - PP_HEADER_SIZE);
	le32(h + 24, crc(h + PP_HEADER_SIZE, w.len - PP_HEADER_SIZE));
	le32(h + 28, crc(h, 28));
	*buf = w.p;
	*len = w.len;
	return 0;
}

int pp_write(const char *path, const struct pp_profile *p, char *err, size_t errlen)
{
	uint8_t *buf;
	size_t len;
	if (pp_encode(p, &buf, &len, err, errlen) < 0)
		return -1;
	/* file.h: a temporary file beside path, fsync'd and renamed over it,
	 * so that readers see the old file or the new one, never a part.  A
	 * data file named "-" is a file (the program's output is on stdout). */
	const char *name = strcmp(path, "-") == 0 ? "./-" : path;
	struct ofile *o = ofile_open(name, err, errlen);
	int r = -1;
	if (o) {
		fwrite(buf, 1, len, ofile_stream(o));
		r = ofile_close(o, err, errlen);
	}
	free(buf);
	/* The caller adds the file name, as for pp_read. */
	size_t n = strlen(name);
	if (r < 0 && strncmp(err, name, n) == 0 && strncmp(err + n, ": ", 2) == 0)
		memmove(err, err + n + 2, strlen(err + n + 2) + 1);
	return r;
}

/* ---- reading --------------------------------------------------------------- */

struct rbuf {
	const uint8_t *p;
	size_t len, off;
	char *err; /* first failure wins */
	size_t errlen;
	bool failed;
	uint32_t version; /* of the file */
};

static void fail(struct rbuf *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct rbuf *r, const char *fmt, ...)
{
	if (r->failed)
		return;
	r->failed = true;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
}

static const uint8_t *take(struct rbuf *r, size_t n, const char *what)
{
	if (r->failed)
		return NULL;
	if (r->len - r->off < n) {
		fail(r, "corrupted: %s runs past the end of its record", what);
		return NULL;
	}
	const uint8_t *at = r->p + r->off;
	r->off += n;
	return at;
}

static uint32_t get32(struct rbuf *r, const char *what)
{
	const uint8_t *p = take(r, 4, what);
	return p ? rd32(p) : 0;
}

static uint64_t get64(struct rbuf *r, const char *what)
{
	const uint8_t *p = take(r, 8, what);
	return p ? rd64(p) : 0;
}

/* A string of at most max bytes without NULs, copied into dst[max + 1]. */
static void get_fixed(struct rbuf *r, char *dst, size_t max, const char *what)
{
	uint32_t n = get32(r, what);
	if (!r->failed && n > max) {
		fail(r, "corrupted: %s is %u bytes long (at most %zu)", what, n, max);
		return;
	}
	const uint8_t *s = take(r, n, what);
	if (!s)
		return;
	if (memchr(s, 0, n)) {
		fail(r, "corrupted: %s contains a NUL byte", what);
		return;
	}
	memcpy(dst, s, n);
	dst[n] = 0;
}

/* A string into a new allocation; NULL only after a failure. */
static char *get_str(struct rbuf *r, const char *what)
{
	size_t save = r->off;
	uint32_t n = get32(r, what);
	if (r->failed)
		return NULL;
	if (n > PP_STR_MAX || n > r->len - r->off) {
		fail(r, "corrupted: %s is %u bytes long", what, n);
		return NULL;
	}
	char *s = malloc((size_t)n + 1);
	if (!s) {
		fail(r, "out of memory");
		return NULL;
	}
	r->off = save;
	get_fixed(r, s, n, what);
	if (r->failed) {
		free(s);
		return NULL;
	}
	return s;
}

/* A count of elements of at least `min` bytes each: never more than the
 * remaining bytes can hold, so a corrupted count cannot make us allocate
 * more than the file's size. */
static size_t get_count(struct rbuf *r, bool wide, size_t min, const char *what)
{
	uint64_t n = wide ? get64(r, what) : get32(r, what);
	if (!r->failed && n > (r->len - r->off) / min) {
		fail(r, "corrupted: %llu %s cannot fit in %zu bytes", (unsigned long long)n, what,
		     r->len - r->off);
		return 0;
	}
	return (size_t)n;
}

static void *alloc_array(struct rbuf *r, size_t n, size_t size)
{
	if (r->failed)
		return NULL;
	void *p = calloc(n ? n : 1, size);
	if (!p)
		fail(r, "out of memory");
	return p;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct pp_sample *x = a, *y = b;
	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->frame != y->frame)
		return x->frame < y->frame ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return 0;
}

void pp_sort_samples(struct pp_process *pr)
{
	for (size_t i = 1; i < pr->nsamples; i++) {
		if (cmp_sample(&pr->samples[i - 1], &pr->samples[i]) > 0) {
			qsort(pr->samples, pr->nsamples, sizeof *pr->samples, cmp_sample);
			return;
		}
	}
}

static void parse_module(struct rbuf *r, struct pp_module *m)
{
	m->path = get_str(r, "module path");
	m->build_id_len = get32(r, "build-id");
	if (!r->failed && m->build_id_len > sizeof m->build_id) {
		fail(r, "corrupted: %u-byte build-id (at most %zu)", m->build_id_len,
		     sizeof m->build_id);
		return;
	}
	const uint8_t *id = take(r, m->build_id_len, "build-id");
	if (id)
		memcpy(m->build_id, id, m->build_id_len);
	m->bias = get64(r, "module");
	m->epoch_loaded = get32(r, "module");
	m->epoch_unloaded = get32(r, "module");
	m->nsegs = get32(r, "module");
	if (!r->failed && m->nsegs > 8) {
		fail(r, "corrupted: module with %u segments (at most 8)", m->nsegs);
		return;
	}
	for (uint32_t k = 0; k < m->nsegs && !r->failed; k++) {
		m->seg[k].vaddr = get64(r, "segment");
		m->seg[k].memsz = get64(r, "segment");
		m->seg[k].offset = get64(r, "segment");
		m->seg[k].flags = get32(r, "segment");
	}
}

static void parse_proc(struct rbuf *r, struct pp_process *pr)
{
	pr->pid = (int32_t)get32(r, "process");
	pr->ppid = (int32_t)get32(r, "process");
	pr->seq = get32(r, "process");
	pr->hz = get32(r, "process");
	pr->end = get32(r, "process");
	pr->exit_status = (int32_t)get32(r, "process");
	pr->start_ns = get64(r, "process");
	pr->end_ns = get64(r, "process");
	pr->cpu_ns = get64(r, "process");
	pr->signals = get64(r, "process");
	pr->ticks = get64(r, "process");
	pr->lost = get64(r, "process");
	pr->mem_bytes = get64(r, "process");
	if (!r->failed && pr->end > PP_END_SIGNAL)
		fail(r, "corrupted: process %d has end code %u", pr->pid, pr->end);
	get_fixed(r, pr->engine, sizeof pr->engine - 1, "engine name");
	pr->exe = get_str(r, "executable path");
	pr->cmdline = get_str(r, "command line");
	pr->why = get_str(r, "engine choice");
	if (r->failed)
		return;

	pr->nmodules = get_count(r, false, MIN_MODULE, "modules");
	pr->modules = alloc_array(r, pr->nmodules, sizeof *pr->modules);
	for (size_t i = 0; i < pr->nmodules && !r->failed; i++)
		parse_module(r, &pr->modules[i]);
	if (r->failed)
		return;

	pr->nthreads = get_count(r, false, MIN_THREAD, "threads");
	pr->threads = alloc_array(r, pr->nthreads, sizeof *pr->threads);
	for (size_t i = 0; i < pr->nthreads && !r->failed; i++) {
		struct pp_thread *t = &pr->threads[i];
		t->tid = (int32_t)get32(r, "thread");
		get_fixed(r, t->name, sizeof t->name - 1, "thread name");
		t->ticks = get64(r, "thread");
	}
	if (r->failed)
		return;

	if (r->version >= 2) {
		pr->nframes = get_count(r, true, FRAME_SIZE, "frames");
		pr->frames = alloc_array(r, pr->nframes, sizeof *pr->frames);
		/* the count fits in the record (get_count): its bytes are taken
		 * at once, not field by field (millions of them) */
		const uint8_t *q = pr->frames ? take(r, pr->nframes * FRAME_SIZE, "frame") : NULL;
		for (size_t i = 0; q && i < pr->nframes; i++, q += FRAME_SIZE) {
			pr->frames[i].pc = rd64(q);
			pr->frames[i].module = rd32(q + 8);
			pr->frames[i].parent = rd32(q + 12);
		}
		if (r->failed)
			return;
	}

	bool v2 = r->version >= 2, v3 = r->version >= 3;
	size_t size = v3 ? SAMPLE_V3 : v2 ? SAMPLE_SIZE : SAMPLE_V1;
	pr->nsamples = get_count(r, true, size, "samples");
	pr->samples = alloc_array(r, pr->nsamples, sizeof *pr->samples);
	const uint8_t *q = pr->samples ? take(r, pr->nsamples * size, "sample") : NULL;
	for (size_t i = 0; q && i < pr->nsamples && !r->failed; i++, q += size) {
		struct pp_sample *s = &pr->samples[i];
		s->pc = rd64(q);
		s->module = rd32(q + 8);
		s->thread = rd32(q + 12);
		s->count = rd64(q + 16);
		s->frame = v2 ? rd32(q + 24) : PP_NO_FRAME;
		s->time = v3 ? rd32(q + 28) : PP_NO_TIME;
		if ((s->module != PP_NO_MODULE && s->module >= pr->nmodules) ||
		    s->thread >= pr->nthreads)
			fail(r, "corrupted: process %d: sample %zu refers to module %u, thread %u",
			     pr->pid, i, s->module, s->thread);
	}
	if (v3) {
		pr->tl_lost = get64(r, "process timeline");
		pr->tl_partial = get32(r, "process timeline");
	}
	/* Appended to version 3 records (2026-11-29): the stop, then the CPU
	 * time without samples by cause; files from before end here.  A
	 * cause this pcprof does not know still counts, as unknown; the
	 * sums saturate. */
	if (v3 && !r->failed && r->off < r->len) {
		pr->stop = get32(r, "process stop");
		pr->stop_ns = get64(r, "process stop");
		if (!r->failed && (pr->stop > PP_STOP_MAX || (!pr->stop && pr->stop_ns) ||
				   pr->stop_ns > pr->cpu_ns))
			fail(r, "corrupted: process %d: stop %u with %llu ns of %llu", pr->pid,
			     pr->stop, (unsigned long long)pr->stop_ns,
			     (unsigned long long)pr->cpu_ns);
		size_t ngap =
			r->failed || r->off == r->len ? 0 : get_count(r, false, GAP_SIZE, "gaps");
		for (size_t i = 0; i < ngap && !r->failed; i++) {
			uint32_t g = get32(r, "gap");
			uint32_t threads = get32(r, "gap");
			uint64_t ns = get64(r, "gap");
			struct pp_gap_part *part = &pr->gap[g < PP_GAP_N ? g : PP_GAP_UNKNOWN];
			part->ns = part->ns > UINT64_MAX - ns ? UINT64_MAX : part->ns + ns;
			part->threads = part->threads > UINT32_MAX - threads
						? UINT32_MAX
						: part->threads + threads;
		}
	}
	if (r->failed)
		return;
	char why[200];
	if (pp_check_stacks(pr, why, sizeof why) < 0)
		fail(r, "corrupted: %s", why);
	else
		pp_sort_samples(pr);
}

/* The body: an INFO record, then PROC records; unknown tags skipped. */
static void parse_body(struct rbuf *body, struct pp_profile *out)
{
	bool have_info = false;
	size_t nproc = 0, want = 0;

	while (!body->failed && body->off < body->len) {
		const uint8_t *tag = take(body, TAG_LEN, "record tag");
		uint64_t n = get64(body, "record length");
		if (body->failed)
			break;
		if (n > body->len - body->off) {
			fail(body,
			     "corrupted: a record of %llu bytes runs past the end of the file",
			     (unsigned long long)n);
			break;
		}
		struct rbuf r = { body->p + body->off, (size_t)n, 0, body->err, body->errlen, false,
				  body->version };
		body->off += (size_t)n;

		if (memcmp(tag, TAG_INFO, TAG_LEN) == 0) {
			if (have_info) {
				fail(body, "corrupted: two INFO records");
				break;
			}
			have_info = true;
			out->command = get_str(&r, "command");
			out->start_ns = get64(&r, "INFO record");
			out->end_ns = get64(&r, "INFO record");
			want = get32(&r, "INFO record");
			if (body->version >= 3)
				out->bucket_ns = get64(&r, "INFO record");
			if (!r.failed && want > (body->len - body->off) / MIN_PROC)
				fail(&r, "corrupted: %zu processes cannot fit in the file", want);
			out->procs = alloc_array(&r, want, sizeof *out->procs);
		} else if (memcmp(tag, TAG_PROC, TAG_LEN) == 0) {
			if (!have_info)
				fail(&r, "corrupted: a process record before the INFO record");
			else if (nproc == want)
				fail(&r, "corrupted: more process records than the %zu announced",
				     want);
			else {
				/* Counted before it is parsed, so that pp_free frees
				 * its parts if parsing fails or a SIGBUS (the file
				 * shrank: pp_read) leaves parse_proc half way; the
				 * process is zeroed (calloc) and filled in order. */
				out->nprocs = ++nproc;
				parse_proc(&r, &out->procs[nproc - 1]);
			}
		}
		body->failed = r.failed;
	}
	if (!body->failed && !have_info)
		fail(body, "corrupted: no INFO record");
	if (!body->failed && nproc != want)
		fail(body, "truncated: %zu of %zu process records", nproc, want);
}

/*
 * The checks that need only the header: what the file is, its version, and
 * whether its size is the one the header announces.  p holds the first
 * min(size, PP_HEADER_SIZE) bytes of a file of size bytes.  pp_read runs
 * them before it maps anything, so that a file that is not ours costs 32
 * bytes of reading whatever its size.
 */
static int check_header(const uint8_t *p, uint64_t size, unsigned flags, char *err, size_t errlen)
{
	if (size == 0) {
		set_err(err, errlen, "empty file");
		return -1;
	}
	if (size >= 9 && memcmp(p, "PCPROFRAW", 9) == 0) {
		set_err(err, errlen, "a raw recording, not a pcprof data file");
		return -1;
	}
	if (size < 8 || memcmp(p, PP_MAGIC, 8) != 0) {
		set_err(err, errlen, "not a pcprof data file (bad magic)");
		return -1;
	}
	if (size < PP_HEADER_SIZE) {
		set_err(err, errlen, "truncated: %llu bytes, shorter than the header",
			(unsigned long long)size);
		return -1;
	}
	if (!(flags & PP_PARSE_NO_CRC) && crc(p, 28) != rd32(p + 28)) {
		set_err(err, errlen, "corrupted: header checksum mismatch");
		return -1;
	}
	uint32_t version = rd32(p + 8);
	if (version > PP_VERSION) {
		set_err(err, errlen,
			"format version %u is newer than this pcprof reads (%d): upgrade pcprof",
			version, PP_VERSION);
		return -1;
	}
	if (version == 0) {
		set_err(err, errlen, "corrupted: format version 0");
		return -1;
	}
	uint64_t body = rd64(p + 16);
	if (body > size - PP_HEADER_SIZE) {
		set_err(err, errlen, "truncated: %llu bytes of %llu", (unsigned long long)size,
			(unsigned long long)body + PP_HEADER_SIZE);
		return -1;
	}
	if (body < size - PP_HEADER_SIZE) {
		set_err(err, errlen, "corrupted: %llu unexpected bytes after the data",
			(unsigned long long)(size - PP_HEADER_SIZE - body));
		return -1;
	}
	return 0;
}

int pp_check_header(const uint8_t *p, uint64_t size, char *err, size_t errlen)
{
	return check_header(p, size, 0, err, errlen);
}

int pp_parse(const void *buf, size_t len, unsigned flags, struct pp_profile *out, char *err,
	     size_t errlen)
{
	const uint8_t *p = buf;
	memset(out, 0, sizeof *out);
	if (check_header(p, len, flags, err, errlen) < 0)
		return -1;
	size_t body = len - PP_HEADER_SIZE;
	if (!(flags & PP_PARSE_NO_CRC) && crc(p + PP_HEADER_SIZE, body) != rd32(p + 24)) {
		set_err(err, errlen, "corrupted: checksum mismatch");
		return -1;
	}

	struct rbuf r = { p + PP_HEADER_SIZE, body, 0, err, errlen, false, rd32(p + 8) };
	parse_body(&r, out);
	char why[200];
	if (!r.failed && pp_check_counts(out, why, sizeof why) < 0)
		fail(&r, "corrupted: %s", why);
	if (r.failed) {
		pp_free(out);
		return -1;
	}
	out->version = r.version;
	return 0;
}

/* Read exactly n bytes at offset off; 0 at the end of the file. */
static ssize_t read_at(int fd, void *buf, size_t n, off_t off)
{
	size_t done = 0;
	while (done < n) {
		ssize_t k = pread(fd, (uint8_t *)buf + done, n - done, off + (off_t)done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		done += (size_t)k;
	}
	return (ssize_t)done;
}

/* A mapped file that shrinks under us raises SIGBUS on the pages it lost:
 * pp_read parses under this handler and reports it as an error. */
static sigjmp_buf *bus_jump;

static void on_sigbus(int sig)
{
	if (!bus_jump) { /* not ours: die of it, as without the handler */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	siglongjmp(*bus_jump, 1);
}

/*
 * The body's checksum, on the other CPU while the mapping is parsed: a
 * tenth of reading a large file.  The thread reads the file with pread, not
 * through the mapping, so that a file that shrinks is a short read here
 * (SIGBUS only ever comes to the parsing thread, whose handler expects it).
 */
#define CRC_THREAD_MIN (1u << 20) /* bodies smaller than this: one thread */

struct crc_job {
	int fd;
	size_t len; /* of the body, which starts at PP_HEADER_SIZE */
	uint32_t crc;
	bool short_read; /* an error, or the file ended early */
	int err;         /* the error (errno), if it was one */
};

static void *crc_job_run(void *arg)
{
	struct crc_job *j = arg;
	size_t chunk = 1u << 20, done = 0;
	uint8_t *buf = malloc(chunk);
	uLong c = crc32(0L, Z_NULL, 0);
	if (!buf)
		j->err = ENOMEM;
	while (buf && done < j->len) {
		size_t n = j->len - done < chunk ? j->len - done : chunk;
		ssize_t k = read_at(j->fd, buf, n, (off_t)(PP_HEADER_SIZE + done));
		if (k < 0)
			j->err = errno;
		if (k != (ssize_t)n)
			break;
		c = crc32(c, buf, (uInt)n);
		done += n;
	}
	free(buf);
	j->short_read = done < j->len;
	j->crc = (uint32_t)c;
	return NULL;
}

/* pp_parse on the file mapped (or, where it cannot be mapped, read). */
static int parse_fd(int fd, size_t size, struct pp_profile *out, char *err, size_t errlen)
{
	void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		uint8_t *buf = malloc(size);
		if (!buf) {
			set_err(err, errlen, "too large to read (%zu bytes)", size);
			return -1;
		}
		ssize_t k = read_at(fd, buf, size, 0);
		int r = -1;
		if (k < 0)
			set_err(err, errlen, "%s", strerror(errno));
		else if ((size_t)k != size)
			set_err(err, errlen, "changed size while being read");
		else
			r = pp_parse(buf, size, 0, out, err, errlen);
		free(buf);
		return r;
	}
	madvise(map, size, MADV_SEQUENTIAL);
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old);
	struct crc_job job = { .fd = fd, .len = size - PP_HEADER_SIZE };
	pthread_t th;
	volatile bool crc_apart =
		job.len >= CRC_THREAD_MIN && pthread_create(&th, NULL, crc_job_run, &job) == 0;
	sigjmp_buf jb;
	int r;
	if (sigsetjmp(jb, 1) == 0) {
		bus_jump = &jb;
		r = pp_parse(map, size, crc_apart ? PP_PARSE_NO_CRC : 0, out, err, errlen);
		if (crc_apart) {
			pthread_join(th, NULL);
			crc_apart = false;
			/* the checksums' verdict first, as pp_parse gives it */
			const uint8_t *p = map;
			const char *bad = NULL;
			/* a read that failed or a file that shrank first: its
			 * header may be gone; an error is not a change of size */
			if (job.err)
				bad = strerror(job.err);
			else if (job.short_read)
				bad = "changed size while being read";
			else if (crc(p, 28) != rd32(p + 28))
				bad = "corrupted: header checksum mismatch";
			else if (job.crc != rd32(p + 24))
				bad = "corrupted: checksum mismatch";
			if (bad) {
				if (r == 0)
					pp_free(out);
				set_err(err, errlen, "%s", bad);
				r = -1;
			}
		}
	} else {
		if (crc_apart)
			pthread_join(th, NULL);
		/* what pp_parse had built is freed (a string it was copying
		 * leaks) */
		pp_free(out);
		set_err(err, errlen, "changed size while being read");
		r = -1;
	}
	bus_jump = NULL;
	sigaction(SIGBUS, &old, NULL);
	munmap(map, size);
	return r;
}

int pp_read(const char *path, struct pp_profile *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	/* O_NONBLOCK: a FIFO must not hang us before fstat says what it is. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		set_err(err, errlen, "%s", strerror(errno));
		return -1;
	}
	struct stat st;
	uint8_t head[PP_HEADER_SIZE];
	ssize_t k;
	int r = -1;
	if (fstat(fd, &st) < 0)
		set_err(err, errlen, "%s", strerror(errno));
	else if (!S_ISREG(st.st_mode))
		set_err(err, errlen, S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
	else if ((k = read_at(fd, head, sizeof head, 0)) < 0)
		set_err(err, errlen, "%s", strerror(errno));
	else if ((uint64_t)k < sizeof head && (uint64_t)k != (uint64_t)st.st_size)
		set_err(err, errlen, "changed size while being read");
	/* the file is ours, whole, before a byte more is read or mapped */
	else if (check_header(head, (uint64_t)st.st_size, 0, err, errlen) < 0)
		;
	else if ((uint64_t)st.st_size > SIZE_MAX)
		set_err(err, errlen, "too large");
	else
		r = parse_fd(fd, (size_t)st.st_size, out, err, errlen);
	close(fd);
	return r;
}

void pp_process_free(struct pp_process *pr)
{
	free(pr->exe);
	free(pr->cmdline);
	free(pr->why);
	for (size_t i = 0; pr->modules && i < pr->nmodules; i++)
		free(pr->modules[i].path);
	free(pr->modules);
	free(pr->threads);
	free(pr->frames);
	free(pr->samples);
	memset(pr, 0, sizeof *pr);
}

void pp_free(struct pp_profile *p)
{
	for (size_t i = 0; p->procs && i < p->nprocs; i++)
		pp_process_free(&p->procs[i]);
	free(p->procs);
	free(p->command);
	memset(p, 0, sizeof *p);
}

/* ---- stacks ---------------------------------------------------------------- */

int pp_check_stacks(const struct pp_process *pr, char *err, size_t errlen)
{
	for (size_t i = 0; i < pr->nframes; i++) {
		const struct pp_frame *f = &pr->frames[i];
		if (f->parent != PP_NO_FRAME && f->parent >= i) {
			set_err(err, errlen,
				"process %d: frame %zu has parent %u (parents come first)", pr->pid,
				i, f->parent);
			return -1;
		}
		if (f->module != PP_NO_MODULE && f->module >= pr->nmodules) {
			set_err(err, errlen, "process %d: frame %zu: module %u out of range",
				pr->pid, i, f->module);
			return -1;
		}
		if (PCPROF_FRAME_IS_MARKER(f->pc) && f->module != PP_NO_MODULE) {
			set_err(err, errlen, "process %d: frame %zu: marker %#llx in module %u",
				pr->pid, i, (unsigned long long)f->pc, f->module);
			return -1;
		}
	}
	for (size_t i = 0; i < pr->nsamples; i++) {
		const struct pp_sample *s = &pr->samples[i];
		if (s->frame == PP_NO_FRAME)
			continue;
		if (s->frame >= pr->nframes) {
			set_err(err, errlen, "process %d: sample %zu: frame %u out of range",
				pr->pid, i, s->frame);
			return -1;
		}
		const struct pp_frame *f = &pr->frames[s->frame];
		if (f->pc != s->pc || f->module != s->module) {
			set_err(err, errlen,
				"process %d: sample %zu: leaf frame %u is not at the sample's pc",
				pr->pid, i, s->frame);
			return -1;
		}
	}
	return 0;
}

/* ---- counts ---------------------------------------------------------------- */

/* *sum + v, unless that passes max (the sum is then left as it was). */
static bool add_within(uint64_t *sum, uint64_t v, uint64_t max)
{
	if (v > max || *sum > max - v)
		return false;
	*sum += v;
	return true;
}

int pp_sums_add(struct pp_sums *sum, const struct pp_process *pr, char *err, size_t errlen)
{
	struct pp_sums s = *sum;
	const char *what = NULL;
	for (size_t i = 0; i < pr->nsamples && !what; i++)
		if (!add_within(&s.samples, pr->samples[i].count, PP_TICKS_MAX))
			what = "sample counts";
	for (size_t i = 0; i < pr->nthreads && !what; i++)
		if (!add_within(&s.threads, pr->threads[i].ticks, PP_TICKS_MAX))
			what = "thread ticks";
	if (!what && !add_within(&s.ticks, pr->ticks, PP_TICKS_MAX))
		what = "process ticks";
	if (!what && !add_within(&s.signals, pr->signals, PP_TICKS_MAX))
		what = "process signals";
	if (!what && !add_within(&s.lost, pr->lost, PP_TICKS_MAX))
		what = "lost ticks";
	if (!what && !add_within(&s.tl_lost, pr->tl_lost, PP_TICKS_MAX))
		what = "untimed ticks";
	if (!what && !add_within(&s.cpu_ns, pr->cpu_ns, PP_NS_MAX))
		what = "CPU times";
	if (what) {
		set_err(err, errlen, "process %d: the %s add up to more than %s", pr->pid, what,
			strcmp(what, "CPU times") == 0 ? "2^62 ns" : "2^53");
		return -1;
	}
	*sum = s;
	return 0;
}

int pp_check_counts(const struct pp_profile *p, char *err, size_t errlen)
{
	struct pp_sums sum = { 0 };
	for (size_t i = 0; i < p->nprocs; i++)
		if (pp_sums_add(&sum, &p->procs[i], err, errlen) < 0)
			return -1;
	return 0;
}

/* ---- lookups --------------------------------------------------------------- */

static bool live_at(const struct pp_module *m, uint32_t epoch)
{
	return m->epoch_loaded <= epoch && (m->epoch_unloaded == 0 || epoch < m->epoch_unloaded);
}

bool pp_module_holds(const struct pp_module *m, uint64_t pc)
{
	uint64_t link = pc - m->bias;
	for (uint32_t k = 0; k < m->nsegs && k < 8; k++)
		if (link - m->seg[k].vaddr < m->seg[k].memsz)
			return true;
	return false;
}

uint32_t pp_find_module(const struct pp_process *proc, uint64_t pc, uint32_t epoch)
{
	for (size_t i = 0; i < proc->nmodules; i++)
		if (live_at(&proc->modules[i], epoch) && pp_module_holds(&proc->modules[i], pc))
			return (uint32_t)i;
	return PP_NO_MODULE;
}
