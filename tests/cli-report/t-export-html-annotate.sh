#!/bin/sh
# The HTML page's source view (html-annotate.js), driven in headless
# chromium: anntarget.c (annlib.sh) copied into a directory whose name is
# HTML markup, with one more line of markup after its HOT line, recorded
# through the manual engine (exactly 700 samples at HOT, 200 at WARM, 100
# at annstep.h's STEP inlined into hot_loop).  A click on hot_loop's frame
# and on its row of the function table opens its listing with the rows
# `pcprof annotate hot_loop` prints (the same lines, counts and shares,
# cold stretches as one row), the HOT, WARM and STEP rows highlighted,
# STEP under annstep.h; the directory's name and the markup line are shown
# as text and nothing runs or loads; Esc closes it; the inlined mix_step
# has its own listing.  The instructions tab shows the sampled
# instructions with `pcprof annotate --asm`'s counts, 3 around each and a
# cold stretch as one row (t-export-html-annotate-cold.sh opens them).  On
# a big profile (mkfixture tree: 200000 frames over libc) the page stays
# under 2 MB (563 KB measured), the function with most samples
# has its counted lines (said to be without their text: libc's sources
# are not here) or its samples without line information, and one outside
# the top says why its listing is not in the page.
. "$(dirname "$0")/lib.sh"
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || skip "chromium not installed"
. "$ROOT/tests/cli-report/annlib.sh"

# the hostile copy: the name has no "/" (a directory), the line has
D="$T/<svg onload=window.pwned=1>&amp;\"q'"
MARK='/* </script><img src=x onerror=window.pwned=2> */'
mkdir "$D" || fail "mkdir"
awk -v m="$MARK" '{ print } /HOT \*\/$/ { print m }' "$SRC" >"$D/anntarget.c"
anncopy "$D" "$T/hann" "$T/a.data"

"$PCPROF" annotate -i "$T/a.data" hot_loop >"$T/ann" 2>"$T/e" || fail "annotate: $(cat "$T/e")"
"$PCPROF" export -f html -o "$T/a.html" "$T/a.data" 2>"$T/e" || fail "export: $(cat "$T/e")"
[ "$(grep -c '<script type="application/json" id="ann-data">' "$T/a.html")" = 1 ] ||
	fail "no source view data in the page"
grep -Fq '<img' "$T/a.html" && fail "the source line is in the page as markup"
grep -Fq '<svg onload' "$T/a.html" && fail "the directory's name is in the page as markup"

# the listing as annotate prints it: "LINE SAMPLES FN% ALL%" per row
# ("-" for blank counts, "…" for a cold stretch) and "file PATH" per file
printf '%s\n' "$(cat "$T/ann")" | awk '
	/^  \// { sub(/^  /, ""); print "file " $0; next }
	$1 == "..." { print "\342\200\246 - - -"; next }
	$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+\.[0-9][0-9]$/ && $3 ~ /^[0-9]+\.[0-9][0-9]$/ && $4 ~ /^[0-9]+$/ {
		print $4, $1, $2, $3; next }
	$1 ~ /^[0-9]+$/ && seen { print $1, "-", "-", "-" }
	/^  samples/ { seen = 1 }' | while IFS= read -r l; do
	case $l in
	file\ *) echo "file $(printf '%s' "${l#file }" | enc)" ;;
	*) echo "$l" ;;
	esac
done >"$T/want"
grep -q "^$HOTL 700 70.00 70.00$" "$T/want" || fail "annotate has no HOT row: $(cat "$T/ann")"

# LISTING STEP: the page's rows of that step, as in $T/want
listing() {
	awk -v s="$1" '$2 == s && $1 == "srcfile" { print "file " $3 }
		$2 == s && $1 == "src" { print $3, $4, $5, $6 }' "$T/dom"
}
# the rows of STEP with the class "hot": "LINE SAMPLES"
hot() {
	awk -v s="$1" '$1 == "src" && $2 == s && $7 == "hot" { print $3, $4 }' "$T/dom" | sort -n | tr '\n' ' '
}
title() {
	awk -v s="$1" '$1 == "srctitle" && $2 == s { print $3 }' "$T/dom"
}

