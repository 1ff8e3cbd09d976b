/*
 * debuginfo.c - finding a module's files by build id, as cli/debuginfo.h
 * says, in the archive, the recorded path, --debug-dir, /usr/lib/debug and
 * debuginfod.
 *
 * debuginfod: we link elfutils' own client (libdebuginfod) rather than
 * talk HTTP ourselves: it knows the server protocol, the cache
 * (DEBUGINFOD_CACHE_PATH, ~/.cache/debuginfod_client), its expiry, the
 * timeouts and the several-servers syntax of DEBUGINFOD_URLS, as gdb and
 * perf do with the same variables.  libdwfl can ask debuginfod on its own
 * as well, but only when it finds nothing else and without saying so; we
 * hide DEBUGINFOD_URLS from it (symtab.c) and ask here, in our order, so
 * that what we used can be named in notes and packed by pcprof archive.
 */
#include "debuginfo.h"

#include <elfutils/debuginfod.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive.h"
#include "util.h"

static char **dirs; /* --debug-dir, in order */
static size_t ndirs;
static char *urls; /* DEBUGINFOD_URLS as it was at the first search */
static bool urls_read;
static debuginfod_client *client;

bool debuginfo_option(int c, const char *arg)
{
	if (c != DEBUGINFO_OPT_DIR)
		return false;
	struct stat st;
	if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode))
		die(2, "--debug-dir %s: %s", arg,
		    stat(arg, &st) != 0 ? strerror(errno) : "not a directory");
	dirs = xrealloc(dirs, (ndirs + 1) * sizeof *dirs);
	dirs[ndirs++] = xstrdup(arg);
	return true;
}

void debuginfo_hex(char *out, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = '\0';
}

int debuginfo_build_id(int fd, uint8_t *id)
{
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -1;
	int n = -1;
	if (elf_kind(elf) == ELF_K_ELF) {
		const void *bits;
		ssize_t len = dwelf_elf_gnu_build_id(elf, &bits);
		n = 0;
		if (len > 0 && len <= 40) {
			memcpy(id, bits, (size_t)len);
			n = (int)len;
		}
	}
	elf_end(elf);
	return n;
}

/* Only regular files are opened: a path may name a FIFO or a device,
 * which could block us forever or never end. */
static int open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* fd if its build id is id (or, with no id asked for, if it is ELF);
 * else closes fd and returns -1. */
