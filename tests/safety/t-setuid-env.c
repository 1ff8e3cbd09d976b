/*
 * t-setuid-env - a set-user-ID-root program linked with libprofil, run by
 * an unprivileged user (nobody) with a hostile environment, takes no orders
 * from it (lib/session.c read_env, lib/rawfile.c profil__raw_env).
 *
 * The environment points PCPROF_DIR at a directory nobody can write, where
 * nobody has planted, under the names the program's pid would take, a
 * recording with hostile offsets (owned by nobody, mode 0600) and a
 * symbolic link to a root-owned file; PROFIL_HZ=7 and PROFIL_ENGINE=manual
 * would show in profil_stats if they were obeyed.  The program (this file,
 * copied and made set-user-ID root) profiles itself briefly with profil()
 * and prints what profil_stats says.
 *   - set-user-ID run: AT_SECURE is set, the program prints and exits as
 *     always, its rate and engine are the defaults, and the directory holds
 *     exactly what was planted, byte for byte; the root file is untouched.
 *   - control, the same copy without the set-user-ID bit, run by nobody:
 *     the environment is obeyed (rate 7, engine manual: so the first run
 *     shows the library ignoring it, not an environment that does nothing)
 *     and a recording is made beside the planted files, while the hostile
 *     recording is refused (left byte for byte) and the link not followed.
 * Needs root (SKIP otherwise) and a directory not mounted nosuid.
 */
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profil_ext.h"
#include "../../lib/record-format.h"
#include "test.h"

#define NOBODY 65534

static char work[PATH_MAX], out[PATH_MAX + 8], prog[PATH_MAX + 8], victim[PATH_MAX + 8];

/* ---- the program under test ---- */

static volatile double sink;

static int program(void)
{
	static unsigned short buf[4096];
	if (profil(buf, sizeof buf, (unsigned long)&program, 0x10000) < 0)
		return 2;
	double t0 = t_proc_cpu();
	while (t_proc_cpu() - t0 < 0.05)
		sink = sink * 1.0000001 + 1;
	struct profil_stats st;
	if (profil_stats(&st) < 0)
		return 3;
	profil(buf, sizeof buf, 0, 0); /* scale 0: off */
	printf("hello secure=%lu base_hz=%u engine=%s\n", getauxval(AT_SECURE), st.base_hz,
	       st.engine);
	return 0;
}

/* ---- the test ---- */

static void cleanup(void)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
	if (work[0] && system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", work);
}

static void put_file(const char *path, const void *buf, size_t len, mode_t mode, uid_t owner)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, mode);
	T_OK(fd >= 0);
	T_EQ(write(fd, buf, len), (long long)len);
	T_OK(fchmod(fd, mode) == 0 && fchown(fd, owner, owner) == 0);
	close(fd);
}

/* A recording that passes the quick looks (magic, version, sizes) and whose
 * tables lie far outside the file: written through, a write primitive. */
static void hostile(struct pcprof_raw_header *h, size_t size)
{
	memset(h, 0, size);
	memcpy(h->magic, PCPROF_RAW_MAGIC, sizeof h->magic);
	h->version = PCPROF_RAW_VERSION;
	h->header_size = sizeof *h;
	h->file_size = size;
	h->mod_off = UINT64_C(1) << 40;
	h->mod_cap = 16;
	h->mod_reserved = 16;
	h->thr = (struct pcprof_raw_levels){
		.off = UINT64_C(1) << 41, .base = 32, .max = 1, .open = 1
	};
	h->slot = (struct pcprof_raw_levels){
		.off = (UINT64_C(1) << 42) - 8, .base = 1024, .max = 4, .open = 4
	};
}

static char planted[2][64];

/* The names the program's pid would take; the newest (1), the hostile
 * recording, is where the library looks first. */
static void name_planted(pid_t pid)
{
	snprintf(planted[0], sizeof planted[0], "%d.1.raw", (int)pid);
	snprintf(planted[1], sizeof planted[1], "%d.0.raw", (int)pid);
}

static void plant(pid_t pid)
{
	static union {
		struct pcprof_raw_header h;
		char page[16384];
	} raw;
	hostile(&raw.h, sizeof raw);
	char path[PATH_MAX + 80];
	name_planted(pid);
	snprintf(path, sizeof path, "%s/%s", out, planted[0]);
	put_file(path, &raw, sizeof raw, 0600, NOBODY);
	snprintf(path, sizeof path, "%s/%s", out, planted[1]);
	T_OK(symlink(victim, path) == 0 && lchown(path, NOBODY, NOBODY) == 0);
}

/* Run prog as nobody with the hostile environment, after planting files
 * for its pid; returns its one line of output, fails if it did not exit 0. */
