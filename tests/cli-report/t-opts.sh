#!/bin/sh
# The selection options report, export, diff and annotate share
# (cli/filteropt.h) mean the same in each: the same --pid, --module,
# --function or --time leaves the same functions with the same self
# samples in report's table, export's folded stacks, annotate's titles and
# diff's rows (a file against itself); a bad argument is the same usage
# error (exit 2) everywhere; every spelling is accepted (export's -f stays
# --format, its --function has no short form); and the four --help texts
# describe the shared options in the same words.
. "$(dirname "$0")/lib.sh"
PHASES=$ROOT/${B:-build}/tests/targets/phases
[ -x "$PHASES" ] || fail "$PHASES not built (make all)"

# fns CMD FILE OPTS...: "function samples" per function with self samples,
# sorted, as command CMD shows them (diff: the function only), into $T/got
fns() {
	cmd=$1 file=$2
	shift 2
	case $cmd in
	report) set -- report -n 0 "$@" "$file" ;;
	export) # -f is --format here
		n=$#
		while [ "$n" -gt 0 ]; do
			a=$1
			shift
			[ "$a" = -f ] && a=--function
			set -- "$@" "$a"
			n=$((n - 1))
		done
		set -- export -f folded -o - "$@" "$file"
		;;
	annotate) set -- annotate -n 0 --color=never -i "$file" "$@" ;;
	diff) set -- diff -n 0 "$@" "$file" "$file" ;;
	esac
	"$PCPROF" "$@" >"$T/out" 2>"$T/e" || fail "$*: exit $?: $(cat "$T/e")"
	case $cmd in
	report) table "$T/out" ' self%  total%' | awk '$3 > 0 { print $5, $3 }' ;;
	export) sed 's/^.*;//' "$T/out" | awk '{ n[$1] += $2 } END { for (f in n) print f, n[f] }' ;;
	annotate) sed -n 's/^Source of \([^ ]*\) ([^)]*): \([0-9]*\) samples in its code.*/\1 \2/p' "$T/out" ;;
	diff) table "$T/out" '   base     new' | awk '{ print $11 }' ;;
	esac | sort >"$T/got"
}

# same FILE WANT OPTS...: report, export and annotate give WANT (lines
# "function samples"), diff its functions, for OPTS
same() {
	file=$1 want=$2
	shift 2
	printf '%s\n' "$want" | sort >"$T/want"
	[ -s "$T/want" ] && [ "$want" ] || fail "empty expectation for $*"
	for cmd in report export annotate; do
		fns "$cmd" "$file" "$@"
		cmp -s "$T/got" "$T/want" || fail "$cmd $*: $(cat "$T/got"), want $want"
	done
	fns diff "$file" "$@"
	cut -d' ' -f1 "$T/want" | cmp -s - "$T/got" || fail "diff $*: $(cat "$T/got"), want $want"
}

nl='
'
hot=$(expect hot_lib_spin) inner=$(expect hot_lib_inner)
same "$T/fx.data" "hot_lib_spin $hot${nl}hot_lib_inner $inner" -m 'libhot*'
same "$T/fx.data" "hot_lib_spin $hot${nl}hot_lib_inner $inner" --module libhot.so
fix="fix_hot $(expect fix_hot)${nl}fix_warm $(expect fix_warm)${nl}fix_cold $(expect fix_cold)"
same "$T/fx.data" "$fix" -f 'fix_*'
same "$T/fx.data" "$fix" --function 'fix_*'
same "$T/fx.data" "fix_hot $(expect fix_hot)" -m mkfixture -f '*hot'

# --pid: the second process of the fixture, whatever its counts
"$PCPROF" report -P "$T/fx.data" >"$T/r" 2>/dev/null || fail "report -P"
pid=$(sed -n 's/^processes  *2: [0-9]* \([0-9]*\)$/\1/p' "$T/r")
[ -n "$pid" ] || fail "no second pid: $(grep '^processes' "$T/r")"
fns report "$T/fx.data"
all=$(cat "$T/got")
fns report "$T/fx.data" -p "$pid"
want=$(cat "$T/got")
[ -n "$want" ] && [ "$want" != "$all" ] || fail "-p $pid selects nothing or all: $want"
same "$T/fx.data" "$want" -p "$pid"
same "$T/fx.data" "$want" --pid "$pid"

