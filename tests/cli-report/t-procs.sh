#!/bin/sh
# report -P after an exec-heavy run: the processes without samples are
# counted on one line, unless --all (-v) or -p asks for them.  mkfixture
# many N --idle: N processes, three of four without samples, ended by exec.
. "$(dirname "$0")/lib.sh"
"$FIX" many "$T/idle.data" 400 --idle || fail "mkfixture many --idle"

procs() {
	"$PCPROF" report -P "$@" >"$T/r" 2>"$T/e" || fail "report -P $*: $(cat "$T/e")"
	table "$T/r" '    pid' >"$T/rows"
}
procs "$T/idle.data"
[ "$(wc -l <"$T/rows")" = 101 ] || fail "want 100 rows and the fold: $(cat "$T/r")"
[ "$(tail -1 "$T/rows")" = "300 processes with no samples (--all lists them)" ] ||
	fail "fold line: $(tail -1 "$T/rows")"
awk '$2 != "processes" && $3 == 0.0' "$T/rows" | grep . && fail "a process without samples listed"
grep -q ' exec ' "$T/rows" && fail "an exec'd process listed"
# -n limits the rows listed, the fold still counts every idle process
procs -n 3 "$T/idle.data"
[ "$(wc -l <"$T/rows")" = 4 ] || fail "-n 3: $(cat "$T/r")"
tail -1 "$T/rows" | grep -q '^300 processes with no samples' || fail "-n 3 fold: $(cat "$T/r")"
for all in --all -v; do
	procs $all "$T/idle.data"
	[ "$(wc -l <"$T/rows")" = 400 ] || fail "$all: $(wc -l <"$T/rows") rows"
	[ "$(grep -c ' exec ' "$T/rows")" = 300 ] || fail "$all: exec'd processes"
done
# a pid asked for is shown, samples or not (the profile then has none)
procs -p 100001 "$T/idle.data"
grep -q '^no samples$' "$T/r" || fail "-p idle: $(cat "$T/r")"
[ "$(awk '$1 == 100001 && $4 == 0 && $11 == "exec"' "$T/rows" | wc -l)" = 1 ] ||
	fail "-p of an idle process: $(cat "$T/r")"
procs -p 100004 "$T/idle.data"
[ "$(wc -l <"$T/rows")" = 1 ] || fail "-p of a busy process: $(cat "$T/r")"
# one idle process: singular
"$FIX" many "$T/two.data" 2 --idle || fail "mkfixture many 2 --idle"
procs "$T/two.data"
[ "$(tail -1 "$T/rows")" = "1 process with no samples (--all lists it)" ] ||
	fail "singular: $(cat "$T/r")"
# nothing to fold: no line
procs "$T/fx.data"
grep -q 'with no samples' "$T/r" && fail "fold line without idle processes"
exit 0