html_probe "$chromium" "$T/a.html" 'draw&source&row=hot_loop&source&esc&source&row=mix_step&source&asmtab&source'
# a frame of hot_loop (the deepest whose name it is: the manual engine's
# samples may carry no stack)
depth=$(awk '$1 == "fr" && $2 == 0 && $8 == "hot_loop" { print $3 }' "$T/dom" | head -1)
[ -n "$depth" ] || fail "no hot_loop frame: $(grep '^fr 0' "$T/dom")"
[ "$(title 1)" = - ] || fail "source view open before a click: $(title 1)"
want_title=$(sed -n 1p "$T/ann" | sed 's/^Source of //' | enc)
[ "$(title 3)" = "Source%20of%20$want_title" ] || fail "row title: $(title 3), want $want_title"
listing 3 >"$T/got"
diff "$T/want" "$T/got" >"$T/diff" || fail "row: the page's listing differs from annotate's: $(cat "$T/diff")"
[ "$(hot 3)" = "$STEPL 100 $HOTL 700 $WARML 200 " ] || fail "hot rows: $(hot 3)"
# STEP under annstep.h, the markup line as text
awk '$1 == "srcfile" && $2 == 3' "$T/dom" | tail -1 | grep -q 'annstep.h$' || fail "no annstep.h file: $(cat "$T/got")"
awk -v l=$((HOTL + 1)) '$1 == "src" && $2 == 3 && $3 == l { print $8 }' "$T/dom" >"$T/mark"
[ "$(cat "$T/mark")" = "$(printf '%s' "$MARK" | enc)" ] || fail "markup line: $(cat "$T/mark")"
awk '$1 == "srcfile" && $2 == 3 { print $3; exit }' "$T/dom" >"$T/dir"
case $(cat "$T/dir") in *"$(printf '%s' "$D" | enc)"*) ;; *) fail "directory shown as $(cat "$T/dir")" ;; esac
[ "$(title 5)" = - ] || fail "Esc did not close the source view: $(title 5)"
case $(title 7) in "Source%20of%20mix_step%20%5Binline%5D%20(hann)%3A%20100%20samples"*) ;;
*) fail "mix_step title: $(title 7)" ;; esac
listing 7 | grep -q "^$STEPL 100 100.00 10.00$" || fail "mix_step's STEP row: $(listing 7)"
# its instructions are those of hot_loop: the tab says so
grep -q '^asmwhy 9 No%20instructions%3A%20an%20inlined%20function' "$T/dom" ||
	fail "mix_step's instructions tab: $(grep '^asm' "$T/dom")"

# its instructions: hidden until their tab is chosen, then the sampled
# ones with the counts and shares of `pcprof annotate --asm`, 3
# instructions around each, the source line above each run
"$PCPROF" annotate --asm -i "$T/a.data" hot_loop >"$T/asm" 2>"$T/e" || fail "annotate --asm: $(cat "$T/e")"
awk '$1 ~ /^[0-9]+$/ && $4 ~ /^[0-9a-f]+:$/ { sub(/:$/, "", $4); print $4, $1, $2, $3 }' "$T/asm" >"$T/wasm"
[ "$(wc -l <"$T/wasm")" = 3 ] || fail "annotate --asm: not 3 sampled instructions: $(cat "$T/asm")"
html_probe "$chromium" "$T/a.html" 'row=hot_loop&source&asmtab&source'
grep -q '^asmtab 1 0$' "$T/dom" || fail "instructions shown before their tab: $(grep '^asmtab' "$T/dom")"
grep -q '^asmtab 3 1$' "$T/dom" || fail "the tab does not show the instructions: $(grep '^asmtab' "$T/dom")"
awk '$1 == "asm" && $2 == 3 && $4 != "-" { sub(/:$/, "", $3); print $3, $4, $5, $6 }' "$T/dom" >"$T/got"
diff "$T/wasm" "$T/got" >"$T/diff" || fail "sampled instructions differ from annotate --asm: $(cat "$T/diff")"
# the instructions shown: those within 3 of a sampled one (in the order
# annotate --asm lists them), a longer cold stretch as one "…" row
awk '$1 ~ /^[0-9a-f]+:$/ { a[n++] = $1 } $4 ~ /^[0-9a-f]+:$/ { hot[n] = 1; a[n++] = $4 }
	END { for (i = 0; i < n; i++) for (j = i - 3; j <= i + 3; j++) if (hot[j]) show[i] = 1
		for (i = 0; i < n;) { e = i; while (e < n && !show[e]) e++
			if (e - i > 2) { print "\342\200\246"; i = e; continue }
			print a[i++] } }' "$T/asm" >"$T/wshown"
