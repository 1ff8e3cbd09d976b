/*
 * t-rawfile - which raw recordings the library trusts and how it makes them
 * (lib/rawfile.c), in an ordinary (not set-user-ID) process:
 *   - a file it made attaches; the same file with any one layout field made
 *     hostile (an offset or count outside the file, inside the header, tables
 *     overlapping, a level size that is not a power of two, more levels open
 *     than exist, a size that is not the file's, another magic or version)
 *     is refused with -EINVAL, another image's token or pid with -ESTALE;
 *   - a symbolic link in place of a recording (to a good one) is refused, and
 *     so are a FIFO, a directory, a file with two links, another mode, and
 *     (as root) another owner;
 *   - creation never follows a symbolic link planted at the name it would
 *     take, dangling or not, and makes the file 0600 whatever the umask;
 *   - a file size limit (RLIMIT_FSIZE) smaller than a recording gives a
 *     smaller pc table, or a ".lost" marker, never SIGXFSZ;
 *   - on a tmpfs with no room (as root; SKIP when mounting is not allowed,
 *     after everything else has passed): creation leaves a marker naming
 *     ENOSPC and nothing mapped; a reservation fails with -ENOSPC, no SIGBUS;
 *   - the newest file of a pid is found among markers and junk names,
 *     markers that say their image's CPU time included, and a marker left
 *     for a fork child (profil__raw_mark_lost) is the newest of its pid;
 *   - with one descriptor to spare, a recording is made and attached and a
 *     marker left; in a directory whose path is over 300 bytes, the same;
 *   - with stacks (PCPROF_STACKS): the node table is in the file, after the
 *     pc table, and its first level is reserved; a hostile node table (out
 *     of the file, over another table, bad level sizes, present without the
 *     stacks flag, or the flag without it) is refused; without stacks the
 *     file has no node table;
 *   - a version 2 header (1904 bytes, no stacks) is read for its values
 *     (an earlier image of an exec chain) but never attached to write.
 */
#include "rawfile.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/scratch.h"
#include "test.h"

static struct raw_env env;
static struct profil_rec rec;

static void name(char *buf, size_t len, const char *leaf)
{
	snprintf(buf, len, "%s/%s", scratch, leaf);
}

static int attach(pid_t pid, int seq)
{
	struct raw_map m;
	int r = profil__raw_attach(scratch, pid, seq, profil__raw_token(pid), &rec, &m);
	if (r == 0)
		profil__raw_unmap(&m);
	return r;
}

#define EXPECT_ATTACH(pid, seq, want, what)                                                        \
	do {                                                                                       \
		int r_ = attach(pid, seq);                                                         \
		if (r_ != (want))                                                                  \
			T_FAIL("%s: attach gave %d (%s), want %d", what, r_, strerror(-r_), want); \
	} while (0)

static const char *hostile(int i, struct pcprof_raw_header *h)
{
	switch (i) {
	case 0:
		h->mod_off = UINT64_MAX - 100;
		return "module table past the end of memory";
	case 1:
		h->mod_cap = 1u << 31;
		return "huge module count";
	case 2:
		h->mod_reserved = h->mod_cap + 1;
		return "more modules reserved than room";
	case 3:
		h->thr.base = 48;
		return "thread level not a power of two";
	case 4:
		h->thr.base = 0;
		return "empty thread level";
	case 5:
		h->thr.max = PCPROF_RAW_LEVELS + 1;
		return "too many thread levels";
	case 6:
		h->thr.open = h->thr.max + 1;
		return "more thread levels open than exist";
	case 7:
		h->thr.open = 0;
		return "no thread level open";
	case 8:
		h->slot.off = h->file_size - 24;
		return "pc table past the end of the file";
	case 9:
		h->slot.base = 1u << 31;
		return "huge pc level";
	case 10:
		h->slot.off = 0;
		return "pc table over the header";
	case 11:
		h->slot.off = h->thr.off;
		return "pc table over the thread table";
	case 12:
		h->mod_off = h->slot.off;
		return "module table over the pc table";
	case 13:
		h->file_size *= 2;
		return "file size larger than the file";
	case 14:
		h->file_size = 0;
		return "file size 0";
	case 15:
		h->version = 1;
		return "old version";
	case 16:
		h->header_size = 100;
		return "other header size";
	case 17:
		h->magic[0] ^= 1;
		return "bad magic";
	case 18:
		h->slot.base = PCPROF_RAW_MAX_BASE;
		h->slot.max = PCPROF_RAW_LEVELS;
		return "largest levels: far past the file";
	case 19:
		h->thr.off = UINT64_MAX & ~(uint64_t)63;
		return "thread table at 2^64";
	case 20:
		h->token ^= 2;
		return "another image's token";
	case 21:
		h->pid++;
		return "another pid";
	}
	return NULL;
}

