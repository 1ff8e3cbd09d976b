#!/bin/sh
# pcprof export --format html: one self-contained page, rendered by headless
# chromium.  The checks are on what chromium laid out (html-probe.js
# measures the page and adds its findings to the DOM, which --dump-dom
# prints): the bars and heat-strip cells exist with non-zero size, the
# widest bar and the first table row are the hot function, the table sits
# beside the pictures, and nothing was fetched.  One chromium run also
# takes a screenshot, which must not be blank.
. "$(dirname "$0")/lib.sh"
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || skip "chromium not installed"

"$PCPROF" export --format html -o "$T/p.html" "$T/fx.data" 2>"$T/err" ||
	fail "export exit $?: $(cat "$T/err")"
# self-contained: no links, frames, images or fetches; its scripts inline
if grep -Eiq '<link|<iframe|<img|src=|href=|url\(|@import' "$T/p.html"; then
	fail "page refers to something outside itself: $(grep -Eio '<link|<iframe|<img|src=[^ ]*|href=[^ ]*|url\([^)]*|@import' "$T/p.html" | head -3)"
fi
grep -q '<svg class="bars"' "$T/p.html" || fail "no bars"

{ cat "$T/p.html"; printf '<script>\n'; cat tests/cli-report/html-probe.js; printf '</script>\n'; } \
	>"$T/probe.html"
HOME="$T" timeout -k 5 90 "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--no-first-run --disable-extensions --window-size=1400,1000 \
	--screenshot="$T/shot.png" --dump-dom "file://$T/probe.html" >"$T/dom" 2>"$T/cerr" ||
	fail "chromium exit $?: $(tail -5 "$T/cerr")"
grep -q '^probe ' "$T/dom" || fail "probe did not run: $(head -c 400 "$T/dom")"
p() { awk -v k="$1" '$1 == "probe" && $2 == k { print $3 }' "$T/dom"; }
[ "$(p bars)" = "$(expect functions)" ] || fail "$(p bars) bars, want one per function"
awk -v w="$(p bar_min_width)" 'BEGIN { exit !(w >= 1) }' || fail "a bar is $(p bar_min_width) px wide"
[ "$(p bar_widest)" = 0 ] || fail "widest bar is number $(p bar_widest)"
[ "$(p bar_first)" = fix_hot ] || fail "first bar is $(p bar_first)"
[ "$(p hot_cells)" -gt 0 ] && [ "$(p hot_cells_drawn)" = "$(p hot_cells)" ] ||
	fail "heat cells: $(p hot_cells_drawn) of $(p hot_cells) drawn"
[ "$(p strips)" = "$(expect modules)" ] || fail "$(p strips) heat strips, want one per module"
awk -v w="$(p module_bar_width)" 'BEGIN { exit !(w > 590 && w <= 600) }' ||
	fail "module bar $(p module_bar_width) px, want the modules' 99.9% of 600"
[ "$(p table_first)" = fix_hot ] || fail "table starts with $(p table_first)"
[ "$(p table_rows)" = "$(expect functions)" ] || fail "$(p table_rows) table rows"
[ "$(p side_by_side)" = 1 ] || fail "table not beside the pictures at 1400 px"
[ "$(p resources)" = 0 ] || fail "the page fetched $(p resources) resources"
# one-frame stacks (the fixture has none recorded): still a flame graph
[ "$(p flame)" = 1 ] || fail "no flame graph (t-export-html-flame.sh tests it)"

# the screenshot: a PNG with real content (a blank page is about 6 KB, one line of text 13 KB)
[ "$(od -An -tx1 -N4 "$T/shot.png" | tr -d ' ')" = 89504e47 ] || fail "screenshot is not a PNG"
[ "$(wc -c <"$T/shot.png")" -gt 40000 ] || fail "screenshot looks blank: $(wc -c <"$T/shot.png") bytes"
exit 0
