#!/bin/sh
# pcprof merge: recordings combined into one data file, their processes
# side by side.  Checked: a file merged alone reports exactly as itself;
# two recordings of the fixture report the sum of their counts (fix_hot
# 70000 + 70000, fix_warm 5000 + 8000 with --twice fix_warm) with all four
# processes in report -P; a stacked recording keeps its stacks; every
# export reads the merged file; recordings of another program, or of
# another build of it, merge with a warning; bad input or output fails
# without leaving a file.
. "$(dirname "$0")/lib.sh"
"$FIX" write "$T/slow.data" --twice fix_warm || fail "mkfixture --twice"
"$FIX" stacks "$T/st.data" || fail "mkfixture stacks"

merge() {
	"$PCPROF" merge "$@" >"$T/o" 2>"$T/e" || fail "merge $*: $(cat "$T/e")"
}
report() {
	"$PCPROF" report "$@" >"$T/r" 2>/dev/null || fail "report $*"
	sed 1d "$T/r" >"$T/r1" # the file name
}

# one file alone: the same profile
merge -o "$T/one.data" "$T/fx.data"
[ -s "$T/e" ] && fail "merge of one file warned: $(cat "$T/e")"
for v in -F -l -M -P -T; do
	report $v "$T/fx.data"
	mv "$T/r1" "$T/want"
	report $v "$T/one.data"
	cmp -s "$T/want" "$T/r1" || fail "report $v of a file merged alone: $(diff "$T/want" "$T/r1")"
done

# two runs: the sum, and both runs' processes
merge -o "$T/m.data" "$T/fx.data" "$T/slow.data"
[ -s "$T/e" ] && fail "same program warned: $(cat "$T/e")"
report -F "$T/m.data"
[ "$(row "$T/r" fix_hot | awk '{ print $3 }')" = $((2 * $(expect fix_hot))) ] ||
	fail "fix_hot: $(row "$T/r" fix_hot)"
[ "$(row "$T/r" fix_warm | awk '{ print $3 }')" = 13000 ] || fail "fix_warm: $(row "$T/r" fix_warm)"
n=$((2 * $(expect total) + 3000))
grep -q "^samples  *$n " "$T/r" || fail "samples, want $n: $(grep ^samples "$T/r")"
grep -q '^command  *mkfixture spin 100$' "$T/r" || fail "command: $(grep ^command "$T/r")"
report -P "$T/m.data"
[ "$(table "$T/r" '    pid' | wc -l)" = 4 ] || fail "processes: $(cat "$T/r")"

# with a stacked recording: its stacks stay, and the commands are joined
merge -o "$T/ms.data" "$T/fx.data" "$T/st.data"
report --callers fix_hot "$T/ms.data"
grep -q 'fix_warm' "$T/r" || fail "no caller of fix_hot after merge: $(cat "$T/r")"
report "$T/ms.data"
grep -q '^command  *mkfixture spin 100 + mkfixture stacks$' "$T/r" || fail "joined command: $(head -3 "$T/r")"
for fmt in gmon pprof folded speedscope html; do
	o=$T/x.$fmt
	[ $fmt = gmon ] && o=$T/gm
	"$PCPROF" export -f $fmt -o "$o" "$T/ms.data" >/dev/null 2>"$T/e" ||
		fail "export $fmt of a merged file: $(cat "$T/e")"
done
grep -Eq '^main;fix_warm;fix_hot 400$' "$T/x.folded" || fail "folded: $(cat "$T/x.folded")"

# another program: merged, with a warning naming both
if "$PCPROF" run -q -o "$T/true.data" /bin/true >/dev/null 2>&1; then
	merge -o "$T/mt.data" "$T/fx.data" "$T/true.data"
	grep -q "^warning: $T/fx.data and $T/true.data record different programs: .*mkfixture.* and .*true" "$T/e" ||
		fail "no warning for another program: $(cat "$T/e")"
	[ "$(wc -l <"$T/e")" = 1 ] || fail "more than one warning: $(cat "$T/e")"
	"$PCPROF" report -P "$T/mt.data" >/dev/null 2>&1 || fail "report of a merge of two programs"
fi
# another build of the program (its build-id changed: mkfixture --rebuilt)
"$FIX" write "$T/rebuilt.data" --rebuilt || fail "mkfixture --rebuilt"
merge -o "$T/mr.data" "$T/fx.data" "$T/rebuilt.data"
grep -q "^warning: $T/fx.data and $T/rebuilt.data record different builds of .*/mkfixture (build-id [0-9a-f]*, [0-9a-f]*)$" "$T/e" ||
	fail "no warning for another build: $(cat "$T/e")"

# the command list names merge
"$PCPROF" --help | grep -q '^  merge ' || fail "pcprof --help does not list merge"

# errors: no output, no input, a bad input, an output that cannot be written
rc=0
"$PCPROF" merge "$T/fx.data" >"$T/o" 2>"$T/e" || rc=$?
[ $rc = 2 ] || fail "no -o: exit $rc"
rc=0
"$PCPROF" merge -o "$T/n.data" >"$T/o" 2>"$T/e" || rc=$?
[ $rc = 2 ] || fail "no input: exit $rc"
try 1 'nonexistent: No such file' "$PCPROF" merge -o "$T/n.data" "$T/fx.data" "$T/nonexistent"
[ -e "$T/n.data" ] && fail "output left after a bad input"
head -c 100 "$T/fx.data" >"$T/cut.data"
try 1 'cut.data: .*truncated' "$PCPROF" merge -o "$T/n.data" "$T/fx.data" "$T/cut.data"
[ -e "$T/n.data" ] && fail "output left after a truncated input"
try 1 '/dev/full: .*No space left' "$PCPROF" merge -o /dev/full "$T/fx.data"
mkdir "$T/dir"
try 1 'dir' "$PCPROF" merge -o "$T/dir" "$T/fx.data"
# an existing output is replaced (file.c: a new file renamed over it)
merge -o "$T/m.data" "$T/fx.data"
cmp -s "$T/m.data" "$T/one.data" || fail "the output was not replaced by the new merge"
exit 0