/* Every field check of the header, one hostile field at a time. */
static void layouts(void)
{
	struct raw_map m;
	T_EQ(profil__raw_create(&env, 4000, 0, &rec, &m), 0);
	T_EQ(m.h->seq, 0);
	T_EQ(m.h->token, profil__raw_token(4000));
	T_OK(m.h->token != profil__raw_token(4001));
	struct pcprof_raw_header good = *m.h;
	profil__raw_unmap(&m);
	EXPECT_ATTACH(4000, 0, 0, "the file as made");
	EXPECT_ATTACH(4000, 0, 0, "the file as made");

	char path[256];
	name(path, sizeof path, "4000.0.raw");
	int fd = open(path, O_RDWR);
	T_OK(fd >= 0);
	for (int i = 0;; i++) {
		struct pcprof_raw_header h = good;
		const char *what = hostile(i, &h);
		if (!what)
			break;
		T_EQ(pwrite(fd, &h, sizeof h, 0), sizeof h);
		EXPECT_ATTACH(4000, 0, i >= 20 ? -ESTALE : -EINVAL, what);
	}
	T_EQ(pwrite(fd, &good, sizeof good, 0), sizeof good);
	EXPECT_ATTACH(4000, 0, 0, "the file restored");

	/* the file around the header */
	T_OK(fchmod(fd, 0644) == 0);
	EXPECT_ATTACH(4000, 0, -EPERM, "mode 0644");
	T_OK(fchmod(fd, 0400) == 0);
	EXPECT_ATTACH(4000, 0, -EPERM, "mode 0400");
	T_OK(fchmod(fd, 0600) == 0);
	char other[256];
	name(other, sizeof other, "hardlink");
	T_OK(link(path, other) == 0);
	EXPECT_ATTACH(4000, 0, -EPERM, "two links");
	T_OK(unlink(other) == 0);
	if (geteuid() == 0) {
		T_OK(fchown(fd, 65534, 65534) == 0);
		EXPECT_ATTACH(4000, 0, -EPERM, "owned by nobody");
		T_OK(fchown(fd, 0, 0) == 0);
	}
	struct stat st;
	T_OK(fstat(fd, &st) == 0);
	T_OK(ftruncate(fd, st.st_size - 4096) == 0);
	EXPECT_ATTACH(4000, 0, -EINVAL, "a page shorter");
	T_OK(ftruncate(fd, 100) == 0);
	EXPECT_ATTACH(4000, 0, -EINVAL, "shorter than a header");
	close(fd);
	EXPECT_ATTACH(4000, 7, -ENOENT, "missing");
}

/* Files that are not regular files of ours, where a recording should be. */
static void impostors(void)
{
	struct raw_map m;
	char path[256], real[256];
	T_EQ(profil__raw_create(&env, 4002, 0, &rec, &m), 0);
	profil__raw_unmap(&m);
	name(path, sizeof path, "4002.0.raw");
	name(real, sizeof real, "real");
	T_OK(rename(path, real) == 0);
	T_OK(symlink(real, path) == 0);
	EXPECT_ATTACH(4002, 0, -ELOOP, "symbolic link to a good recording");
	T_OK(unlink(path) == 0);
	T_OK(rename(real, path) == 0);
	EXPECT_ATTACH(4002, 0, 0, "the same recording, no link");

	name(path, sizeof path, "4003.0.raw");
	T_OK(mkfifo(path, 0600) == 0);
	EXPECT_ATTACH(4003, 0, -EPERM, "FIFO");
	name(path, sizeof path, "4004.0.raw");
	T_OK(mkdir(path, 0700) == 0);
	EXPECT_ATTACH(4004, 0, -EISDIR, "directory");
}

