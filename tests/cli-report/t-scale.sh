#!/bin/sh
# pcprof report is linear in processes, and a file that is not a data file
# costs its first 32 bytes, whatever its size.
#
# Times: CPU seconds (user + system) of the best of three runs on profiles
# of 10,000 and 40,000 short processes (mkfixture many): linear work gives
# a ratio near 4, quadratic near 16 (before the fix: 2.98 s and 37 s, 12.5);
# the test wants under 8.  CPU time rather than wall time, and the best of
# three, so that a loaded machine slows both sides alike.  The same for the
# views and exports that were quadratic (-P's sort, speedscope's profile
# per process) and for a test suite's worth of distinct executables.
#
# Memory: a 20 GB sparse file (or 300 MB where the file system has no
# sparse files) with a wrong magic, then a right one with a wrong header,
# are refused with a peak RSS of a few MB (before: the whole file).
. "$(dirname "$0")/lib.sh"
[ -x /usr/bin/time ] || skip "GNU time (/usr/bin/time) not installed: it measures CPU and memory"

# cpu CMD...: the best CPU seconds of three runs of CMD (exit status 0)
cpu() {
	best=
	for i in 1 2 3; do
		/usr/bin/time -f '%U %S' -o "$T/time" "$@" >/dev/null 2>"$T/err" ||
			fail "$*: exit $?: $(cat "$T/err")"
		s=$(awk '{ print $1 + $2 }' "$T/time")
		best=$(awk -v a="$best" -v b="$s" 'BEGIN { print (a == "" || b < a) ? b : a }')
	done
	echo "$best"
}

# linear NAME ARGS...: ARGS on 10k and 40k processes; ratio of CPU times < 8
linear() {
	name=$1
	shift
	t10=$(cpu "$PCPROF" "$@" "$T/p10k.data")
	t40=$(cpu "$PCPROF" "$@" "$T/p40k.data")
	# a floor of 0.1 s: below that, the ratio measures start-up noise
	r=$(awk -v a="$t10" -v b="$t40" 'BEGIN { printf "%.1f", b / (a < 0.1 ? 0.1 : a) }')
	echo "# $name: 10000 processes $t10 s, 40000 processes $t40 s CPU (ratio $r)"
	awk -v r="$r" 'BEGIN { exit !(r < 8) }' ||
		fail "$name: $t10 s for 10000 processes, $t40 s for 40000: ratio $r, not linear"
}

"$FIX" many "$T/p10k.data" 10000 || fail "mkfixture many 10000"
"$FIX" many "$T/p40k.data" 40000 || fail "mkfixture many 40000"
"$PCPROF" report -P "$T/p40k.data" >"$T/r" 2>&1 || fail "report: $(cat "$T/r")"
grep -q '^processes  *40000: 100000 100001 ' "$T/r" || fail "header: $(head -5 "$T/r")"
[ "$(grep -c ' exit 0     mkfixture [0-9]*$' "$T/r")" = 40000 ] || fail "not 40000 process rows"
linear "report" report
linear "report -P -T" report -P -T
linear "export speedscope" export -f speedscope -o "$T/s.json"

# each process with an executable of its own (thousands of symbol files,
# thousands of pprof mappings at one address)
"$FIX" many "$T/p10k.data" 10000 --distinct || fail "mkfixture many --distinct"
"$FIX" many "$T/p40k.data" 40000 --distinct || fail "mkfixture many --distinct"
linear "report, distinct executables" report
linear "export pprof, distinct executables" export -f pprof -o "$T/p.pb.gz"
rm -f "$T/p10k.data"

# A data file cut short while report reads it (the file is mapped: the
# pages it lost raise SIGBUS): an error, never a crash.
for d in 0 0.01 0.03 0.1; do
	"$FIX" many "$T/cut.data" 40000 || fail "mkfixture many"
	rc=0
	"$PCPROF" report "$T/cut.data" >/dev/null 2>"$T/err" &
	pid=$!
	sleep $d
	truncate -s 1M "$T/cut.data"
	wait $pid || rc=$?
	echo "# cut after ${d}s: exit $rc $(cat "$T/err")"
	case $rc in
	0) ;;
	1) grep -Eq 'changed size while being read|truncated' "$T/err" || fail "cut: $(cat "$T/err")" ;;
	*) fail "report on a file cut short: exit $rc: $(cat "$T/err")" ;;
	esac
done
rm -f "$T/p40k.data" "$T/cut.data"

# A body of 1 MiB or more has its checksum summed on another thread while
# it is parsed (cli/data.c): a byte flipped in its middle or its last byte
# is still "checksum mismatch", never a crash or a report.
"$FIX" many "$T/flip.data" 40000 || fail "mkfixture many"
size=$(wc -c <"$T/flip.data")
[ "$size" -gt 2097152 ] || fail "fixture of $size bytes: too small for the threaded checksum"
for at in $((size / 2)) $((size - 1)); do
	cp "$T/flip.data" "$T/flip2.data"
	b=$(od -An -tu1 -j "$at" -N1 "$T/flip2.data" | tr -d ' ')
	printf "$(printf '\\%03o' $(((b + 1) % 256)))" |
		dd of="$T/flip2.data" bs=1 seek="$at" conv=notrunc 2>/dev/null
	cmp -s "$T/flip.data" "$T/flip2.data" && fail "byte $at not flipped"
	rc=0
	"$PCPROF" report "$T/flip2.data" >/dev/null 2>"$T/err" || rc=$?
	[ $rc = 1 ] && grep -q "corrupted: checksum mismatch" "$T/err" ||
		fail "byte $at of $size flipped: exit $rc, $(cat "$T/err")"
done
"$PCPROF" report "$T/flip.data" >/dev/null 2>"$T/err" || fail "the unflipped file: $(cat "$T/err")"
rm -f "$T/flip.data" "$T/flip2.data"

# ---- a huge file that is not a data file -----------------------------------
big=$T/big.data
if truncate -s 20G "$big" 2>/dev/null; then
	size="20 GB (sparse)"
else
	dd if=/dev/zero of="$big" bs=1M count=300 2>/dev/null || fail "cannot write 300 MB in $T"
	size="300 MB"
fi
# refused: STATUS 1, the message, a few MB of memory, little time
refused() {
	rc=0
	/usr/bin/time -f '%M %e' -o "$T/time" "$PCPROF" report "$big" >/dev/null 2>"$T/err" || rc=$?
	[ $rc = 1 ] || fail "report on a $size file: exit $rc, want 1: $(cat "$T/err")"
	grep -q "$1" "$T/err" || fail "report on a $size file: '$(cat "$T/err")', want '$1'"
	set -- $(tail -n 1 "$T/time") # after "Command exited with non-zero status 1"
	echo "# $size file: refused with $1 KB peak RSS in $2 s"
	[ "$1" -lt 65536 ] || fail "$size file: peak RSS $1 KB (the file was read)"
	awk -v s="$2" 'BEGIN { exit !(s < 20) }' || fail "$size file: $2 s to refuse it"
}
refused "not a pcprof data file (bad magic)"
printf '\211PCPROF\n' | dd of="$big" conv=notrunc 2>/dev/null
refused "corrupted: header checksum mismatch"
for fmt in folded html; do
	"$PCPROF" export -f $fmt -o "$T/x.$fmt" "$big" 2>"$T/err" && fail "export $fmt of $big"
	grep -q "header checksum mismatch" "$T/err" || fail "export $fmt: $(cat "$T/err")"
done
rm -f "$big"
exit 0
