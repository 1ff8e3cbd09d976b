#!/bin/sh
# pcprof merge warns when one recording is given twice (the same file, or a
# copy): its samples would count twice and report -P would show each
# process twice, as if it had exec'd, with nothing said.  Two different
# recordings of the same program (mkfixture with --twice fix_warm) merge
# without that warning, and the merge is still written (exit 0).
. "$(dirname "$0")/lib.sh"
"$FIX" write "$T/slow.data" --twice fix_warm || fail "mkfixture --twice"
cp "$T/fx.data" "$T/copy.data"

# merge OUT IN...: merged, exit 0, stderr in $T/e
merge() {
	"$PCPROF" merge -o "$@" >"$T/o" 2>"$T/e" || fail "merge -o $*: exit $?: $(cat "$T/e")"
	[ -s "$1" ] || fail "merge -o $*: no $1"
}
merge "$T/a.data" "$T/fx.data" "$T/fx.data"
grep -qx "warning: $T/fx.data and $T/fx.data hold the same recording: its samples count twice" "$T/e" ||
	fail "the same file twice: $(cat "$T/e")"
merge "$T/b.data" "$T/slow.data" "$T/fx.data" "$T/copy.data"
grep -qx "warning: $T/fx.data and $T/copy.data hold the same recording: its samples count twice" "$T/e" ||
	fail "a copy: $(cat "$T/e")"
[ "$(wc -l <"$T/e")" = 1 ] || fail "a copy: more than one warning: $(cat "$T/e")"
merge "$T/c.data" "$T/fx.data" "$T/slow.data"
[ -s "$T/e" ] && fail "two recordings of one program warned: $(cat "$T/e")"
exit 0
