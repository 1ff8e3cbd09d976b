/*
 * t-unwind-share - the process images of a run share their unwind tables
 * through the recording directory (lib/sig/unwind-tables.c, "tables
 * shared"), and only tables that are whole and theirs: the program runs
 * itself with PCPROF_DIR set and PCPROF_STACKS=1, and each child reports
 * how many tables it read from the directory and wrote there, and a digest
 * of all its rows and page indexes.
 *   - the first child writes a table for each module it has (this
 *     program, libstk, libc, ld.so ...) and reads none; the second reads
 *     them all, writes none, and has the same digest: the same rows;
 *   - PCPROF_UNWIND_SHARE=0, or a directory others may write to: none
 *     read, same digest;
 *   - every table damaged one way at a time (a byte short, a byte of the
 *     rows or of the build id changed, readable by the group, a symlink to
 *     a good copy, a page index past the last row under checksums made to
 *     match): none read, the child lives and builds the same rows;
 *   - RLIMIT_FSIZE of 1 KiB: no table larger is written (that write would
 *     be a SIGXFSZ), the child lives with the same rows.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sig/unwind-tables.h"
#include "unwind-build.h"
#include "stacks.h"

/* The table file's head (unwind-tables.c, struct utab_head), where the
 * damage goes. */
#define HEAD_SIZE     136
#define HEAD_ID       40 /* key.id */
#define HEAD_NROWS    112
#define HEAD_NPAGES   116
#define HEAD_SUM_BODY 120
#define HEAD_SUM_HEAD 128

struct report {
	unsigned in, out;
	unsigned long long digest;
};

static char dir[] = "/tmp/t-unwind-share.XXXXXX";
static char keep[] = "/tmp/t-unwind-share-good.XXXXXX";

static struct report run_child(const char *share, rlim_t fsize)
{
	char out[sizeof dir + 16];
	snprintf(out, sizeof out, "%s.out", dir);
	pid_t pid = fork();
	T_OK(pid >= 0);
	if (pid == 0) {
		setenv("PCPROF_DIR", dir, 1);
		setenv("PCPROF_STACKS", "1", 1);
		setenv("PCPROF_FOLLOW", "0", 1);
		if (share)
			setenv("PCPROF_UNWIND_SHARE", share, 1);
		struct rlimit lim = { fsize, fsize };
		if (fsize && setrlimit(RLIMIT_FSIZE, &lim) < 0)
			_exit(126);
		execl("/proc/self/exe", "t-unwind-share", out, (char *)NULL);
		_exit(127);
	}
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("child: status %#x", st);
	struct report r;
	FILE *f = fopen(out, "r");
	T_OK(f && fscanf(f, "%u %u %llx", &r.in, &r.out, &r.digest) == 3);
	fclose(f);
	unlink(out);
	return r;
}

static void file_at(char *buf, size_t len, const char *d, const char *name)
{
	snprintf(buf, len, "%s/%s", d, name);
}

static void copy_file(const char *from, const char *to)
{
	char cmd[3 * 4200 + 64];
	snprintf(cmd, sizeof cmd, "rm -f '%s' && cp '%s' '%s' && chmod 400 '%s'", to, from, to, to);
	T_EQ(system(cmd), 0);
}

static void poke(const char *path, off_t at, const void *p, size_t n)
{
	T_EQ(chmod(path, 0600), 0);
	int fd = open(path, O_WRONLY);
	T_OK(fd >= 0);
	T_EQ(pwrite(fd, p, n, at), (ssize_t)n);
	close(fd);
	T_EQ(chmod(path, 0400), 0);
}

/* A page index entry past the last row, in a file whose checksums say
 * all is well: only the bounds check can refuse it. */
static void bad_page(const char *path)
{
	int fd = open(path, O_RDONLY);
	T_OK(fd >= 0);
	struct stat st;
	T_EQ(fstat(fd, &st), 0);
	size_t size = (size_t)st.st_size;
	unsigned char *b = malloc(size);
	T_OK(b && read(fd, b, size) == (ssize_t)size);
	close(fd);
	uint32_t nrows, npages;
	memcpy(&nrows, b + HEAD_NROWS, 4);
	memcpy(&npages, b + HEAD_NPAGES, 4);
	T_EQ(size, HEAD_SIZE + (size_t)nrows * 12 + (size_t)npages * 4);
	memcpy(b + size - 4, &nrows, 4); /* the last page's first row */
	uint64_t sum = profil__unwind_checksum(b + HEAD_SIZE, size - HEAD_SIZE);
	memcpy(b + HEAD_SUM_BODY, &sum, 8);
	memset(b + HEAD_SUM_HEAD, 0, 8);
	sum = profil__unwind_checksum(b, HEAD_SIZE);
	memcpy(b + HEAD_SUM_HEAD, &sum, 8);
	poke(path, 0, b, size);
	free(b);
}

