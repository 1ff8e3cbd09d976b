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

/* The "Seccomp_filters:" number of a status file, or PROFIL_FILTERS_SOME. */
static int status_count(const char *path)
{
	static const char key[] = "\nSeccomp_filters:";
	char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return PROFIL_FILTERS_SOME;
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	close(fd);
	if (n <= 0)
		return PROFIL_FILTERS_SOME;
	buf[n] = '\0';
	for (const char *p = buf; *p; p++) {
		size_t k = 0;
		while (key[k] && p[k] == key[k])
			k++;
		if (key[k])
			continue;
		for (p += k; *p == ' ' || *p == '\t'; p++)
			;
		int v = 0;
		if (*p < '0' || *p > '9')
			return PROFIL_FILTERS_SOME;
		for (; *p >= '0' && *p <= '9' && v < 100000; p++)
			v = v * 10 + (*p - '0');
		return v;
	}
	return PROFIL_FILTERS_SOME;
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
