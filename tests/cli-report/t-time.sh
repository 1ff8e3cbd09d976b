#!/bin/sh
# Time in the profile, exactly: samples injected at chosen times of the
# recording's timeline (tests/targets/phases inject, libprofil's test hook
# __profil_inject_time, manual engine) land in their 10 ms buckets through
# the raw recording and the data file, and report --time, report --timeline
# and export --time keep exactly the samples whose bucket's middle is in the
# period.  Bad periods are usage errors; files without a timeline (older
# formats, --no-timeline) say so.
. "$(dirname "$0")/lib.sh"
PHASES=$ROOT/${B:-build}/tests/targets/phases
[ -x "$PHASES" ] || fail "$PHASES not built (make all)"

PROFIL_ENGINE=manual "$PCPROF" run -q -o "$T/i.data" -- "$PHASES" inject 2>"$T/err" ||
	fail "run: $(cat "$T/err")"
[ "$(od -An -tu4 -j8 -N4 "$T/i.data" | tr -d ' ')" = 3 ] || fail "not a format 3 file"

# samples FROM-TO FUNCTION: FUNCTION's self samples in the period (0: none)
samples() {
	"$PCPROF" report --time "$1" -n 0 "$T/i.data" >"$T/r" 2>"$T/e" || fail "report --time $1: $(cat "$T/e")"
	n=$(awk -v f="$2" '$5 == f { print $3 }' "$T/r")
	echo "${n:-0}"
}
check() {
	got=$(samples "$1" "$2")
	[ "$got" = "$3" ] || { cat "$T/r"; fail "--time $1: $2 has $got samples, want $3"; }
}
# ticks: 5 phase_a at 0.105 s, 2 phase_a at 0.995 s, 7 phase_b at 1.005 s
# (thread "second"), 3 phase_b at 2.5 s
check 0-1 phase_a 7
check 0-1 phase_b 0
check 1- phase_b 10
check 1- phase_a 0
check 0.1-0.11 phase_a 5
check 0.11-0.99 phase_a 0
check 0.99-1 phase_a 2
check 1-1.01 phase_b 7
check 1.01-2.5 phase_b 0
check 2.5- phase_b 3
check -0.5 phase_a 5
check 0- phase_b 10
grep -q '^time       0.00- s of 0-2.51 s: 17 of 17 samples (100.0%)$' "$T/r" ||
	fail "header: $(grep '^time' "$T/r")"
samples 3-4 phase_a >/dev/null
grep -q "^no samples" "$T/r" || fail "--time 3-4: $(cat "$T/r")"
grep -q "the period starts after the last sample (2.51 s)" "$T/r" || fail "--time 3-4: $(cat "$T/r")"

# per thread
"$PCPROF" report --time 1- -T "$T/i.data" >"$T/r" || fail "report -T"
table "$T/r" "    pid" | awk '{ print $3, $5 }' >"$T/got"
printf 'second 7\nphases 3\n' >"$T/want"
cmp -s "$T/got" "$T/want" || fail "--time 1- -T: $(cat "$T/got")"
"$PCPROF" report --timeline "$T/i.data" >"$T/r" || fail "report --timeline"
table "$T/r" "    pid" | awk '{ print $3, $4 }' | sort >"$T/got"
printf 'phases 10\nsecond 7\n' >"$T/want"
cmp -s "$T/got" "$T/want" || { cat "$T/r"; fail "--timeline rows: $(cat "$T/got")"; }
grep -q '^0.00 s to 2.51 s, 63 columns of 0.04 s' "$T/r" || fail "--timeline axis: $(cat "$T/r")"
"$PCPROF" report --timeline --time 1-1.04 "$T/i.data" >"$T/r" || fail "report --timeline --time"
table "$T/r" "    pid" | awk '{ print $3, $4 }' >"$T/got"
[ "$(cat "$T/got")" = "second 7" ] || { cat "$T/r"; fail "--timeline --time 1-1.04"; }

# export: folded stacks of the period only
"$PCPROF" export --format folded --time 1- -o "$T/f.folded" "$T/i.data" || fail "export --time"
awk '{ n += $NF } $0 !~ /phase_b/ { bad = bad $0 } END { print n + 0, bad }' "$T/f.folded" >"$T/got"
[ "$(cat "$T/got")" = "10 " ] || fail "export --time 1-: $(cat "$T/got"); $(cat "$T/f.folded")"