awk '$1 == "asm" && $2 == 3 { print $3 }' "$T/dom" >"$T/got"
diff "$T/wshown" "$T/got" >"$T/diff" || fail "not the instructions shown: $(cat "$T/diff")"
awk '$1 == "asm" && $2 == 3 && $7 == "hot"' "$T/dom" | grep -q . || fail "no hot instruction"
grep -q "^asmfile 3 anntarget.c%3A$HOTL%20%20x%20%3D" "$T/dom" ||
	fail "no source line above the HOT instruction: $(grep '^asmfile 3' "$T/dom")"

# the same from a click on the frame, and with the Enter key
html_probe "$chromium" "$T/a.html" "click=hot_loop@$depth&source&esc&enter=hot_loop@$depth&source"
listing 1 >"$T/got"
diff "$T/want" "$T/got" >"$T/diff" || fail "click: the page's listing differs from annotate's: $(cat "$T/diff")"
listing 4 >"$T/got"
diff "$T/want" "$T/got" >"$T/diff" || fail "Enter: the page's listing differs from annotate's: $(cat "$T/diff")"

# a big profile: the page's size bound, the reasons shown
"$FIX" tree "$T/big.data" 200000 || fail "mkfixture tree"
"$PCPROF" export -f html -o "$T/big.html" "$T/big.data" 2>"$T/e" || fail "export big: $(cat "$T/e")"
size=$(wc -c <"$T/big.html")
[ "$size" -lt 2000000 ] || fail "big page: $size bytes"
echo "# big page: $size bytes"
# the function with most self samples: its lines without their text (when
# libc has line information, its source files are not here) or its
# samples without line information; one outside the top: why it has no
# listing
k=$(grep -o '"[0-9]*":{"s":[0-9]*,"why":"top"}' "$T/big.html" | head -1 | cut -d'"' -f2)
[ -n "$k" ] || fail "big page: every function has its listing"
name=$(grep '^"fns":\[' "$T/big.html" | sed 's/^"fns":\[//; s/\],$//' | awk -v k="$k" -F'","' '{ n = $(k + 1); gsub(/"/, "", n); print n }')
html_probe "$chromium" "$T/big.html" 'draw'
depth=$(awk -v n="$name" '$1 == "fr" && $2 == 0 && $8 == n { print $3; exit }' "$T/dom")
[ -n "$depth" ] || fail "big page: no frame of $name"
top=$(awk '$1 == "probe" && $2 == "table_first" { print $3 }' "$T/dom")
html_probe "$chromium" "$T/big.html" "click=$name@$depth&source&esc&row=$top&source"
grep -q '^srcwhy 1 Its%20listing%20is%20not%20in%20this%20page%3A%20only%20the%2050%20functions' "$T/dom" ||
	fail "$name (outside the top): $(grep '^src' "$T/dom")"
grep -Eq '^src 4 - - - - note \(source%20file%20not%20found|^src 4 .*no%20line%20information' "$T/dom" ||
	fail "$top: neither a missing source file nor no line information: $(grep '^src' "$T/dom")"
awk '$1 == "src" && $2 == 4 && $4 != "-"' "$T/dom" | grep -q . || fail "$top: no counted row: $(grep '^src' "$T/dom")"
exit 0
