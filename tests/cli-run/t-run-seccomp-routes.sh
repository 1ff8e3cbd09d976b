#!/bin/sh
# The other ways a program installs a seccomp filter (t-run-seccomp.sh
# has prctl): syscall(SYS_seccomp, ...) as libseccomp does, the same with
# SECCOMP_FILTER_FLAG_TSYNC while a thread runs (which the filter then
# covers too), and the system call instruction itself, which no library
# can interpose (the library finds the filter before its next call: the
# thread creation that follows); with KILL_THREAD, which a lock held
# across a killed call turned into a hang, and a raw filter that traps
# (a sample's stack walk asked the kernel, by rt_sigaction, whether the
# fault guard was still ours: SIGSYS now and then, before).  And a child
# that execs under the filter: its new image, whose library and audit
# module see more filters than pcprof run itself runs under, stays out
# from its first instruction, its CPU time named with its parent's.
# Before: exit 159 (SIGSYS) or a hang, on every engine.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/seccomp.sh"

every_engine "kill-thread seccomp 0.02 0.03" "kill-thread tsync 0.02 0.03" \
	"kill-thread raw 0.02 0.03" "trap raw 0.02 0.03" "kill-thread prctl 0.02 0.03 exec" \
	"kill-thread raw 0.02 0.03 exec"
no_raw_dirs
exit 0
