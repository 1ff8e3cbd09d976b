# lib.sh - sourced by the t-*.sh tests of pcprof report and export.
# Sets PCPROF, FIX (mkfixture), JSONCHECK, a temporary directory T (removed
# on exit), writes the fixture profile $T/fx.data, and defines:
#   fail MSG     print "FAIL: MSG" and exit 1
#   skip MSG     print "SKIP: MSG" and exit 77
#   expect NAME  the fixture's expected count for NAME (mkfixture counts)
#   row FILE FUNCTION   the report row whose function column (5th) is FUNCTION
#   table FILE HEADER   the rows of FILE's table whose column header line
#                starts with HEADER, up to the blank line that ends it
#   try STATUS PATTERN CMD...   CMD exits STATUS, with one message on stderr
#                (besides symbolization notes and warnings) matching PATTERN
#                (grep -E); its output in $T/o, $T/e
#   html_probe CHROMIUM PAGE STEPS   an HTML page driven in headless chromium
#                by html-probe.js; what it found in $T/dom
#   enc          encodeURIComponent of stdin's one line, as the probe prints it
set -eu
cd "$(dirname "$0")/../.."
ROOT=$PWD
PCPROF=$ROOT/${B:-build}/pcprof
FIX=$ROOT/${B:-build}/tests/cli-report/mkfixture
JSONCHECK=$ROOT/${B:-build}/tests/cli-report/jsoncheck
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
unset DEBUGINFOD_URLS

fail() {
	echo "FAIL: $*"
	exit 1
}
skip() {
	echo "SKIP: $*"
	exit 77
}
for f in "$PCPROF" "$FIX" "$JSONCHECK"; do
	[ -x "$f" ] || fail "$f not built (make all)"
done
"$FIX" counts >"$T/counts" || fail "mkfixture counts"
expect() {
	awk -v k="$1" '$1 == k { print $2 }' "$T/counts"
}
try() {
	want=$1 pat=$2
	shift 2
	rc=0
	"$@" >"$T/o" 2>"$T/e" || rc=$?
	[ "$rc" = "$want" ] || fail "$*: exit $rc, want $want; stderr: $(cat "$T/e")"
	# pcprof run keeps its recordings when the data file cannot be written
	# (pcprof-run(1)) and says so on a line of its own: remove them.
	kept=$(sed -n 's/^pcprof run: the recordings are kept in \(.*\): pcprof run --from .*/\1/p' "$T/e")
	[ -z "$kept" ] || rm -rf "$kept"
	grep -Ev '^(note|warning): |^pcprof run: the recordings are kept in ' "$T/e" >"$T/msg" || true
	[ "$(wc -l <"$T/msg")" = 1 ] || fail "$*: not one message: $(cat "$T/e")"
	grep -Eq -e "$pat" "$T/msg" || fail "$*: stderr '$(cat "$T/e")' does not match '$pat'"
}
row() {
	awk -v f="$2" '$5 == f' "$1"
}
table() {
	awk -v h="$2" 'index($0, h) == 1 { on = 1; next }
		on && NF == 0 { exit }
		on { print }' "$1"
}
# dump_probe CHROMIUM STEPS: headless CHROMIUM on $T/probe.html with STEPS
# as its fragment; the DOM the probe script left in $T/dom, Chromium's
# messages in $T/cerr.
dump_probe() {
	HOME="$T" timeout -k 5 90 "$1" --headless --no-sandbox --disable-gpu \
		--hide-scrollbars --no-first-run --disable-extensions --window-size=1400,1000 \
		--virtual-time-budget=2000 --dump-dom "file://$T/probe.html#$2" >"$T/dom" \
		2>"$T/cerr" || fail "chromium exit $?: $(tail -5 "$T/cerr")"
}
# tl_probe CHROMIUM PAGE STEPS: the same with tl-probe.js, which does STEPS
# on the page's timeline (see there); its findings in $T/dom.
tl_probe() {
	{
		cat "$2"
		printf '<script>\n'
		cat tests/cli-report/tl-probe.js
		printf '</script>\n'
	} >"$T/probe.html"
	dump_probe "$1" "$3"
}
# html_probe CHROMIUM PAGE STEPS: headless CHROMIUM on a copy of the HTML
# page PAGE with html-probe.js, which does STEPS (see there); its findings
# in $T/dom.  A listener in <head> counts what the page's security policy
# refused; no resource, violation or image is allowed.
html_probe() {
	chromium=$1
	shift
	{
		sed 's|<head>|<head><script>window.probeViolations = []; document.addEventListener("securitypolicyviolation", (e) => probeViolations.push(e.blockedURI));</script>|' "$1"
		printf '<script>\n'
		cat tests/cli-report/html-probe.js
		printf '</script>\n'
	} >"$T/probe.html"
	dump_probe "$chromium" "$2"
	grep -q '^probe flame 1' "$T/dom" || fail "no flame graph drawn: $(grep '^probe' "$T/dom")"
	grep -E '^(missing|unknown-step) ' "$T/dom" && fail "probe steps failed"
	for k in resources violations images; do
		[ "$(awk -v k=$k '$1 == "probe" && $2 == k { print $3 }' "$T/dom")" = 0 ] ||
			fail "probe $k: $(grep "^probe $k" "$T/dom")"
	done
}
# enc: encodeURIComponent of stdin's one line, as html-probe.js prints it
enc() {
	od -An -tx1 -v | tr -s ' \n' '\n\n' | awk 'NF {
		c = $1; v = 0
		for (i = 1; i <= 2; i++) v = v * 16 + index("0123456789abcdef", substr(c, i, 1)) - 1
		if ((v >= 48 && v <= 57) || (v >= 65 && v <= 90) || (v >= 97 && v <= 122) ||
		    index("-_.!~*()\x27", sprintf("%c", v)))
			printf "%c", v
		else if (v != 10)
			printf "%%%s", toupper(c)
	} END { print "" }'
}
"$FIX" write "$T/fx.data" || fail "mkfixture write"
