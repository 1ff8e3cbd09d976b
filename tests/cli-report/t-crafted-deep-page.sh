#!/bin/sh
# The HTML page's script walks the call tree without recursing (issue 19,
# item 12), in headless chromium: on a stack 20,000 frames deep (mkcrafted
# deep), the flame graph draws every frame, a click on a frame zooms into
# it and lists its callers and callees, a search marks frames, a period
# chosen on the timeline sums the tree again, and a diff page (whose
# colours are set per node as it loads) draws too.  Before, the page's
# script died as it drew ("Uncaught RangeError: Maximum call stack size
# exceeded") and the page showed no flame graph.
. "$(dirname "$0")/lib.sh"
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || skip "chromium not installed"
CRAFT=$ROOT/${B:-build}/tests/cli-report/mkcrafted
[ -x "$CRAFT" ] || fail "$CRAFT not built (make all)"
"$CRAFT" deep "$T/d.data" 20000 || fail "mkcrafted deep"
"$PCPROF" export -f html -o "$T/d.html" "$T/d.data" 2>"$T/e" || fail "export: $(cat "$T/e")"

# frames STEP: the frames drawn at STEP
frames() {
	awk -v s="$1" '$1 == "fr" && $2 == s' "$T/dom" | wc -l
}
html_probe "$chromium" "$T/d.html" 'draw&click=deep.so+0x1010@2&search=0x1000'
[ "$(frames 0)" = 20001 ] || fail "drawn: $(frames 0) frames, want 20000 and the root"
# zoomed into depth 2: the root and the frame above stay, as 'above'
[ "$(frames 1)" = 20001 ] || fail "zoomed: $(frames 1) frames"
grep -q '^caller 1 100\.00 4 deep\.so%2B0x1000$' "$T/dom" ||
	fail "callers: $(grep '^call' "$T/dom")"
grep -q '^callee 1 100\.00 4 deep\.so%2B0x1020$' "$T/dom" ||
	fail "callees: $(grep '^call' "$T/dom")"
grep -q '^match 2 matched%20100\.00%25%20(' "$T/dom" || fail "search: $(grep '^match' "$T/dom")"

"$PCPROF" diff --html "$T/dd.html" "$T/d.data" "$T/d.data" 2>"$T/e" || fail "diff: $(cat "$T/e")"
html_probe "$chromium" "$T/dd.html" 'draw'
[ "$(frames 0)" = 20001 ] || fail "diff page: $(frames 0) frames drawn"

# the timeline: the samples are in its first 10 ms
tl_probe "$chromium" "$T/d.html" type=0-1
grep -q '^tl 0 0\.00%E2%80%930\.01%20s%3A%204%20samples deep\.so%2B0x1000:' "$T/dom" ||
	fail "timeline: $(grep '^tl' "$T/dom"; grep CONSOLE "$T/cerr" | head -3)"
exit 0
