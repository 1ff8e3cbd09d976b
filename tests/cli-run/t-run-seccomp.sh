#!/bin/sh
# A program that sandboxes itself with a seccomp filter must live under
# pcprof run as it does alone (issue 19, item 1).  tests/targets/sandbox
# installs, with prctl(PR_SET_SECCOMP), a filter that answers
# timer_create, timer_settime, timer_delete, perf_event_open and
# rt_sigaction with SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_TRAP or
# SECCOMP_RET_KILL_THREAD, then starts threads and forks; alone it exits
# 0.  Before, it died of SIGSYS (exit 159) under every engine, and with
# KILL_THREAD on thread-timer a thread killed in timer_create held the
# library's lock while the main thread spun in it with every signal
# blocked: pcprof waited for ever.  Now, on every engine and for every
# action: the program's status and output, "not sampled after seccomp
# filter: N s CPU" with N what it used after the filter, the samples
# before it, the data file and the report (seccomp.sh); and without a
# filter, "lost: none".  Other ways to install the filter, and images
# exec'd under it: t-run-seccomp-routes.sh; in a container:
# t-run-seccomp-container.sh.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/seccomp.sh"

every_engine "none prctl 0.12 0.03" "kill-process prctl 0.12 0.03" "trap prctl 0.12 0.03" \
	"kill-thread prctl 0.12 0.03"
no_raw_dirs
exit 0
