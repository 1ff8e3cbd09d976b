#!/bin/sh
# A closed stderr (issue 19, item 7): `pcprof run PROG 2>&1 | head -c 1`.
# The program writes to the pipe until its reader has gone (it ignores
# SIGPIPE, so its write fails, and it exits 3); then pcprof writes its
# summary into the same pipe.  pcprof must exit with the program's status,
# remove its recordings and write the data file.  Before, the summary
# killed pcprof with SIGPIPE: exit 141 and the recording directory left in
# TMPDIR.  The program gets the SIGPIPE disposition pcprof was given
# (ignored or not), as alone.  Preload mode, then external (SKIP there
# when perf events are refused).
. "$(dirname "$0")/lib.sh"

# ign: a SigIgn line read from standard input, as a number without
# signals 32 and 33, glibc's own (SIGCANCEL, SIGSETXID: no program can
# set their action through libc).  What a process inherits for them
# depends on what ran before it: glibc gives 33 a handler in a process
# with threads, as the TSan build's pcprof is (its runtime's thread), and
# exec then resets it, while the shell that runs the tests may have been
# started with both ignored.
ign() {
	v=$(sed -n 's/^SigIgn:[[:space:]]*//p')
	printf '%x\n' $((0x$v & ~0x180000000))
}

# ignored: the program's ignored signals (SigIgn), under pcprof --mode $1
ignored() {
	"$PCPROF" run -q --mode "$1" -o "$T/i.data" -- sh -c 'grep SigIgn /proc/$$/status' 2>"$T/err" ||
		fail "$1: $(cat "$T/err")"
}

for mode in preload external; do
	rm -f "$T/p.data" "$T/rc"
	{
		"$PCPROF" run --mode $mode -o "$T/p.data" -- \
			sh -c 'trap "" PIPE; while echo x; do :; done; exit 3' 2>&1
		echo $? >"$T/rc"
	} | head -c 1 >/dev/null
	rc=$(cat "$T/rc")
	if [ $mode = external ] && [ "$rc" = 125 ]; then
		# what refused it, written to the file this time
		"$PCPROF" run --mode external -o "$T/p.data" -- true 2>"$T/err"
		grep -q -e 'perf_event_paranoid' -e 'no software cpu-clock' "$T/err" &&
			{ echo "SKIP: external mode: perf events refused: $(head -n1 "$T/err")"; exit 77; }
	fi
	[ "$rc" = 3 ] || fail "$mode: exit $rc, want the program's 3"
	no_raw_dirs
	dump "$T/p.data"
	[ "$(procs)" ] || fail "$mode: no process in the data file"

	want=$(sh -c 'grep SigIgn /proc/$$/status' | ign)
	got=$(ignored $mode | ign)
	[ "$got" = "$want" ] || fail "$mode: the program ignores $got, want $want"
	want=$(trap '' PIPE; sh -c 'grep SigIgn /proc/$$/status' | ign)
	got=$(trap '' PIPE; ignored $mode | ign)
	[ "$got" = "$want" ] || fail "$mode, SIGPIPE ignored: the program ignores $got, want $want"
	[ "$want" != "$(sh -c 'grep SigIgn /proc/$$/status' | ign)" ] || fail "SIGPIPE's bit is not in the mask"
done
exit 0
