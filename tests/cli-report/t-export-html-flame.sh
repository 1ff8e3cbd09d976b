#!/bin/sh
# The HTML page's flame graph, driven in headless chromium on the stacked
# fixture (mkfixture stacks: 1000 samples, known stacks): html-probe.js
# does the steps in the page's URL fragment (clicks, typing, keys) and
# prints what chromium laid out.  Checked: every frame with its width and
# offset (within a pixel of its share of the root's), root at the bottom
# and after the toggle at the top, [truncated] drawn as a marker; the
# tooltip; a click zooms (the frame becomes full width, its ancestors
# stay, the rest goes; Enter too) and shows the callers and callees of
# its function (a row of the function table selects it as well) with the
# totals `pcprof report --callers/--callees` gives (recursion:
# fix_cold, and an edge twice in one stack); Esc resets; search by text and by regex highlights exactly
# the matching frames and prints their share.  With mkfixture's
# function named "</script><img src=x onerror=...>", the name is shown as
# text everywhere and nothing runs or loads.  Nothing is ever fetched.
# A random tree of 200000 frames (mkfixture tree) gives a page under
# 20 MB that still draws.
. "$(dirname "$0")/lib.sh"
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || skip "chromium not installed"

"$FIX" stacks "$T/st.data" || fail "mkfixture stacks"
"$FIX" stacks "$T/h.data" --hostile --recursion || fail "mkfixture stacks --hostile --recursion"
for f in st h; do
	"$PCPROF" export -f html -o "$T/$f.html" "$T/$f.data" 2>"$T/err" ||
		fail "export $f: $(cat "$T/err")"
done
[ "$(grep -c '<script type="application/json" id="fg-data">' "$T/st.html")" = 1 ] ||
	fail "no flame graph data in the page"
grep -Fq '<img' "$T/h.html" && fail "the hostile name is in the page as markup"

# run PAGE STEPS: chromium on PAGE with the probe (lib.sh html_probe)
run() {
	html_probe "$chromium" "$@"
}
# frames STEP: "depth name x width y classes" of that step's frames
frames() {
	awk -v s="$1" '$1 == "fr" && $2 == s { print $3, $8, $4, $5, $6, $7 }' "$T/dom"
}
# line KIND STEP: the rest of that line
line() {
	awk -v k="$1" -v s="$2" '$1 == k && $2 == s { sub(/^[^ ]+ [^ ]+ /, ""); print }' "$T/dom"
}
# geometry STEP: each frame against its expected share and offset (of the
# root's width), "depth name ok" or "depth name bad x w want-x want-w"
geometry() {
	frames "$1" | awk 'NR == FNR { off[FNR] = $3; share[FNR] = $4; next }
		FNR == 1 { x0 = $3; R = $4 + 0.5 }
		{ wx = x0 + off[FNR] * R; ww = share[FNR] * R - 0.5
		  d1 = $3 - wx; d2 = $4 - ww
		  if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2
		  if (d1 <= 1 && d2 <= 1) print $1, $2, "ok"
		  else print $1, $2, "bad", $3, $4, wx, ww }' "$T/want-geo" -
}
same() {
	diff "$T/want" "$T/got" >"$T/diff" || fail "$1: $(cat "$T/diff")"
}

run "$T/st.html" 'draw&tip=fix_hot@3&click=fix_warm@2&esc&search=fix_warm&search=%5Efix_(hot%7Ccold)%24&esc&icicle&draw&click=fix_cold@2&esc&enter=hot_lib_spin@2&esc&row=fix_hot&esc&colour=name&colour=module'

# step 0: the flame graph, document order (children by total, most first):
# depth, name, offset and width as shares of the root
cat >"$T/want-geo" <<'END'
0 all 0 1
1 main 0 .82
2 fix_warm 0 .40
3 fix_hot 0 .40
2 fix_hot .40 .20
2 hot_lib_spin .60 .15
2 fix_cold .75 .05
3 fix_warm .75 .05
4 fix_cold .75 .05
2 0x1234 .80 .02
1 %5Btruncated%5D .82 .10
2 fix_warm .82 .10
1 fix_hot .92 .08
END
awk '{ print $1, $2, "ok" }' "$T/want-geo" >"$T/want"
geometry 0 >"$T/got"
same "flame graph frames"
frames 0 | awk '$6 ~ /marker/ { print $1, $2 }' >"$T/got"
echo '1 %5Btruncated%5D' >"$T/want"
same "markers"
# flame: the root at the bottom, each depth one row higher
frames 0 | awk '{ y[$1] = $5 } END { for (d = 1; d <= 4; d++) if (!(y[d] < y[d - 1])) exit 1 }' ||
	fail "not a flame (root at the bottom): $(frames 0)"

