#!/bin/sh
# pcprof diff --html: the flame graph of NEW coloured by the change of each
# frame's total share since BASE, driven in headless chromium with
# html-probe.js as t-export-html-flame.sh does.  BASE is the stacked
# fixture with every count times 100 (mkfixture stacks --scale 100:
# 100000 samples), NEW the same with hot_lib_spin's stack doubled
# (--twice hot_lib_spin: 115000 samples).  Changes of total share:
# main;hot_lib_spin 15% -> 26.09% (the largest: the deepest red),
# main 82% -> 84.35% (red, paler), main;fix_warm;fix_hot 40% -> 34.78%
# (blue); every one beyond 3 standard errors.  A file against itself:
# every frame within noise (grey).
. "$(dirname "$0")/lib.sh"
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || skip "chromium not installed"
"$FIX" stacks "$T/a.data" --scale 100 || fail "mkfixture stacks"
"$FIX" stacks "$T/b.data" --scale 100 --twice hot_lib_spin || fail "mkfixture stacks --twice"
"$PCPROF" diff --html "$T/d.html" "$T/a.data" "$T/b.data" >"$T/out" 2>"$T/err" ||
	fail "diff --html: $(cat "$T/err")"
"$PCPROF" diff --html "$T/same.html" "$T/a.data" "$T/a.data" >/dev/null 2>"$T/err" ||
	fail "diff --html same: $(cat "$T/err")"
grep -q '^Change by function' "$T/out" || fail "no text diff with --html: $(cat "$T/out")"
grep -q '<h1>pcprof diff</h1>' "$T/d.html" || fail "no diff title"
"$PCPROF" diff --html - "$T/a.data" "$T/b.data" >"$T/stdout.html" 2>"$T/err" ||
	fail "diff --html -: $(cat "$T/err")"
cmp -s "$T/stdout.html" "$T/d.html" || fail "diff --html - is not the page alone"
grep -q 'id="diff-legend"' "$T/d.html" || fail "no legend"
grep -q 'the deepest colour is a change of 11.09% of all samples' "$T/d.html" || fail "legend scale"
grep -q 'no frame changed beyond noise' "$T/same.html" || fail "legend of an unchanged profile"

run() {
	html_probe "$chromium" "$@"
}
# fill STEP NAME@DEPTH: the fill of that frame
fill() {
	awk -v s="$1" -v n="${2%@*}" -v d="${2##*@}" \
		'$1 == "paint" && $2 == s && $3 == d && $5 == n { print $4; exit }' "$T/dom"
}

run "$T/d.html" 'paint&tip=hot_lib_spin@2&colour=module&paint'
[ "$(fill 0 hot_lib_spin@2)" = 'hsl(0,75%,48%)' ] ||
	fail "hot_lib_spin not the deepest red: $(fill 0 hot_lib_spin@2)"
case $(fill 0 main@1) in
'hsl(0,75%,'*) [ "$(fill 0 main@1)" != 'hsl(0,75%,48%)' ] || fail "main as deep as the largest" ;;
*) fail "main not red: $(fill 0 main@1)" ;;
esac
case $(fill 0 fix_hot@3) in 'hsl(215,75%,'*) ;; *) fail "fix_hot@3 not blue: $(fill 0 fix_hot@3)" ;; esac
case $(fill 0 fix_warm@2) in 'hsl(215,75%,'*) ;; *) fail "fix_warm@2 not blue" ;; esac
tip=$(awk '$1 == "tip" && $2 == 1 { print $3 }' "$T/dom")
case $tip in *change%20%2B11.09%25%20%C2%B1%200.17*) ;; *) fail "tooltip: $tip" ;; esac
# the module colours are still there, and are not the diff's
[ "$(fill 3 hot_lib_spin@2)" != "$(fill 0 hot_lib_spin@2)" ] || fail "colour=module kept the diff"

run "$T/same.html" 'paint'
awk '$1 == "paint" && $3 > 0 && $5 !~ /^%5B/ && $4 != "#c8c8ce"' "$T/dom" | grep . &&
	fail "a frame of an unchanged profile is not grey"
grep -q '^paint 0 1 #c8c8ce main$' "$T/dom" || fail "no main frame: $(grep '^paint' "$T/dom")"
exit 0
