/*
 * archive.c - the pcprof archive container, as cli/archive.h lays it out:
 * reading (for report and export, through archive_read_profile) and
 * writing (for pcprof archive).
 *
 * A member is unpacked into an anonymous file (memfd) when symbolization
 * first asks for it, because libdwfl reads ELF files from a descriptor;
 * nothing is written to disk.  Every number read from the file is checked
 * against the file's size before it is used, and a member's contents
 * against its size and crc32 as they are unpacked.
 */
#include "archive.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "data.h"
#include "util.h"

struct member {
	uint32_t kind;
	uint32_t idlen;
	uint8_t id[40];
	char *path;
	uint32_t crc;
	uint64_t offset, stored, size;
	bool bad;  /* failed its check once: never again */
	bool bomb; /* declares more than it may unpack to (archive.h) */
};

struct archive {
	char *name;
	const uint8_t *map;
	size_t len;
	struct member *m;
	size_t n;
	struct archive *next;
};

static struct archive *loaded;

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
	return get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

static void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
	put_u32(p, (uint32_t)v);
	put_u32(p + 4, (uint32_t)(v >> 32));
}

bool archive_is(const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	char head[8];
	struct stat st;
	bool r = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		 pread(fd, head, sizeof head, 0) == (ssize_t)sizeof head &&
		 memcmp(head, AR_MAGIC, 8) == 0;
	close(fd);
	return r;
}

/* The table of the archive mapped at a->map: 0, or -1 with err set. */
static int parse_table(struct archive *a, char *err, size_t errlen)
{
	const uint8_t *p = a->map;
	size_t len = a->len;
	if (len < AR_HEADER_SIZE + AR_TRAILER_SIZE || memcmp(p, AR_MAGIC, 8) != 0) {
		set_err(err, errlen, "not a pcprof archive (too short)");
		return -1;
	}
	if (get_u32(p + 8) != AR_VERSION) {
		set_err(err, errlen, "archive version %u (this pcprof reads %u)", get_u32(p + 8),
			AR_VERSION);
		return -1;
	}
	const uint8_t *t = p + len - AR_TRAILER_SIZE;
	if (memcmp(t + 16, AR_END_MAGIC, 8) != 0) {
		set_err(err, errlen, "truncated archive (no trailer)");
		return -1;
	}
	uint64_t toc = get_u64(t);
	uint32_t n = get_u32(t + 8);
	if (toc < AR_HEADER_SIZE || toc > len - AR_TRAILER_SIZE ||
	    n > (len - AR_TRAILER_SIZE - toc) / AR_ENTRY_SIZE) {
		set_err(err, errlen, "corrupted archive (table at %llu, %u entries)",
			(unsigned long long)toc, n);
		return -1;
	}
	size_t tlen = len - AR_TRAILER_SIZE - (size_t)toc;
	if ((uint32_t)crc32(0, p + toc, (uInt)tlen) != get_u32(t + 12)) {
		set_err(err, errlen, "corrupted archive (table checksum)");
		return -1;
	}
	a->m = xcalloc(n ? n : 1, sizeof *a->m);
	const uint8_t *e = p + toc, *end = p + len - AR_TRAILER_SIZE;
	for (uint32_t i = 0; i < n; i++) {
		struct member *m = &a->m[a->n];
		if ((size_t)(end - e) < AR_ENTRY_SIZE)
			goto corrupt;
		m->kind = get_u32(e);
		m->idlen = get_u32(e + 4);
		uint32_t plen = get_u32(e + 8);
		m->crc = get_u32(e + 12);
		m->offset = get_u64(e + 16);
		m->stored = get_u64(e + 24);
		m->size = get_u64(e + 32);
		e += AR_ENTRY_SIZE;
		if (m->kind < AR_DATA || m->kind > AR_DEBUG || m->idlen > sizeof m->id ||
		    plen > 4096 || (size_t)(end - e) < (size_t)m->idlen + plen ||
		    m->offset < AR_HEADER_SIZE || m->offset > toc || m->stored > toc - m->offset)
			goto corrupt;
		m->bomb = m->size > AR_SMALL && (m->size - AR_SMALL) / AR_RATIO > m->stored;
		memcpy(m->id, e, m->idlen);
		m->path = xmalloc(plen + 1);
		memcpy(m->path, e + m->idlen, plen);
		m->path[plen] = '\0';
		e += m->idlen + plen;
		a->n++;
		if (strlen(m->path) != plen)
			goto corrupt;
	}
	return 0;
corrupt:
	set_err(err, errlen, "corrupted archive (table entry %zu)", a->n);
	return -1;
}