/* Creation next to planted links: never through them. */
static void planted_links(void)
{
	char victim[256], path[256];
	name(victim, sizeof victim, "victim");
	FILE *f = fopen(victim, "w");
	T_OK(f && fputs("precious\n", f) >= 0 && fclose(f) == 0);
	name(path, sizeof path, "4010.0.raw");
	T_OK(symlink(victim, path) == 0);
	name(path, sizeof path, "4011.0.raw");
	T_OK(symlink("/nonexistent/t-rawfile", path) == 0);

	struct raw_map m;
	mode_t old = umask(0777);
	T_EQ(profil__raw_create(&env, 4010, 0, &rec, &m), 0);
	umask(old);
	T_EQ(m.h->seq, 1);
	profil__raw_unmap(&m);
	struct stat st;
	T_OK(stat(victim, &st) == 0);
	T_EQ(st.st_size, 9);
	name(path, sizeof path, "4010.1.raw");
	T_OK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
	T_EQ(st.st_mode & 07777, 0600);
	EXPECT_ATTACH(4010, 0, -ELOOP, "the planted link");
	EXPECT_ATTACH(4010, 1, 0, "the file made beside it");

	T_EQ(profil__raw_create(&env, 4011, 0, &rec, &m), 0);
	T_EQ(m.h->seq, 1);
	profil__raw_unmap(&m);
	T_OK(access("/nonexistent/t-rawfile", F_OK) < 0);
}

/* In a child: create under RLIMIT_FSIZE = limit; report seq or -errno. */
static int create_limited(rlim_t limit, pid_t pid, uint32_t *levels)
{
	int pfd[2];
	T_OK(pipe(pfd) == 0);
	pid_t c = fork();
	T_OK(c >= 0);
	if (c == 0) {
		struct rlimit rl = { limit, limit };
		struct raw_map m;
		int out[2] = { -1, 0 };
		if (setrlimit(RLIMIT_FSIZE, &rl) == 0) {
			out[0] = profil__raw_create(&env, pid, 0, NULL, &m);
			if (out[0] == 0) {
				out[1] = (int)m.h->slot.max;
				if (m.h->file_size > limit)
					out[0] = -E2BIG;
			}
		}
		_exit(write(pfd[1], out, sizeof out) == sizeof out ? 0 : 1);
	}
	close(pfd[1]);
	int out[2] = { 1, 0 }, st;
	T_OK(read(pfd[0], out, sizeof out) == sizeof out);
	close(pfd[0]);
	T_OK(waitpid(c, &st, 0) == c);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("creating under RLIMIT_FSIZE %llu: child status %#x",
		       (unsigned long long)limit, st);
	*levels = (uint32_t)out[1];
	return out[0];
}

static void file_size_limit(void)
{
	struct raw_map m;
	T_EQ(profil__raw_create(&env, 4020, 0, &rec, &m), 0);
	uint32_t full = m.h->slot.max;
	profil__raw_unmap(&m);
	uint32_t levels;
	T_EQ(create_limited(8u << 20, 4021, &levels), 0);
	T_OK(levels >= 1 && levels < full);
	T_EQ(create_limited(64u << 10, 4022, &levels), -EFBIG);
	struct raw_latest last;
	profil__raw_latest(scratch, 4022, &last);
	T_EQ(last.seq, 0);
	T_OK(last.lost);
	T_EQ(last.token, profil__raw_token(4022));
	char path[256];
	snprintf(path, sizeof path, "%s/4022.0.%d.%016llx.lost", scratch, EFBIG,
		 (unsigned long long)profil__raw_token(4022));
	struct stat st;
	T_OK(stat(path, &st) == 0);
	T_EQ(st.st_size, 0);
}

static void latest(void)
{
	static const char *const names[] = {
		"4030.0.28.0123456789abcdef.lost",
		"4030.1.raw",
		"4030.2.28.00000000000000ff.lost",
		"4030.3.raw~",
		"4030.9x.raw",
		"4030.-4.raw",
		"40300.5.raw",
		"4030.6.28.ff.lost",
		"4030.7.28.0123456789abcdefa.lost",
		"4030.+8.raw",
		"4030. 9.raw",
		/* an image that ended says its CPU time (record.c) */
		"4032.0.28.0123456789abcdef.lost",
		"4032.1.12.00000000000000aa.31415926.lost",
		"4032.2.28.0123456789abcdef.314x.lost",
		"4032.3.28.0123456789abcdef..lost",
		"4032.4.28.0123456789abcdef.-5.lost",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char path[256];
		name(path, sizeof path, names[i]);
		int fd = open(path, O_CREAT | O_WRONLY, 0600);
		T_OK(fd >= 0);
		close(fd);
	}
	struct raw_latest last;
	profil__raw_latest(scratch, 4030, &last);
	T_EQ(last.seq, 2);
	T_OK(last.lost);
	T_EQ(last.token, 0xff);
	T_EQ(last.err, 28);
	profil__raw_latest(scratch, 4031, &last);
	T_EQ(last.seq, -1);
	profil__raw_latest(scratch, 4032, &last);
	T_EQ(last.seq, 1);
	T_OK(last.lost);
	T_EQ(last.token, 0xaa);
	T_EQ(last.err, 12);
}