# step 1: the tooltip of main;fix_warm;fix_hot
tip=$(line tip 1)
for want in fix_hot mkfixture '400%20samples%2C%20total%2040.00%25' \
	'self%20400%20samples%2C%2040.00%25'; do
	case $tip in *"$want"*) ;; *) fail "tooltip '$tip' lacks '$want'" ;; esac
done

# step 2: click main;fix_warm: it and its only child fill the width, its
# ancestors stay (full width), nothing else is drawn
frames 2 | awk '{ print $1, $2 }' | sort >"$T/got"
printf '0 all\n1 main\n2 fix_warm\n3 fix_hot\n' >"$T/want"
same "zoomed frames"
frames 2 | awk 'NR == 1 { R = $4 } { d = $4 - R; if (d < 0) d = -d; if (d > 1) bad = bad " " $2 " " $4 }
	END { if (bad) { print "not full width (" R "):" bad; exit 1 } }' >"$T/bad" ||
	fail "zoom: $(cat "$T/bad")"
[ "$(line calls 2)" = 'fix_warm%20(mkfixture)%3A%20total%2055.00%25%2C%20self%2010.00%25' ] ||
	fail "caller/callee title: $(line calls 2)"
line caller 2 >"$T/got"
printf '40.00 400 main\n10.00 100 %%5Btruncated%%5D\n5.00 50 fix_cold\n' >"$T/want"
same "callers of fix_warm"
line callee 2 >"$T/got"
printf '40.00 400 fix_hot\n10.00 100 %%5Bself%%5D\n5.00 50 fix_cold\n' >"$T/want"
same "callees of fix_warm"

# steps 4 and 5 (after Esc): search by text, then by regex
[ "$(line match 4)" = 'matched%2055.00%25%20(3%20frames)' ] || fail "search fix_warm: $(line match 4)"
frames 4 | awk '$6 ~ /match/ { print $1, $2 }' >"$T/got"
printf '2 fix_warm\n3 fix_warm\n2 fix_warm\n' >"$T/want"
same "frames matching fix_warm"
[ "$(frames 4 | wc -l)" = 13 ] || fail "Esc did not reset the zoom: $(frames 4)"
[ "$(line match 5)" = 'matched%2073.00%25%20(5%20frames)' ] || fail "search regex: $(line match 5)"
frames 5 | awk '$6 ~ /match/ { print $1, $2 }' >"$T/got"
printf '3 fix_hot\n2 fix_hot\n2 fix_cold\n4 fix_cold\n1 fix_hot\n' >"$T/want"
same "frames matching ^fix_(hot|cold)\$"

# step 8: icicle after Esc (search cleared): root at the top, same widths
geometry 8 | awk '{ print $1, $2, $3 }' >"$T/got"
awk '{ print $1, $2, "ok" }' "$T/want-geo" >"$T/want"
same "icicle frames"
frames 8 | awk '{ y[$1] = $5 } END { for (d = 1; d <= 4; d++) if (!(y[d] > y[d - 1])) exit 1 }' ||
	fail "not an icicle (root at the top): $(frames 8)"
frames 8 | grep -q match && fail "Esc did not clear the search"

# step 9: fix_cold recurses (main;fix_cold;fix_warm;fix_cold): each
# sample once per row, as report counts it
[ "$(line calls 9)" = 'fix_cold%20(mkfixture)%3A%20total%205.00%25%2C%20self%205.00%25' ] ||
	fail "fix_cold title: $(line calls 9)"
line caller 9 >"$T/got"
printf '5.00 50 fix_warm\n5.00 50 main\n' >"$T/want"
same "callers of fix_cold"
line callee 9 >"$T/got"
printf '5.00 50 %%5Bself%%5D\n5.00 50 fix_warm\n' >"$T/want"
same "callees of fix_cold"

# step 11: Enter on a frame zooms as a click does (the icicle stays)
frames 11 | awk '{ print $1, $2 }' | sort >"$T/got"
printf '0 all\n1 main\n2 hot_lib_spin\n' >"$T/want"
same "Enter on hot_lib_spin"
frames 11 | awk '{ w[$2] = $4 } END { d = w["hot_lib_spin"] - w["all"]; exit !(d < 1 && d > -1) }' ||
	fail "Enter did not zoom: $(frames 11)"
[ "$(line calls 11)" = 'hot_lib_spin%20(libhot.so)%3A%20total%2015.00%25%2C%20self%2015.00%25' ] ||
	fail "hot_lib_spin title: $(line calls 11)"