/* Why member m is not unpacked, or NULL: it declares more than a member
 * may unpack to (archive.h). */
static const char *bomb_text(const struct member *m, char *buf, size_t len)
{
	if (!m->bomb)
		return NULL;
	snprintf(buf, len,
		 "%s declares %llu bytes unpacked from %llu stored, more than %u MiB and %u "
		 "times that (a deflate bomb?): not unpacked",
		 m->path, (unsigned long long)m->size, (unsigned long long)m->stored,
		 AR_SMALL >> 20, AR_RATIO);
	return buf;
}

/*
 * Unpack member m into fd (a memfd) or, fd -1, into a malloc'd buffer
 * (*buf); never more than the size its entry declares, which the table's
 * check bounded (bomb).  head, if given, judges the first min(size, 32)
 * bytes before anything else is allocated or unpacked (a recording's
 * header, pp_check_header).  0, or -1 with err set.
 */
static int unpack(const struct archive *a, const struct member *m, int fd, uint8_t **buf,
		  int (*head)(const uint8_t *p, uint64_t size, char *err, size_t errlen), char *err,
		  size_t errlen)
{
	if (bomb_text(m, err, errlen))
		return -1;
	z_stream z = { 0 };
	if (inflateInit(&z) != Z_OK) {
		set_err(err, errlen, "zlib: cannot start");
		return -1;
	}
	uint8_t chunk[1 << 16];
	uint8_t *out = NULL;
	z.next_in = (Bytef *)(a->map + m->offset);
	uint64_t in_left = m->stored, got = 0;
	uint32_t crc = 0;
	int zr = Z_OK;
	/* The head: at most 32 bytes out, however much goes in for them. */
	size_t nhead = head ? (m->size < 32 ? (size_t)m->size : 32) : 0;
	z.next_out = chunk;
	z.avail_out = (uInt)nhead;
	while (z.avail_out && zr == Z_OK) {
		if (z.avail_in == 0 && in_left == 0)
			break;
		if (z.avail_in == 0) {
			z.avail_in = in_left > (1u << 30) ? (1u << 30) : (uInt)in_left;
			in_left -= z.avail_in;
		}
		zr = inflate(&z, Z_NO_FLUSH);
	}
	got = nhead - z.avail_out;
	if (got == nhead && (zr == Z_OK || zr == Z_STREAM_END) && head &&
	    head(chunk, m->size, err, errlen) != 0) {
		inflateEnd(&z);
		char why[256];
		snprintf(why, sizeof why, "%s", err);
		set_err(err, errlen, "its recording %s: %s", m->path, why);
		return -1;
	}
	if (fd < 0) {
		if (m->size > SIZE_MAX - 1 || !(out = malloc((size_t)m->size + 1))) {
			inflateEnd(&z);
			set_err(err, errlen, "%s: too large to unpack (%llu bytes)", m->path,
				(unsigned long long)m->size);
			return -1;
		}
	}
	crc = (uint32_t)crc32(crc, chunk, (uInt)got);
	if (out)
		memcpy(out, chunk, got);
	else if (got && write(fd, chunk, got) != (ssize_t)got) {
		inflateEnd(&z);
		set_err(err, errlen, "cannot unpack %s: %s", m->path, strerror(errno));
		return -1;
	}
	if (zr != Z_OK && zr != Z_STREAM_END)
		zr = Z_DATA_ERROR;
	while (zr == Z_OK) {
		if (z.avail_in == 0) {
			if (in_left == 0)
				break;
			z.avail_in = in_left > (1u << 30) ? (1u << 30) : (uInt)in_left;
			in_left -= z.avail_in;
		}
		z.next_out = chunk;
		z.avail_out = sizeof chunk;
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END)
			break;
		size_t k = sizeof chunk - z.avail_out;
		/* (the data beyond the declared size is not written: the
		 * loop stops at the first chunk that would pass it) */
		if (k > m->size - got) {
			zr = Z_DATA_ERROR;
			break;
		}
		crc = (uint32_t)crc32(crc, chunk, (uInt)k);
		if (out)
			memcpy(out + got, chunk, k);
		else if (k && write(fd, chunk, k) != (ssize_t)k) {
			inflateEnd(&z);
			set_err(err, errlen, "cannot unpack %s: %s", m->path, strerror(errno));
			return -1;
		}
		got += k;
	}
	inflateEnd(&z);
	if (zr != Z_STREAM_END || got != m->size || crc != m->crc) {
		free(out);
		set_err(err, errlen, "corrupted archive member %s (%s)", m->path,
			zr != Z_STREAM_END ? "bad compressed data" : "size or checksum");
		return -1;
	}
	if (buf)
		*buf = out;
	return 0;
}

