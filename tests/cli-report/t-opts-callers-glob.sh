#!/bin/sh
# README's `pcprof report --callers '*memcpy*'`: the pattern finds libc's
# memcpy under the name glibc chose for the CPU, and its caller; a plain
# name that matches no function with samples exits 1 saying so.
. "$(dirname "$0")/lib.sh"
COPIER=$ROOT/${B:-build}/tests/targets/copier
[ -x "$COPIER" ] || fail "$COPIER not built (make all)"

grep -q "^pcprof report --callers '\*memcpy\*' " README.md ||
	fail "README.md's --callers example is not the one tested here"
"$PCPROF" run -q -o "$T/c.data" -- "$COPIER" 0.3 || fail "pcprof run: exit $?"
"$PCPROF" report --callers '*memcpy*' "$T/c.data" >"$T/out" 2>"$T/err" ||
	fail "--callers '*memcpy*': exit $?: $(cat "$T/err")"
grep -q "^Callers of [^ ]*memcpy[^ ]* (libc\.so" "$T/out" || fail "no memcpy: $(cat "$T/out")"
table "$T/out" 'total%    samples  caller' | grep -q " copy_block " ||
	fail "copy_block is not memcpy's caller: $(cat "$T/out")"
try 1 "no function with samples matches 'no_such_function'" \
	"$PCPROF" report --callers no_such_function "$T/c.data"
exit 0
