/*
 * mkcrafted.c - hostile but well-formed input files for the tests of
 * pcprof's readers (not a test itself: the t-*.sh scripts run it).  It has
 * an encoder of its own, written from docs/formats.md, so that it can write
 * what pcprof's encoder (cli/data.c) refuses: counts beyond what a reader
 * accepts, stacks of any depth, archive members of any size.
 *
 *   mkcrafted counts FILE COUNT N
 *       A data file of one process and one thread whose one function has
 *       N samples of COUNT ticks each (in time buckets 1..N); the process's
 *       and the thread's ticks are their sum, wrapped to 64 bits.  COUNT
 *       2^63 and N 6 make sums that wrap to 0 three times.
 *   mkcrafted deep FILE DEPTH
 *       A data file of one process whose one stack is DEPTH frames deep,
 *       each frame a function of its own (in /nonexistent/deep.so, so
 *       "deep.so+0x..." labels), with 3 samples at its leaf and 1 at the
 *       frame halfway down.
 *   mkcrafted funcs FILE N
 *       A data file of one process whose N frames form a random call tree
 *       (each frame's caller a uniformly chosen earlier one, 1% roots), each
 *       frame a function of its own in /nonexistent/funcs.so, with a stack
 *       sample of 1 to 4 samples at each: N functions with callers and
 *       callees, for --callers '*'.
 *   mkcrafted flat FILE N
 *       The same with every frame a root: N functions, no calls.
 *   mkcrafted arbomb FILE SIZE
 *       A pcprof archive whose recording samples /nonexistent/bomb.so and
 *       whose member for that module (by build id) is SIZE bytes of zeros,
 *       their crc and size declared as they are: a deflate bomb (1 MiB of
 *       zeros is about 1 KiB of stream).
 *   mkcrafted ardata FILE SIZE
 *       A pcprof archive whose recording member is SIZE bytes of zeros,
 *       declared as they are.
 * SIZE may end in K, M or G.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---- a growing buffer of little-endian fields ---- */

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *src, size_t n)
{
	if (b->cap - b->len < n) {
		while (b->cap - b->len < n)
			b->cap = b->cap ? 2 * b->cap : 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			fprintf(stderr, "mkcrafted: out of memory\n");
			exit(1);
		}
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

static void u32(struct buf *b, uint32_t v)
{
	uint8_t x[4];
	for (int i = 0; i < 4; i++)
		x[i] = (uint8_t)(v >> 8 * i);
	put(b, x, 4);
}

static void u64(struct buf *b, uint64_t v)
{
	u32(b, (uint32_t)v);
	u32(b, (uint32_t)(v >> 32));
}

static void str(struct buf *b, const char *s)
{
	u32(b, (uint32_t)strlen(s));
	put(b, s, strlen(s));
}

static void patch64(struct buf *b, size_t at, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b->p[at + (size_t)i] = (uint8_t)(v >> 8 * i);
}

static void patch32(struct buf *b, size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b->p[at + (size_t)i] = (uint8_t)(v >> 8 * i);
}

/* ---- pcprof.data, version 3 ---- */

struct frame {
	uint64_t pc;
	uint32_t parent;
};

struct sample {
	uint64_t pc, count;
	uint32_t frame, time;
};

#define NONE UINT32_MAX

/* One process (pid 4242, one thread, one module at path with the build
 * id id of idlen bytes, text at link-time 0x1000 and 256 MiB long, bias
 * 0x10000000), its frames and samples (sorted by the caller as the
 * format wants: by pc, then frame, then time). */
static void data_file(struct buf *b, const char *path, const uint8_t *id, uint32_t idlen,
		      const struct frame *fr, size_t nfr, const struct sample *s, size_t ns)
{
	const uint64_t bias = 0x10000000;
	put(b, "\x89PCPROF\n", 8);
	u32(b, 3);
	u32(b, 0);
	u64(b, 0); /* body size, patched */
	u32(b, 0); /* body crc, patched */
	u32(b, 0); /* header crc, patched */
	put(b, "INFO", 4);
	size_t at = b->len;
	u64(b, 0);
	str(b, "mkcrafted");
	u64(b, 1700000000000000000ull);
	u64(b, 1700000001000000000ull);
	u32(b, 1);
	u64(b, 10000000);
	patch64(b, at, b->len - at - 8);

	put(b, "PROC", 4);
	at = b->len;
	u64(b, 0);
	uint64_t ticks = 0;
	for (size_t i = 0; i < ns; i++)
		ticks += s[i].count; /* may wrap: the file says what it says */
	u32(b, 4242);                          /* pid */
	u32(b, 1);                             /* ppid */
	u32(b, 0);                             /* seq */
	u32(b, 1000);                          /* hz */
	u32(b, 1);                             /* end: exit */
	u32(b, 0);                             /* exit status */
	u64(b, 1700000000000000000ull);        /* start */
	u64(b, 1700000001000000000ull);        /* end */
	u64(b, 1000000000ull);                 /* cpu_ns */
	u64(b, ns);                            /* signals */
	u64(b, ticks);                         /* ticks */
	u64(b, 0);                             /* lost */
	u64(b, 4096);                          /* mem_bytes */
	str(b, "thread-timer");                /* engine */
	str(b, path);                          /* exe */
	str(b, "mkcrafted");                   /* cmdline */
	str(b, "crafted");                     /* why */
	u32(b, 1);                             /* modules */
	str(b, path);
	u32(b, idlen);
	put(b, id, idlen);
	u64(b, bias);
	u32(b, 0);
	u32(b, 0);
	u32(b, 1);
	u64(b, 0x1000);
	u64(b, 256u << 20);
	u64(b, 0x1000);
	u32(b, 5);
	u32(b, 1); /* threads */
	u32(b, 4242);
	str(b, "crafted");
	u64(b, ticks);
	u64(b, nfr);
	for (size_t i = 0; i < nfr; i++) {
		u64(b, bias + fr[i].pc);
		u32(b, 0);
		u32(b, fr[i].parent);
	}
	u64(b, ns);
	for (size_t i = 0; i < ns; i++) {
		u64(b, bias + s[i].pc);
		u32(b, 0);
		u32(b, 0);
		u64(b, s[i].count);
		u32(b, s[i].frame);
		u32(b, s[i].time);
	}
	u64(b, 0); /* tl_lost */
	u32(b, 0); /* tl_partial */
	patch64(b, at, b->len - at - 8);

	patch64(b, 16, b->len - 32);
	patch32(b, 24, (uint32_t)crc32(0, b->p + 32, (uInt)(b->len - 32)));
	patch32(b, 28, (uint32_t)crc32(0, b->p, 28));
}

static int save(const char *file, const struct buf *b)
{
	FILE *f = fopen(file, "wb");
	if (!f || fwrite(b->p, 1, b->len, f) != b->len || fclose(f) != 0) {
		fprintf(stderr, "mkcrafted: %s: %s\n", file, strerror(errno));
		return 1;
	}
	return 0;
}

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static int counts(const char *file, uint64_t count, size_t n)
{
	struct sample *s = calloc(n, sizeof *s);
	for (size_t i = 0; i < n; i++)
		s[i] = (struct sample){ 0x1100, count, NONE, (uint32_t)(i + 1) };
	struct buf b = { 0 };
	data_file(&b, "/nonexistent/counts.so", NULL, 0, NULL, 0, s, n);
	free(s);
	return save(file, &b);
}

static int deep(const char *file, size_t depth)
{
	struct frame *fr = calloc(depth, sizeof *fr);
	for (size_t i = 0; i < depth; i++)
		fr[i] = (struct frame){ 0x1000 + 16 * i, i ? (uint32_t)(i - 1) : NONE };
	/* sorted by pc: the middle frame's pc is below the leaf's */
	struct sample s[2] = {
		{ fr[depth / 2].pc, 1, (uint32_t)(depth / 2), 1 },
		{ fr[depth - 1].pc, 3, (uint32_t)(depth - 1), 1 },
	};
	struct buf b = { 0 };
	data_file(&b, "/nonexistent/deep.so", NULL, 0, fr, depth, depth > 1 ? s : s + 1,
		  depth > 1 ? 2 : 1);
	free(fr);
	return save(file, &b);
}

static int funcs(const char *file, size_t n, bool flat)
{
	struct frame *fr = calloc(n, sizeof *fr);
	struct sample *s = calloc(n, sizeof *s);
	for (size_t i = 0; i < n; i++) {
		uint64_t x = rnd();
		uint32_t parent = flat || i == 0 || x % 100 == 0 ? NONE : (uint32_t)((x >> 8) % i);
		fr[i] = (struct frame){ 0x1000 + 16 * i, parent };
		s[i] = (struct sample){ fr[i].pc, 1 + (x >> 40) % 4, (uint32_t)i, 1 };
	}
	struct buf b = { 0 };
	data_file(&b, "/nonexistent/funcs.so", NULL, 0, fr, n, s, n);
	free(fr);
	free(s);
	return save(file, &b);
}

/* ---- pcprof archive ---- */

/* A zlib stream of size bytes of zeros (or of the bytes at src, when
 * given) appended to b; their crc into *crc. */
static void deflate_into(struct buf *b, const uint8_t *src, uint64_t size, uint32_t *crc)
{
	static uint8_t zero[1 << 20], out[1 << 16];
	z_stream z = { 0 };
	deflateInit(&z, 9);
	*crc = (uint32_t)crc32(0, NULL, 0);
	uint64_t left = size;
	int flush;
	do {
		size_t k = left < sizeof zero ? (size_t)left : sizeof zero;
		const uint8_t *in = src ? src + (size - left) : zero;
		*crc = (uint32_t)crc32(*crc, in, (uInt)k);
		left -= k;
		flush = left ? Z_NO_FLUSH : Z_FINISH;
		z.next_in = (Bytef *)in;
		z.avail_in = (uInt)k;
		do {
			z.next_out = out;
			z.avail_out = sizeof out;
			deflate(&z, flush);
			put(b, out, sizeof out - z.avail_out);
		} while (z.avail_out == 0);
	} while (flush != Z_FINISH);
	deflateEnd(&z);
}

struct member {
	uint32_t kind;
	const uint8_t *id;
	uint32_t idlen;
	const char *path;
	const uint8_t *src; /* NULL: zeros */
	uint64_t size;
};

static int archive(const char *file, const struct member *m, size_t n)
{
	struct buf b = { 0 }, toc = { 0 };
	put(&b, "\x89PCPRAR\n", 8);
	u32(&b, 1);
	u32(&b, 0);
	for (size_t i = 0; i < n; i++) {
		uint64_t offset = b.len;
		uint32_t crc;
		deflate_into(&b, m[i].src, m[i].size, &crc);
		u32(&toc, m[i].kind);
		u32(&toc, m[i].idlen);
		u32(&toc, (uint32_t)strlen(m[i].path));
		u32(&toc, crc);
		u64(&toc, offset);
		u64(&toc, b.len - offset);
		u64(&toc, m[i].size);
		put(&toc, m[i].id, m[i].idlen);
		put(&toc, m[i].path, strlen(m[i].path));
	}
	uint64_t at = b.len;
	put(&b, toc.p, toc.len);
	u64(&b, at);
	u32(&b, (uint32_t)n);
	u32(&b, (uint32_t)crc32(0, toc.p, (uInt)toc.len));
	put(&b, "\x89PCPEND\n", 8);
	return save(file, &b);
}

static const uint8_t bomb_id[20] = { 0xb0, 0x4b, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
				     15, 16, 17, 18 };

static int arbomb(const char *file, uint64_t size)
{
	struct frame fr = { 0x1100, NONE };
	struct sample s = { 0x1100, 10, 0, 1 };
	struct buf d = { 0 };
	data_file(&d, "/nonexistent/bomb.so", bomb_id, sizeof bomb_id, &fr, 1, &s, 1);
	struct member m[2] = {
		{ 1, NULL, 0, "bomb.data", d.p, d.len },
		{ 2, bomb_id, sizeof bomb_id, "/nonexistent/bomb.so", NULL, size },
	};
	return archive(file, m, 2);
}

static int ardata(const char *file, uint64_t size)
{
	struct member m = { 1, NULL, 0, "bomb.data", NULL, size };
	return archive(file, &m, 1);
}

static uint64_t size_arg(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 10);
	switch (*end) {
	case 'G':
		v <<= 10; /* fall through */
	case 'M':
		v <<= 10; /* fall through */
	case 'K':
		v <<= 10;
		end++;
	}
	if (*end || end == s) {
		fprintf(stderr, "mkcrafted: bad size '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "counts") == 0)
		return counts(argv[2], size_arg(argv[3]), (size_t)size_arg(argv[4]));
	if (argc == 4 && strcmp(argv[1], "deep") == 0 && size_arg(argv[3]))
		return deep(argv[2], (size_t)size_arg(argv[3]));
	if (argc == 4 && strcmp(argv[1], "funcs") == 0 && size_arg(argv[3]))
		return funcs(argv[2], (size_t)size_arg(argv[3]), false);
	if (argc == 4 && strcmp(argv[1], "flat") == 0 && size_arg(argv[3]))
		return funcs(argv[2], (size_t)size_arg(argv[3]), true);
	if (argc == 4 && strcmp(argv[1], "arbomb") == 0)
		return arbomb(argv[2], size_arg(argv[3]));
	if (argc == 4 && strcmp(argv[1], "ardata") == 0)
		return ardata(argv[2], size_arg(argv[3]));
	fprintf(stderr, "usage: mkcrafted counts FILE COUNT N | deep|funcs|flat|arbomb|ardata FILE N\n");
	return 2;
}
