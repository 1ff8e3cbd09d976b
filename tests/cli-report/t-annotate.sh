#!/bin/sh
# pcprof annotate, source lines: anntarget.c (annlib.sh) recorded through
# the manual engine with exactly 700 samples at its HOT line, 200 at WARM
# and 100 at annstep.h's STEP, inlined into hot_loop.  hot_loop's listing
# has those counts and shares, the STEP line under annstep.h (its own
# file), the lines around them, cold stretches as "..." (-C 0); colour
# only when asked (output to a pipe is plain); a source file that is gone
# is said once and its lines still counted, a relative one is looked for
# in its compilation directory; no matching function is an
# error that points at pcprof report.  go tool pprof -list and -disasm
# read the same counts from the pprof export.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/cli-report/annlib.sh"
annrec "$T/a.data" "$T/ann"
ESC=$(printf '\033')

ann() {
	"$PCPROF" annotate -i "$T/a.data" "$@" >"$T/out" 2>"$T/e" || fail "annotate $*: $(cat "$T/e")"
}
# the rows of file $2's part of the listing in $1 (up to the next file)
part() {
	awk -v f="$2" '/^  \// { on = ($1 ~ ("/" f "$")); next } on' "$1"
}

ann
grep -q "^Source of hot_loop (ann): 1000 samples in its code, 100.00% of all (100 in code inlined into it)$" "$T/out" ||
	fail "title: $(cat "$T/out")"
grep -q "$ESC" "$T/out" && fail "escape codes in piped output: $(cat "$T/out")"
awk '/^Source of/ { n++ } n == 1' "$T/out" >"$T/hot"
part "$T/hot" anntarget.c >"$T/own"
awk -v l="$HOTL" '$1 == 700 && $2 == "70.00" && $3 == "70.00" && $4 == l' "$T/own" | grep -q 'HOT \*/$' ||
	fail "no HOT row with 700 samples at line $HOTL: $(cat "$T/out")"
awk -v l="$WARML" '$1 == 200 && $2 == "20.00" && $3 == "20.00" && $4 == l' "$T/own" | grep -q . ||
	fail "no WARM row with 200 samples at line $WARML: $(cat "$T/out")"
part "$T/hot" annstep.h >"$T/inl"
awk -v l="$STEPL" '$1 == 100 && $2 == "10.00" && $3 == "10.00" && $4 == l' "$T/inl" | grep -q 'STEP \*/$' ||
	fail "the inlined STEP line is not under annstep.h with 100 samples: $(cat "$T/out")"
awk -v l="$STEPL" '$1 ~ /^[0-9]+$/ && $4 == l' "$T/own" | grep -q . && fail "STEP counted in anntarget.c"
# context: the lines around HOT, without counts
awk -v l=$((HOTL - 1)) 'NF > 1 && $1 == l' "$T/own" | grep -q . || fail "no context line $((HOTL - 1))"
# the inlined function alone: all of its samples at STEP
grep -q '^Source of mix_step \[inline\] (ann): 100 samples' "$T/out" || fail "no mix_step: $(cat "$T/out")"

# without FUNC: the 3 functions with most self samples, most first (the
# report fixture: fix_hot, then hot_lib_spin); --limit changes how many
"$PCPROF" annotate -i "$T/fx.data" >"$T/out" 2>"$T/e" || fail "annotate fixture: $(cat "$T/e")"
grep '^Source of' "$T/out" | awk '{ print $3, $5 }' >"$T/titles"
[ "$(wc -l <"$T/titles")" = 3 ] || fail "default: not 3 functions: $(cat "$T/titles")"
[ "$(sed -n 1p "$T/titles")" = "fix_hot $(expect fix_hot)" ] || fail "first: $(cat "$T/titles")"
[ "$(sed -n 2p "$T/titles")" = "hot_lib_spin $(expect hot_lib_spin)" ] || fail "second: $(cat "$T/titles")"
"$PCPROF" annotate -i "$T/fx.data" -n 1 >"$T/out" 2>"$T/e" || fail "annotate -n 1: $(cat "$T/e")"
[ "$(grep -c '^Source of' "$T/out")" = 1 ] || fail "-n 1: $(cat "$T/out")"

