#!/bin/sh
# The notes at the end of report, -T, diff and annotate: the modules that
# only lack debug symbols share one short line naming them (libcold.so, a
# stripped library of the fixture, always among them), not a 300-character
# note each after every table (new-user finding F10); -v gives the long
# form, one note per module with its build id and the places searched.
. "$(dirname "$0")/lib.sh"
short() { # FILE WHAT: one short line, naming libcold.so, no long note
	n=$(grep -c '^note: no debug symbols for ' "$1") || true
	[ "$n" = 1 ] || fail "$2: $n 'no debug symbols' lines, want 1: $(cat "$1")"
	grep -q '^note: no debug symbols for .*libcold\.so.*--debug-dir (-v: details)$' "$1" ||
		fail "$2: libcold.so or the advice missing: $(cat "$1")"
	! grep -q 'has only its exported symbols' "$1" || fail "$2: a long note without -v: $(cat "$1")"
	w=$(grep '^note: no debug symbols for ' "$1" | wc -c)
	[ "$w" -lt 300 ] || fail "$2: the line is $w characters long"
}
long() { # FILE WHAT
	grep -q '^note: libcold.so has only its exported symbols.*no debug file for build id' "$1" ||
		fail "$2: no long note for libcold.so: $(cat "$1")"
	! grep -q '^note: no debug symbols for ' "$1" || fail "$2: the short line with -v: $(cat "$1")"
}
"$PCPROF" report "$T/fx.data" >"$T/r" || fail "report"
short "$T/r" report
"$PCPROF" report -T "$T/fx.data" >"$T/r" || fail "report -T"
short "$T/r" "report -T"
"$PCPROF" report -v "$T/fx.data" >"$T/r" || fail "report -v"
long "$T/r" "report -v"
"$PCPROF" diff "$T/fx.data" "$T/fx.data" >"$T/r" || fail "diff"
short "$T/r" diff
"$PCPROF" diff -v "$T/fx.data" "$T/fx.data" >"$T/r" || fail "diff -v"
long "$T/r" "diff -v"
"$PCPROF" annotate -n 0 -m libcold.so "$T/fx.data" >"$T/r" 2>&1 || fail "annotate: $(cat "$T/r")"
short "$T/r" annotate
"$PCPROF" annotate -v -n 0 -m libcold.so "$T/fx.data" >"$T/r" 2>&1 || fail "annotate -v: $(cat "$T/r")"
long "$T/r" "annotate -v"
# export keeps the long form, on standard error
"$PCPROF" export -f folded -o "$T/x.folded" "$T/fx.data" 2>"$T/r" || fail "export: $(cat "$T/r")"
long "$T/r" export
exit 0