static int if_matches(int fd, const uint8_t *id, uint32_t idlen)
{
	uint8_t now[40];
	int n = fd >= 0 ? debuginfo_build_id(fd, now) : -1;
	if (n >= 0 && (idlen == 0 || ((uint32_t)n == idlen && memcmp(now, id, idlen) == 0)))
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Try the file at path: the match's fd, with *where and *file set. */
static int try_path(const char *path, const uint8_t *id, uint32_t idlen, char **where, char **file)
{
	int fd = if_matches(open_regular(path), id, idlen);
	if (fd >= 0) {
		*where = xstrdup(path);
		*file = xstrdup(path);
	}
	return fd;
}

static char *joined(const char *a, const char *b, const char *c)
{
	char *s;
	if (asprintf(&s, "%s%s%s", a, b, c ? c : "") < 0)
		die(2, "out of memory");
	return s;
}

/* DIR/.build-id/xx/rest.debug */
static int try_build_id(const char *dir, const uint8_t *id, uint32_t idlen, char **where,
			char **file)
{
	if (idlen < 2)
		return -1;
	char h[81], *p;
	debuginfo_hex(h, id, idlen);
	if (asprintf(&p, "%s/.build-id/%.2s/%s.debug", dir, h, h + 2) < 0)
		die(2, "out of memory");
	int fd = try_path(p, id, idlen, where, file);
	free(p);
	return fd;
}

/* DIR/<directory of path>/SUBname */
static int try_beside(const char *dir, const char *path, const char *sub, const char *name,
		      const uint8_t *id, uint32_t idlen, char **where, char **file)
{
	if (!name || !*name || strchr(name, '/'))
		return -1;
	const char *slash = strrchr(path, '/');
	char *p;
	if (asprintf(&p, "%s%.*s/%s%s", dir, slash ? (int)(slash - path) : 0, path, sub, name) < 0)
		die(2, "out of memory");
	int fd = try_path(p, id, idlen, where, file);
	free(p);
	return fd;
}

static void read_urls(void)
{
	if (urls_read)
		return;
	urls_read = true;
	const char *u = getenv("DEBUGINFOD_URLS");
	if (u && *u)
		urls = xstrdup(u);
}

/*
 * Ask debuginfod.  libdwfl must not see DEBUGINFOD_URLS (symtab.c), and
 * libdebuginfod reads it at each query, so it is set for the query only.
 */
static int try_debuginfod(bool executable, const uint8_t *id, uint32_t idlen, char **where,
			  char **file)
{
	read_urls();
	if (!urls || idlen == 0)
		return -1;
	if (!client && !(client = debuginfod_begin()))
		return -1;
	setenv("DEBUGINFOD_URLS", urls, 1);
	char *path = NULL;
	int fd = executable ? debuginfod_find_executable(client, id, (int)idlen, &path)
			    : debuginfod_find_debuginfo(client, id, (int)idlen, &path);
	unsetenv("DEBUGINFOD_URLS");
	if (fd < 0) {
		free(path);
		return -1;
	}
	fd = if_matches(fd, id, idlen);
	if (fd >= 0) {
		*where = joined("debuginfod:", path ? path : "", NULL);
		*file = path ? xstrdup(path) : NULL;
	}
	free(path);
	return fd;
}

static const char *debug_root(void)
{
	const char *r = getenv("PCPROF_DEBUG_ROOT");
	return r ? r : "";
}

int debuginfo_open_module(const char *path, const uint8_t *id, uint32_t idlen, char **where,
			  char **file, struct di_miss *miss)
{
	*where = *file = NULL;
	memset(miss, 0, sizeof *miss);
	int fd = archive_open_member(AR_MODULE, path, id, idlen, where);
	if (fd >= 0)
		return fd;
	fd = open_regular(path);
	if (fd >= 0) {
		miss->exists = true;
		int n = debuginfo_build_id(fd, miss->now);
		miss->not_elf = n < 0;
		miss->now_len = n > 0 ? (uint32_t)n : 0;
		if (n >= 0 &&
		    (idlen == 0 || ((uint32_t)n == idlen && memcmp(miss->now, id, idlen) == 0))) {
			*where = xstrdup(path);
			*file = xstrdup(path);
			return fd;
		}
		close(fd);
	}
	for (size_t i = 0; i < ndirs; i++) {
		char *p = joined(dirs[i], path, NULL);
		fd = try_path(p, id, idlen, where, file);
		free(p);
		if (fd >= 0)
			return fd;
	}
	return try_debuginfod(true, id, idlen, where, file);
}

int debuginfo_open_debug(const char *path, const uint8_t *id, uint32_t idlen, const char *debuglink,
			 char **where, char **file)
{
	*where = *file = NULL;
	int fd = archive_open_member(AR_DEBUG, path, id, idlen, where);
	if (fd >= 0)
		return fd;
	if (idlen == 0)
		return -1; /* without a build id, a debug file cannot be told right */
	for (size_t i = 0; i < ndirs; i++) {
		char *p = joined(dirs[i], path, ".debug"), *q = joined(dirs[i], path, NULL);
		if ((fd = try_build_id(dirs[i], id, idlen, where, file)) >= 0 ||
		    (fd = try_path(p, id, idlen, where, file)) >= 0 ||
		    (fd = try_path(q, id, idlen, where, file)) >= 0 ||
		    (fd = try_beside(dirs[i], path, "", debuglink, id, idlen, where, file)) >= 0) {
			free(p);
			free(q);
			return fd;
		}
		free(p);
		free(q);
	}
	char *usr = joined(debug_root(), "/usr/lib/debug", NULL);
	if ((fd = try_beside("", path, "", debuglink, id, idlen, where, file)) >= 0 ||
	    (fd = try_beside("", path, ".debug/", debuglink, id, idlen, where, file)) >= 0 ||
	    (fd = try_build_id(usr, id, idlen, where, file)) >= 0 ||
	    (fd = try_beside(usr, path, "", debuglink, id, idlen, where, file)) >= 0) {
		free(usr);
		return fd;
	}
	free(usr);
	return try_debuginfod(false, id, idlen, where, file);
}

const char *debuginfo_searched(void)
{
	static char *text; /* rebuilt at each call: an archive may have been loaded */
	free(text);
	read_urls();
	struct membuf m;
	FILE *f = membuf_open(&m);
	const char *ar = archive_names();
	if (*ar)
		fprintf(f, "%s, ", ar);
	for (size_t i = 0; i < ndirs; i++)
		fprintf(f, "--debug-dir %s, ", dirs[i]);
	fprintf(f, "%s/usr/lib/debug", debug_root());
	if (urls)
		fprintf(f, ", debuginfod (%s)", urls);
	else
		fputs(", no debuginfod (DEBUGINFOD_URLS unset)", f);
	text = membuf_close(&m);
	return text;
}
