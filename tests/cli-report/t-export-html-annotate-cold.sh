#!/bin/sh
# The HTML page's source view (html-annotate.js) shows the lines and
# instructions of a cold stretch on a click on its "… N lines …" (or
# Enter or Space on it: a focusable role=button with aria-expanded), and
# hides them again on another, driven in headless chromium: anntarget.c
# (annlib.sh) with COLD lines of code that never runs put into hot_loop
# before its loop, recorded through the manual engine (annrec: samples
# only at HOT, WARM and STEP), so that `pcprof annotate hot_loop` shows
# hot_loop's first lines, "...", then the loop (the cold lines hold HTML
# markup, which the page shows as text).  Expanded, the listing
# holds every line from the first shown to the last, each cold one with
# its line of the file and no samples; collapsed again, it is as before.
# The same for the instructions tab against `pcprof annotate --asm`'s
# every instruction.  The flame graph's search and zoom still work with
# the stretch open, and nothing is loaded.  A stretch of more than 1000
# lines (out-html-annotate.c's ANN_GAP) cannot be opened: its row says how
# many lines it hides and what shows them.
. "$(dirname "$0")/lib.sh"
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || skip "chromium not installed"
. "$ROOT/tests/cli-report/annlib.sh"

COLD=12
mkdir "$T/src"
awk -v n=$COLD '{ print }
	/unsigned long x = n, y = 0;/ {
		print "\tif (n == 77777) {"
		for (i = 1; i <= n - 2; i++)
			printf "\t\tsink = n + %d; /* cold %d </script><img src=x onerror=pwned=1> */\n", i, i
		print "\t}" }' "$SRC" >"$T/src/anntarget.c"
anncopy "$T/src" "$T/hcold" "$T/a.data"
"$PCPROF" annotate -i "$T/a.data" hot_loop >"$T/ann" 2>"$T/e" || fail "annotate: $(cat "$T/e")"
"$PCPROF" annotate --asm -i "$T/a.data" hot_loop >"$T/asm" 2>"$T/e" || fail "annotate --asm: $(cat "$T/e")"
"$PCPROF" export -f html -o "$T/a.html" "$T/a.data" 2>"$T/e" || fail "export: $(cat "$T/e")"
grep -Fq '<img' "$T/a.html" && fail "a cold line is in the page as markup"

# lines STEP: the source view's rows of anntarget.c at STEP, "LINE SAMPLES"
lines() {
	awk -v s="$1" '$1 == "srcfile" && $2 == s { f = ($3 ~ /anntarget\.c$/) }
		$1 == "src" && $2 == s && f { print $3, $4 }' "$T/dom"
}

# annotate's listing of anntarget.c: LINE SAMPLES ("-" for none), "…"
# for the stretch
awk '/^  \// { f = ($0 ~ /anntarget\.c$/); next }
	f && $1 == "..." { print "\342\200\246 -"; next }
	f && $1 ~ /^[0-9]+$/ && $4 ~ /^[0-9]+$/ && $2 ~ /\./ { print $4, $1; next }
	f && $1 ~ /^[0-9]+$/ { print $1, "-" }' "$T/ann" >"$T/want"
[ "$(grep -c '^…' "$T/want")" = 1 ] || fail "annotate shows no single cold stretch: $(cat "$T/ann")"
first=$(sed -n 1p "$T/want" | cut -d' ' -f1)
before=$(sed -n '/^…/{g;p;q};h' "$T/want" | cut -d' ' -f1)
after=$(sed -n '/^…/{n;p;q}' "$T/want" | cut -d' ' -f1)
last=$(tail -1 "$T/want" | cut -d' ' -f1)
[ "$((after - before - 1))" -gt 2 ] && [ "$last" -ge "$HOTL" ] ||
	fail "stretch $before..$after, last line $last, HOT $HOTL: $(cat "$T/ann")"
# expanded: the stretch's row, then each line it hid, without samples
awk -v a="$before" -v b="$after" '{ print }
	$1 == "\342\200\246" { for (l = a + 1; l < b; l++) print l, "-" }' "$T/want" >"$T/wopen"
# the source lines: open, closed, with Enter, with Space
html_probe "$chromium" "$T/a.html" \
	'row=hot_loop&source&more=src.0&source&more=src.0&source&moreenter=src.0&source&morespace=src.0&source'
lines 1 >"$T/got"
diff "$T/want" "$T/got" >"$T/diff" || fail "closed: not annotate's listing: $(cat "$T/diff")"
# more STEP: "EXPANDED TABINDEX ROLE" of the expander after step STEP
more() {
	awk -v s="$1" '$1 == "more" && $2 == s { print $3, $4, $5 }' "$T/dom"
}
for st in 3 7; do
	lines $st >"$T/got"
	diff "$T/wopen" "$T/got" >"$T/diff" || fail "open (step $st): not every line: $(cat "$T/diff")"
done
for st in 5 9; do
	lines $st >"$T/got"
	diff "$T/want" "$T/got" >"$T/diff" || fail "closed again (step $st): $(cat "$T/diff")"