# step 13: fix_hot's row of the function table: its three frames
# highlighted with its total, its callers listed
[ "$(line match 13)" = 'fix_hot%3A%2068.00%25%20(3%20frames)' ] || fail "row fix_hot: $(line match 13)"
frames 13 | awk '$6 ~ /match/ { print $1, $2 }' >"$T/got"
printf '3 fix_hot\n2 fix_hot\n1 fix_hot\n' >"$T/want"
same "frames of fix_hot's row"
line caller 13 >"$T/got"
printf '40.00 400 fix_warm\n20.00 200 main\n8.00 80 %%5Broot%%5D\n' >"$T/want"
same "callers of fix_hot"
# steps 15 and 16: by name, the five functions (main, fix_warm, fix_hot,
# fix_cold, hot_lib_spin) each a colour of their own (0x1234, of no
# module, grey); by module, mkfixture's, libhot.so's and grey
[ "$(line fills 15)" = 6 ] || fail "colours by name: $(line fills 15)"
[ "$(line fills 16)" = 3 ] || fail "colours by module: $(line fills 16)"

# and the report says the same
for fn in fix_warm fix_cold; do
	"$PCPROF" report --callers $fn --callees $fn "$T/st.data" >"$T/r" 2>/dev/null || fail "report"
	step=2
	[ $fn = fix_warm ] || step=9
	for kind in caller callee; do
		awk -v h="total%    samples  $kind" 'index($0, h) == 1 { on = 1; next }
			on && NF == 0 { exit } on { print $1, $2, $3 }' "$T/r" |
			sed 's/\[/%5B/; s/\]/%5D/' | sort >"$T/want"
		line $kind $step | sort >"$T/got"
		same "$kind of $fn against pcprof report"
	done
done

# the hostile name: drawn, hovered and clicked as text; nothing ran
E="%3C%2Fscript%3E%3Cimg%20src%3Dx%20onerror%3Ddocument.title%3D'pwned'%3E%26amp%3B"
run "$T/h.html" "draw&tip=$E@2&click=$E@2&esc&click=fix_warm@2&esc&click=fix_cold@2"
frames 0 | awk -v e="$E" '$2 == e && $1 == 2' | grep -q . || fail "hostile frame not drawn: $(frames 0)"
case $(line tip 1) in "$E"mkfixture*) ;; *) fail "hostile tooltip: $(line tip 1)" ;; esac
case $(line calls 2) in "$E%20(mkfixture)"*) ;; *) fail "hostile title: $(line calls 2)" ;; esac
grep -q '<title>pcprof: mkfixture stacks</title>' "$T/dom" || fail "the page's title changed: $(grep -o '<title>[^<]*' "$T/dom" | head -1)"
grep -q '<img' "$T/dom" && fail "an <img> element got into the page"
# mkfixture's --recursion stack main;fix_cold;fix_warm;fix_cold;fix_warm
# (30 samples) has the edge fix_cold->fix_warm twice: counted once
line caller 4 >"$T/got"
printf '38.46 400 main\n9.62 100 %%5Btruncated%%5D\n7.69 80 fix_cold\n' >"$T/want"
same "callers of fix_warm with a repeated edge"
line callee 6 >"$T/got"
printf '7.69 80 fix_warm\n4.81 50 %%5Bself%%5D\n' >"$T/want"
same "callees of fix_cold with a repeated edge"
"$PCPROF" report --callers fix_warm --callees fix_cold "$T/h.data" >"$T/r" 2>/dev/null || fail "report"
for kind in caller:4 callee:6; do
	awk -v h="total%    samples  ${kind%:*}" 'index($0, h) == 1 { on = 1; next }
		on && NF == 0 { exit } on { print $1, $2, $3 }' "$T/r" |
		sed 's/\[/%5B/; s/\]/%5D/' | sort >"$T/want"
	line ${kind%:*} ${kind#*:} | sort >"$T/got"
	same "${kind%:*}s with a repeated edge against pcprof report"
done

# at scale: a call tree of 200000 frames (about as many function paths)
# makes a page well under 20 MB, tiny nodes merged into [other] frames,
# which chromium draws and searches
"$FIX" tree "$T/big.data" 200000 || fail "mkfixture tree"
"$PCPROF" export -f html -o "$T/big.html" "$T/big.data" 2>"$T/err" || fail "export big: $(cat "$T/err")"
size=$(wc -c <"$T/big.html")
[ "$size" -lt 20000000 ] || fail "the page of 200000 frames is $size bytes"
grep -q '"nodes":\[.*,-1,' "$T/big.html" || fail "no [other] node in the page of 200000 frames"
run "$T/big.html" 'draw&search=%5Bother%5D'
[ "$(frames 0 | wc -l)" -gt 100 ] || fail "$(frames 0 | wc -l) frames drawn"
case $(line match 1) in matched%20[1-9]*) ;; *) fail "no [other] frame found: $(line match 1)" ;; esac
exit 0
