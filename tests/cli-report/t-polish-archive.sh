#!/bin/sh
# A damaged module member of an archive (new-user finding F15): not an
# error-looking line with exit 0, but a "warning: ..." that says the member
# is not used and where the symbols come from instead; the command goes on
# and exits 0 with the same report as from the plain recording (the
# module's file is still here, with the same build id).  pcprof-archive(1)
# EXIT STATUS.
. "$(dirname "$0")/lib.sh"
"$PCPROF" archive -o "$T/fx.ar" "$T/fx.data" 2>"$T/msg" || fail "archive: $(cat "$T/msg")"
u() { od -An -t"$1" -j "$2" -N "$3" "$T/fx.ar" | tr -d ' '; }
# the table (docs/formats.md): find libcold.so's module member (kind 2)
n=$(wc -c <"$T/fx.ar")
e=$(u u8 $((n - 24)) 8) cnt=$(u u4 $((n - 16)) 4) at=
i=0
while [ $i -lt "$cnt" ]; do
	kind=$(u u4 "$e" 4) idlen=$(u u4 $((e + 4)) 4) plen=$(u u4 $((e + 8)) 4)
	path=$(dd if="$T/fx.ar" bs=1 skip=$((e + 40 + idlen)) count="$plen" 2>/dev/null)
	case "$kind:$path" in 2:*/libcold.so) at=$(($(u u8 $((e + 16)) 8) + 20)) ;; esac
	e=$((e + 40 + idlen + plen)) i=$((i + 1))
done
[ -n "$at" ] || fail "no libcold.so module member in the archive"
cp "$T/fx.ar" "$T/bad.ar"
printf 'XXXXXXXX' | dd of="$T/bad.ar" bs=1 seek="$at" conv=notrunc 2>/dev/null
rc=0
"$PCPROF" report "$T/bad.ar" >"$T/r" 2>"$T/e" || rc=$?
[ $rc = 0 ] || fail "report of a damaged module member: exit $rc: $(cat "$T/e")"
grep -q "^pcprof report: warning: $T/bad.ar: corrupted archive member .*/libcold.so (.*): not used; its symbols come from a file with the same build id on this system instead" "$T/e" ||
	fail "no warning saying what is used instead: $(cat "$T/e")"
[ "$(grep -vc '^note: ' "$T/e")" = 1 ] || fail "more than the one warning: $(cat "$T/e")"
"$PCPROF" report "$T/fx.data" >"$T/plain" 2>&1 || fail "report"
grep -v '^file ' "$T/plain" >"$T/p1"
grep -v '^file ' "$T/r" >"$T/r1"
cmp -s "$T/p1" "$T/r1" || fail "the report differs from the plain recording's: $(diff "$T/p1" "$T/r1")"
exit 0
