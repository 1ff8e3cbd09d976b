#!/bin/sh
# The HTML page's timeline, in headless chromium: on samples injected at
# known times (tests/targets/phases inject: phase_a 5 ticks at 0.105 s and 2
# at 0.995 s on the main thread, phase_b 7 at 1.005 s on thread "second" and
# 3 at 2.5 s on the main thread), the page shows one row per thread with a
# bar where it ran; dragging across 0.1-1 s leaves phase_a alone in the
# flame graph (full width, 7 samples), typing 1-3 leaves phase_b (10), and
# the whole-run button restores both (7:10 of the width).  With 40 threads
# (thread i: i + 1 ticks), the 32 busiest get a row each, most first, and
# one row holds the other 8.  A page exported
# from a file without a timeline has none, and its flame graph still draws.
. "$(dirname "$0")/lib.sh"
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || skip "chromium not installed"
PHASES=$ROOT/${B:-build}/tests/targets/phases
[ -x "$PHASES" ] || fail "$PHASES not built (make all)"

PROFIL_ENGINE=manual "$PCPROF" run -q -o "$T/i.data" -- "$PHASES" inject 2>"$T/err" ||
	fail "run: $(cat "$T/err")"
"$PCPROF" export -f html -o "$T/i.html" "$T/i.data" 2>"$T/err" || fail "export: $(cat "$T/err")"
[ "$(grep -c '<script type="application/json" id="tl-data">' "$T/i.html")" = 1 ] ||
	fail "no timeline data in the page"
"$PCPROF" export -f html -o "$T/fx.html" "$T/fx.data" 2>"$T/err" || fail "export fx: $(cat "$T/err")"
grep -q 'id="tl-data"' "$T/fx.html" && fail "a timeline in a page without time"

run() {
	tl_probe "$chromium" "$1" "$2"
	grep -q '^tl rows' "$T/dom" || fail "the probe did not run: $(tail -5 "$T/cerr")"
	grep '^unknown-step' "$T/dom" && fail "probe steps failed"
	grep '^tl ' "$T/dom" >"$T/got"
}
run "$T/i.html" 'drag=0.1-1&type=1-3&clear'
# widths: the flame graph's root is the page's width less margins; compare
# shares, not pixels
awk '$2 == "start" { split($4, a, ":"); split($5, b, ":"); W = a[2] + b[2] }
	$2 ~ /^[0-9]+$/ || $2 == "start" { line = $1 " " $2 " " $3
		for (i = 4; i <= NF; i++) { split($i, f, ":"); line = line " " f[1] ":" int(100 * (f[2] + 0.5) / W + 0.5) }
		print line; next }
	{ print }' "$T/got" >"$T/norm"
cat >"$T/want" <<'END'
tl 0 0.10%E2%80%931.00%20s%3A%207%20samples phase_a:100
tl 1 1.00%E2%80%932.51%20s%3A%2010%20samples phase_b:100
tl 2 - phase_b:59 phase_a:41
tl row phases 3
tl row second 1
tl rows 2
tl start - phase_b:59 phase_a:41
END
# rows in thread table order: by name
sed -n 's/^tl row [01] [0-9]*%2F[0-9]*%20\([a-z]*\) \([0-9]*\)$/tl row \1 \2/p; /^tl row /!p' "$T/norm" |
	sort -s -k1,2 >"$T/norm2"
diff "$T/want" "$T/norm2" >"$T/diff" || fail "timeline: $(cat "$T/diff"; cat "$T/got")"

PROFIL_ENGINE=manual "$PCPROF" run -q -o "$T/t.data" -- "$PHASES" threads 40 2>"$T/err" ||
	fail "run threads: $(cat "$T/err")"
"$PCPROF" export -f html -o "$T/t.html" "$T/t.data" 2>"$T/err" || fail "export t: $(cat "$T/err")"
run "$T/t.html" ''
awk '$1 == "tl" && $2 == "rows" { print $3 }
	$1 == "tl" && $2 == "row" && ($3 == 0 || $3 >= 31) { print $3, $5 }' "$T/got" >"$T/rows"
printf '33\n0 1\n31 1\n32 8\n' >"$T/want"
diff "$T/want" "$T/rows" >"$T/diff" || fail "40 threads: $(cat "$T/diff"; cat "$T/got")"
grep -q '^tl row 32 8%20more%20threads 8$' "$T/got" || fail "40 threads: $(cat "$T/got")"
exit 0
