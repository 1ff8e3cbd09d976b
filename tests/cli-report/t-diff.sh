#!/bin/sh
# pcprof diff: per-function and per-line change of self and total share
# between two recordings, with its standard error from the sample counts.
# The fixture (mkfixture write) is recorded again with fix_warm made twice
# as slow (--twice: its 3000 + 2000 samples become 6000 + 2000... of the
# first process only: 3000 more), drawn again at random (--noise SEED: a
# second run of an unchanged program), and with a module added (--missing:
# libgone.so+0x1100, 50 samples, and libc's getppid under another path).
. "$(dirname "$0")/lib.sh"
"$FIX" write "$T/slow.data" --twice fix_warm || fail "mkfixture --twice"
"$FIX" write "$T/more.data" --missing || fail "mkfixture --missing"

diff_() {
	"$PCPROF" diff "$@" >"$T/d" 2>"$T/e" || fail "diff $*: $(cat "$T/e")"
	table "$T/d" '   base     new' >"$T/rows"
}
# columns: base self%, new self%, change, se, base total%, new total%,
# change, se, self seconds change, status, function, module
status_of() {
	awk -v f="$1" '$11 == f { print $10 }' "$T/rows"
}

# a file against itself: nothing changed, every row within noise
diff_ "$T/fx.data" "$T/fx.data"
grep -q "^base  *$T/fx.data: $(expect total) samples" "$T/d" || fail "header: $(cat "$T/d")"
grep -q '^ *command mkfixture spin 100$' "$T/d" || fail "no command: $(cat "$T/d")"
[ "$(awk '$10 != "~"' "$T/rows")" = "" ] || fail "changes in an unchanged file: $(cat "$T/d")"
[ "$(wc -l <"$T/rows")" -ge 10 ] || fail "too few rows: $(cat "$T/d")"
grep -q '^0 of [0-9]* rows changed beyond 3 standard errors' "$T/d" || fail "summary: $(cat "$T/d")"

# fix_warm twice as slow: it tops the list, grew, by the exact shares
diff_ "$T/fx.data" "$T/slow.data"
top=$(head -1 "$T/rows")
set -- $top
[ "${11} ${10}" = "fix_warm grew" ] || fail "top row: $top"
n0=$(expect total)
n1=$((n0 + 3000))
want=$(awk -v a=5000 -v n0="$n0" -v b=8000 -v n1="$n1" \
	'BEGIN { printf "%.2f %.2f %+.2f %.2f", 100*a/n0, 100*b/n1, 100*(b/n1 - a/n0),
		100*sqrt(a/n0*(1-a/n0)/n0 + b/n1*(1-b/n1)/n1) }')
[ "$1 $2 $3 $4" = "$want" ] || fail "fix_warm self: $1 $2 $3 $4, want $want"
[ "$9" = "+3.00" ] || fail "fix_warm seconds change $9, want +3.00"
# the others' shares fell (the same samples of more), fix_hot beyond noise
[ "$(status_of fix_hot)" = shrank ] || fail "fix_hot: $(cat "$T/d")"
# -s total sorts by the change of total share: the same top here
diff_ -s total -n 1 "$T/fx.data" "$T/slow.data"
[ "$(wc -l <"$T/rows")" = 1 ] || fail "-n 1: $(cat "$T/d")"
awk '$11 == "fix_warm"' "$T/rows" | grep -q . || fail "-s total: $(cat "$T/d")"

# a second run of the same program: at most 5% of rows beyond noise
real=0 rows=0
for s in 1 2 3 4 5 6; do
	"$FIX" write "$T/n$s.data" --noise "$s" || fail "mkfixture --noise $s"
done
for p in "1 2" "3 4" "5 6" "1 6" "2 5"; do
	set -- $p
	diff_ "$T/n$1.data" "$T/n$2.data"
	rows=$((rows + $(wc -l <"$T/rows")))
	real=$((real + $(awk '$10 !~ /~/' "$T/rows" | wc -l)))
done
[ $((real * 20)) -le "$rows" ] || fail "$real of $rows rows beyond noise between equal runs"
# ... and a change twice as large as the noise is still found there
"$FIX" write "$T/ns.data" --noise 7 --twice fix_warm || fail "mkfixture --noise --twice"
diff_ "$T/n1.data" "$T/ns.data"
head -1 "$T/rows" | awk '$11 == "fix_warm" && $10 == "grew"' | grep -q . ||
	fail "noisy fix_warm: $(cat "$T/d")"

# functions in one file only: new, and gone the other way round
diff_ "$T/fx.data" "$T/more.data"
[ "$(awk '$11 == "libgone.so+0x1100" { print $10, $12 }' "$T/rows")" = "new libgone.so" ] ||
	fail "new: $(cat "$T/d")"
diff_ "$T/more.data" "$T/fx.data"
[ "$(status_of libgone.so+0x1100)" = gone ] || fail "gone: $(cat "$T/d")"
# getppid is matched by name and module name, though its libc moved
[ "$(awk '$11 == "getppid"' "$T/rows" | wc -l)" = 1 ] || fail "getppid rows: $(cat "$T/d")"

# --lines: the line of fix_warm, its path relative to the compilation
# directory, or to --source-root
diff_ --lines "$T/fx.data" "$T/slow.data"
set -- $(head -1 "$T/rows")
[ "${10} ${12}" = "grew fix_warm" ] || fail "--lines top: $(cat "$T/d")"
case ${11} in tests/cli-report/mkfixture.c:[0-9]*) ;; *) fail "--lines path ${11}" ;; esac
diff_ --lines --source-root "$ROOT/tests" "$T/fx.data" "$T/slow.data"
set -- $(head -1 "$T/rows")
case ${11} in cli-report/mkfixture.c:[0-9]*) ;; *) fail "--source-root path ${11}" ;; esac
diff_ --lines --full-paths "$T/fx.data" "$T/slow.data"
set -- $(head -1 "$T/rows")
case ${11} in "$ROOT"/tests/cli-report/mkfixture.c:[0-9]*) ;; *) fail "--full-paths ${11}" ;; esac

# filters apply to both files
diff_ -f 'fix_*' "$T/fx.data" "$T/slow.data"
[ "$(awk '$11 !~ /^fix_/' "$T/rows")" = "" ] || fail "-f: $(cat "$T/d")"

# names that try to drive a terminal reach it escaped
"$FIX" write "$T/h.data" --hostile || fail "mkfixture --hostile"
"$PCPROF" diff "$T/h.data" "$T/h.data" >"$T/d" 2>"$T/e" || fail "diff hostile: $(cat "$T/e")"
LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$T/d" && fail "control characters in the diff"
grep -qF 'command mkfixture \x1b[31mred\nline' "$T/d" || fail "hostile command not escaped"

# the command list names diff
"$PCPROF" --help | grep -q '^  diff ' || fail "pcprof --help does not list diff"

# usage errors
rc=0
"$PCPROF" diff "$T/fx.data" >"$T/o" 2>"$T/e" || rc=$?
[ "$rc" = 2 ] && grep -q '^usage: pcprof diff' "$T/e" || fail "one file: exit $rc, $(cat "$T/e")"
try 2 "bad sort key" "$PCPROF" diff -s name "$T/fx.data" "$T/fx.data"
try 1 'nonexistent' "$PCPROF" diff "$T/fx.data" "$T/nonexistent"
# a filter that matches in neither file is a mistake; in one, a change
try 1 'none of its .* samples match --function' "$PCPROF" diff -f 'no_such_fn*' "$T/fx.data" "$T/fx.data"
exit 0