static void run(char *line, size_t len)
{
	int pfd[2];
	T_OK(pipe(pfd) == 0);
	pid_t c = fork();
	T_OK(c >= 0);
	if (c == 0) {
		plant(getpid());
		char root[32], dirvar[sizeof out + 16];
		snprintf(root, sizeof root, "PCPROF_ROOT=%d", (int)getpid());
		snprintf(dirvar, sizeof dirvar, "PCPROF_DIR=%s", out);
		char *env[] = { dirvar,
				root,
				"PCPROF_FOLLOW=1",
				"PCPROF_SLOTS=1024",
				"PROFIL_HZ=7",
				"PROFIL_ENGINE=manual",
				"PROFIL_OVERFLOW=wrap",
				NULL };
		char *argv[] = { prog, "program", NULL };
		dup2(pfd[1], 1);
		if (setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 || setuid(NOBODY) < 0)
			_exit(120);
		execve(prog, argv, env);
		_exit(121);
	}
	close(pfd[1]);
	name_planted(c);
	ssize_t n = read(pfd[0], line, len - 1);
	close(pfd[0]);
	line[n > 0 ? n : 0] = 0;
	int st;
	T_OK(waitpid(c, &st, 0) == c);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("%s as nobody: status %#x, output '%s'", prog, st, line);
}

/* The planted files are as planted, the root file too; returns how many
 * other files the directory holds. */
static int check_dir(void)
{
	static union {
		struct pcprof_raw_header h;
		char page[16384];
	} want;
	static char got[sizeof want + 1];
	hostile(&want.h, sizeof want);
	char path[PATH_MAX + 80];
	snprintf(path, sizeof path, "%s/%s", out, planted[0]);
	int fd = open(path, O_RDONLY);
	T_OK(fd >= 0);
	T_EQ(read(fd, got, sizeof got), sizeof want);
	close(fd);
	if (memcmp(&want, got, sizeof want) != 0)
		T_FAIL("the planted recording %s was written to", path);
	struct stat st;
	T_OK(stat(victim, &st) == 0);
	if (st.st_size != 9 || st.st_uid != 0 || (st.st_mode & 07777) != 0600)
		T_FAIL("the root file behind the planted link changed: size %lld, owner %d, mode "
		       "%o",
		       (long long)st.st_size, (int)st.st_uid, st.st_mode & 07777);
	int others = 0;
	DIR *d = opendir(out);
	T_OK(d != NULL);
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && strcmp(e->d_name, planted[0]) != 0 &&
		    strcmp(e->d_name, planted[1]) != 0)
			others++;
	closedir(d);
	return others;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "program") == 0)
		return program();
	if (geteuid() != 0)
		T_SKIP("needs root to make a set-user-ID-root program");

	/* Where set-user-ID works: /tmp, else next to this test. */
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	T_OK(n > 0);
	self[n] = 0;
	const char *bases[] = { "/tmp", dirname(strdup(self)) };
	struct statvfs fs;
	for (size_t i = 0; i < 2 && !work[0]; i++)
		if (statvfs(bases[i], &fs) == 0 && !(fs.f_flag & ST_NOSUID))
			snprintf(work, sizeof work, "%s/t-setuid-env.XXXXXX", bases[i]);
	if (!work[0])
		T_SKIP("/tmp and %s are mounted nosuid: no set-user-ID program can run", bases[1]);
	T_OK(mkdtemp(work));
	atexit(cleanup);
	T_OK(chmod(work, 0755) == 0);
	snprintf(out, sizeof out, "%s/out", work);
	snprintf(prog, sizeof prog, "%s/prog", work);
	snprintf(victim, sizeof victim, "%s/victim", work);
	T_OK(mkdir(out, 0700) == 0 && chown(out, NOBODY, NOBODY) == 0);
	put_file(victim, "precious\n", 9, 0600, 0);
	char cmd[3 * PATH_MAX];
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", self, prog);
	T_EQ(system(cmd), 0);
	T_OK(chown(prog, 0, 0) == 0 && chmod(prog, 04755) == 0);

	char line[256];
	run(line, sizeof line);
	unsigned long secure;
	unsigned hz;
	char engine[32];
	if (sscanf(line, "hello secure=%lu base_hz=%u engine=%31s", &secure, &hz, engine) != 3)
		T_FAIL("set-user-ID run printed '%s'", line);
	if (secure != 1)
		T_FAIL("AT_SECURE is %lu in a set-user-ID run: the test cannot see anything",
		       secure);
	if (hz == 7 || strcmp(engine, "manual") == 0)
		T_FAIL("set-user-ID run obeyed PROFIL_HZ or PROFIL_ENGINE: '%s'", line);
	int others = check_dir();
	if (others)
		T_FAIL("set-user-ID run created %d file(s) in PCPROF_DIR", others);
	/* start afresh for the control: the next pid plants its own */
	snprintf(cmd, sizeof cmd, "rm -f '%s'/*", out);
	T_EQ(system(cmd), 0);

	T_OK(chmod(prog, 0755) == 0);
	run(line, sizeof line);
	if (sscanf(line, "hello secure=%lu base_hz=%u engine=%31s", &secure, &hz, engine) != 3 ||
	    secure != 0 || hz != 7 || strcmp(engine, "manual") != 0)
		T_FAIL("control run (not set-user-ID) printed '%s', want secure=0 base_hz=7 "
		       "engine=manual",
		       line);
	others = check_dir();
	if (others != 1)
		T_FAIL("control run left %d new file(s) in PCPROF_DIR, want its own recording",
		       others);
	return 0;
}