enum damage { SHORT, ROWS, KEY, MODE, LINK, PAGE, NDAMAGE };
static const char *const damage_name[] = {
	"a byte short",   "a row changed", "the build id changed",
	"group-readable", "a symlink",     "a page index out of bounds"
};

/* Every table of the run put back, then damaged the same way. */
static void damage_all(enum damage how)
{
	DIR *d = opendir(keep);
	T_OK(d != NULL);
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d))) {
		if (!strstr(e->d_name, ".utab"))
			continue;
		char good[512], path[512];
		file_at(good, sizeof good, keep, e->d_name);
		file_at(path, sizeof path, dir, e->d_name);
		copy_file(good, path);
		struct stat st;
		T_EQ(stat(path, &st), 0);
		char x = 'X';
		switch (how) {
		case SHORT:
			T_EQ(chmod(path, 0600), 0);
			T_EQ(truncate(path, st.st_size - 1), 0);
			T_EQ(chmod(path, 0400), 0);
			break;
		case ROWS:
			poke(path, HEAD_SIZE + (st.st_size - HEAD_SIZE) / 2, &x, 1);
			break;
		case KEY:
			poke(path, HEAD_ID, &x, 1);
			break;
		case MODE:
			T_EQ(chmod(path, 0440), 0);
			break;
		case LINK:
			T_EQ(unlink(path), 0);
			T_EQ(symlink(good, path), 0);
			break;
		case PAGE:
			bad_page(path);
			break;
		default:
			break;
		}
		n++;
	}
	closedir(d);
	T_OK(n >= 3);
}

int main(int argc, char **argv)
{
	if (argc == 2) { /* the child: its start has run */
		uint32_t in, out;
		uint64_t digest;
		profil__unwind_share_stats(&in, &out, &digest);
		FILE *f = fopen(argv[1], "w");
		T_OK(f != NULL);
		fprintf(f, "%u %u %llx\n", in, out, (unsigned long long)digest);
		return fclose(f) == 0 ? 0 : 1;
	}
	T_OK(mkdtemp(dir) != NULL);
	T_OK(mkdtemp(keep) != NULL);

	struct report first = run_child(NULL, 0);
	T_NOTE("first image: %u tables read, %u written, digest %llx", first.in, first.out,
	       first.digest);
	T_EQ(first.in, 0);
	T_OK(first.out >=
	     3); /* this program, libstk, libc, ld.so (the vDSO may have no build id) */
	struct report second = run_child(NULL, 0);
	T_EQ(second.in, first.out);
	T_EQ(second.out, 0);
	T_EQ(second.digest, first.digest);

	struct report off = run_child("0", 0);
	T_EQ(off.in, 0);
	T_EQ(off.digest, first.digest);
	T_EQ(chmod(dir, 0770), 0);
	struct report open_dir = run_child(NULL, 0);
	T_EQ(chmod(dir, 0700), 0);
	T_EQ(open_dir.in, 0);
	T_EQ(open_dir.digest, first.digest);

	char cmd[8500];
	snprintf(cmd, sizeof cmd, "cp -p '%s'/*.utab '%s'/", dir, keep);
	T_EQ(system(cmd), 0);
	for (int how = 0; how < NDAMAGE; how++) {
		damage_all(how);
		struct report r = run_child(NULL, 0);
		if (r.in != 0 || r.digest != first.digest)
			T_FAIL("tables with %s: %u read, digest %llx (want 0, %llx)",
			       damage_name[how], r.in, r.digest, first.digest);
	}
	/* The good copies again: read. */
	snprintf(cmd, sizeof cmd, "rm -f '%s'/*.utab && cp -p '%s'/*.utab '%s'/", dir, keep, dir);
	T_EQ(system(cmd), 0);
	T_EQ(run_child(NULL, 0).in, first.out);

	/* A new directory, files of at most 1 KiB: only the smallest tables
	 * (the vDSO's, about 500 bytes, where it has a build id; under ASan
	 * also glibc's stub libraries libasan needs, 332 bytes), never one
	 * past the limit, and the program lives (SIGXFSZ kills by default). */
	snprintf(cmd, sizeof cmd, "rm -f '%s'/*", dir);
	T_EQ(system(cmd), 0);
	struct report small = run_child(NULL, 1024);
	T_OK(small.out < first.out);
	T_EQ(small.digest, first.digest);
	DIR *d = opendir(dir);
	T_OK(d != NULL);
	unsigned files = 0;
	for (struct dirent *e; (e = readdir(d));) {
		struct stat st;
		if (e->d_name[0] == '.' || fstatat(dirfd(d), e->d_name, &st, 0) < 0)
			continue;
		files++;
		if (st.st_size > 1024)
			T_FAIL("%s: %lld bytes under a 1 KiB file size limit", e->d_name,
			       (long long)st.st_size);
	}
	closedir(d);
	T_EQ(files, small.out);

	snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", dir, keep);
	T_EQ(system(cmd), 0);
	return 0;
}