# -C 0: only the sampled lines and the function's first; the cold
# stretch between them is one "..."
ann -C 0 hot_loop
awk '$1 == "..."' "$T/out" | grep -q . || fail "-C 0: no ... marker: $(cat "$T/out")"
awk -v l=$((HOTL - 1)) 'NF > 1 && $1 == l' "$T/out" | grep -q . && fail "-C 0 shows line $((HOTL - 1))"

# colour: always on the hot rows, never when told not to
ann --color=always hot_loop
grep "HOT \*/" "$T/out" | grep -q "^$ESC\[1;31m" || fail "--color=always: HOT row not coloured: $(cat "$T/out")"
ann --color=never hot_loop
grep -q "$ESC" "$T/out" && fail "--color=never has escapes"
# on a terminal (script(1) gives one): colour by default, none with NO_COLOR
if command -v script >/dev/null; then
	script -qec "'$PCPROF' annotate -i '$T/a.data' hot_loop" /dev/null >"$T/out" 2>&1 ||
		fail "annotate on a terminal: $(cat "$T/out")"
	grep "HOT \*/" "$T/out" | grep -q "$ESC\[1;31m" || fail "no colour on a terminal: $(cat "$T/out")"
	NO_COLOR=1 script -qec "'$PCPROF' annotate -i '$T/a.data' hot_loop" /dev/null >"$T/out" 2>&1 ||
		fail "NO_COLOR annotate on a terminal: $(cat "$T/out")"
	grep -q "HOT \*/" "$T/out" || fail "NO_COLOR: no listing: $(cat "$T/out")"
	grep -q "$ESC" "$T/out" && fail "NO_COLOR: escapes on a terminal: $(cat "$T/out")"
else
	echo "SKIP part: script (util-linux) not installed: no terminal to test colour on"
fi

# errors: no such function (a hint at pcprof report), a bad --color
try 1 "no function with samples matches 'no_such_fn'.*pcprof report" \
	"$PCPROF" annotate -i "$T/a.data" no_such_fn
# (the stacks fixture's main has a total but no samples of its own)
"$FIX" stacks "$T/st.data" || fail "mkfixture stacks"
try 1 "'main' matches only functions without samples of their own.*--callees" \
	"$PCPROF" annotate -i "$T/st.data" main
try 2 "bad --color" "$PCPROF" annotate -i "$T/a.data" --color=sometimes
try 1 "$T/none.data" "$PCPROF" annotate -i "$T/none.data"

# the source files gone: said once each, the counts still there
mkdir "$T/src"
cp "$SRC" "$ROOT/tests/cli-report/annstep.h" "$T/src/"
annbuild "$T/ann2" "$T/src/anntarget.c"
annrec "$T/b.data" "$T/ann2"
rm -r "$T/src"
"$PCPROF" annotate -i "$T/b.data" -n 0 >"$T/out" 2>"$T/e" || fail "annotate, no source: $(cat "$T/e")"
[ "$(grep -c 'anntarget.c$' "$T/out")" = 1 ] || fail "anntarget.c named more than once: $(cat "$T/out")"
# annstep.h is listed twice (hot_loop, mix_step): two files, two messages
[ "$(grep -c 'annstep.h$' "$T/out")" = 2 ] || fail "annstep.h not listed twice: $(cat "$T/out")"
[ "$(grep -c 'source file not found' "$T/out")" = 2 ] || fail "not said once per file: $(cat "$T/out")"
awk -v l="$HOTL" '$1 == 700 && $4 == l && NF == 4' "$T/out" | grep -q . ||
	fail "no HOT count without the source: $(cat "$T/out")"