/* A fork child of an image that could not record leaves a marker of its
 * own, with its parent's reason, as the next image of its pid. */
static void mark_lost(void)
{
	T_EQ(profil__raw_mark_lost(&env, 4033, ENOSPC), 0);
	T_EQ(profil__raw_mark_lost(&env, 4033, ENOMEM), 1);
	struct raw_latest last;
	profil__raw_latest(scratch, 4033, &last);
	T_EQ(last.seq, 1);
	T_OK(last.lost);
	T_EQ(last.token, profil__raw_token(4033));
	T_EQ(last.err, ENOMEM);
	char path[256];
	snprintf(path, sizeof path, "%s/4033.0.%d.%016llx.lost", scratch, ENOSPC,
		 (unsigned long long)profil__raw_token(4033));
	struct stat st;
	T_OK(stat(path, &st) == 0 && S_ISREG(st.st_mode));
	T_EQ(st.st_size, 0);
	T_EQ(st.st_mode & 07777, 0600);
	struct raw_env alone = env;
	alone.follow = false;
	alone.root = 4034;
	T_EQ(profil__raw_mark_lost(&alone, 4035, ENOSPC), -EPERM);
}

/*
 * One descriptor to spare: a recording and a marker are still made (each
 * needs the file's descriptor only; relative to an open directory they
 * needed two, and a program at its limit, or its fork child, lost both to
 * EMFILE).  In a child, which exits with the step that failed.
 */
static void one_descriptor(void)
{
	fflush(NULL);
	pid_t c = fork();
	T_OK(c >= 0);
	if (c == 0) {
		int fd = open("/dev/null", O_RDONLY);
		if (fd < 0)
			_exit(10);
		close(fd);
		struct rlimit rl = { (rlim_t)fd + 1, (rlim_t)fd + 1 };
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			_exit(11);
		struct raw_map m;
		if (profil__raw_create(&env, 4060, 0, NULL, &m) != 0)
			_exit(12);
		profil__raw_unmap(&m);
		if (profil__raw_attach(scratch, 4060, 0, profil__raw_token(4060), NULL, &m) != 0)
			_exit(13);
		profil__raw_unmap(&m);
		if (profil__raw_mark_lost(&env, 4061, ENOSPC) != 0)
			_exit(14);
		_exit(0);
	}
	int st;
	T_OK(waitpid(c, &st, 0) == c);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("one descriptor to spare: status %#x (12: create, 13: attach, 14: the "
		       "marker)",
		       st);
	struct raw_latest last;
	profil__raw_latest(scratch, 4061, &last);
	T_OK(last.seq == 0 && last.lost && last.err == ENOSPC);
}

/* A directory whose path is too long for a whole path of the file
 * (rawfile.c, PATH_SHORT): files are made, found, attached and marked
 * relative to it. */
static void long_directory(void)
{
	struct raw_env deep = env;
	char part[101];
	memset(part, 'd', 100);
	part[100] = 0;
	snprintf(deep.dir, sizeof deep.dir, "%s/%s", scratch, part);
	T_OK(mkdir(deep.dir, 0700) == 0);
	size_t len = strlen(deep.dir);
	snprintf(deep.dir + len, sizeof deep.dir - len, "/%s", part);
	T_OK(mkdir(deep.dir, 0700) == 0);
	len = strlen(deep.dir);
	snprintf(deep.dir + len, sizeof deep.dir - len, "/%s", part);
	T_OK(mkdir(deep.dir, 0700) == 0);
	T_OK(strlen(deep.dir) > 300);
	struct raw_map m;
	T_EQ(profil__raw_create(&deep, 4070, 0, &rec, &m), 0);
	T_EQ(m.h->seq, 0);
	profil__raw_unmap(&m);
	T_EQ(profil__raw_attach(deep.dir, 4070, 0, profil__raw_token(4070), &rec, &m), 0);
	profil__raw_unmap(&m);
	T_EQ(profil__raw_mark_lost(&deep, 4070, ENOSPC), 1);
	struct raw_latest last;
	profil__raw_latest(deep.dir, 4070, &last);
	T_OK(last.seq == 1 && last.lost && last.err == ENOSPC);
}