static void archive_free(struct archive *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->m[i].path);
	free(a->m);
	if (a->map)
		munmap((void *)a->map, a->len);
	free(a->name);
	free(a);
}

int archive_read_profile(const char *file, struct pp_profile *out, char *err, size_t errlen)
{
	if (!archive_is(file))
		return pp_read(file, out, err, errlen);
	memset(out, 0, sizeof *out);
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		set_err(err, errlen, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	struct archive *a = xcalloc(1, sizeof *a);
	a->name = xstrdup(file);
	a->len = (size_t)st.st_size;
	void *map = mmap(NULL, a->len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		set_err(err, errlen, "%s", strerror(errno));
		archive_free(a);
		return -1;
	}
	a->map = map;
	if (parse_table(a, err, errlen) != 0) {
		archive_free(a);
		return -1;
	}
	const struct member *data = NULL;
	for (size_t i = 0; i < a->n; i++)
		if (a->m[i].kind == AR_DATA) {
			if (data) {
				set_err(err, errlen, "corrupted archive (two recordings)");
				archive_free(a);
				return -1;
			}
			data = &a->m[i];
		}
	uint8_t *buf = NULL;
	if (!data)
		set_err(err, errlen, "corrupted archive (no recording in it)");
	if (!data || unpack(a, data, -1, &buf, pp_check_header, err, errlen) != 0 ||
	    pp_parse(buf, (size_t)data->size, 0, out, err, errlen) != 0) {
		free(buf);
		archive_free(a);
		return -1;
	}
	free(buf);
	a->next = loaded;
	loaded = a;
	return 0;
}

int archive_open_member(enum ar_kind kind, const char *path, const uint8_t *id, uint32_t idlen,
			char **where)
{
	*where = NULL;
	for (struct archive *a = loaded; a; a = a->next) {
		for (size_t i = 0; i < a->n; i++) {
			struct member *m = &a->m[i];
			if (m->kind != (uint32_t)kind || m->bad ||
			    (idlen ? m->idlen != idlen || memcmp(m->id, id, idlen) != 0
				   : m->idlen != 0 || strcmp(m->path, path) != 0))
				continue;
			char err[512];
			if (bomb_text(m, err, sizeof err)) {
				warnx_("warning: %s: %s; its symbols come from a file with the "
				       "same "
				       "build id on this system instead, if there is one (else a "
				       "warning below says it lost them)",
				       a->name, err);
				m->bad = true;
				continue;
			}
			int fd = memfd_create("pcprof-archive", MFD_CLOEXEC);
			if (fd < 0) {
				warnx_("%s: cannot unpack %s: %s", a->name, m->path,
				       strerror(errno));
				return -1;
			}
			if (unpack(a, m, fd, NULL, NULL, err, sizeof err) != 0) {
				/* Not fatal: the samples are all there, and the
				 * file is looked for on this system by the same
				 * build id, never another build's; if none is
				 * found the symtab's "lost its symbols" warning
				 * follows. */
				warnx_("warning: %s: %s: not used; its symbols come from a file "
				       "with the same build id on this system instead, if there "
				       "is one (else a warning below says it lost them)",
				       a->name, err);
				m->bad = true;
				close(fd);
				continue;
			}
			if (asprintf(where, "%s(%s)", a->name, m->path) < 0)
				die(2, "out of memory");
			return fd;
		}
	}
	return -1;
}

const char *archive_names(void)
{
	static char *text;
	free(text);
	struct membuf mb;
	FILE *f = membuf_open(&mb);
	for (struct archive *a = loaded; a; a = a->next)
		fprintf(f, "%sthe archive %s", a == loaded ? "" : ", ", a->name);
	text = membuf_close(&mb);
	return text;
}

/* ---- writing --------------------------------------------------------------- */

struct ar_writer {
	FILE *f;
	uint64_t at; /* bytes written */
	struct membuf toc;
	FILE *t;
	uint32_t n;
};

struct ar_writer *ar_writer_begin(FILE *f)
{
	struct ar_writer *w = xcalloc(1, sizeof *w);
	w->f = f;
	uint8_t h[AR_HEADER_SIZE] = { 0 };
	memcpy(h, AR_MAGIC, 8);
	put_u32(h + 8, AR_VERSION);
	fwrite(h, 1, sizeof h, f);
	w->at = sizeof h;
	w->t = membuf_open(&w->toc);
	return w;
}

int ar_writer_add(struct ar_writer *w, enum ar_kind kind, const char *path, const uint8_t *id,
		  uint32_t idlen, int fd, char *err, size_t errlen)
{
	z_stream z = { 0 };
	/* level 6, zlib's default: debug files shrink to a third, and 9
	 * took twice as long for a few percent */
	if (deflateInit(&z, 6) != Z_OK) {
		set_err(err, errlen, "zlib: cannot start");
		return -1;
	}
	uint8_t in[1 << 16], out[1 << 16];
	uint64_t offset = w->at, size = 0, stored = 0;
	uint32_t crc = 0;
	off_t pos = 0;
	int flush = Z_NO_FLUSH;
	int strategy = Z_DEFAULT_STRATEGY;
	while (flush != Z_FINISH) {
		ssize_t k = pread(fd, in, sizeof in, pos);
		if (k < 0) {
			deflateEnd(&z);
			set_err(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
		/*
		 * A reader unpacks at most AR_SMALL + AR_RATIO x stored bytes
		 * of a member (archive.h).  So a chunk is coded as usual only
		 * while the member stays within half of that whatever the
		 * chunk packs to, else with Huffman codes alone (at least a
		 * bit a byte): every chunk of those adds at most 8 times its
		 * output, and the member ends within the bound.  The deflate
		 * output lags its input, which only makes Huffman codes come
		 * sooner; each switch flushes it.
		 */
		int want =
			size + sizeof in > AR_SMALL / 2 &&
					(size + sizeof in - AR_SMALL / 2) / (AR_RATIO / 2) > stored
				? Z_HUFFMAN_ONLY
				: Z_DEFAULT_STRATEGY;
		for (int r = Z_BUF_ERROR; want != strategy && r == Z_BUF_ERROR;) {
			z.next_out = out;
			z.avail_out = sizeof out;
			r = deflateParams(&z, 6, want);
			size_t n = sizeof out - z.avail_out;
			fwrite(out, 1, n, w->f);
			stored += n;
			if (r == Z_OK)
				strategy = want;
		}
		pos += k;
		size += (uint64_t)k;
		crc = (uint32_t)crc32(crc, in, (uInt)k);
		flush = k == 0 ? Z_FINISH : Z_NO_FLUSH;
		z.next_in = in;
		z.avail_in = (uInt)k;
		do {
			z.next_out = out;
			z.avail_out = sizeof out;
			deflate(&z, flush);
			size_t n = sizeof out - z.avail_out;
			fwrite(out, 1, n, w->f);
			stored += n;
		} while (z.avail_out == 0);
	}
	deflateEnd(&z);
	w->at += stored;
	uint8_t e[AR_ENTRY_SIZE];
	size_t plen = strlen(path);
	put_u32(e, kind);
	put_u32(e + 4, idlen);
	put_u32(e + 8, (uint32_t)plen);
	put_u32(e + 12, crc);
	put_u64(e + 16, offset);
	put_u64(e + 24, stored);
	put_u64(e + 32, size);
	fwrite(e, 1, sizeof e, w->t);
	fwrite(id, 1, idlen, w->t);
	fwrite(path, 1, plen, w->t);
	w->n++;
	return 0;
}

void ar_writer_end(struct ar_writer *w, uint64_t *size)
{
	char *toc = membuf_close(&w->toc);
	size_t tlen = w->toc.len;
	fwrite(toc, 1, tlen, w->f);
	uint8_t t[AR_TRAILER_SIZE];
	put_u64(t, w->at);
	put_u32(t + 8, w->n);
	put_u32(t + 12, (uint32_t)crc32(0, (const Bytef *)toc, (uInt)tlen));
	memcpy(t + 16, AR_END_MAGIC, 8);
	fwrite(t, 1, sizeof t, w->f);
	*size = w->at + tlen + sizeof t;
	free(toc);
	free(w);
}
