#!/bin/sh
# The HTML page's source views hold at most 4 MB of listings
# (out-html-annotate.c's ANN_BUDGET) even when one function's listing
# alone is larger: anntarget.c's hot_loop with 5000 lines of code that
# never runs put into it, each line 200 '<' in a comment (6 bytes each in
# the page's JSON: \u003c), each line sampled once through the manual
# engine (every 500th 40 times; HOT, WARM and STEP as annlib.sh's annrec).
# Its listing, 6.4 MB whole, is cut to fit: the listings' JSON and the
# page stay within the bound plus the page's own few hundred KB, the JSON
# is valid, and in headless chromium the view says what it leaves out;
# the hottest lines are there (HOT, the 40-sample lines, the last of them
# far after the cut), the next function (mix_step) has none, and every sampled line and sample is either a row
# of its own or counted in a row "… N lines, M of them with samples, not
# in this page …": the rows' samples add up to the function's.  Then the
# same with every 4th line sampled, which fits with no context lines: no
# sampled line is left out.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/cli-report/annlib.sh"
BIG=5000
BUDGET=4194304
mkdir "$T/src"
awk -v n=$BIG '{ print }
	/unsigned long x = n, y = 0;/ {
		pad = ""
		for (i = 0; i < 200; i++) pad = pad "<"
		print "\tif (n == 77777) {"
		for (i = 1; i <= n; i++)
			printf "\t\tsink = n + %d; /* BIG %s */\n", i, pad
		print "\t}" }' "$SRC" >"$T/src/anntarget.c"
cp "$ROOT/tests/cli-report/annstep.h" "$T/src/"
annbuild "$T/big" "$T/src/anntarget.c"
HOTL=$(grep -n 'HOT \*/$' "$T/src/anntarget.c" | cut -d: -f1)
annaddrs "$T/big" hot_loop
# record EVERY DATA: 1 sample at the first instruction of every EVERY-th
# BIG line, 40 at every 500th ($T/biglines: the BIG lines' numbers)
record() {
	grep -n ' BIG ' "$T/src/anntarget.c" | cut -d: -f1 >"$T/biglines"
	awk -v e="$1" 'NR == FNR { if (FNR % e == 0) big[$1] = FNR; next }
		{ split($2, w, ":"); l = w[2] }
		w[1] == "anntarget.c" && big[l] && !seen[l]++ {
			sub(/^0x0*/, "", $1); print $1 ":" (big[l] % 500 ? 1 : 40) }' \
		"$T/biglines" "$T/where" >"$T/inject"
	[ "$(wc -l <"$T/inject")" = $((BIG / $1)) ] ||
		skip "this compiler left no instruction at some BIG lines: $(wc -l <"$T/inject")"
	# shellcheck disable=SC2046
	PROFIL_ENGINE=manual PROFIL_HZ=100 "$PCPROF" run -q -o "$2" -- "$T/big" inject \
		"$HOT:700" "$WARM:200" "$STEP:100" $(cat "$T/inject") >"$T/runout" 2>&1 ||
		fail "pcprof run: $(cat "$T/runout")"
}
# export DATA PAGE MIN: the page within the bound, its listings valid
# JSON of MIN bytes or more in $T/ann.json
export_page() {
	"$PCPROF" export -f html -o "$2" "$1" 2>"$T/e" || fail "export: $(cat "$T/e")"
	sed -n 's/^<script type="application\/json" id="ann-data">\(.*\)<\/script>$/\1/p' "$2" \
		>"$T/ann.json"
	size=$(wc -c <"$T/ann.json")
	[ "$size" -ge "$3" ] && [ "$size" -le $((BUDGET + 4096)) ] ||
		fail "the listings' JSON is $size bytes, the bound $BUDGET"
	page=$(wc -c <"$2")
	[ "$page" -le $((BUDGET + 512 * 1024)) ] || fail "the page is $page bytes, the bound $BUDGET"
	"$JSONCHECK" "$T/ann.json" >/dev/null 2>"$T/e" || fail "the listings' JSON: $(cat "$T/e")"
}
record 1 "$T/a.data"
# (almost all of the bound used: the cut keeps what fits)
export_page "$T/a.data" "$T/a.html" $((BUDGET * 9 / 10))
grep -q '"cut":\[0,[1-9][0-9]*,' "$T/ann.json" || fail "no sampled lines said to be left out"
# the function after it (mix_step, inlined into it) has no listing
[ "$(grep -o '"why":"size"' "$T/ann.json" | wc -l)" = 1 ] || fail "not one function over the bound"

chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || skip "chromium not installed: the page's size and JSON checked, not its view"
html_probe "$chromium" "$T/a.html" 'row=hot_loop&source'
total=$(sed -n 's/^srctitle 1 .*%3A%20\([0-9]*\)%20samples%20in%20its%20code.*/\1/p' "$T/dom")
[ "$total" = 6390 ] || fail "hot_loop's samples: '$total', want 6390: $(grep '^srctitle' "$T/dom")"
grep -q '^srcwhy 1 Not%20all%20of%20this%20listing.*4%20MB.*every%20line%20without%20samples.*[0-9]*%20sampled%20lines%20with%20[0-9]*%20samples.*pcprof%20annotate%20shows%20the%20whole%20function' \
	"$T/dom" || fail "the note: $(grep '^srcwhy' "$T/dom")"
# the rows: "LINE SAMPLES" of those with samples, "… SAMPLES LINES" of
# the stretches that hold sampled lines left out
awk '$1 == "src" && $2 == 1 && $3 ~ /^[0-9]+$/ && $4 != "-" { print $3, $4 }' "$T/dom" >"$T/rows"
awk '$1 == "src" && $2 == 1 && $7 == "gap" && $4 != "-" {
	split($8, w, "%2C%20"); sub(/%20of%20them.*/, "", w[2]); print $4, w[2] }' "$T/dom" >"$T/left"
[ -s "$T/left" ] || fail "no row says which sampled lines are left out: $(grep '^src 1' "$T/dom" | head)"
awk '$1 != $2 { exit 1 }' "$T/left" || fail "left-out rows: samples and lines differ: $(cat "$T/left")"
shown=$(awk '{ n += $2 } END { print n + 0 }' "$T/rows")
out=$(awk '{ n += $1 } END { print n + 0 }' "$T/left")
[ $((shown + out)) = 6390 ] ||
	fail "rows $shown samples, left out $out: not the function's 6390"
nrows=$(wc -l <"$T/rows")
nout=$(awk '{ n += $2 } END { print n + 0 }' "$T/left")
# BIG lines, HOT, WARM (the same line as HOT at -O1 or its own) and STEP
# (annstep.h)
[ $((nrows + nout)) -ge $((BIG + 2)) ] && [ $((nrows + nout)) -le $((BIG + 3)) ] ||
	fail "$nrows sampled lines shown, $nout left out: not $BIG + HOT, WARM and STEP"
[ "$nrows" -gt 2000 ] || fail "only $nrows sampled lines shown"
grep -q "^$HOTL 700\$" "$T/rows" || fail "HOT (line $HOTL) not shown with 700: $(tail -5 "$T/rows")"
for i in 1 2 3 4 5 6 7 8 9 10; do
	l=$(sed -n "$((i * 500))p" "$T/biglines")
	grep -q "^$l 40\$" "$T/rows" || fail "BIG line $((i * 500)) (line $l) not shown with 40"
done
# the "left out" rows tell it
grep -q "^src 1 $(printf '\342\200\246')"' [0-9]* [0-9.]* [0-9.]* gap %E2%80%A6%20[0-9]*%20lines%2C%20[0-9]*%20of%20them%20with%20samples%2C%20not%20in%20this%20page%3A%20it%20keeps%20at%20most%204%20MB%20of%20listings%20(pcprof%20annotate%20shows%20them)%20%E2%80%A6$' \
	"$T/dom" || fail "left-out row: $(grep '^src 1 .* gap' "$T/dom" | head -3)"

# every 4th line: the listing fits with the sampled lines alone
record 4 "$T/b.data"
export_page "$T/b.data" "$T/b.html" 0
grep -q '"cut":\[0,0,0,0\]' "$T/ann.json" || fail "not cut to the sampled lines: $(grep -o '"cut":[^]]*]' "$T/ann.json")"
html_probe "$chromium" "$T/b.html" 'row=hot_loop&source'
grep -q '^srcwhy 1 Not%20all%20of%20this%20listing.*every%20line%20without%20samples%3B%20pcprof' \
	"$T/dom" || fail "the note: $(grep '^srcwhy' "$T/dom")"
awk '$1 == "src" && $2 == 1 && $3 ~ /^[0-9]+$/ && $4 != "-" { n++; s += $4 } END { print n, s }' \
	"$T/dom" >"$T/sum"
[ "$(cat "$T/sum")" = "$((BIG / 4 + 2)) $((1000 + BIG / 4 + 10 * 39))" ] ||
	[ "$(cat "$T/sum")" = "$((BIG / 4 + 3)) $((1000 + BIG / 4 + 10 * 39))" ] ||
	fail "every 4th line: shown 'LINES SAMPLES' $(cat "$T/sum")"
exit 0