static void write_header(int fd, const struct pcprof_raw_header *h)
{
	T_EQ(pwrite(fd, h, sizeof *h, 0), sizeof *h);
}

/* The node table of a recording with stacks, and what is refused. */
static void stacks(void)
{
	struct raw_map m;
	T_EQ(profil__raw_create(&env, 4050, 0, &rec, &m), 0);
	T_EQ(m.h->version, 6);
	T_EQ(m.h->header_size, 3024);
	T_EQ(m.h->tl_bucket_ns, env.timeline ? PCPROF_RAW_BUCKET_NS : 0);
	T_OK(m.h->tl_origin_ns != 0);
	T_OK(!(m.h->flags & PCPROF_RAW_F_STACKS));
	T_EQ(m.h->node.off, 0);
	T_EQ(m.node.max, 0);
	profil__raw_unmap(&m);

	struct raw_env with = env;
	with.stacks = true;
	T_EQ(profil__raw_create(&with, 4051, 0, &rec, &m), 0);
	struct pcprof_raw_header good = *m.h;
	T_OK(good.flags & PCPROF_RAW_F_STACKS);
	T_EQ(good.node.base, 256);
	T_EQ(good.node.max, good.slot.max);
	T_EQ(good.node.open, 1);
	T_EQ(good.node.off % 4096, 0);
	T_OK(good.node.off >=
	     good.slot.off + (((uint64_t)good.slot.base << good.slot.max) - good.slot.base) *
				     sizeof(struct pcprof_raw_slot));
	T_OK(good.mod_off >=
	     good.node.off + (((uint64_t)good.node.base << good.node.max) - good.node.base) *
				     sizeof(struct pcprof_raw_node));
	T_EQ(m.node.off, good.node.off);
	/* the first level is reserved and mapped: a store there cannot fault */
	memset(atomic_load(&rec.node.at[0]), 0, good.node.base * sizeof(struct pcprof_raw_node));
	T_OK(atomic_load(&rec.node.at[1]) == NULL);
	profil__raw_unmap(&m);
	EXPECT_ATTACH(4051, 0, 0, "a recording with stacks");
	T_EQ(profil__raw_attach(scratch, 4051, 0, profil__raw_token(4051), &rec, &m), 0);
	T_EQ(m.node.off, good.node.off);
	T_EQ(m.node.max, good.node.max);
	profil__raw_unmap(&m);

	char path[256];
	name(path, sizeof path, "4051.0.raw");
	int fd = open(path, O_RDWR);
	T_OK(fd >= 0);
	struct pcprof_raw_header h = good;
	h.node.off = good.slot.off;
	write_header(fd, &h);
	EXPECT_ATTACH(4051, 0, -EINVAL, "node table over the pc table");
	h = good;
	h.node.off = good.mod_off;
	write_header(fd, &h);
	EXPECT_ATTACH(4051, 0, -EINVAL, "node table over the module table");
	h = good;
	h.node.base = 384;
	write_header(fd, &h);
	EXPECT_ATTACH(4051, 0, -EINVAL, "node level not a power of two");
	h = good;
	h.node.open = h.node.max + 1;
	write_header(fd, &h);
	EXPECT_ATTACH(4051, 0, -EINVAL, "more node levels open than exist");
	h = good;
	h.node.max = PCPROF_RAW_LEVELS;
	h.node.base = PCPROF_RAW_MAX_BASE;
	write_header(fd, &h);
	EXPECT_ATTACH(4051, 0, -EINVAL, "node table past the file");
	h = good;
	h.flags &= ~PCPROF_RAW_F_STACKS;
	write_header(fd, &h);
	EXPECT_ATTACH(4051, 0, -EINVAL, "node table without the stacks flag");
	h = good;
	memset(&h.node, 0, sizeof h.node);
	write_header(fd, &h);
	EXPECT_ATTACH(4051, 0, -EINVAL, "stacks flag without a node table");

	/* Version 2: the header of 1904 bytes and no stacks; the bytes past
	 * it are its thread table, garbage to a version 3 reader. */
	h = good;
	h.version = 2;
	h.header_size = PCPROF_RAW_V2_HEADER_SIZE;
	h.flags &= ~PCPROF_RAW_F_STACKS;
	h.exec_cpu_ns = 777;
	memset((char *)&h + PCPROF_RAW_V2_HEADER_SIZE, 0x5a, sizeof h - PCPROF_RAW_V2_HEADER_SIZE);
	write_header(fd, &h);
	EXPECT_ATTACH(4051, 0, -EINVAL, "version 2: never written to");
	struct pcprof_raw_header r;
	T_EQ(profil__raw_read_header(scratch, 4051, 0, &r), 0);
	T_EQ(r.version, 2);
	T_EQ(r.exec_cpu_ns, 777);
	T_EQ(r.stack_cut, 0);
	T_EQ(r.node.off, 0);
	h.header_size = sizeof h;
	write_header(fd, &h);
	T_EQ(profil__raw_read_header(scratch, 4051, 0, &r), -EINVAL);

	/* Version 3: 2104 bytes, stacks but no timeline; read with the
	 * timeline fields zero (past its end: garbage). */
	h = good;
	h.version = 3;
	h.header_size = PCPROF_RAW_V3_HEADER_SIZE;
	memset((char *)&h + PCPROF_RAW_V3_HEADER_SIZE, 0x5a, sizeof h - PCPROF_RAW_V3_HEADER_SIZE);
	write_header(fd, &h);
	EXPECT_ATTACH(4051, 0, -EINVAL, "version 3: never written to");
	T_EQ(profil__raw_read_header(scratch, 4051, 0, &r), 0);
	T_EQ(r.version, 3);
	T_EQ(r.tl_origin_ns, 0);
	T_EQ(r.tl_bucket_ns, 0);
	T_EQ(r.tl_lost_from, 0);

	/* Version 5: 2928 bytes, no stop; read with the stop fields zero. */
	h = good;
	h.version = 5;
	h.header_size = PCPROF_RAW_V5_HEADER_SIZE;
	memset((char *)&h + PCPROF_RAW_V5_HEADER_SIZE, 0x5a, sizeof h - PCPROF_RAW_V5_HEADER_SIZE);
	write_header(fd, &h);
	EXPECT_ATTACH(4051, 0, -EINVAL, "version 5: never written to");
	T_EQ(profil__raw_read_header(scratch, 4051, 0, &r), 0);
	T_EQ(r.version, 5);
	T_EQ(r.stop_why, 0);
	T_EQ(r.stop_cpu_ns, 0);
	write_header(fd, &good);
	EXPECT_ATTACH(4051, 0, 0, "the file restored");
	close(fd);
}

