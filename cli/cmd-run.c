/*
 * cmd-run.c - pcprof run: run a program with libprofil preloaded, then turn
 * the recordings of its whole process tree into a data file.
 *
 * The program is pcprof's child, in pcprof's process group (so it stays in
 * the terminal's foreground group and reads the terminal as it would
 * without us), with its stdin/stdout/stderr, signal dispositions and mask
 * as pcprof got them.  Every process image in the tree writes its own raw
 * recording into a private directory (lib/record-format.h); once the
 * program has ended, pcprof reads them all, writes the data file
 * atomically (pp_write), removes the directory and ends the way the
 * program ended.  Should the data file not be written, the directory stays,
 * with what only pcprof knew (command, times, exit statuses) in a file of
 * its own, and `pcprof run --from DIR` makes the data file later.
 *
 * Signals.  A terminal's SIGINT/SIGQUIT/SIGHUP reach the whole foreground
 * group, the program included, so pcprof only has to survive them; a
 * signal sent with kill() to pcprof alone must be passed on.  The handler
 * tells them apart by si_code: kernel-generated (terminal) ones are not
 * forwarded, kill()/sigqueue() ones are.  A kill() aimed at the whole group
 * therefore reaches the program twice (documented in pcprof-run(1)).
 *
 * Orphans.  pcprof is a child subreaper (PR_SET_CHILD_SUBREAPER), so the
 * descendants that outlive their parents are reparented to it and their
 * exit statuses are known.  It waits for the program only; descendants
 * still running then are recorded up to that moment and said so.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "data.h"
#include "exekind.h"
#include "fewsignals.h"
#include "file.h"
#include "raw.h"
#include "record-format.h"
#include "sampler.h"
#include "util.h"

#ifndef PCPROF_LIBDIR
#define PCPROF_LIBDIR "/usr/local/lib"
#endif

/* pcprof run's own failures; 126 and 127 are the shell's "cannot execute"
 * and "not found" (timeout(1) and env(1) use the same three). */
#define EXIT_RUN_FAILED  125
#define EXIT_CANNOT_EXEC 126
#define EXIT_NOT_FOUND   127

#define SHM_MIN_FREE (256ull << 20) /* bytes free on /dev/shm to use it */

/* The library's bounds for PCPROF_SLOTS (lib/rawfile.c); 32 bytes each, and
 * as many 16-byte stack nodes with stacks. */
#define DEFAULT_SLOTS 1048576ul
#define MIN_SLOTS     1024ul
#define MAX_SLOTS     (1ul << 26)

extern char **environ;

/* What pcprof run alone knows about a run, kept beside the recordings. */
#define RUN_INFO "pcprof-run"

struct opts {
	const char *out;
	const char *from;   /* --from: convert the recordings kept there */
	unsigned long hz;   /* --hz, else PROFIL_HZ, else the default */
	const char *engine; /* NULL: PROFIL_ENGINE or automatic */
	bool follow;
	bool stacks;   /* PCPROF_STACKS: a call stack with every sample */
	bool timeline; /* PCPROF_TIMELINE: the 10 ms time bucket of every sample */
	unsigned long slots;
	bool quiet;
	int mode; /* MODE_* */
	bool allow_unprofiled;
};

enum { MODE_AUTO, MODE_PRELOAD, MODE_EXTERNAL };
static const char *const mode_names[] = { "auto", "preload", "external" };

static const char *const engine_names[] = { "auto", "thread-timer", "perf", "process-timer" };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pcprof run [options] [--] PROGRAM [ARGS...]\n"
		"       pcprof run [-o FILE] [-q] --from DIR\n"
		"\n"
		"Run PROGRAM with libprofil preloaded and profile its whole process tree\n"
		"(every thread, shared library, forked child and exec'd program) into a\n"
		"data file.  PROGRAM's exit status, signals and standard streams pass\n"
		"through unchanged.\n"
		"\n"
		"Options:\n"
		"  -o, --output FILE   data file to write (default pcprof.data)\n"
		"      --hz N          samples per CPU second per thread, 1..10000\n"
		"                      (default: PROFIL_HZ, else %u, or the kernel tick\n"
		"                      if lower: %u here)\n"
		"      --engine NAME   thread-timer, perf, process-timer or auto\n"
		"                      (default: PROFIL_ENGINE, else auto)\n"
		"      --follow        record forked children and exec'd programs (default)\n"
		"      --no-follow     record only PROGRAM's first process image\n"
		"      --slots N       most pc table entries per process (default %lu)\n"
		"      --stacks        record each sample's call stack (default)\n"
		"      --no-stacks     record pcs only, no call stacks\n"
		"      --no-timeline   no time buckets (default: every sample's 10 ms\n"
		"                      of the run, to report on a period)\n"
		"      --mode MODE     preload: libprofil preloaded into the program;\n"
		"                      external: pcprof samples it from outside with perf\n"
		"                      events (with the processes it forks unless\n"
		"                      --no-follow);\n"
		"                      auto (default): preload, but external for what\n"
		"                      preloading cannot reach (static executables, Go\n"
		"                      binaries, set-user-ID/set-group-ID programs)\n"
		"      --allow-unprofiled  run PROGRAM even when it cannot be profiled\n"
		"                      (otherwise pcprof refuses before running it)\n"
		"      --from DIR      run nothing: write the data file from the recordings\n"
		"                      a failed pcprof run kept in DIR, then remove them\n"
		"  -q, --quiet         no summary line\n"
		"  -h, --help          this text\n"
		"\n"
		"Exit status: PROGRAM's; if it died of a signal, pcprof kills itself with\n"
		"the same signal.  125: pcprof run failed (a data file it could not write\n"
		"leaves the recordings for --from); 126/127: PROGRAM could not be executed /\n"
		"found; 125 also when PROGRAM cannot be profiled (no --allow-unprofiled).\n"
		"See pcprof-run(1).\n",
		PCPROF_DEFAULT_HZ, run_default_hz(kernel_tick_hz()), DEFAULT_SLOTS);
}

static unsigned long number(const char *opt, const char *s, unsigned long lo, unsigned long hi)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < lo || v > hi)
		die(EXIT_RUN_FAILED, "%s: '%s' is not a number from %lu to %lu", opt, s, lo, hi);
	return v;
}

/* An engine name: one of engine_names, and from the environment also
 * "manual", the library's test engine (libprofil(7)); else exit 125. */
static const char *engine_arg(const char *opt, const char *s, bool env)
{
	size_t i = 0, n = sizeof engine_names / sizeof engine_names[0];
	while (i < n && strcmp(s, engine_names[i]) != 0)
		i++;
	if (i == n && !(env && strcmp(s, "manual") == 0))
		die(EXIT_RUN_FAILED,
		    "%s: unknown engine '%s' (thread-timer, perf, process-timer, auto)", opt, s);
	return s;
}

