#!/bin/sh
# pcprof annotate on a source file modified after its module was built:
# the debug information's line numbers are those of the old text, so the
# samples may sit on the wrong lines.  A note on stderr says so, once per
# file (however many functions and views show it), naming the file and
# the module; none when the source is older, the listing unchanged.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/cli-report/annlib.sh"

annaged "$T/src" "$T/ann2" "$T/a.data"

"$PCPROF" annotate --color=never -n 0 "$T/a.data" >"$T/old" 2>"$T/e" || fail "annotate: $(cat "$T/e")"
grep -q "newer" "$T/e" && fail "a note for an older source: $(cat "$T/e")"
grep -q "anntarget.c$" "$T/old" || fail "anntarget.c not listed: $(cat "$T/old")"

# the source edited after the build (a line added at the top)
annedit "$T/src"
"$PCPROF" annotate --color=never -n 0 "$T/a.data" >"$T/new" 2>"$T/e" || fail "annotate: $(cat "$T/e")"
want="note: $T/src/anntarget.c is newer than $T/ann2: its lines may not match the samples"
[ "$(grep -c newer "$T/e")" = 1 ] && grep -qxF "$want" "$T/e" ||
	fail "not one note for the newer anntarget.c: $(cat "$T/e")"
"$PCPROF" annotate --color=never --asm -n 0 "$T/a.data" >/dev/null 2>"$T/e" ||
	fail "annotate --asm: $(cat "$T/e")"
[ "$(grep -c newer "$T/e")" = 1 ] && grep -qxF "$want" "$T/e" ||
	fail "--asm: not one note for the newer anntarget.c: $(cat "$T/e")"

# rebuilt: no note again
annbuild "$T/ann2" "$T/src/anntarget.c"
"$PCPROF" annotate --color=never -n 0 "$T/a.data" >/dev/null 2>"$T/e" || true
grep -q "newer" "$T/e" && fail "a note for a source older than its module: $(cat "$T/e")"
exit 0
