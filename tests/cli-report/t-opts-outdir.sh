#!/bin/sh
# export -o DIR for a format that writes a directory (gmon): DIR given
# with a trailing slash ("out/", as a shell completes it, "out///", or
# relative) names the same files, printed and created without a doubled
# slash, as DIR without it.
. "$(dirname "$0")/lib.sh"

# gmon DIR: export into DIR; the paths it printed in $T/paths
gmon() {
	"$PCPROF" export -f gmon -o "$1" "$T/fx.data" >"$T/o" 2>"$T/e" ||
		fail "export -o $1: $(cat "$T/e")"
	sed -n 's/^\([^ ]*gmon\.[^ ]*\.out\): .*/\1/p' "$T/o" >"$T/paths"
	[ -s "$T/paths" ] || fail "export -o $1 printed no gmon file: $(cat "$T/o")"
	if grep -q '//' "$T/o"; then
		fail "export -o $1 printed a doubled slash: $(grep '//' "$T/o")"
	fi
}
gmon "$T/a"
sed "s|^$T/a/||" "$T/paths" | sort >"$T/want"
grep -q '^gmon\.mkfixture\.out$' "$T/want" || fail "no gmon.mkfixture.out: $(cat "$T/want")"
for d in "$T/b/" "$T/c///"; do
	gmon "$d"
	base=${d%"${d##*[!/]}"}
	sed "s|^$base/||" "$T/paths" | sort >"$T/got"
	cmp -s "$T/want" "$T/got" || fail "export -o $d wrote $(cat "$T/paths")"
	while read -r f; do
		[ -s "$base/$f" ] || fail "export -o $d: no $base/$f"
	done <"$T/want"
	[ "$(ls "$base" | grep -c 'out$')" = "$(wc -l <"$T/want")" ] || fail "export -o $d: $(ls "$base")"
done
# relative, from the directory that holds it
(cd "$T" && "$PCPROF" export -f gmon -o rel/ fx.data >"$T/o" 2>"$T/e") || fail "export -o rel/: $(cat "$T/e")"
grep -q '^rel/gmon\.mkfixture\.out: ' "$T/o" || fail "export -o rel/: $(cat "$T/o")"
[ -s "$T/rel/gmon.mkfixture.out" ] || fail "export -o rel/: no rel/gmon.mkfixture.out"
exit 0
