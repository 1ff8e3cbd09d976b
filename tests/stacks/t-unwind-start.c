/*
 * t-unwind-start - the modules are registered for the walker at start only
 * by a recording that keeps stacks (lib/unwind-build.c, unwind_start): the
 * program runs itself twice with PCPROF_DIR set, once with PCPROF_STACKS=1,
 * whose start must leave its modules registered, read from their files,
 * with empty row caches, once with PCPROF_STACKS=0 (pcprof run
 * --no-stacks), whose handler never walks and whose start must register
 * none.
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
		struct profil_unwind_stats st;
		profil__unwind_stats(&st);
		T_NOTE("PCPROF_STACKS=%s: %u modules, %u with their file, %llu cache entries, "
		       "%llu filled",
		       argv[1], st.modules, st.with_file, (unsigned long long)st.cache_entries,
		       (unsigned long long)st.cached);
		if (strcmp(argv[1], "1") == 0) {
			/* this program, libc, ld.so (and the vDSO, without a file) */
			T_OK(st.modules >= 3 && st.with_file >= 3 && st.cache_entries > 0);
			T_EQ(st.cached, 0); /* nothing read before a sample needs it */
		} else {
			T_EQ(st.modules, 0);
		}
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
