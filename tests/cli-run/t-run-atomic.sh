#!/bin/sh
# The data file is replaced atomically: when writing the new one fails or
# pcprof is killed in the middle of it, the previous file is untouched.
# The failure is made with a file-size limit set on pcprof alone (prlimit),
# after the program started, so the recordings are not affected.
. "$(dirname "$0")/lib.sh"
command -v prlimit >/dev/null || { echo "SKIP: prlimit (util-linux) not installed"; exit 77; }
ulimit -c 0

"$PCPROF" run -q -o "$T/p.data" -- "$HOT" main 0.05 || fail "first run"
cp "$T/p.data" "$T/good"

# attempt MODE: run until the program is ready, limit pcprof's file size to
# 100 bytes, let the program end (SIGINT), and return pcprof's status.
attempt()
{
	rm -f "$T/ready"
	"$PCPROF" run -q -o "$T/p.data" -- "$HOT" sigint 20 "$T/ready" 2>"$T/err" &
	pid=$!
	wait_file "$T/ready"
	prlimit --pid $pid --fsize=100:100 || fail "prlimit"
	kill -INT $pid
	wait $pid
}

# SIGXFSZ ignored: write() fails with EFBIG; pcprof says so, exits 125,
# removes its temporary file and keeps the recordings.
trap '' XFSZ
attempt
rc=$?
[ $rc = 125 ] || fail "write failure: exit $rc, want 125"
grep -q "p.data: write failed: File too large" "$T/err" || fail "message: $(cat "$T/err")"
cmp -s "$T/good" "$T/p.data" || fail "the previous data file changed"
[ -z "$(find "$T" -name '.p.data.*')" ] || fail "temporary file left behind"
# ... and keeps the recordings (in TMPDIR: the message itself is cut at 100
# bytes by the limit), which --from turns into the data file
kept=$(ls -d "$T"/pcprof.*)
[ -n "$kept" ] && ls "$kept"/*.raw >/dev/null 2>&1 || fail "recordings not kept: $(cat "$T/err")"
"$PCPROF" run -q --from "$kept" -o "$T/later.data" 2>"$T/err2" || fail "--from: $(cat "$T/err2")"
[ ! -e "$kept" ] || fail "--from left $kept"
dump "$T/later.data"
[ "$(field "$(procs)" exe)" = "$HOT" ] || fail "--from: $(grep '^proc' "$T/dump")"

# SIGXFSZ at its default: pcprof is killed in the middle of the write.
trap - XFSZ
attempt
rc=$?
[ $rc = $((128 + 25)) ] || fail "killed by SIGXFSZ: exit $rc, want 153"
cmp -s "$T/good" "$T/p.data" || fail "the previous data file changed"
dump "$T/p.data"
exit 0