# built with a relative source name: found in the compilation directory
# (DW_AT_comp_dir), from any current directory
mkdir "$T/rel"
cp "$SRC" "$ROOT/tests/cli-report/annstep.h" "$T/rel/"
(cd "$T/rel" && cc -std=c11 -O1 -g -o ann3 anntarget.c) 2>"$T/cc" || fail "cc: $(cat "$T/cc")"
annrec "$T/r.data" "$T/rel/ann3"
(cd / && "$PCPROF" annotate -i "$T/r.data" hot_loop) >"$T/out" 2>"$T/e" || fail "annotate, relative: $(cat "$T/e")"
grep -q "^  $T/rel/anntarget.c$" "$T/out" || fail "relative name not joined to its directory: $(cat "$T/out")"
awk -v l="$HOTL" '$1 == 700 && $4 == l' "$T/out" | grep -q 'HOT \*/$' ||
	fail "relative: no HOT row with its text: $(cat "$T/out")"

# go tool pprof reads the same lines and instructions from the export
HAVE_GO=1
command -v go >/dev/null || {
	HAVE_GO=
	echo "SKIP part: go not installed (golang-go), so go tool pprof cannot read the export"
}
# pprof DATA NAME: go tool pprof -list and -disasm NAME give HOT's line and
# address 7 s (700 samples at 100 Hz), WARM's address 2 s
pprof() {
	[ -n "$HAVE_GO" ] || return 0
	"$PCPROF" export -f pprof -o "$T/p.pb.gz" "$1" 2>/dev/null || fail "export pprof $1"
	go tool pprof -list "$2" "$T/p.pb.gz" >"$T/list" 2>"$T/perr" || fail "pprof -list: $(cat "$T/perr")"
	awk -v l="$HOTL:" '$1 == "7s" && $3 == l' "$T/list" | grep -q 'HOT \*/$' ||
		fail "pprof -list $2: HOT line without its 7 s: $(cat "$T/list")"
	go tool pprof -disasm "$2" "$T/p.pb.gz" >"$T/dis" 2>"$T/perr" || fail "pprof -disasm: $(cat "$T/perr")"
	awk -v a="$HOT:" '$1 == "7s" && $3 == a' "$T/dis" | grep -q . ||
		fail "pprof -disasm $2: no 7 s at $HOT: $(cat "$T/dis")"
	awk -v a="$WARM:" '$1 == "2s" && $3 == a' "$T/dis" | grep -q . ||
		fail "pprof -disasm $2: no 2 s at $WARM: $(cat "$T/dis")"
}
pprof "$T/a.data" hot_loop
# the relative build: -list finds its source from any directory
if [ -n "$HAVE_GO" ]; then
	"$PCPROF" export -f pprof -o "$T/r.pb.gz" "$T/r.data" 2>/dev/null || fail "export pprof r.data"
	(cd / && go tool pprof -list hot_loop "$T/r.pb.gz") >"$T/list" 2>"$T/perr" ||
		fail "pprof -list, relative: $(cat "$T/perr")"
	awk -v l="$HOTL:" '$1 == "7s" && $3 == l' "$T/list" | grep -q 'HOT \*/$' ||
		fail "pprof -list from /: no HOT line: $(cat "$T/list")"
fi

# C++: the demangled name, in annotate and in pprof (whose -disasm matches
# the regexp against the binary's symbols as they are: mangled)
command -v g++ >/dev/null || {
	echo "SKIP part: g++ not installed"
	exit 0
}
g++ -x c++ -O1 -g -o "$T/annxx" "$SRC" 2>"$T/cc" || fail "g++: $(cat "$T/cc")"
annaddrs "$T/annxx" _Z8hot_loopm
annrec "$T/x.data" "$T/annxx"
"$PCPROF" annotate -i "$T/x.data" 'hot_loop(*' >"$T/out" 2>"$T/e" || fail "annotate C++: $(cat "$T/e")"
grep -q '^Source of hot_loop(unsigned long) (annxx): 1000 samples' "$T/out" || fail "C++ title: $(cat "$T/out")"
awk -v l="$HOTL" '$1 == 700 && $4 == l' "$T/out" | grep -q 'HOT \*/$' || fail "C++ HOT row: $(cat "$T/out")"
pprof "$T/x.data" hot_loop
exit 0