static void parse(int argc, char **argv, struct opts *o, int *first)
{
	enum {
		O_HZ = 256,
		O_ENGINE,
		O_FOLLOW,
		O_NO_FOLLOW,
		O_SLOTS,
		O_FROM,
		O_MODE,
		O_ALLOW,
		O_STACKS,
		O_NO_STACKS,
		O_NO_TIMELINE
	};
	static const struct option longs[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "hz", required_argument, NULL, O_HZ },
		{ "engine", required_argument, NULL, O_ENGINE },
		{ "follow", no_argument, NULL, O_FOLLOW },
		{ "no-follow", no_argument, NULL, O_NO_FOLLOW },
		{ "slots", required_argument, NULL, O_SLOTS },
		{ "stacks", no_argument, NULL, O_STACKS },
		{ "no-stacks", no_argument, NULL, O_NO_STACKS },
		{ "no-timeline", no_argument, NULL, O_NO_TIMELINE },
		{ "from", required_argument, NULL, O_FROM },
		{ "mode", required_argument, NULL, O_MODE },
		{ "allow-unprofiled", no_argument, NULL, O_ALLOW },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	*o = (struct opts){ .out = "pcprof.data",
			    .follow = true,
			    .stacks = true,
			    .timeline = true,
			    .slots = DEFAULT_SLOTS };
	int c;
	opterr = 0;
	/* "+": options end at PROGRAM, whose own options are its business. */
	while ((c = getopt_long(argc, argv, "+:o:qh", longs, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->out = optarg;
			break;
		case O_HZ:
			o->hz = number("--hz", optarg, 1, 10000);
			break;
		case O_ENGINE:
			o->engine = engine_arg("--engine", optarg, false);
			break;
		case O_FOLLOW:
			o->follow = true;
			break;
		case O_NO_FOLLOW:
			o->follow = false;
			break;
		case O_STACKS:
			o->stacks = true;
			break;
		case O_NO_STACKS:
			o->stacks = false;
			break;
		case O_NO_TIMELINE:
			o->timeline = false;
			break;
		case O_SLOTS: {
			unsigned long n = number("--slots", optarg, MIN_SLOTS, MAX_SLOTS);
			/* the table is open-addressed on a power of two */
			o->slots = 1;
			while (o->slots < n)
				o->slots <<= 1;
			break;
		}
		case O_FROM:
			o->from = optarg;
			break;
		case O_MODE:
			o->mode = 0;
			while (o->mode < 3 && strcmp(optarg, mode_names[o->mode]) != 0)
				o->mode++;
			if (o->mode == 3)
				die(EXIT_RUN_FAILED,
				    "--mode: unknown mode '%s' (preload, external, auto)", optarg);
			break;
		case O_ALLOW:
			o->allow_unprofiled = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			die(EXIT_RUN_FAILED, "option '%s' needs a value", argv[optind - 1]);
		default:
			die(EXIT_RUN_FAILED, "unknown option '%s' (see pcprof run --help)",
			    argv[optind - 1]);
		}
	}
	if (o->from && optind < argc)
		die(EXIT_RUN_FAILED, "--from runs nothing: no PROGRAM ('%s') with it",
		    argv[optind]);
	if (!o->from && optind >= argc)
		die(EXIT_RUN_FAILED, "no PROGRAM to run (try 'pcprof run --help')");
	/* The raw data is a file written whole and renamed into place (and
	 * read back for the summary): it cannot be a pipe or a terminal. */
	if (strcmp(o->out, "-") == 0)
		die(EXIT_RUN_FAILED,
		    "-o -: the data file cannot be standard output (write a file; ./- "
		    "names one called '-')");
	/* The user's PROFIL_HZ stays in force, checked as --hz is: the
	 * library would quietly take its own 100 Hz for a bad one; else our
	 * default rate. */
	const char *env_hz = getenv("PROFIL_HZ");
	if (!o->hz && !o->from && env_hz && *env_hz)
		o->hz = number("PROFIL_HZ in the environment", env_hz, 1, 10000);
	if (!o->hz)
		o->hz = run_default_hz(kernel_tick_hz());
	/* PROFIL_ENGINE likewise: on a name it does not know the library
	 * quietly chooses for itself, so a typo (thread_timer) would record
	 * with another engine than the one asked for. */
	const char *env_engine = getenv("PROFIL_ENGINE");
	if (!o->engine && !o->from && env_engine && *env_engine)
		engine_arg("PROFIL_ENGINE in the environment", env_engine, true);
	*first = optind;
}

/* ---- finding the library ---- */

static bool readable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

/* PCPROF_LIB; else next to the pcprof executable (the build tree: build/pcprof
 * and build/libprofil.so.1); else the directory it was installed into.  The
 * audit module (libprofil-audit.so.1) is looked for next to the library;
 * without it the recordings still work, but list modules only at start,
 * exit and exec, so a plugin closed before the end is missed. */
static void find_lib(char *lib, char *audit, size_t size)
{
	const char *env = getenv("PCPROF_LIB");
	char exe[PATH_MAX] = "pcprof";
	if (env && *env) {
		if (!realpath(env, lib) || !readable(lib))
			die(EXIT_RUN_FAILED, "PCPROF_LIB=%s: not a readable file", env);
	} else {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		char *slash = n > 0 ? memrchr(exe, '/', (size_t)n) : NULL;
		if (slash)
			snprintf(lib, size, "%.*s/libprofil.so.1", (int)(slash - exe), exe);
		if (n > 0)
			exe[n] = 0;
		if (!slash || !readable(lib))
			snprintf(lib, size, "%s/libprofil.so.1", PCPROF_LIBDIR);
		if (!readable(lib))
			die(EXIT_RUN_FAILED,
			    "cannot find libprofil.so.1 (next to %s, or in %s); set PCPROF_LIB",
			    exe, PCPROF_LIBDIR);
	}
	snprintf(audit, size, "%.*s/libprofil-audit.so.1", (int)(strrchr(lib, '/') - lib), lib);
	if (!readable(audit))
		audit[0] = 0;
}

/* ---- the program's environment ---- */

static bool env_is(const char *entry, const char *name)
{
	size_t n = strlen(name);
	return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

static char *env_entry(const char *name, const char *value)
{
	size_t n = strlen(name) + strlen(value) + 2;
	char *s = xmalloc(n);
	snprintf(s, n, "%s=%s", name, value);
	return s;
}

/* One more entry than the list: "NAME=first SEP rest", or "NAME=first". */
static char *prepend(const char *name, const char *first, const char *rest, const char *sep)
{
	if (!rest || !*rest)
		return env_entry(name, first);
	size_t len = strlen(first) + strlen(sep) + strlen(rest) + 1;
	char *v = xmalloc(len);
	snprintf(v, len, "%s%s%s", first, sep, rest);
	char *e = env_entry(name, v);
	free(v);
	return e;
}

/* The seccomp filters pcprof runs under (a container's), from the
 * "Seccomp:" and "Seccomp_filters:" lines of /proc/self/status: a count,
 * -1 for some (a kernel before 5.9 does not count them), 0 for none. */
static int own_filters(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	int mode = 0, count = -1;
	while (f && fgets(line, sizeof line, f)) {
		if (strncmp(line, "Seccomp:", 8) == 0)
			mode = atoi(line + 8);
		else if (strncmp(line, "Seccomp_filters:", 16) == 0)
			count = atoi(line + 16);
	}
	if (f)
		fclose(f);
	return mode != 2 ? 0 : count;
}

/* The value of PCPROF_ROOT, filled in by the child with its pid. */
static char root_entry[32] = "PCPROF_ROOT=";

/* What the loader must keep of static TLS for a program that links
 * ThreadSanitizer, when the audit module is used (exekind.h). */
#define TLS_ROOM_TUNABLE "glibc.rtld.optional_static_tls=1048576"

static char **make_env(const char *lib, const char *audit, const char *dir, const struct opts *o,
		       bool tls_room)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = xcalloc(n + 14, sizeof *env);
	size_t k = 0;
	const char *preload = NULL, *audits = NULL, *tunables = NULL;
	for (size_t i = 0; i < n; i++) {
		const char *e = environ[i];
		if (audit[0] && tls_room && env_is(e, "GLIBC_TUNABLES") &&
		    !strstr(e, "optional_static_tls")) {
			tunables = e + strlen("GLIBC_TUNABLES=");
			continue;
		}
		if (env_is(e, "LD_PRELOAD")) {
			preload = e + strlen("LD_PRELOAD=");
			continue;
		}
		if (audit[0] && env_is(e, "LD_AUDIT")) {
			audits = e + strlen("LD_AUDIT=");
			continue;
		}
		if (env_is(e, "PCPROF_DIR") || env_is(e, "PCPROF_SLOTS") ||
		    env_is(e, "PCPROF_ROOT") || env_is(e, "PCPROF_FOLLOW") ||
		    env_is(e, "PCPROF_STACKS") || env_is(e, "PCPROF_TIMELINE") ||
		    env_is(e, "PCPROF_SECCOMP") || env_is(e, "PCPROF_ENGINE") ||
		    (o->hz && env_is(e, "PROFIL_HZ")) || (o->engine && env_is(e, "PROFIL_ENGINE")))
			continue;
		env[k++] = environ[i];
	}
	/* Ours first, so that its constructor runs before the program's
	 * other preloads start threads.  LD_PRELOAD takes spaces or colons,
	 * LD_AUDIT colons only. */
#ifdef PCPROF_PRELOAD_FIRST
	/* A sanitizer build of the library needs its runtime loaded before
	 * anything else in a program that was not built with it (Makefile,
	 * SAN). */
	char *ours = xmalloc(strlen(PCPROF_PRELOAD_FIRST) + strlen(lib) + 2);
	sprintf(ours, "%s %s", PCPROF_PRELOAD_FIRST, lib);
	env[k++] = prepend("LD_PRELOAD", ours, preload, " ");
	free(ours);
#else
	env[k++] = prepend("LD_PRELOAD", lib, preload, " ");
#endif
	if (audit[0])
		env[k++] = prepend("LD_AUDIT", audit, audits, ":");
	if (audit[0] && tls_room && (tunables || !getenv("GLIBC_TUNABLES")))
		env[k++] = prepend("GLIBC_TUNABLES", TLS_ROOM_TUNABLE, tunables, ":");
	env[k++] = root_entry;
	char num[32];
	env[k++] = env_entry("PCPROF_DIR", dir);
	snprintf(num, sizeof num, "%lu", o->slots);
	env[k++] = env_entry("PCPROF_SLOTS", num);
	env[k++] = env_entry("PCPROF_FOLLOW", o->follow ? "1" : "0");
	env[k++] = env_entry("PCPROF_STACKS", o->stacks ? "1" : "0");
	env[k++] = env_entry("PCPROF_TIMELINE", o->timeline ? "1" : "0");
	if (o->hz) {
		snprintf(num, sizeof num, "%lu", o->hz);
		env[k++] = env_entry("PROFIL_HZ", num);
	}
	if (o->engine)
		env[k++] = env_entry("PROFIL_ENGINE", o->engine);
	/* The library's view of the run: the engine asked for (which a
	 * PROFIL_ENGINE the program sets for its children does not change
	 * for the recordings), and the seccomp filters pcprof itself runs
	 * under, which are not the program's (libprofil(7), SECCOMP
	 * FILTERS). */
	const char *engine = o->engine ? o->engine : getenv("PROFIL_ENGINE");
	env[k++] = env_entry("PCPROF_ENGINE", engine && *engine ? engine : "auto");
	snprintf(num, sizeof num, "%d", own_filters());
	env[k++] = env_entry("PCPROF_SECCOMP", num);
	env[k] = NULL;
	return env;
}

/* What make_env allocated: every entry not inherited from environ. */
static void free_env(char **env)
{
	for (size_t i = 0; env[i]; i++) {
		size_t j = 0;
		while (environ[j] && environ[j] != env[i])
			j++;
		if (!environ[j] && env[i] != root_entry)
			free(env[i]);
	}
	free(env);
}

/* One word of join_command in bash's $'...' quotes: its control
 * characters and whatever text_put would escape as C escapes, which such
 * quotes read back (bash, zsh, ksh, POSIX.1-2024 sh). */
static void ansi_quote(FILE *f, const char *a)
{
	static const char named[] = "abtnvfr"; /* \a (7) to \r (13) */
	fputs("$'", f);
	for (const unsigned char *p = (const unsigned char *)a; *p; p++) {
		if (*p == '\\' || *p == '\'')
			fprintf(f, "\\%c", *p);
		else if (*p >= '\a' && *p <= '\r')
			fprintf(f, "\\%c", named[*p - '\a']);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
	fputc('\'', f);
}

/* The command as a shell would read it back: words with anything unusual
 * are single-quoted, words with characters a terminal must not see raw
 * (control characters, bidirectional controls, bytes that are not UTF-8)
 * $'...'-quoted, so that report can show the line as it is (util.h
 * text_put_command) and it can be pasted back. */
static char *join_command(char **argv)
{
	struct membuf m;
	FILE *f = membuf_open(&m);
	for (int i = 0; argv[i]; i++) {
		const char *a = argv[i];
		bool plain = *a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					     "0123456789_-+=./,:@%") == strlen(a);
		if (i)
			fputc(' ', f);
		if (plain) {
			fputs(a, f);
		} else if (text_needs_escape(a)) {
			ansi_quote(f, a);
		} else {
			fputc('\'', f);
			for (; *a; a++)
				fputs(*a == '\'' ? "'\\''" : (char[]){ *a, 0 }, f);
			fputc('\'', f);
		}
	}
	return membuf_close(&m);
}

/* ---- signals ---- */

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NFWD (sizeof forwarded / sizeof forwarded[0])

static volatile sig_atomic_t child;
static struct sigaction saved_action[NFWD];

static void forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	int e = errno;
	pid_t pid = child;
	/* si_code <= 0: sent by kill(), sigqueue(), tgkill(); SI_KERNEL and
	 * the positive codes: the terminal, which already signalled the whole
	 * foreground group. */
	if (pid > 0 && si->si_code <= 0 && si->si_pid != pid)
		kill(pid, sig);
	errno = e;
}

