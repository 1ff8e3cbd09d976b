/*
 * cmd-attach.c - pcprof attach: profile a running process from outside
 * (cli/sampler.h) until a duration ends, the user interrupts pcprof, or
 * the process ends; then write the data file.
 *
 * Nothing touches the target but perf events on its threads, which pcprof
 * closes before it writes anything: the process keeps running as it did,
 * with no descriptor, mapping or signal disposition of ours left in it.
 *
 * SIGINT, SIGTERM and SIGHUP end the sampling, not pcprof: they are
 * blocked except inside ppoll, so one that arrives between two waits is
 * not lost, and the profile is written as after the duration.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "data.h"
#include "file.h"
#include "sampler.h"
#include "util.h"

#define EXIT_FAILED 1
#define EXIT_USAGE  2

#define DEFAULT_HZ PCPROF_DEFAULT_HZ
#define POLL_MS    200 /* the longest wait: a process that ended is seen within it */

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	stop_sig = sig;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pcprof attach [options] PID\n"
		"\n"
		"Profile the running process PID, all its threads (those it creates while\n"
		"attached included) and the processes it forks while attached, from\n"
		"outside with perf events: nothing is injected\n"
		"and the process is neither stopped nor changed.  Sampling ends when the\n"
		"duration is over, when pcprof gets SIGINT (Ctrl-C), SIGTERM or SIGHUP, or\n"
		"when the process ends; then the data file is written.\n"
		"\n"
		"Options:\n"
		"  -o, --output FILE      data file to write (default pcprof.data)\n"
		"  -d, --duration SECONDS stop after SECONDS (default: until interrupted)\n"
		"      --hz N             samples per CPU second per thread, 1..10000\n"
		"                         (default %d)\n"
		"      --no-stacks        pcs only, no call stacks (default: stacks, by\n"
		"                         frame pointers: see pcprof-attach(1))\n"
		"  -q, --quiet            no messages (the line saying sampling is live,\n"
		"                         the summary)\n"
		"  -h, --help             this text\n"
		"\n"
		"Needs perf events on PID: the same user (PID not set-user-ID) with\n"
		"kernel.perf_event_paranoid at most 2, or CAP_PERFMON/CAP_SYS_PTRACE.\n"
		"Exit status: 0 when the data file was written, 1 on any failure, 2 for a\n"
		"usage error.  See pcprof-attach(1).\n",
		DEFAULT_HZ);
}

static double seconds(const char *opt, const char *s)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 1e7)
		die(EXIT_USAGE, "%s: '%s' is not a number of seconds above 0", opt, s);
	return v;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int cmd_attach(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "hz", required_argument, NULL, 'H' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-stacks", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = "pcprof.data";
	double duration = 0;
	unsigned hz = DEFAULT_HZ;
	int quiet = 0, c;
	bool stacks = true;
	while ((c = getopt_long(argc, argv, "+o:d:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'd':
			duration = seconds("--duration", optarg);
			break;
		case 'H':
			hz = (unsigned)number_arg(EXIT_USAGE, "--hz", optarg, 1, 10000);
			break;
		case 'q':
			quiet = 1;
			break;
		case 'S':
			stacks = false;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	pid_t pid = (pid_t)number_arg(EXIT_USAGE, "PID", argv[optind], 1, 0x7fffffff);
	/* Before sampling: a data file that cannot be written would lose the
	 * whole attachment, minutes of it with --duration, at the end. */
	char bad[2 * PATH_MAX + 64];
	if (ofile_check(out, bad, sizeof bad) < 0)
		die(EXIT_FAILED, "%s", bad);

	sigset_t block, during;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &during);
	sigdelset(&during, SIGINT);
	sigdelset(&during, SIGTERM);
	sigdelset(&during, SIGHUP);
	struct sigaction sa = { .sa_handler = on_stop };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	char err[512];
	struct sampler *s = sampler_open(pid, hz, stacks, true, err, sizeof err);
	if (!s)
		die(EXIT_FAILED, "%s", err);
	sampler_timeline(s, true);
	if (!quiet) {
		/* sampling is live: say so now, for a person and for scripts */
		struct sampler_info in;
		sampler_peek(s, &in);
		fprintf(stderr, "%s: sampling process %d, %zu thread%s, attached in %.1f ms\n",
			progname, (int)pid, in.events, in.events == 1 ? "" : "s",
			(double)in.attach_ns * 1e-6);
	}
	uint64_t end = duration > 0 ? mono_ns() + (uint64_t)llround(duration * 1e9) : UINT64_MAX;
	while (!stop_sig) {
		uint64_t now = mono_ns();
		if (now >= end)
			break;
		uint64_t left_ms = (end - now + 999999) / 1000000;
		if (sampler_poll(s, left_ms < POLL_MS ? (int)left_ms : POLL_MS, &during))
			break;
	}

	struct pp_process *procs;
	size_t nprocs;
	struct sampler_info info;
	sampler_finish(s, &procs, &nprocs, &info);
	/* The recording's command is what ran, as pcprof run's is: the
	 * target's command line (report, diff and the exports show it; the
	 * engine "external" and this pid say it was attached), or, when the
	 * kernel gave none (a zombie, a kernel thread), how it was attached. */
	char cmd[64];
	snprintf(cmd, sizeof cmd, "pcprof attach %d", (int)pid);
	struct pp_profile p = {
		.command = xstrdup(procs[0].cmdline[0] ? procs[0].cmdline : cmd),
		.start_ns = procs[0].start_ns,
		.end_ns = procs[0].end_ns,
		.nprocs = nprocs,
		.procs = procs,
		.bucket_ns = SAMPLER_BUCKET_NS,
	};
	if (pp_write(out, &p, err, sizeof err) < 0)
		die(EXIT_FAILED, "%s: %s", out, err);
	if (!quiet)
		sampler_summary(p.procs, p.nprocs, &info, "external", 1, NULL, out);
	pp_free(&p);
	return 0;
}