/* Returns false if no tmpfs could be mounted. */
static bool full_tmpfs(void)
{
	/* Six pages: what a recording reserves at first (header, one page;
	 * pc table, three: 256 slots of 40 bytes; module table, two). */
	const char *mnt = scratch_tmpfs("24k");
	if (!mnt)
		return false;
	struct raw_env small = env;
	snprintf(small.dir, sizeof small.dir, "%s", mnt);
	struct raw_map m;
	T_EQ(profil__raw_create(&small, 4040, 0, &rec, &m), 0);
	profil__raw_unmap(&m);
	T_EQ(profil__raw_create(&small, 4041, 0, &rec, &m), -ENOSPC);
	T_OK(m.h == NULL);
	struct raw_latest last;
	profil__raw_latest(mnt, 4041, &last);
	T_OK(last.seq == 0 && last.lost);
	char path[256];
	snprintf(path, sizeof path, "%s/4041.0.raw", mnt);
	T_OK(access(path, F_OK) < 0);

	T_EQ(profil__raw_attach(mnt, 4040, 0, profil__raw_token(4040), &rec, &m), 0);
	/* the next pc level: no room, an error and not a SIGBUS, and
	 * nothing mapped for it */
	uint64_t mapped = atomic_load(&rec.mapped);
	T_EQ(profil__sink_map_level(&rec, &rec.slot, 1), -ENOSPC);
	T_OK(atomic_load(&rec.slot.at[1]) == NULL);
	T_EQ(atomic_load(&rec.mapped), mapped);
	/* what was reserved is there to write */
	memset(atomic_load(&rec.slot.at[0]), 0xff, m.slot.base * sizeof(struct pcprof_raw_slot));
	profil__raw_unmap(&m);
	scratch_umount();
	return true;
}

int main(void)
{
	scratch_init("t-rawfile");
	snprintf(env.dir, sizeof env.dir, "%s", scratch);
	env.follow = true;
	env.slots = 1u << 20;
	layouts();
	impostors();
	planted_links();
	file_size_limit();
	latest();
	mark_lost();
	one_descriptor();
	long_directory();
	stacks();
	if (!full_tmpfs())
		T_SKIP("cannot mount a tmpfs (%s): the full file system was not tried (the rest "
		       "passed)",
		       strerror(errno));
	return 0;
}
