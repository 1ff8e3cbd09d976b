#!/bin/sh
# gdb and the sampling signal (issue 19, item 8).  The timer engines and
# perf's fasync variant sample with a real-time signal the program does not
# use, SIGRTMAX by default, which gdb calls SIG64 and, like every real-time
# signal, stops the program at (perf's sigtrap variant is not chosen while a
# debugger is attached).  pcprof-run(1) and libprofil(7) give the remedies;
# this test holds them to what gdb does:
#   - without them, gdb stops with "received signal SIG64": the program
#     cannot run under gdb and pcprof without a remedy;
#   - with "handle SIG64 nostop noprint", the program runs to its end under
#     gdb and its samples are recorded (hot_main first);
#   - with PROFIL_SIGNAL=SIGPROF, which gdb passes silently by default, the
#     same without any gdb command.
# Before, libprofil(7) advised PROFIL_PERF_MODE=fasync, which stops at
# SIG64 all the same.
. "$(dirname "$0")/lib.sh"
command -v gdb >/dev/null || { echo "SKIP: no gdb"; exit 77; }
# pcprof run of an ASan build preloads the sanitizer runtime into every
# program, gdb included, and gdb 13 with libasan preloaded hangs when it
# runs a program (LD_PRELOAD=libasan.so gdb -batch -ex run --args /bin/true,
# without pcprof: killed after 30 s).  The TSan build preloads nothing.
if [ -n "${SAN_PRELOAD:-}" ]; then
	echo "SKIP: gdb hangs with the sanitizer runtime preloaded ($SAN_PRELOAD)"
	exit 77
fi
unset PROFIL_HZ PROFIL_ENGINE PROFIL_PERF_MODE PROFIL_SIGNAL

# under_gdb NAME [GDB-COMMAND]: hot main 0.3 under gdb under pcprof run
under_gdb()
{
	name=$1
	shift
	set -- -q -nx -batch "$@" -ex run --args "$HOT" main 0.3
	"$PCPROF" run -q -o "$T/$name.data" -- gdb "$@" >"$T/$name.out" 2>&1 </dev/null ||
		fail "$name: pcprof run exited $?: $(cat "$T/$name.out")"
}

under_gdb plain
grep -q "received signal SIG64" "$T/plain.out" ||
	fail "gdb did not stop at SIG64 (the documentation says it does): $(cat "$T/plain.out")"

# exited normally; the hot process's samples are mostly in hot_main
exited()
{
	grep -q "exited normally" "$T/$1.out" && ! grep -q "received signal" "$T/$1.out" ||
		fail "$1: the program did not run to its end under gdb: $(cat "$T/$1.out")"
	dump "$T/$1.data"
	id=$(awk '$1 == "proc" && / exe=.*\/hot$/ { print $2; exit }' "$T/dump")
	[ -n "$id" ] || fail "$1: no process of hot in the data file: $(grep '^proc' "$T/dump")"
	expect_hot "$id" hot_main 50
}

under_gdb handled -ex 'handle SIG64 nostop noprint'
exited handled
PROFIL_SIGNAL=SIGPROF under_gdb sigprof
exited sigprof
exit 0
