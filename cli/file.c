/*
 * file.c - the one writer of pcprof's output files (file.h says what each
 * kind of PATH gets and why).
 */
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/*
 * The stream is a cookie stream over fd (fopencookie) so that the first
 * write error is kept with its errno: a stdio stream only remembers that
 * one happened, and a large fwrite that failed leaves nothing for fflush
 * to try again.  Standard output is written the same way, through its own
 * stream on descriptor 1.
 */
struct ofile {
	FILE *f;
	int fd;
	int err;    /* errno of the first failed write, or 0 */
	char *path; /* NULL for standard output */
	char *tmp;  /* the temporary file, or NULL when written in place */
	bool regular;
};

static ssize_t cookie_write(void *cookie, const char *buf, size_t n)
{
	struct ofile *o = cookie;
	size_t done = 0;
	while (done < n) {
		ssize_t k = write(o->fd, buf + done, n - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (!o->err)
				o->err = k < 0 ? errno : EIO;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)k;
	}
	return (ssize_t)done;
}

/* The descriptor is closed by ofile_close, after fsync. */
static int cookie_close(void *cookie)
{
	(void)cookie;
	return 0;
}

/* o->f: a stream writing to o->fd; false (errno set) if none. */
static bool make_stream(struct ofile *o)
{
	cookie_io_functions_t io = { .write = cookie_write, .close = cookie_close };
	o->f = fopencookie(o, "w", io);
	return o->f != NULL;
}

/* The directory part of path ("." if none), malloc'd. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/*
 * Would Linux follow the symbolic link at path (lstat'ed in *lst) with
 * fs.protected_symlinks = 1?  Yes unless its directory is sticky and
 * world-writable and the link belongs neither to us nor to the directory's
 * owner: the one case where someone else may have planted it for us.
 */
static bool link_trusted(const char *path, const struct stat *lst)
{
	char *dir = dir_of(path);
	struct stat ds;
	bool ok = dir && stat(dir, &ds) == 0;
	free(dir);
	if (!ok)
		return false;
	if ((ds.st_mode & (S_ISVTX | S_IWOTH)) != (S_ISVTX | S_IWOTH))
		return true;
	return lst->st_uid == geteuid() || lst->st_uid == ds.st_uid;
}

