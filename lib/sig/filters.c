/*
 * filters.c - see filters.h.  Raw enough for the audit module: prctl,
 * open, pread and close, no stdio, no allocation.
 */
#include "filters.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#ifndef PR_GET_SECCOMP
#define PR_GET_SECCOMP 21
#endif
#define MODE_FILTER 2 /* SECCOMP_MODE_FILTER */

/* The "Seccomp_filters:" number of a status file, or PROFIL_FILTERS_SOME.
 * Read through a small buffer as a stream, the key matched across reads: a
 * page-sized buffer is more than a small stack has (tests/abi/t-frames.sh;
 * issue 19). */
static int status_count(const char *path)
{
	static const char key[] = "\nSeccomp_filters:";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return PROFIL_FILTERS_SOME;
	char buf[256];
	size_t k = 1;       /* key bytes matched: the file starts a line */
	int v = -1;         /* the number, once the key is whole */
	bool digits = false;
	ssize_t n;
	off_t at = 0; /* pread: the audit module's nolibc.c has no read */
	while ((n = pread(fd, buf, sizeof buf, at)) > 0) {
		at += n;
		for (ssize_t i = 0; i < n; i++) {
			char c = buf[i];
			if (v < 0) {
				/* The key holds one newline, its first byte: a
				 * mismatch starts again there. */
				if (c == key[k])
					v = key[++k] ? -1 : 0;
				else
					k = c == '\n' ? 1 : 0;
			} else if (!digits && (c == ' ' || c == '\t')) {
				continue;
			} else if (c >= '0' && c <= '9' && v < 100000) {
				v = v * 10 + (c - '0');
				digits = true;
			} else {
				goto done;
			}
		}
	}
done:
	close(fd);
	return v >= 0 && digits ? v : PROFIL_FILTERS_SOME;
}

int profil__filters(bool count)
{
	int saved = errno, n = 0;
	/* Before Linux 2.6.23, or without CONFIG_SECCOMP: EINVAL, no filter.
	 * In strict mode the call itself would be fatal, but a program in
	 * strict mode makes no call of any library. */
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == MODE_FILTER) {
		n = 1;
		if (count) {
			n = status_count("/proc/thread-self/status");
			if (n == PROFIL_FILTERS_SOME) /* before Linux 3.17 */
				n = status_count("/proc/self/status");
		}
	}
	errno = saved;
	return n;
}

bool profil__filters_beyond(int base, bool thorough)
{
	/* Over a base of filters, the mode cannot tell one more: no prctl. */
	if (base != 0 && !thorough)
		return false;
	if (profil__filters(false) == 0)
		return false;
	if (base == 0)
		return true;
	if (base == PROFIL_FILTERS_SOME)
		return false;
	int n = profil__filters(true);
	return n != PROFIL_FILTERS_SOME && n > base;
}