# one timeline across fork and exec: the child and its exec'd image count
# from the first image's start (each waited 50 ms first: a process that
# counted from its own start would be 5 buckets late)
PROFIL_ENGINE=manual "$PCPROF" run -q -o "$T/fam.data" -- "$PHASES" family "$PHASES" 2>"$T/err" ||
	fail "run family: $(cat "$T/err")"
famcheck() {
	"$PCPROF" report --time "$1" -n 0 "$T/fam.data" >"$T/r" 2>"$T/e" || fail "family --time $1: $(cat "$T/e")"
	awk '$5 ~ /^phase_/ { printf "%s:%s ", $5, $3 }' "$T/r" >"$T/got"
	[ "$(cat "$T/got")" = "$2" ] || { cat "$T/r"; fail "family --time $1: $(cat "$T/got"), want $2"; }
}
famcheck 0.5-0.51 "phase_a:4 "
famcheck 1.5-1.51 "phase_b:6 "
famcheck 0.1-0.11 "phase_a:5 "
famcheck 1-1.01 "phase_b:7 "
famcheck 0- "phase_b:16 phase_a:11 "

# a table too small to time everything: timed samples stop when the pc
# table opens its last level (--slots 1024: levels of 256 and 512 slots,
# the second opens at the 128th key), the rest is kept without a time, and
# both the run's summary and the report say from when
PROFIL_ENGINE=manual "$PCPROF" run --slots 1024 -o "$T/fill.data" -- "$PHASES" fill 300 2>"$T/err" ||
	fail "run fill: $(cat "$T/err")"
grep -q "lost: none; timeline partial from 1.28 s (172 samples without a time; try --slots 4096)" \
	"$T/err" || fail "fill summary: $(cat "$T/err")"
"$PCPROF" report --time 0- "$T/fill.data" >"$T/r" || fail "fill report"
grep -q '^time       0.00- s of 0-1.28 s: 128 of 300 samples (42.7%)$' "$T/r" ||
	fail "fill header: $(cat "$T/r")"
grep -q "172 samples have no time and are left out (the timeline is partial from 1.28 s" "$T/r" ||
	fail "fill header: $(cat "$T/r")"
"$PCPROF" report "$T/fill.data" | grep -q '^samples    300 ' || fail "fill: untimed samples lost from the whole profile"

# bad periods: usage errors
for p in x 1 - 1-2-3 3-1 2-2 1.5-abc -1-2 1e3- inf- .5-1; do
	try 2 "^pcprof (report|export): --time: bad period '$p'" "$PCPROF" report --time "$p" "$T/i.data"
done
try 2 "^pcprof export: --time: bad period 'x'" \
	"$PCPROF" export --format folded -o "$T/x.folded" --time x "$T/i.data"

# no timeline: recorded without one, or an older data file
PROFIL_ENGINE=manual "$PCPROF" run -q --no-timeline -o "$T/n.data" -- "$PHASES" inject 2>"$T/err" ||
	fail "run --no-timeline: $(cat "$T/err")"
try 1 "n.data: --time: no timeline: recorded with --no-timeline" \
	"$PCPROF" report --time 0-1 "$T/n.data"
"$PCPROF" report --timeline "$T/n.data" >"$T/r" || fail "--timeline without one"
grep -q "^no timeline: recorded with --no-timeline" "$T/r" || fail "--timeline: $(cat "$T/r")"
grep -q "^samples    17 (" "$T/r" || fail "--no-timeline lost samples: $(cat "$T/r")"
for v in 1 2; do
	MKFIXTURE_VERSION=$v "$FIX" write "$T/v$v.data" || fail "mkfixture version $v"
	[ "$(od -An -tu4 -j8 -N4 "$T/v$v.data" | tr -d ' ')" = $v ] || fail "not a format $v file"
	"$PCPROF" report "$T/v$v.data" >"$T/r" || fail "version $v file: $(cat "$T/r")"
	try 1 "v$v.data: --time: no timeline: data file version $v was written before pcprof recorded time" \
		"$PCPROF" report --time 0-1 "$T/v$v.data"
	try 1 "v$v.data: --time: no timeline: data file version $v" \
		"$PCPROF" export --format pprof -o "$T/x.pb.gz" --time 0-1 "$T/v$v.data"
done
exit 0