/* Open what path names now, as the shell's ">" would. */
static struct ofile *open_in_place(struct ofile *o, bool link, char *err, size_t errlen)
{
	/* O_NOFOLLOW unless we decided to follow: a device or FIFO swapped
	 * for a link since we looked is refused, not followed. */
	int flags = O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC | (link ? O_CREAT : O_NOFOLLOW);
	int fd = open(o->path, flags, 0666);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		set_err(err, errlen, "%s: %s", o->path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	o->regular = S_ISREG(st.st_mode);
	o->fd = fd;
	if (!make_stream(o)) {
		set_err(err, errlen, "%s: %s", o->path, strerror(errno));
		close(fd);
		return NULL;
	}
	return o;
}

/* A temporary file beside path, with the permissions path has (or a new
 * file would get), to be renamed over it. */
static struct ofile *open_new(struct ofile *o, const struct stat *old, char *err, size_t errlen)
{
	char *dir = dir_of(o->path);
	const char *slash = strrchr(o->path, '/');
	const char *base = slash ? slash + 1 : o->path;
	if (!dir || asprintf(&o->tmp, "%s/.%.200s.XXXXXX", dir, base) < 0) {
		free(dir);
		o->tmp = NULL;
		set_err(err, errlen, "out of memory");
		return NULL;
	}
	/* O_EXCL|O_CREAT (mkostemp's own) never follows a link at the name;
	 * O_NOFOLLOW says so once more. */
	int fd = mkostemp(o->tmp, O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		set_err(err, errlen, "%s: cannot create a temporary file in %s: %s", o->path, dir,
			strerror(errno));
		free(dir);
		free(o->tmp);
		o->tmp = NULL;
		return NULL;
	}
	free(dir);
	mode_t mode;
	if (old) {
		mode = old->st_mode & 0777;
		/* best effort: root rewriting someone's file leaves it theirs */
		if (fchown(fd, old->st_uid, old->st_gid) < 0)
			errno = 0;
	} else {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	o->regular = true;
	o->fd = fd;
	if (fchmod(fd, mode) < 0 || !make_stream(o)) {
		set_err(err, errlen, "%s: %s", o->tmp, strerror(errno));
		close(fd);
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		return NULL;
	}
	return o;
}

struct ofile *ofile_open(const char *path, char *err, size_t errlen)
{
	struct ofile *o = calloc(1, sizeof *o);
	if (!o) {
		set_err(err, errlen, "out of memory");
		return NULL;
	}
	if (strcmp(path, "-") == 0) {
		fflush(stdout); /* whatever was printed before comes first */
		o->fd = STDOUT_FILENO;
		if (make_stream(o))
			return o;
		set_err(err, errlen, "standard output: %s", strerror(errno));
		free(o);
		return NULL;
	}
	o->path = strdup(path);
	struct stat st;
	struct ofile *r = NULL;
	if (!o->path) {
		set_err(err, errlen, "out of memory");
	} else if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			r = open_new(o, NULL, err, errlen);
		else
			set_err(err, errlen, "%s: %s", path, strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		set_err(err, errlen, "%s: is a directory", path);
	} else if (S_ISLNK(st.st_mode)) {
		if (link_trusted(path, &st))
			r = open_in_place(o, true, err, errlen);
		else
			set_err(err, errlen,
				"%s: a symbolic link of another user in a world-writable "
				"directory: "
				"not followed",
				path);
	} else if (!S_ISREG(st.st_mode)) {
		r = open_in_place(o, false, err, errlen);
	} else if (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) < 0) {
		/* replacing it would succeed, but ">" would not */
		set_err(err, errlen, "%s: %s", path, strerror(errno));
	} else {
		r = open_new(o, &st, err, errlen);
	}
	if (!r) {
		free(o->path);
		free(o);
	}
	return r;
}

FILE *ofile_stream(struct ofile *o)
{
	return o->f;
}

static void ofile_free(struct ofile *o)
{
	free(o->path);
	free(o->tmp);
	free(o);
}

void ofile_discard(struct ofile *o)
{
	fclose(o->f);
	if (o->path) {
		close(o->fd);
		if (o->tmp)
			unlink(o->tmp);
	}
	ofile_free(o);
}

int ofile_close(struct ofile *o, char *err, size_t errlen)
{
	const char *name = o->path ? o->path : "standard output";
	const char *step = "write";
	if (fclose(o->f) != 0 && !o->err)
		o->err = errno ? errno : EIO;
	int e = o->err;
	if (o->path) {
		/* a device or FIFO has nothing to make durable (EINVAL) */
		if (!e && o->regular && fsync(o->fd) < 0 && errno != EINVAL) {
			e = errno;
			step = "fsync";
		}
		if (close(o->fd) < 0 && !e) {
			e = errno;
			step = "write";
		}
		if (!e && o->tmp && rename(o->tmp, o->path) < 0) {
			e = errno;
			step = "rename";
		}
		if (e && o->tmp)
			unlink(o->tmp);
	}
	if (e) {
		set_err(err, errlen, "%s: %s failed: %s", name, step, strerror(e));
		ofile_free(o);
		return -1;
	}
	if (o->tmp) {
		/* the rename itself made durable; failing that is no error */
		char *dir = dir_of(o->path);
		int dfd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
		free(dir);
	}
	ofile_free(o);
	return 0;
}

int ofile_check(const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (strcmp(path, "-") == 0)
		return 0;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		set_err(err, errlen, "%s: is a directory", path);
		return -1;
	}
	/* What ofile_open will write in place (a device, a FIFO, what a link
	 * leads to) must itself be writable; a new or regular file needs its
	 * directory. */
	struct stat lst;
	if (lstat(path, &lst) == 0 && !S_ISREG(lst.st_mode)) {
		if (access(path, W_OK) == 0 || errno == ENOENT) /* ENOENT: a link to a new file */
			return 0;
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char *dir = dir_of(path);
	if (!dir) {
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	int r = access(dir, W_OK | X_OK);
	if (r < 0)
		set_err(err, errlen, "%s: cannot write in %s: %s", path, dir, strerror(errno));
	free(dir);
	return r < 0 ? -1 : 0;
}