done
[ "$(more 2)" = "true 0 button" ] || fail "click: expander $(more 2)"
[ "$(more 4)" = "false 0 button" ] || fail "second click: expander $(more 4)"
[ "$(more 6)" = "true 0 button" ] || fail "Enter: expander $(more 6)"
[ "$(more 8)" = "false 0 button" ] || fail "Space: expander $(more 8)"
# each line shown is the file's line (tabs expanded), in a "cold" row
awk -v a="$before" -v b="$after" '$1 == "src" && $2 == 3 && $3 > a && $3 < b { print $3, $7, $8 }' \
	"$T/dom" >"$T/cold"
[ "$(wc -l <"$T/cold")" = $((after - before - 1)) ] || fail "cold rows: $(cat "$T/cold")"
while read -r l cls text; do
	[ "$cls" = cold ] || fail "line $l: class $cls"
	[ "$text" = "$(sed -n "${l}p" "$T/src/anntarget.c" | expand | enc)" ] ||
		fail "line $l shown as $text"
done <"$T/cold"
# and the stretch's row says how many lines it hides
awk '$1 == "src" && $2 == 1 && $7 == "gap" { print $8 }' "$T/dom" >"$T/label"
[ "$(cat "$T/label")" = "%E2%80%A6%20$((after - before - 1))%20lines%20%E2%80%A6" ] ||
	fail "the stretch's row: $(cat "$T/label")"

# the instructions: every stretch opened, then every one closed again;
# "A ADDRESS SAMPLES" and "F FILE:LINE" as annotate --asm prints them
awk '$1 ~ /^[0-9a-f]+:$/ { print "A", $1, "-"; next }
	$1 ~ /^[0-9]+$/ && $4 ~ /^[0-9a-f]+:$/ { print "A", $4, $1; next }
	$1 ~ /:[0-9]+$/ { print "F", $1 }' "$T/asm" >"$T/wasm"
# asmrows STEP: the same of the page's instructions (no stretch rows)
asmrows() {
	awk -v s="$1" '$1 == "asm" && $2 == s && $3 != "-" && $3 != "\342\200\246" { print "A", $3, $4 }
		$1 == "asmfile" && $2 == s { sub(/%20%20.*/, "", $3); gsub(/%3A/, ":", $3); print "F", $3 }' "$T/dom"
}
html_probe "$chromium" "$T/a.html" 'row=hot_loop&asmtab&source'
asmrows 2 >"$T/closed"
n=$(awk '$1 == "asm" && $2 == 2 && $7 == "gap"' "$T/dom" | wc -l)
[ "$n" -gt 0 ] || fail "no cold stretch of instructions: $(grep '^asm' "$T/dom")"
steps='row=hot_loop&asmtab'
k=0
while [ $k -lt "$n" ]; do
	steps="$steps&more=asm.$k"
	k=$((k + 1))
done
k=0
steps="$steps&source"
while [ $k -lt "$n" ]; do
	steps="$steps&more=asm.$k"
	k=$((k + 1))
done
html_probe "$chromium" "$T/a.html" "$steps&source"
asmrows $((n + 2)) >"$T/got"
diff "$T/wasm" "$T/got" >"$T/diff" || fail "opened: not annotate --asm's instructions: $(cat "$T/diff")"
asmrows $((2 * n + 3)) >"$T/got"
diff "$T/closed" "$T/got" >"$T/diff" || fail "closed again: $(cat "$T/diff")"

# with a stretch open, the flame graph's search and zoom still work
html_probe "$chromium" "$T/a.html" 'row=hot_loop&more=src.0&search=mix_&click=mix_step@2&source'
grep -q '^match 2 matched%2010.00%25%20(1%20frames)$' "$T/dom" || fail "search: $(grep '^match' "$T/dom")"
root=$(awk '$1 == "fr" && $2 == 3 && $3 == 0 { print $5 }' "$T/dom")
mix=$(awk '$1 == "fr" && $2 == 3 && $3 == 2 && $8 == "mix_step" { print $5 }' "$T/dom")
[ -n "$mix" ] && [ "$mix" = "$root" ] || fail "zoom: mix_step $mix wide, root $root: $(grep '^fr 3' "$T/dom")"
grep -q '^srctitle 4 Source%20of%20mix_step' "$T/dom" || fail "the click's source view: $(grep '^srctitle' "$T/dom")"
# a stretch over the bound: 1200 lines of comment instead of the code
mkdir "$T/long"
awk '{ print } /unsigned long x = n, y = 0;/ { for (i = 1; i <= 1200; i++) print "\t/* long */" }' \
	"$SRC" >"$T/long/anntarget.c"
anncopy "$T/long" "$T/hlong" "$T/b.data"
"$PCPROF" export -f html -o "$T/b.html" "$T/b.data" 2>"$T/e" || fail "export: $(cat "$T/e")"
html_probe "$chromium" "$T/b.html" 'row=hot_loop&source'
awk '$1 == "src" && $2 == 1 && $7 == "gap" { print $8 }' "$T/dom" >"$T/label"
grep -q '^%E2%80%A6%201[12][0-9][0-9]%20lines%2C%20not%20in%20this%20page%3A%20pcprof%20annotate%20--context%20shows%20them%20%E2%80%A6$' \
	"$T/label" || fail "a long stretch's row: $(cat "$T/label")"
exit 0
