/*
 * t-unwind-start - the unwind tables are built at start only by a recording
 * that keeps stacks (lib/sig/unwind-tables.c, unwind_start): the program
 * runs itself twice with PCPROF_DIR set, once with PCPROF_STACKS=1, whose
 * start must leave tables for its modules, once with PCPROF_STACKS=0
 * (pcprof run --no-stacks), whose handler never walks and whose start must
 * build none (about 1.5 ms of CPU per process image, bench/exec-cost).
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sig/unwind-tables.h"
#include "unwind-build.h"
#include "stacks.h"

static void run_child(const char *self, const char *dir, const char *stacks)
{
	pid_t pid = fork();
	T_OK(pid >= 0);
	if (pid == 0) {
		setenv("PCPROF_DIR", dir, 1);
		setenv("PCPROF_STACKS", stacks, 1);
		setenv("PCPROF_FOLLOW", "0", 1);
		execl(self, self, stacks, (char *)NULL);
		_exit(127);
	}
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("child with PCPROF_STACKS=%s: status %#x", stacks, st);
}

int main(int argc, char **argv)
{
	if (argc == 2) { /* the child: its start has run */
		uint32_t modules;
		uint64_t rows, bytes;
		profil__unwind_table_stats(&modules, &rows, &bytes);
		T_NOTE("PCPROF_STACKS=%s: %u modules, %llu rows", argv[1], modules,
		       (unsigned long long)rows);
		if (strcmp(argv[1], "1") == 0)
			T_OK(modules >= 3 && rows > 0); /* this program, libc, ld.so */
		else
			T_EQ(modules, 0);
		return 0;
	}
	char dir[] = "/tmp/t-unwind-start.XXXXXX";
	T_OK(mkdtemp(dir) != NULL);
	run_child("/proc/self/exe", dir, "1");
	run_child("/proc/self/exe", dir, "0");
	char cmd[sizeof dir + 16];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	T_EQ(system(cmd), 0);
	return 0;
}
