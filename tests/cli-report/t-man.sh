#!/bin/sh
# pcprof-report(1), -annotate(1), -diff(1), -merge(1), -archive(1) and -export(1): mandoc lint clean at warning level,
# and every long option --help lists (and every export format) is
# documented in the page.
. "$(dirname "$0")/lib.sh"
command -v mandoc >/dev/null || skip "mandoc not installed"
for c in report annotate diff merge archive export; do # export last: its page is checked below
	page=man/pcprof-$c.1
	mandoc -T lint -W warning "$page" >"$T/lint" 2>&1 || fail "mandoc lint $page: $(cat "$T/lint")"
	mandoc -T ascii "$page" | col -bx >"$T/page" 2>/dev/null || fail "mandoc cannot render $page"
	"$PCPROF" $c --help >"$T/help" || fail "$c --help"
	for opt in $(grep -o -- '--[a-z][a-z-]*' "$T/help" | sort -u); do
		grep -q -- "$opt" "$T/page" || fail "$page does not document $opt"
	done
done
for fmt in gmon pprof folded speedscope html; do
	grep -q "^ *$fmt " "$T/page" || fail "pcprof-export(1) does not describe --format $fmt"
	"$PCPROF" export --help | grep -q "^  $fmt " || fail "export --help does not list $fmt"
done
exit 0