# --time on a recording with a timeline (t-time.sh: phase_a before 1 s,
# phase_b after)
PROFIL_ENGINE=manual "$PCPROF" run -q -o "$T/i.data" -- "$PHASES" inject 2>"$T/err" ||
	fail "run: $(cat "$T/err")"
same "$T/i.data" "phase_a 7" --time 0-1
same "$T/i.data" "phase_b 10" --time 1-
same "$T/i.data" "phase_b 3" --time 2- -f 'phase_*'
# diff says what the period kept of each file, as report does
"$PCPROF" report --time 1- "$T/i.data" >"$T/r" 2>&1 || fail "report --time 1-"
"$PCPROF" diff --time 1- "$T/i.data" "$T/i.data" >"$T/d" 2>&1 || fail "diff --time 1-"
grep '^time ' "$T/r" >"$T/want"
grep '^time ' "$T/d" >"$T/got"
[ -s "$T/want" ] && cat "$T/want" "$T/want" | cmp -s - "$T/got" ||
	fail "diff --time: $(cat "$T/got"), report --time: $(cat "$T/want")"

# --no-demangle and --no-inline are accepted by all four (their effect:
# t-demangle.sh, t-inline.sh)
same "$T/fx.data" "$fix" -f 'fix_*' --no-demangle --no-inline

# the same usage errors everywhere; unknown OPTS: run OPTS is refused
unknown() {
	rc=0
	run "$@" >"$T/o" 2>"$T/e" || rc=$?
	[ "$rc" = 2 ] && grep -q "unrecognized option '$1'" "$T/e" || fail "$cmd $*: exit $rc: $(cat "$T/e")"
}
for cmd in report export annotate diff; do
	case $cmd in
	report) run() { "$PCPROF" report "$@" "$T/fx.data"; } ;;
	export) run() { "$PCPROF" export -f folded -o "$T/x" "$@" "$T/fx.data"; } ;;
	annotate) run() { "$PCPROF" annotate -i "$T/fx.data" "$@"; } ;;
	diff) run() { "$PCPROF" diff "$@" "$T/fx.data" "$T/fx.data"; } ;;
	esac
	try 2 "bad pid '0'" run -p 0
	try 2 "bad pid 'x'" run --pid x
	try 2 'time' run --time 3-1
	try 2 'debug-dir .*/nonexistent' run --debug-dir "$T/nonexistent"
	unknown --source-rot x
done
# the path options are report's and diff's (their --lines views) only
run() { "$PCPROF" export -f folded -o "$T/x" "$@" "$T/fx.data"; }
unknown --full-paths
run() { "$PCPROF" annotate -i "$T/fx.data" "$@"; }
unknown --source-root /
"$PCPROF" report -l --full-paths --source-root / "$T/fx.data" >/dev/null 2>&1 || fail "report --full-paths"
"$PCPROF" diff -l --full-paths --source-root / "$T/fx.data" "$T/fx.data" >/dev/null 2>&1 ||
	fail "diff --full-paths"

# export: -f is --format, -m is --module
"$PCPROF" export -m libhot.so -f folded -o - "$T/fx.data" 2>/dev/null | sed 's/^.*;//' | sort >"$T/got"
printf 'hot_lib_inner %s\nhot_lib_spin %s\n' "$inner" "$hot" | cmp -s - "$T/got" ||
	fail "export -m libhot.so -f folded: $(cat "$T/got")"

# the shared lines of each --help: the same text (export's --function has
# no -f)
for cmd in report export annotate diff; do
	"$PCPROF" $cmd --help | awk '/^  -p, --pid/ { on = 1 } on { print }
		on && /--debug-dir DIR/ { getline; print; exit }' |
		sed 's/^  -f, --function/      --function/' >"$T/help.$cmd"
	[ "$(wc -l <"$T/help.$cmd")" -ge 8 ] || fail "$cmd --help: no shared options: $(cat "$T/help.$cmd")"
	cmp -s "$T/help.report" "$T/help.$cmd" ||
		fail "$cmd --help describes them otherwise: $(diff "$T/help.report" "$T/help.$cmd")"
done
exit 0