/* Blocks the forwarded signals (the caller unblocks them once the child's
 * pid is known) and installs the handler; *old is the previous mask.
 * Without SA_RESTART: a forwarded signal ends the wait it arrives in with
 * EINTR, and every wait below tries again.  A runtime that runs handlers
 * only when the call they arrived in returns (ThreadSanitizer's does, for
 * waitid) would otherwise, the wait being restarted, forward nothing until
 * the program had ended: SIGINT would never reach it, SIGTERM would hang
 * pcprof and a program that waits for it (tests/cli-run/t-run-status.sh). */
static void catch_signals(sigset_t *old)
{
	sigset_t blocked;
	sigemptyset(&blocked);
	for (size_t i = 0; i < NFWD; i++)
		sigaddset(&blocked, forwarded[i]);
	sigprocmask(SIG_BLOCK, &blocked, old);
	struct sigaction sa = { .sa_sigaction = forward, .sa_flags = SA_SIGINFO };
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < NFWD; i++)
		sigaction(forwarded[i], &sa, &saved_action[i]);
}

/*
 * SIGPIPE: pcprof's messages go to stderr, which may be a pipe whose
 * reader has gone (`pcprof run PROG 2>&1 | head`): a summary written there
 * killed pcprof with SIGPIPE, so that it exited 141 instead of with the
 * program's status and left the recordings behind.  pcprof ignores it
 * from the start and the program gets the disposition pcprof was given
 * (saved_pipe, set back in the child before the exec).  A message that
 * stderr cannot take is lost, and the status stays the program's
 * (exit_like).
 */
static struct sigaction saved_pipe;

static void ignore_sigpipe(void)
{
	struct sigaction sa = { .sa_handler = SIG_IGN };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, &saved_pipe);
}

/* The dispositions pcprof started with: in the child before the exec (an
 * ignored SIGINT, as in a background job, must stay ignored), and in pcprof
 * once the program has ended, so that pcprof can be interrupted like any
 * tool while it writes (the write is atomic). */
static void restore_dispositions(void)
{
	for (size_t i = 0; i < NFWD; i++)
		sigaction(forwarded[i], &saved_action[i], NULL);
}

/* Exit the way the program did.  A signal is re-raised on pcprof with its
 * default action, core dumps off (the core would be pcprof's, not the
 * program's); if the signal does not end us, 128 + N. */
static _Noreturn void exit_like(int status)
{
	fflush(NULL);
	/* A message stderr could not take (ignore_sigpipe) is no failure of
	 * pcprof's to report at exit (close_stdout): the status is the
	 * program's. */
	clearerr(stderr);
	if (WIFEXITED(status))
		exit(WEXITSTATUS(status));
	int sig = WTERMSIG(status);
	struct rlimit none = { 0, 0 };
	setrlimit(RLIMIT_CORE, &none);
	signal(sig, SIG_DFL);
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	raise(sig);
	exit(128 + sig);
}

/* ---- running ---- */

struct reaped {
	pid_t pid;
	int status;
	uint64_t cpu_ns; /* its CPU time, from /proc before reaping */
};

struct run {
	pid_t pid;
	int status; /* the program's */
	/* CPU time of every descendant reaped so far, each with what it had
	 * reaped (getrusage RUSAGE_CHILDREN), once the program is waited for;
	 * 0: not known (--from of an older run). */
	uint64_t tree_cpu_ns;
	struct reaped *reaped; /* every process pcprof waited for */
	size_t nreaped, capreaped;
};

/* Reap one ended child (blocking unless flags has WNOHANG): first look at
 * it with WNOWAIT for its CPU time, which a process that was killed never
 * wrote into its recording.  Returns its pid, 0 if none has ended (WNOHANG),
 * -1 with errno (EINTR, ECHILD). */
static pid_t reap(struct run *r, int flags)
{
	siginfo_t si;
	si.si_pid = 0;
	if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT | flags) < 0)
		return -1;
	pid_t pid = si.si_pid;
	if (pid == 0)
		return 0;
	uint64_t cpu = proc_cpu_ns(pid);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (r->nreaped == r->capreaped) {
		r->capreaped = r->capreaped ? 2 * r->capreaped : 16;
		r->reaped = xrealloc(r->reaped, r->capreaped * sizeof *r->reaped);
	}
	r->reaped[r->nreaped++] = (struct reaped){ pid, st, cpu };
	if (pid == r->pid)
		r->status = st;
	return pid;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);
	return n > k && strcmp(s + n - k, tail) == 0;
}

/* What pcprof run and the recorder put there, and nothing else: --from
 * takes any directory it is given.  ".utab": the unwind tables the
 * images of the run share (lib/sig/unwind-tables.c). */
static bool ours(const char *name)
{
	return ends_with(name, ".raw") || ends_with(name, ".lost") || ends_with(name, ".utab") ||
	       strcmp(name, RUN_INFO) == 0;
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (ours(e->d_name))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	if (rmdir(dir) < 0)
		warnx_("cannot remove %s: %s", dir, strerror(errno));
}

/* The external mode's state (its block is below, before cmd_run). */
struct external;
static void external_begin(struct external *ext, pid_t pid, const int gate[2]);

/* Start the program; returns only in pcprof, with the exec done.  An exec
 * that fails is reported through a close-on-exec pipe, so pcprof can say
 * why and end with 126 or 127 without writing a data file.  With ext, the
 * child waits before its exec until external_begin has its sampler on it,
 * so the sampling covers the program from its first instruction. */
