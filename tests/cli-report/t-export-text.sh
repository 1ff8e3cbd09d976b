#!/bin/sh
# pcprof export --format folded and --format speedscope: well-formed, with
# the fixture's exact counts.  JSON is checked by jsoncheck (a strict
# RFC 8259 parser in C), so no python is needed.
. "$(dirname "$0")/lib.sh"

# folded, to standard output: "module;function count", one line each
"$PCPROF" export --format folded -o - "$T/fx.data" >"$T/f" 2>"$T/err" ||
	fail "folded exit $?: $(cat "$T/err")"
bad=$(grep -Ev '^[^; ]+;[^;]+ [0-9]+$' "$T/f" || true)
[ -z "$bad" ] || fail "malformed folded lines: $bad"
[ "$(wc -l <"$T/f")" = "$(expect functions)" ] || fail "$(wc -l <"$T/f") folded lines"
grep -qx "mkfixture;fix_hot $(expect fix_hot)" "$T/f" || fail "no fix_hot line"
grep -qx "libhot.so;hot_lib_inner $(expect hot_lib_inner)" "$T/f" || fail "no hot_lib_inner line"
grep -qx "libcold.so;$(expect cold_inner_label) $(expect cold_inner)" "$T/f" || fail "no unnamed line"
grep -qx "\[unknown\];0x1234 $(expect unknown)" "$T/f" || fail "no [unknown] line"
sum=$(awk '{ s += $NF } END { print s }' "$T/f")
[ "$sum" = "$(expect total)" ] || fail "folded counts add up to $sum"

# speedscope: valid JSON in the file format, one profile for everything
# plus one per process, as many weights as samples
"$PCPROF" export --format speedscope -o "$T/s.json" "$T/fx.data" 2>"$T/err" ||
	fail "speedscope exit $?: $(cat "$T/err")"
"$JSONCHECK" "$T/s.json" samples weights profiles frames >"$T/j" || fail "not JSON"
j() { awk -v k="$1" '$1 == k { print $2 }' "$T/j"; }
[ "$(j profiles)" = 3 ] || fail "$(j profiles) profiles, want 3"
[ "$(j samples)" = "$(expect functions)" ] && [ "$(j weights)" = "$(expect functions)" ] ||
	fail "first profile: $(j samples) samples, $(j weights) weights"
# a frame per module, one for [unknown], one per function
[ "$(j frames)" = $(($(expect modules) + 1 + $(expect functions))) ] || fail "$(j frames) frames"
grep -q '^{"\$schema":"https://www.speedscope.app/file-format-schema.json",' "$T/s.json" ||
	fail "no \$schema"
[ "$(grep -o '"type":"sampled"' "$T/s.json" | wc -l)" = 3 ] || fail "profile type"
grep -q '"unit":"seconds"' "$T/s.json" || fail "unit"
secs=$(awk -v n="$(expect total)" 'BEGIN { print n / 1000 }')
grep -q "\"endValue\":$secs}" "$T/s.json" || fail "first profile's endValue is not $secs s"
grep -q '{"name":"fix_hot","file":"[^"]*mkfixture.c","line":[0-9][0-9]*}' "$T/s.json" ||
	fail "no fix_hot frame with its source"

# jsoncheck itself must reject broken JSON, or the checks above mean nothing
printf '{"a":[1,2,}' >"$T/broken.json"
! "$JSONCHECK" "$T/broken.json" 2>/dev/null || fail "jsoncheck accepted broken JSON"
exit 0
