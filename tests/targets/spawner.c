/*
 * spawner - starts programs the ways that do not go through a plain fork
 * and exec, for pcprof run's tests of following (tests/cli-run): built
 * without libprofil, which pcprof preloads.
 *
 *   spawner HOW PROGRAM [ARG...] [-- HOW PROGRAM [ARG...]]...
 *
 * Each PROGRAM is started, in turn, with its arguments (argv[0] is
 * PROGRAM) and the environment of this process, and waited for.
 * HOW is one of
 *
 *   spawn   posix_spawn(PROGRAM)
 *   spawnp  posix_spawnp(PROGRAM): PROGRAM without '/' is looked for in PATH
 *   spawnfa posix_spawn(PROGRAM) with file actions (an empty list)
 *   vfork   vfork, then execv(PROGRAM) in the child (_exit(127) if it fails)
 *   vforkp  vfork, then execvp(PROGRAM)
 *
 * A failed start prints errno's text and exits 126; otherwise spawner
 * exits with the status of the last program (128 + signal if one killed
 * it).  posix_spawn's errors are its return value: what errno held before
 * must still be there after a successful call (written to stderr as
 * "errno kept" / "errno changed" when the environment has SPAWNER_ERRNO).
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int start(const char *how, char **argv, pid_t *pid)
{
	if (strcmp(how, "spawn") == 0 || strcmp(how, "spawnp") == 0 || strcmp(how, "spawnfa") == 0) {
		posix_spawn_file_actions_t fa;
		int r = posix_spawn_file_actions_init(&fa);
		if (r)
			return r;
		errno = EDOM; /* a value no exec or spawn gives */
		if (strcmp(how, "spawnp") == 0)
			r = posix_spawnp(pid, argv[0], NULL, NULL, argv, environ);
		else
			r = posix_spawn(pid, argv[0], strcmp(how, "spawnfa") == 0 ? &fa : NULL, NULL,
					argv, environ);
		if (!r && getenv("SPAWNER_ERRNO"))
			fprintf(stderr, "errno %s\n", errno == EDOM ? "kept" : "changed");
		posix_spawn_file_actions_destroy(&fa);
		return r;
	}
	if (strcmp(how, "vfork") == 0 || strcmp(how, "vforkp") == 0) {
		*pid = vfork();
		if (*pid < 0)
			return errno;
		if (*pid == 0) {
			if (how[5])
				execvp(argv[0], argv);
			else
				execv(argv[0], argv);
			_exit(127);
		}
		return 0;
	}
	fprintf(stderr, "spawner: unknown way %s\n", how);
	exit(2);
}

int main(int argc, char **argv)
{
	int status = 0;
	for (int i = 1; i < argc;) {
		if (i + 1 >= argc) {
			fprintf(stderr, "usage: spawner HOW PROGRAM [ARG...] [-- HOW ...]\n");
			return 2;
		}
		int end = i + 2;
		while (end < argc && strcmp(argv[end], "--") != 0)
			end++;
		argv[end < argc ? end : argc] = NULL;
		pid_t pid;
		int r = start(argv[i], argv + i + 1, &pid);
		if (r) {
			fprintf(stderr, "spawner: %s %s: %s\n", argv[i], argv[i + 1], strerror(r));
			return 126;
		}
		int st;
		if (waitpid(pid, &st, 0) != pid) {
			perror("spawner: waitpid");
			return 126;
		}
		status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		i = end + 1;
	}
	return status;
}