static void start(struct run *r, char **argv, char **env, const char *dir, struct external *ext)
{
	sigset_t old;
	int pfd[2], gate[2] = { -1, -1 };
	if (pipe2(pfd, O_CLOEXEC) < 0 || (ext && pipe2(gate, O_CLOEXEC) < 0))
		die(EXIT_RUN_FAILED, "pipe: %s", strerror(errno));
	catch_signals(&old);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		die(EXIT_RUN_FAILED, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(pfd[0]);
		restore_dispositions();
		sigaction(SIGPIPE, &saved_pipe, NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		size_t at = strlen(root_entry);
		snprintf(root_entry + at, sizeof root_entry - at, "%d", (int)getpid());
		if (ext) {
			char go;
			close(gate[1]);
			ssize_t n;
			while ((n = read(gate[0], &go, 1)) < 0 && errno == EINTR)
				;
			if (n != 1)
				_exit(EXIT_RUN_FAILED); /* pcprof refused to run it */
		}
		execvpe(argv[0], argv, env);
		int e = errno;
		if (write(pfd[1], &e, sizeof e) < 0)
			_exit(EXIT_RUN_FAILED);
		_exit(EXIT_NOT_FOUND);
	}
	close(pfd[1]);
	child = pid;
	r->pid = pid;
	if (ext)
		external_begin(ext, pid, gate);
	sigprocmask(SIG_SETMASK, &old, NULL);

	int e;
	ssize_t n;
	while ((n = read(pfd[0], &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(pfd[0]);
	if (n == (ssize_t)sizeof e) {
		waitpid(pid, NULL, 0);
		child = 0;
		if (dir)
			remove_dir(dir);
		warnx_("%s: %s", argv[0], strerror(e));
		exit(e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC);
	}
}

/* Wait for the program, reaping on the way every orphan handed to us, then
 * the orphans that have ended meanwhile (their statuses, not their
 * zombies). */
static void wait_program(struct run *r)
{
	pid_t p;
	do {
		p = reap(r, 0);
		if (p < 0 && errno != EINTR)
			die(EXIT_RUN_FAILED, "waitid: %s", strerror(errno));
	} while (p != r->pid);
	child = 0;
	restore_dispositions();
	while (reap(r, WNOHANG) > 0)
		;
	struct rusage ru;
	if (getrusage(RUSAGE_CHILDREN, &ru) == 0)
		r->tree_cpu_ns =
			((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) *
				1000000000u +
			((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
}

/* What waiting told us about how each process ended: it belongs to the
 * last image of that pid, the one that did not exec (an image the library
 * never entered, which raw_collect added after the one that exec'd, when
 * there is one).  An image killed before the library wrote its final CPU
 * time, or never entered, gets the one /proc had. */
static void apply_statuses(struct raw_set *set, const struct run *r)
{
	for (size_t i = 0; i < r->nreaped; i++) {
		const struct reaped *w = &r->reaped[i];
		size_t last = set->n;
		for (size_t k = 0; k < set->n; k++)
			if (set->procs[k].pid == w->pid &&
			    (last == set->n || set->procs[k].seq > set->procs[last].seq))
				last = k;
		if (last == set->n || set->procs[last].end == PP_END_EXEC)
			continue;
		struct pp_process *pr = &set->procs[last];
		sampler_set_end(pr, w->status);
		const struct raw_info *in = &set->info[last];
		/* After a seccomp filter the library stored no CPU time, nor
		 * marked an exec, whose image inherited the filter and ran
		 * unrecorded: all of it after the stop. */
		bool seccomp = pr->stop == PP_STOP_SECCOMP;
		if ((in->raw_end == PCPROF_END_RUNNING || seccomp) &&
		    w->cpu_ns > in->cpu_start_ns && w->cpu_ns - in->cpu_start_ns > pr->cpu_ns) {
			pr->cpu_ns = w->cpu_ns - in->cpu_start_ns;
			if (seccomp)
				pr->stop_ns = w->cpu_ns - in->stop_cpu_ns;
		}
	}
}

/* Still running when pcprof looked: never marked by the library, not
 * reaped, and there (recorded until now). */
static bool still_running(const struct pp_process *pr, const struct raw_info *in)
{
	return in->raw_end == PCPROF_END_RUNNING && pr->end == PP_END_UNKNOWN &&
	       kill(pr->pid, 0) == 0;
}

/*
 * After a seccomp filter nothing the filter keeps in is recorded: the
 * image's own CPU time after it is known where pcprof reaped it
 * (apply_statuses), and the fork children and exec'd images under it
 * have no recording at all.  So the tree's CPU time that no recording
 * accounts for (tree_cpu_ns, RUSAGE_CHILDREN, less every image's CPU time
 * and that of the images named as not entered) is theirs: it goes to the
 * first image that stopped so, as its CPU time after the filter, and the
 * summary, the data file and pcprof report say it there.  That sum holds
 * the few tenths of a millisecond a process costs the kernel beyond its
 * recording too (GAP_MARGIN_NS).
 */
static void seccomp_gap(struct raw_set *set, uint64_t tree_cpu_ns)
{
	size_t first = set->n;
	uint64_t counted = 0;
	for (size_t i = 0; i < set->n; i++) {
		const struct pp_process *pr = &set->procs[i];
		if (pr->stop == PP_STOP_SECCOMP && first == set->n)
			first = i;
		if (set->info[i].unentered || !still_running(pr, &set->info[i]))
			counted += pr->cpu_ns;
	}
	if (first == set->n || tree_cpu_ns <= counted)
		return;
	set->procs[first].cpu_ns += tree_cpu_ns - counted;
	set->procs[first].stop_ns += tree_cpu_ns - counted;
}

/* ---- what only pcprof run knows, kept beside the recordings ---- */

/*
 * RUN_INFO: "pcprof-run 1", "start NS", "end NS", "tree CPU_NS" (the
 * tree's CPU time, struct run), one "reaped PID STATUS CPU_NS" per process
 * waited for, "command", then the command's bytes to
 * the end of the file.  Written before the data file, so that it is there
 * whatever happens to the write (or to pcprof); it is small, and a file
 * system too full for it only costs --from the exit statuses.
 */
static void save_run_info(const char *dir, const struct pp_profile *p, const struct run *r)
{
	char path[PATH_MAX + sizeof RUN_INFO];
	snprintf(path, sizeof path, "%s/%s", dir, RUN_INFO);
	FILE *f = fopen(path, "wxe");
	if (!f)
		return;
	fprintf(f, "pcprof-run 1\nstart %llu\nend %llu\ntree %llu\n",
		(unsigned long long)p->start_ns, (unsigned long long)p->end_ns,
		(unsigned long long)r->tree_cpu_ns);
	for (size_t i = 0; i < r->nreaped; i++)
		fprintf(f, "reaped %d %d %llu\n", (int)r->reaped[i].pid, r->reaped[i].status,
			(unsigned long long)r->reaped[i].cpu_ns);
	fprintf(f, "command\n%s", p->command);
	if (ferror(f) | (fclose(f) != 0))
		unlink(path);
}

/* One line of f into line, whole, without its newline; false at the end
 * or if it is longer than the buffer. */
static bool get_line(char *line, size_t size, FILE *f)
{
	if (!fgets(line, (int)size, f))
		return false;
	char *nl = strchr(line, '\n');
	if (!nl)
		return false;
	*nl = 0;
	return true;
}

static int cmp_pid(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/*
 * Fill p's command and times and r's statuses from RUN_INFO; false if it
 * is missing or not ours.  --from takes any directory, so the file may be
 * anyone's and of any size: it is read a line at a time (a line longer
 * than any of ours ends it), the command to PP_STR_MAX bytes (what a data
 * file holds of it), and a status only for a pid with a recording in set,
 * the last one given (apply_statuses would apply the last): what is kept
 * is bounded by the recordings, not by the file.
 */
static bool load_run_info(const char *dir, const struct raw_set *set, struct pp_profile *p,
			  struct run *r)
{
	char path[PATH_MAX + sizeof RUN_INFO], line[256];
	snprintf(path, sizeof path, "%s/%s", dir, RUN_INFO);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	unsigned long long a = 0, b = 0;
	int n;
	bool ok = get_line(line, sizeof line, f) && strcmp(line, "pcprof-run 1") == 0;
	ok = ok && get_line(line, sizeof line, f) && sscanf(line, "start %llu%n", &a, &n) == 1 &&
	     !line[n];
	ok = ok && get_line(line, sizeof line, f) && sscanf(line, "end %llu%n", &b, &n) == 1 &&
	     !line[n];
	p->start_ns = a;
	p->end_ns = b;
	size_t npid = 0;
	int32_t *pids = xmalloc((set->n ? set->n : 1) * sizeof *pids);
	for (size_t i = 0; i < set->n; i++)
		pids[i] = set->procs[i].pid;
	qsort(pids, set->n, sizeof *pids, cmp_pid);
	for (size_t i = 0; i < set->n; i++) /* each once */
		if (!npid || pids[i] != pids[npid - 1])
			pids[npid++] = pids[i];
	size_t *slot = xcalloc(npid ? npid : 1, sizeof *slot); /* r->reaped index + 1 */
	r->reaped = xmalloc((npid ? npid : 1) * sizeof *r->reaped);
	r->capreaped = npid;
	while (ok && (ok = get_line(line, sizeof line, f)) && strcmp(line, "command") != 0) {
		int pid, st;
		if (sscanf(line, "tree %llu%n", &a, &n) == 1 && !line[n]) {
			r->tree_cpu_ns = a; /* since the tree line was added */
			continue;
		}
		ok = sscanf(line, "reaped %d %d %llu%n", &pid, &st, &a, &n) == 3 && !line[n];
		const int32_t key = pid,
			      *at = ok ? bsearch(&key, pids, npid, sizeof *pids, cmp_pid) : NULL;
		if (!at)
			continue;
		size_t k = (size_t)(at - pids);
		if (!slot[k])
			slot[k] = ++r->nreaped;
		r->reaped[slot[k] - 1] = (struct reaped){ pid, st, a };
	}
	free(slot);
	free(pids);
	/* the command: the rest of the file, of which a data file holds
	 * PP_STR_MAX bytes */
	size_t len = 0, cap = 256, k;
	char *cmd = xmalloc(cap);
	while (ok && len < PP_STR_MAX && (k = fread(cmd + len, 1, cap - len - 1, f)) > 0)
		if ((len += k) + 1 == cap && len < PP_STR_MAX)
			cmd = xrealloc(cmd,
				       (cap = cap * 2 < PP_STR_MAX + 1 ? cap * 2 : PP_STR_MAX + 1));
	cmd[len] = 0;
	ok = ok && !ferror(f);
	fclose(f);
	if (ok)
		p->command = cmd;
	else
		free(cmd);
	return ok;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the summary line ---- */

struct text {
	char s[1024];
	size_t len;
};

static void add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct text *t, const char *fmt, ...)
{
	if (t->len >= sizeof t->s)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t->s + t->len, sizeof t->s - t->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->len += (size_t)n;
}

/* add, after ", " unless it is the first item */
#define add_item(t, ...)                                                                           \
	do {                                                                                       \
		if ((t)->len)                                                                      \
			add(t, ", ");                                                              \
		add(t, __VA_ARGS__);                                                               \
	} while (0)

static void add_bytes(struct text *t, uint64_t b)
{
	if (b >= 10u << 20)
		add(t, "%.0f MiB", (double)b / (1 << 20));
	else if (b >= 1u << 20)
		add(t, "%.1f MiB", (double)b / (1 << 20));
	else
		add(t, "%.0f KiB", (double)b / 1024);
}

/* "N process images not recorded (no room for their recordings in DIR: No
 * space left on device; pids 12, 14, ...; 0.44 s CPU)": the reason of the
 * first, the first few pids, and their CPU time. */
static void add_unrecorded(struct text *t, const struct raw_set *set, const char *dir,
			   uint64_t cpu_ns)
{
	size_t n = set->nunrecorded;
	int err = set->unrecorded[0].err;
	add_item(t, "%zu process image%s not recorded (", n, n == 1 ? "" : "s");
	if (err == ENOSPC || err == EDQUOT || err == EFBIG)
		add(t, "no room for %s in %s: ", n == 1 ? "its recording" : "their recordings",
		    dir);
	add(t, "%s; pid%s", strerror(err), n == 1 ? "" : "s");
	for (size_t i = 0; i < n && i < 8; i++)
		add(t, "%s %d", i ? "," : "", (int)set->unrecorded[i].pid);
	add(t, "%s; %.2f s CPU)", n > 8 ? ", ..." : "", (double)cpu_ns * 1e-9);
}

/*
 * Time the recordings do not account for.  The recordings account for
 * every CPU nanosecond of the images they cover (each image's process CPU
 * clock, from the fork or the exec to exit: record-format.h); the tree's
 * CPU time is what getrusage(RUSAGE_CHILDREN) says of every descendant
 * reaped, each with what it reaped.  Both come from the same scheduler
 * clock, so what a recorded process costs beyond its recording is only
 * the kernel's part of its fork and exit, the exit handlers after ours and
 * pcprof's child before its exec: 0.2 ms a process on this machine (200
 * processes of 5 ms from a shell loop, as in tests/cli-run/t-run-short.sh:
 * 0.03-0.04 s of 1.06 s).  The margin is 20 ms + 1 ms a recorded process
 * + 1% of the tree: five times that cost, and still below what a single
 * unentered program must burn to matter (a few percent of the run).  Not counted on either side:
 * processes still running (recorded until now, not reaped), children of a parent that ignores
 * SIGCHLD (the kernel reaps them without adding their time to anyone's),
 * and orphans adopted by another subreaper than pcprof.
 */
#define GAP_MARGIN_NS(procs, tree) (20000000u + 1000000u * (uint64_t)(procs) + (tree) / 100)
/*
 * And the kernel frees a process's memory after its exit handlers, on its
 * CPU time: a program that touched 1 GiB and exited spent 0.13 s there
 * (2 GiB: 0.25 s; pcprof run said "0.13 s CPU not sampled ... processes
 * libprofil did not enter" of a single process), and a sanitizer's shadow
 * memory makes every process of a shell loop cost 1.5 ms more (200
 * processes under ASan: 0.29-0.33 s).  The recordings give each process's
 * resident set at its exit; 400 ns a KiB (0.4 s a GiB) is three times the
 * measured cost.  (At most 16 TiB a process, raw.c: no overflow.)
 */
#define TEARDOWN_NS_PER_KIB 400u

/* "st: statically linked; md5sum: run with ...": the first few distinct
 * reasons, each with the first program it applies to: the images added
 * for an exec (raw.h), and the first child of each image that vforked
 * and exec'd where the library does not follow. */
static void add_unentered(struct text *t, const struct raw_set *set)
{
	bool seen[PCPROF_UNF_MAX + 1] = { false };
	size_t shown = 0, more = 0;
	for (size_t i = 0; i < set->n; i++) {
		const struct raw_info *in = &set->info[i];
		const char *exe = NULL;
		uint32_t why = 0;
		if (in->unentered)
			exe = set->procs[i].exe, why = in->unfollowed;
		else if (in->spawn_path)
			exe = in->spawn_path, why = in->spawn_why;
		if (!exe)
			continue;
		if (seen[why] || shown == 3) {
			more += !seen[why];
			continue;
		}
		seen[why] = true;
		const char *base = strrchr(exe, '/');
		add(t, "%s%s: %s", shown++ ? "; " : " (", base ? base + 1 : exe,
		    raw_unfollowed_text(why));
	}
	add(t, "%s)", more ? "; ..." : "");
}

/* Parts of CPU time without samples shown in the summary: at least what
 * rounds to 0.01 s.  (The data file keeps every part.) */
#define GAP_SHOWN_NS 5000000u

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* "0.52 s CPU in io_uring workers (...)": each part of the images' CPU
 * time that has no samples (raw_gaps), but those the items before say
 * (threads not sampled, NOEXIT). */
static void add_gaps(struct text *t, const struct pp_gap_part *g, const size_t *procs,
		     const char *noengine_why)
{
	if (g[PP_GAP_NOENGINE].ns >= GAP_SHOWN_NS) {
		size_t n = procs[PP_GAP_NOENGINE];
		add_item(t, "%.2f s CPU of %zu process%s no engine could sample",
			 (double)g[PP_GAP_NOENGINE].ns * 1e-9, n, n == 1 ? "" : "es");
		if (noengine_why && noengine_why[0])
			add(t, " (%.160s%s)", noengine_why, n > 1 ? ", ..." : "");
	}
	const struct pp_gap_part *b = &g[PP_GAP_BLOCKED];
	if (b->ns >= GAP_SHOWN_NS)
		add_item(t,
			 "%.2f s CPU of %u thread%s that blocked the sampling signal (a raw "
			 "rt_sigprocmask: libprofil(7))",
			 (double)b->ns * 1e-9, b->threads, b->threads == 1 ? "" : "s");
	if (g[PP_GAP_IOURING].ns >= GAP_SHOWN_NS)
		add_item(t,
			 "%.2f s CPU in io_uring workers (kernel threads of the process: no user "
			 "code to sample)",
			 (double)g[PP_GAP_IOURING].ns * 1e-9);
	if (g[PP_GAP_FOREIGN].ns >= GAP_SHOWN_NS)
		add_item(t,
			 "%.2f s CPU of threads libprofil did not see start (made without "
			 "pthread_create)",
			 (double)g[PP_GAP_FOREIGN].ns * 1e-9);
	if (g[PP_GAP_BEFORE].ns >= GAP_SHOWN_NS)
		add_item(t, "%.2f s CPU of threads before an engine sampled them",
			 (double)g[PP_GAP_BEFORE].ns * 1e-9);
	const struct pp_gap_part *d = &g[PP_GAP_TEARDOWN];
	if (d->ns >= GAP_SHOWN_NS)
		add_item(t,
			 "%.2f s CPU of %u thread%s after their exit handlers (their teardown "
			 "in libc and the kernel)",
			 (double)d->ns * 1e-9, d->threads, d->threads == 1 ? "" : "s");
	if (g[PP_GAP_UNKNOWN].ns >= GAP_SHOWN_NS)
		add_item(t, "%.2f s CPU not sampled in %zu process%s, cause unknown (libprofil(7))",
			 (double)g[PP_GAP_UNKNOWN].ns * 1e-9, procs[PP_GAP_UNKNOWN],
			 procs[PP_GAP_UNKNOWN] == 1 ? "" : "es");
}

/* One line: what was recorded, at what rate, what it cost the target, and
 * anything lost or unusual.  tree_cpu_ns: the CPU time of the whole
 * process tree pcprof waited for (struct run), 0 if unknown. */
static void summary(const struct raw_set *set, const char *dir, const char *out,
		    const struct opts *o, uint64_t tree_cpu_ns)
{
	uint64_t ticks = 0, signals = 0, cpu = 0, mem = 0, lost_table = 0, lost_threads = 0,
		 lost_busy = 0, lost_mods = 0, lost_room = 0, unsampled = 0, unseen = 0, owed = 0,
		 unsampled_ticks = 0, stack_cut = 0, untimed = 0;
	uint32_t partial = 0; /* 1 + the first bucket a timeline lost */
	int room_err = 0, mod_err = 0, node_err = 0;
	size_t abrupt = 0, running = 0, unstarted = 0, unaudited = 0, user_time = 0;
	size_t unentered = 0, recorded = 0, ntids = 0;
	/* Each image's pid and sampled threads, to count processes and
	 * threads below. */
	struct image_key *keys = xmalloc((set->n ? set->n : 1) * sizeof *keys);
	struct {
		uint32_t image; /* among keys */
		int32_t tid;
	} *tids = NULL;
	uint64_t unentered_cpu = 0, counted_cpu = 0; /* counted: in tree_cpu_ns */
	uint64_t teardown_ns = 0; /* what freeing their memory may have cost them */
	/* Recordings that stopped (pp_process.stop): their images, the CPU
	 * time not sampled since, and the first image's program. */
	size_t nstop[PP_STOP_MAX + 1] = { 0 };
	uint64_t stop_ns[PP_STOP_MAX + 1] = { 0 };
	const char *stop_exe[PP_STOP_MAX + 1] = { NULL };
	unsigned hz = 0;
	char engines[128] = "";
	struct fewsignals few = { 0 };
	/* Images without a recording (a marker: no room), their CPU time as
	 * their markers say it, and how many could not say it (killed). */
	uint64_t unrecorded_cpu = 0;
	size_t unrecorded_unknown = 0;
	/* CPU time without samples, by cause (raw_gaps), and in how many
	 * processes */
	struct pp_gap_part gaps[PP_GAP_N] = { { 0, 0 } };
	size_t gap_procs[PP_GAP_N] = { 0 };
	const char *noengine_why = NULL; /* the first such image's reasons */
	for (size_t i = 0; i < set->n; i++) {
		const struct pp_process *pr = &set->procs[i];
		const struct raw_info *in = &set->info[i];
		if (in->unrecorded) {
			unrecorded_cpu += pr->cpu_ns;
			counted_cpu += pr->cpu_ns;
			unrecorded_unknown += !pr->cpu_ns;
			continue;
		}
		/* Not recorded: its CPU time (if pcprof reaped it) is not sampled. */
		if (in->unentered) {
			unentered++;
			unentered_cpu += pr->cpu_ns;
			continue;
		}
		unentered += in->spawn_unfollowed;
		recorded++;
		fewsignals_add(&few, pr);
		ticks += pr->ticks;
		signals += pr->signals;
		cpu += pr->cpu_ns - pr->stop_ns; /* the rate is over what was sampled */
		if (pr->stop && pr->stop <= PP_STOP_MAX) {
			nstop[pr->stop]++;
			stop_ns[pr->stop] += pr->stop_ns;
			if (!stop_exe[pr->stop])
				stop_exe[pr->stop] = pr->exe;
		}
		keys[recorded - 1] = (struct image_key){ pr->pid, pr->seq, pr->end == PP_END_EXEC };
		tids = xrealloc(tids, (ntids + pr->nthreads + 1) * sizeof *tids);
		for (size_t k = 0; k < pr->nthreads; k++)
			/* not "[other]"; a slot without ticks is no sampled thread */
			if (pr->threads[k].tid && pr->threads[k].ticks) {
				tids[ntids].image = (uint32_t)(recorded - 1);
				tids[ntids++].tid = pr->threads[k].tid;
			}
		mem = pr->mem_bytes > mem ? pr->mem_bytes : mem;
		/* A table that could not grow lost for want of space, not size. */
		if (in->table_error) {
			lost_room += in->lost_table;
			room_err = room_err ? room_err : in->table_error;
		} else {
			lost_table += in->lost_table;
		}
		lost_threads += in->lost_threads;
		lost_busy += in->lost_busy;
		lost_mods += in->lost_modules;
		owed += in->owed;
		stack_cut += in->stack_cut;
		untimed += pr->tl_lost;
		if (pr->tl_partial && (!partial || pr->tl_partial < partial))
			partial = pr->tl_partial;
		unsampled_ticks += in->unsampled;
		user_time += (in->flags & PCPROF_RAW_F_USER_TIME) != 0;
		unsampled += in->threads_unsampled;
		unseen += in->threads_unseen;
		if (pr->gap[PP_GAP_NOENGINE].ns && !noengine_why)
			noengine_why = pr->why;
		for (int g = 0; g < PP_GAP_N; g++)
			if (pr->gap[g].ns) {
				gap_procs[g]++;
				gaps[g].ns = sat_add(gaps[g].ns, pr->gap[g].ns);
				gaps[g].threads = gaps[g].threads > UINT32_MAX - pr->gap[g].threads
							  ? UINT32_MAX
							  : gaps[g].threads + pr->gap[g].threads;
			}
		if (in->mod_error && !mod_err)
			mod_err = in->mod_error;
		if (in->node_error && !node_err)
			node_err = in->node_error;
		if (!(in->flags & PCPROF_RAW_F_SAMPLER))
			unstarted++;
		else if (!(in->flags & PCPROF_RAW_F_AUDIT))
			unaudited++;
		/* Never marked by the library: still running (nobody reaped it
		 * and it is there), or ended without exit handlers. */
		bool alive = still_running(pr, in);
		running += alive;
		/* After a seccomp filter the library never marks the end. */
		abrupt +=
			in->raw_end == PCPROF_END_RUNNING && !alive && pr->stop != PP_STOP_SECCOMP;
		if (!alive) {
			counted_cpu += pr->cpu_ns;
			teardown_ns += TEARDOWN_NS_PER_KIB * in->exit_rss_kib;
		}
		if (pr->hz > hz)
			hz = pr->hz;
		if (pr->engine[0] && !strstr(engines, pr->engine)) {
			size_t l = strlen(engines);
			snprintf(engines + l, sizeof engines - l, "%s%s", l ? "+" : "", pr->engine);
		}
	}

	struct text t = { .len = 0 };
	double secs = (double)cpu * 1e-9;
	add(&t, "%llu samples", (unsigned long long)ticks);
	/* Owed: CPU time that no signal of the engine reported, accounted
	 * from the threads' CPU clocks (libprofil(7)). */
	if (owed)
		add(&t, " (%llu owed)", (unsigned long long)owed);
	add(&t, ", %.2f s CPU", secs);
	/* Achieved: samples (weighted ticks) per CPU second, as pcprof report
	 * computes it.  The signals per CPU second tell the resolution: the
	 * kernel checks CPU timers at its tick, so above that rate one signal
	 * stands for several periods; shown when they differ by over 10%. */
	double achieved = secs > 0 ? (double)ticks / secs : 0;
	double sigrate = secs > 0 ? (double)signals / secs : 0;
	if (ticks && secs > 0)
		add(&t, ", %.0f Hz of %u", achieved, hz);
	add(&t, " (%s", engines[0] ? engines : "no engine");
	if (ticks && sigrate < 0.9 * achieved)
		add(&t, ", %.0f signals/s", sigrate);
	/* Processes and threads are counted as pcprof report counts them:
	 * an exec makes a new image of the same process, its thread keeps
	 * its id; a pid used again is another process (util.h). */
	uint32_t *proc = xmalloc((recorded ? recorded : 1) * sizeof *proc);
	size_t nproc = number_processes(keys, recorded, proc);
	uint64_t *pt = xmalloc((ntids ? ntids : 1) * sizeof *pt);
	for (size_t k = 0; k < ntids; k++)
		pt[k] = (uint64_t)proc[tids[k].image] << 32 | (uint32_t)tids[k].tid;
	size_t threads = distinct_u64(pt, ntids);
	free(keys);
	free(proc);
	free(pt);
	free(tids);
	add(&t, "), %zu process%s", nproc, nproc == 1 ? "" : "es");
	if (nproc != recorded)
		add(&t, " (%zu images)", recorded);
	add(&t, ", %zu thread%s sampled", threads, threads == 1 ? "" : "s");
	if (recorded) {
		add(&t, ", recording memory <= ");
		add_bytes(&t, mem);
	}
	struct text lost = { .len = 0 };
	if (lost_table)
		add_item(&lost, "%llu samples (pc table full: try --slots %lu)",
			 (unsigned long long)lost_table, o->slots * 4);
	/* ENOMEM: the library kept the program's address space (its
	 * RLIMIT_AS) rather than grow the table (lib/sig/sink.h). */
	if (lost_room && room_err == ENOMEM)
		add_item(&lost,
			 "%llu samples (the pc table could not grow within the program's "
			 "address-space limit, RLIMIT_AS)",
			 (unsigned long long)lost_room);
	else if (lost_room)
		add_item(&lost, "%llu samples (the pc table could not grow in %s: %s)",
			 (unsigned long long)lost_room, dir, strerror(room_err));
	if (lost_busy)
		add_item(&lost, "%llu samples (being stored as a process died)",
			 (unsigned long long)lost_busy);
	if (lost_mods)
		add_item(&lost, "%llu modules (%s)", (unsigned long long)lost_mods,
			 mod_err == ENOSPC ? "module table full" : strerror(mod_err));
	/* What the markers did not say, the tree's CPU time does: the gap
	 * beyond the margin, unless images the library never entered claim
	 * it (below). */
	uint64_t gap = tree_cpu_ns > counted_cpu ? tree_cpu_ns - counted_cpu : 0;
	if (set->nunrecorded && unrecorded_unknown && !unentered &&
	    gap > GAP_MARGIN_NS(recorded, tree_cpu_ns) + teardown_ns)
		unrecorded_cpu += gap;
	if (set->nunrecorded)
		add_unrecorded(&lost, set, dir, unrecorded_cpu);
	/* Time the recordings miss: the images the exec and posix_spawn
	 * wrappers (a vfork child's exec included) saw go where the library
	 * could not follow (named), and beyond the margin what nothing named
	 * (a relative name spawned with file actions, a program that execs
	 * with raw system calls...).  The gap holds the named images' time
	 * too. */
	/* The recordings that stopped: after a seccomp filter the gap is
	 * theirs already (seccomp_gap). */
	static const char *const stop_text[PP_STOP_MAX + 1] = {
		[PP_STOP_SECCOMP] = "not sampled after seccomp filter",
		[PP_STOP_MANUAL] = "not sampled with the manual engine the program chose "
				   "(PROFIL_ENGINE=manual or profil_set_engine)",
	};
	for (int k = 1; k <= PP_STOP_MAX; k++) {
		if (!nstop[k])
			continue;
		const char *base = strrchr(stop_exe[k], '/');
		add_item(&lost, "%s: %.2f s CPU (%zu process image%s: %s%s)", stop_text[k],
			 (double)stop_ns[k] * 1e-9, nstop[k], nstop[k] == 1 ? "" : "s",
			 base ? base + 1 : stop_exe[k], nstop[k] > 1 ? ", ..." : "");
	}
	if (unentered) {
		add_item(&lost, "%.2f s CPU of %zu process image%s the library could not enter",
			 (double)(gap > unentered_cpu ? gap : unentered_cpu) * 1e-9, unentered,
			 unentered == 1 ? "" : "s");
		add_unentered(&lost, set);
	} else if (tree_cpu_ns && !unrecorded_unknown && !set->nbad &&
		   gap > GAP_MARGIN_NS(recorded, tree_cpu_ns) + teardown_ns) {
		/* (Images with an unreadable recording, or without one and
		 * whose marker does not say their CPU time, said here too,
		 * explain a gap.) */
		add_item(&lost,
			 "%.2f s CPU not sampled (of %.2f s the process tree used: processes "
			 "libprofil did not enter%s, see pcprof-run(1) CAVEATS)",
			 (double)gap * 1e-9, (double)tree_cpu_ns * 1e-9,
			 o->follow ? "" : ", not followed with --no-follow");
	}
	/* Threads counts the threads (the library's thread_errors); the ticks
	 * are their CPU time x rate where it could be read (libprofil(7)). */
	if (unsampled && unsampled_ticks)
		add_item(&lost,
			 "%llu samples of %llu thread%s not sampled, wholly or in part "
			 "(resource limits, the program closed their timer or event, or "
			 "claimed every free signal: libprofil(7))",
			 (unsigned long long)unsampled_ticks, (unsigned long long)unsampled,
			 unsampled == 1 ? "" : "s");
	else if (unsampled)
		add_item(&lost,
			 "%llu thread%s not sampled, wholly or in part (resource limits, the "
			 "program closed their timer or event, or claimed every free signal: "
			 "libprofil(7))",
			 (unsigned long long)unsampled, unsampled == 1 ? "" : "s");
	else if (unsampled_ticks)
		add_item(&lost, "%llu samples of threads that could not be sampled",
			 (unsigned long long)unsampled_ticks);
	if (unseen && gaps[PP_GAP_NOEXIT].ns >= GAP_SHOWN_NS)
		add_item(&lost,
			 "%.2f s CPU after the last sample of %llu thread%s that ended without "
			 "exit handlers",
			 (double)gaps[PP_GAP_NOEXIT].ns * 1e-9, (unsigned long long)unseen,
			 unseen == 1 ? "" : "s");
	else if (unseen)
		add_item(&lost,
			 "the CPU after the last sample of %llu thread%s that ended without "
			 "exit handlers",
			 (unsigned long long)unseen, unseen == 1 ? "" : "s");
	add_gaps(&lost, gaps, gap_procs, noengine_why);
	if (set->nbad)
		add_item(&lost, "%zu unreadable recording%s (%s)", set->nbad,
			 set->nbad == 1 ? "" : "s", set->first_bad);
	if (unstarted)
		add_item(&lost, "%zu process%s not sampled (libprofil never started in them)",
			 unstarted, unstarted == 1 ? "" : "es");
	if (user_time)
		add_item(&lost, "system time (perf could sample user time only)");
	/* Not lost: the samples are there, but in few places (fewsignals.c). */
	char note[256];
	if (fewsignals_note(&few, "", note, sizeof note))
		add(&t, "; %s", note);
	add(&t, "; lost: %s", lost.len ? lost.s : "none");
	if (abrupt)
		add(&t, "; %zu ended without exit (_exit, crash or kill: data kept)", abrupt);
	if (running)
		add(&t, "; %zu still running (recorded until now)", running);
	if (lost_threads)
		add(&t, "; %llu samples of threads beyond the thread table (kept as [other])",
		    (unsigned long long)lost_threads);
	/* What would have given the stack and time tables room: more slots,
	 * unless a table could not grow at all (a full recording directory,
	 * the address-space limit), where more slots cannot help. */
	char room[PATH_MAX + 96];
	if (!room_err)
		room_err = node_err;
	if (room_err == ENOMEM)
		snprintf(room, sizeof room, "no room within the address-space limit, RLIMIT_AS");
	else if (room_err)
		snprintf(room, sizeof room, "no room in %s: %s", dir, strerror(room_err));
	else
		snprintf(room, sizeof room, "try --slots %lu", o->slots * 4);
	/* Not lost: the samples are there, their stacks lack inner callers. */
	if (stack_cut)
		add(&t, "; %llu samples with a cut stack (stack table full: [truncated]; %s)",
		    (unsigned long long)stack_cut, room);
	/* Not lost either: the samples are there, without their time. */
	if (untimed && partial)
		add(&t, "; timeline partial from %.2f s (%llu samples without a time; %s)",
		    (double)(partial - 1) * (double)set->bucket_ns / 1e9,
		    (unsigned long long)untimed, room);
	if (unaudited)
		add(&t, "; %zu without the audit module (modules listed at start and exit only)",
		    unaudited);
	add(&t, " -> %s", out);
	warnx_("%s", t.s); /* escapes what the recordings named (util.h) */
}

/* The output's directory must take a new file: better to know before the
 * program runs for an hour. */
static void check_output(const char *out)
{
	char err[2 * PATH_MAX + 64];
	if (ofile_check(out, err, sizeof err) < 0)
		die(EXIT_RUN_FAILED, "%s", err);
}

/* Where the recordings go: TMPDIR if set; else /dev/shm when it is memory
 * with room to spare, because every page the targets touch in a file on a
 * disk file system costs block allocation and writeback (about 8 ms per
 * short-lived process on ext4, against 1 ms on tmpfs); else /tmp.  The
 * margin matters: a target that touches a page of its recording when the
 * file system is full dies of SIGBUS. */
static const char *recording_parent(void)
{
	const char *tmp = getenv("TMPDIR");
	if (tmp && *tmp)
		return tmp;
	struct statfs fs;
	if (statfs("/dev/shm", &fs) == 0 && fs.f_type == TMPFS_MAGIC &&
	    (uint64_t)fs.f_bavail * (uint64_t)fs.f_bsize >= SHM_MIN_FREE &&
	    access("/dev/shm", W_OK | X_OK) == 0)
		return "/dev/shm";
	return "/tmp";
}

/*
 * Name every module by the file itself, as /proc/PID/maps does, which is
 * what pcprof attach records: the library records the name the loader
 * used (liblzma.so.5, /lib/... through the /lib -> usr/lib link), attach
 * the file behind it (/usr/lib/.../liblzma.so.5.4.1).  One name for one
 * file makes a run and an attach of the same program agree in report,
 * export and diff (whose rows are keyed by module name, and whose labels
 * of unnamed code are "module+0xADDRESS"); matching by build id in diff
 * alone would leave the reports and those labels apart.  The files are
 * resolved here, right after the run, on the machine and in the mount
 * namespace the program ran in; a name that no longer resolves (the file
 * was removed) is kept as recorded.
 */
static void name_files_as_mapped(struct pp_profile *p)
{
	/* Each distinct path is resolved once (a realpath is some 5 system
	 * calls, ~15 us; an exec-heavy run has tens of thousands of images
	 * that map the same few libraries): an open-addressing table of
	 * (recorded, resolved) pairs, resolved NULL when it stays as it is. */
	size_t nmod = 0;
	for (size_t i = 0; i < p->nprocs; i++)
		nmod += p->procs[i].nmodules;
	size_t nslot = 64;
	while (nslot < 2 * nmod)
		nslot *= 2;
	struct {
		char *path, *real;
	} *slot = xcalloc(nslot, sizeof *slot);
	char buf[PATH_MAX];
	for (size_t i = 0; i < p->nprocs; i++)
		for (size_t k = 0; k < p->procs[i].nmodules; k++) {
			struct pp_module *m = &p->procs[i].modules[k];
			if (m->path[0] != '/')
				continue;
			size_t h = hash_bytes(m->path, strlen(m->path), HASH_INIT) & (nslot - 1);
			while (slot[h].path && strcmp(slot[h].path, m->path) != 0)
				h = (h + 1) & (nslot - 1);
			if (!slot[h].path) {
				slot[h].path = xstrdup(m->path);
				if (realpath(m->path, buf) && strcmp(buf, m->path) != 0)
					slot[h].real = xstrdup(buf);
			}
			if (slot[h].real) {
				free(m->path);
				m->path = xstrdup(slot[h].real);
			}
		}
	for (size_t h = 0; h < nslot; h++) {
		free(slot[h].path);
		free(slot[h].real);
	}
	free(slot);
}

/* The recordings in dir (read_recordings), with what waiting told us about
 * how each process ended (and_statuses). */
static void read_recordings(const char *dir, struct raw_set *set)
{
	char err[512];
	if (raw_collect(dir, set, err, sizeof err) < 0)
		die(EXIT_RUN_FAILED, "reading the recordings: %s", err);
}

static void and_statuses(struct raw_set *set, const struct run *r, struct pp_profile *p)
{
	apply_statuses(set, r);
	seccomp_gap(set, r->tree_cpu_ns);
	/* Each image's samples against its CPU time, now that a killed
	 * one has the CPU time /proc gave and an image stopped by a filter
	 * the CPU time after its stop (which raw_gaps leaves out: it is the
	 * stop's): what is missing, by cause. */
	for (size_t i = 0; i < set->n; i++)
		raw_gaps(&set->procs[i], &set->info[i]);
	p->nprocs = set->n;
	p->procs = set->procs;
	p->bucket_ns = set->bucket_ns;
	name_files_as_mapped(p);
}

/* Write the data file, then remove the recordings.  A write that fails
 * keeps them, and says how to finish. */
static void write_data(const char *dir, const char *where, struct pp_profile *p,
		       const struct raw_set *set, const struct opts *o, uint64_t tree_cpu_ns)
{
	char err[512];
	if (pp_write(o->out, p, err, sizeof err) < 0) {
		char *argv[] = { (char *)dir, NULL }, *quoted = join_command(argv);
		warnx_("%s: %s", o->out, err);
		die(EXIT_RUN_FAILED,
		    "the recordings are kept in %s: pcprof run --from %s -o FILE writes the data "
		    "file from them",
		    dir, quoted);
	}
	/* first: whatever becomes of pcprof as it writes the summary */
	remove_dir(dir);
	if (!o->quiet)
		summary(set, where, o->out, o, tree_cpu_ns);
}

/* pcprof run --from DIR: the recordings a failed run kept.  Without the
 * run's own file (pcprof was killed before it wrote it, or had no room) the
 * command and the exit statuses are unknown, and the times are the
 * recordings'. */
static _Noreturn void from_kept(const struct opts *o)
{
	struct stat st;
	if (stat(o->from, &st) < 0)
		die(EXIT_RUN_FAILED, "--from %s: %s", o->from, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		die(EXIT_RUN_FAILED, "--from %s: not a directory", o->from);
	struct pp_profile p = { 0 };
	struct run r = { 0 };
	struct raw_set set;
	read_recordings(o->from, &set);
	bool known = load_run_info(o->from, &set, &p, &r);
	and_statuses(&set, &r, &p);
	if (!known && !set.n && !set.nunrecorded && !set.nbad)
		die(EXIT_RUN_FAILED, "--from %s: no recordings of pcprof run there", o->from);
	if (!known) {
		warnx_("%s: no %s file: the command and exit statuses are unknown", o->from,
		       RUN_INFO);
		p.command = xstrdup("");
		for (size_t i = 0; i < set.n; i++) {
			const struct pp_process *pr = &set.procs[i];
			if (!p.start_ns || pr->start_ns < p.start_ns)
				p.start_ns = pr->start_ns;
			if (pr->end_ns > p.end_ns)
				p.end_ns = pr->end_ns;
		}
	}
	write_data(o->from, o->from, &p, &set, o, r.tree_cpu_ns);
	pp_free(&p);
	raw_set_free(&set);
	free(r.reaped);
	exit(0);
}

/* ---- external mode: sampled from outside (sampler.h) ---- */

#define POLL_MS 200 /* the longest wait: the program's end is seen within it */

struct external {
	const char *prog;
	char why[128];        /* why external, for the summary and messages */
	const char *obstacle; /* why preloading cannot reach it; NULL: it can */
	unsigned hz;
	bool allow_unprofiled;
	bool stacks;
	bool follow;
	bool timeline;
	struct sampler *s;
	struct pp_process *procs;
	size_t nprocs;
	struct sampler_info info;
};

/* In pcprof, the child forked and waiting at the gate: sample it, then let
 * it exec.  A sampler that cannot be had stops everything before the
 * program runs, unless running it unprofiled was allowed. */
static void external_begin(struct external *ext, pid_t pid, const int gate[2])
{
	char err[512];
	close(gate[0]);
	ext->s = sampler_open(pid, ext->hz, ext->stacks, ext->follow, err, sizeof err);
	if (ext->s)
		sampler_timeline(ext->s, ext->timeline);
	/* Refused on pcprof's own child: what refuses pcprof itself is the
	 * plainer reason (a policy rather than a permission on the child). */
	char self[512];
	if (!ext->s && sampler_probe(self, sizeof self) < 0)
		snprintf(err, sizeof err, "%s", self);
	if (!ext->s && !ext->allow_unprofiled) {
		close(gate[1]);
		waitpid(pid, NULL, 0);
		child = 0;
		if (ext->obstacle)
			die(EXIT_RUN_FAILED,
			    "cannot profile %s: it is %s, which preloading does not reach, and "
			    "sampling it from outside failed: %s (--allow-unprofiled runs it "
			    "anyway)",
			    ext->prog, ext->obstacle, err);
		die(EXIT_RUN_FAILED,
		    "cannot profile %s from outside: %s (--allow-unprofiled runs it anyway)",
		    ext->prog, err);
	}
	if (!ext->s)
		warnx_("%s runs unprofiled: %s", ext->prog, err);
	if (write(gate[1], "1", 1) != 1)
		die(EXIT_RUN_FAILED, "cannot start %s: %s", ext->prog, strerror(errno));
	close(gate[1]);
}

/* The preloaded perf engine needs what the probe opens; refuse before
 * running rather than record nothing. */
static void check_perf_engine(const struct opts *o)
{
	const char *engine = o->engine ? o->engine : getenv("PROFIL_ENGINE");
	char err[512];
	if (!engine || strcmp(engine, "perf") != 0 || sampler_probe(err, sizeof err) == 0)
		return;
	if (!o->allow_unprofiled)
		die(EXIT_RUN_FAILED,
		    "the perf engine cannot sample here: %s (choose --engine thread-timer, or "
		    "--allow-unprofiled to run unprofiled)",
		    err);
	warnx_("the perf engine cannot sample here, the program runs unprofiled: %s", err);
}

/* Preload or external, from --mode and the program file; fills ext and
 * returns true for external.  Refuses what preloading cannot reach when
 * preloading is forced. */
static bool choose_mode(const struct opts *o, char **prog, struct external *ext)
{
	char obstacle[96];
	*ext = (struct external){ .prog = prog[0],
				  .allow_unprofiled = o->allow_unprofiled,
				  .stacks = o->stacks,
				  .follow = o->follow,
				  .timeline = o->timeline };
	ext->obstacle = preload_obstacle(prog[0], obstacle, sizeof obstacle);
	if (ext->obstacle)
		ext->obstacle = xstrdup(obstacle);
	if (o->mode == MODE_PRELOAD || (o->mode == MODE_AUTO && !ext->obstacle)) {
		if (ext->obstacle && !o->allow_unprofiled)
			die(EXIT_RUN_FAILED,
			    "--mode preload cannot profile %s: it is %s, which LD_PRELOAD does not "
			    "reach (--mode auto or external samples it from outside; "
			    "--allow-unprofiled runs it anyway)",
			    prog[0], ext->obstacle);
		check_perf_engine(o);
		return false;
	}
	snprintf(ext->why, sizeof ext->why, "external: %s",
		 o->mode == MODE_EXTERNAL ? "--mode external" : ext->obstacle);
	ext->hz = (unsigned)o->hz; /* PROFIL_HZ or the default when not --hz (parse) */
	return true;
}

/* How the processes pcprof reaped ended (the program, and its orphans,
 * pcprof being their subreaper), where the sampler could not tell. */
static void apply_statuses_ext(struct external *ext, const struct run *r)
{
	for (size_t i = 0; i < r->nreaped; i++)
		for (size_t k = 0; k < ext->nprocs; k++) {
			struct pp_process *pr = &ext->procs[k];
			const struct reaped *w = &r->reaped[i];
			if (pr->pid == w->pid && pr->end == PP_END_UNKNOWN)
				sampler_set_end(pr, w->status);
		}
}

/* The program as pcprof's child, sampled until it ends, with the processes
 * it forks meanwhile unless --no-follow (then they are counted only). */
static _Noreturn void run_external(const struct opts *o, char **prog, struct external *ext)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	struct run r = { 0 };
	uint64_t t0 = now_ns();
	start(&r, prog, environ, NULL, ext);
	bool profiled = ext->s != NULL;
	if (profiled) {
		while (!sampler_poll(ext->s, POLL_MS, NULL))
			;
		sampler_finish(ext->s, &ext->procs, &ext->nprocs, &ext->info);
		ext->s = NULL;
		/* the exec pcprof's child made to become the program */
		if (ext->info.execs)
			ext->info.execs--;
	}
	wait_program(&r);
	if (!profiled) {
		warnx_("%s ran unprofiled: no data file written", prog[0]);
		exit_like(r.status);
	}
	/* The tree's system time, exact where /proc's is in clock ticks: the
	 * part of the CPU time external sampling cannot see (sampler.h). */
	struct rusage ru;
	if (getrusage(RUSAGE_CHILDREN, &ru) == 0)
		ext->info.sys_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000u +
				   (uint64_t)ru.ru_stime.tv_usec * 1000u;
	struct pp_process *pr = &ext->procs[0];
	apply_statuses_ext(ext, &r);
	sampler_set_end(pr, r.status);
	struct pp_profile p = { .command = join_command(prog),
				.start_ns = t0,
				.end_ns = now_ns(),
				.bucket_ns = ext->timeline ? SAMPLER_BUCKET_NS : 0,
				.nprocs = ext->nprocs,
				.procs = ext->procs };
	char err[512];
	if (pp_write(o->out, &p, err, sizeof err) < 0)
		die(EXIT_RUN_FAILED, "%s: %s", o->out, err);
	/* What the events missed, from the CPU time of the reaped tree: the
	 * kernel ends a task's perf events when it execs a set-ID program
	 * (its new credentials make it undumpable), even for root. */
	uint64_t seen = 0;
	for (size_t i = 0; i < p.nprocs; i++)
		seen += p.procs[i].cpu_ns;
	char unsampled[256], *lost = NULL;
	if (r.tree_cpu_ns > seen && r.tree_cpu_ns - seen > GAP_MARGIN_NS(p.nprocs, r.tree_cpu_ns)) {
		snprintf(unsampled, sizeof unsampled,
			 "%.2f s CPU not sampled (of %.2f s the process tree used%s)",
			 (double)(r.tree_cpu_ns - seen) * 1e-9, (double)r.tree_cpu_ns * 1e-9,
			 strstr(ext->why, "set-")
				 ? ": the kernel ends perf events at the exec of a "
				   "set-ID program; pcprof attach, once it runs, can "
				   "sample it"
				 : "");
		lost = unsampled;
	}
	/* The shortfall weighs no more CPU time than the tree's (steal). */
	sampler_bound_cpu(&ext->info, r.tree_cpu_ns);
	if (!o->quiet)
		sampler_summary(p.procs, p.nprocs, &ext->info, ext->why, 0, lost, o->out);
	pp_free(&p);
	exit_like(r.status);
}

int cmd_run(int argc, char **argv)
{
	struct opts o;
	int first;
	ignore_sigpipe();
	parse(argc, argv, &o, &first);
	char **prog = argv + first;
	check_output(o.out);
	if (o.from)
		from_kept(&o);
	struct external ext;
	if (choose_mode(&o, prog, &ext))
		run_external(&o, prog, &ext);

	char lib[PATH_MAX], audit[PATH_MAX];
	find_lib(lib, audit, sizeof lib);
	char dir[PATH_MAX];
	const char *parent = recording_parent();
	snprintf(dir, sizeof dir, "%s/pcprof.XXXXXX", parent);
	if (!mkdtemp(dir))
		die(EXIT_RUN_FAILED, "cannot create a directory like %s: %s", dir, strerror(errno));
	char **env = make_env(lib, audit, dir, &o, links_big_static_tls(prog[0]));

	/* Orphaned descendants come to us: we learn how they ended. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);

	struct run r = { 0 };
	uint64_t t0 = now_ns();
	start(&r, prog, env, dir, NULL);
	free_env(env);
	wait_program(&r);
	struct pp_profile p = { .command = join_command(prog), .start_ns = t0, .end_ns = now_ns() };
	save_run_info(dir, &p, &r);

	struct raw_set set;
	read_recordings(dir, &set);
	and_statuses(&set, &r, &p);
	write_data(dir, parent, &p, &set, &o, r.tree_cpu_ns);
	bool marked = false;
	for (size_t i = 0; i < set.nunrecorded; i++)
		marked |= set.unrecorded[i].pid == r.pid;
	size_t k = 0;
	while (k < set.n && set.procs[k].pid != r.pid)
		k++;
	if (k == set.n && !marked)
		warnx_("%s was not recorded: is it statically linked or set-user-ID? "
		       "(LD_PRELOAD does not reach those)",
		       prog[0]);
	pp_free(&p);
	raw_set_free(&set);
	exit_like(r.status);
}
