#!/bin/sh
# A data file that is truncated, corrupted, empty, foreign, a directory or
# missing gives one line naming the file and the problem, and a non-zero
# exit, through pcprof's reader (ppdump uses pp_read); never a crash.
. "$(dirname "$0")/lib.sh"

"$PCPROF" run -q -o "$T/p.data" -- "$HOT" fork 0.05 || fail "pcprof run"
size=$(wc -c <"$T/p.data")

# bad FILE WORDS: reading FILE fails with one line containing WORDS
bad()
{
	"$DUMP" "$1" >"$T/out" 2>&1
	rc=$?
	[ $rc = 1 ] || { cat "$T/out"; fail "$1: exit $rc, want 1"; }
	[ "$(wc -l <"$T/out")" = 1 ] || { cat "$T/out"; fail "$1: not one line"; }
	grep -q "^error $1: .*$2" "$T/out" || fail "$1: $(cat "$T/out") (want '$2')"
}

head -c $((size - 1)) "$T/p.data" >"$T/cut1"
bad "$T/cut1" truncated
head -c $((size / 2)) "$T/p.data" >"$T/half"
bad "$T/half" truncated
head -c 10 "$T/p.data" >"$T/short"
bad "$T/short" truncated
for at in 20 40 $((size / 2)) $((size - 1)); do
	cp "$T/p.data" "$T/flip"
	byte=$(od -An -tu1 -j $at -N1 "$T/p.data" | tr -d ' ')
	printf "$(printf '\\%03o' $((byte ^ 16)))" |
		dd of="$T/flip" bs=1 seek=$at conv=notrunc 2>/dev/null
	cmp -s "$T/p.data" "$T/flip" && fail "byte $at not flipped"
	bad "$T/flip" "corrupted"
done
cat "$T/p.data" "$T/p.data" >"$T/twice"
bad "$T/twice" "unexpected bytes"
: >"$T/empty"
bad "$T/empty" "empty file"
bad /bin/sh "not a pcprof data file"
bad "$T" "is a directory"
bad "$T/missing" "No such file or directory"
"$DUMP" "$T/p.data" >/dev/null || fail "the original no longer reads"
exit 0
