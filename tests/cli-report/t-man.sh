#!/bin/sh
# pcprof(1) and the page of every command pcprof --help lists: mandoc lint
# clean at warning level; every long option a command's --help lists is
# documented in its page, and every long option the page's SYNOPSIS or
# option list (.It, .Op) gives is in --help; pcprof(1)'s SYNOPSIS names
# every command, and every page's SEE ALSO every other page; and every
# export format is described.
. "$(dirname "$0")/lib.sh"
command -v mandoc >/dev/null || skip "mandoc not installed"
mandoc -T lint -W warning man/pcprof.1 >"$T/lint" 2>&1 || fail "mandoc lint man/pcprof.1: $(cat "$T/lint")"
mandoc -T ascii man/pcprof.1 | col -bx >"$T/main" 2>/dev/null || fail "mandoc cannot render man/pcprof.1"
# The commands, from pcprof --help's "Commands:" list.
"$PCPROF" --help >"$T/cmds" || fail "pcprof --help"
cmds=$(sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p' "$T/cmds")
[ "$(echo $cmds | wc -w)" -ge 8 ] || fail "pcprof --help lists only: $cmds"
for c in $cmds; do
	page=man/pcprof-$c.1
	[ -f "$page" ] || fail "pcprof $c has no page $page"
	sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' "$T/main" | grep -q "^ *pcprof $c " ||
		fail "pcprof(1) SYNOPSIS lacks pcprof $c"
	sed -n '/^SEE ALSO/,/^[A-Z]/p' "$T/main" | grep -q "pcprof-$c(1)" ||
		fail "pcprof(1) SEE ALSO lacks pcprof-$c(1)"
	mandoc -T lint -W warning "$page" >"$T/lint" 2>&1 || fail "mandoc lint $page: $(cat "$T/lint")"
	mandoc -T ascii "$page" | col -bx >"$T/page" 2>/dev/null || fail "mandoc cannot render $page"
	sed -n '/^SEE ALSO/,/^[A-Z]/p' "$T/page" >"$T/see"
	grep -q "pcprof(1)" "$T/see" || fail "$page SEE ALSO lacks pcprof(1)"
	for d in $cmds; do
		[ "$d" = "$c" ] || grep -q "pcprof-$d(1)" "$T/see" || fail "$page SEE ALSO lacks pcprof-$d(1)"
	done
	"$PCPROF" $c --help >"$T/help" || fail "$c --help"
	for opt in $(grep -o -- '--[a-z][a-z-]*' "$T/help" | sort -u); do
		grep -q -- "$opt" "$T/page" || fail "$page does not document $opt"
	done
	# The page's own options: .It and .Op lines, and the SYNOPSIS.
	{
		grep -E '^\.(It|Op) ' "$page"
		sed -n '/^\.Sh SYNOPSIS/,/^\.Sh /p' "$page"
	} | grep -oE 'Fl \\?-[a-z][a-z-]*' | sed 's/^Fl \\*-/--/' | sort -u >"$T/opts"
	while read -r opt; do
		grep -q -- "$opt\\b" "$T/help" || fail "$page documents $opt, $c --help does not list it"
	done <"$T/opts"
	[ "$c" = export ] && cp "$T/page" "$T/export"
done
for fmt in gmon pprof folded speedscope html; do
	grep -q "^ *$fmt " "$T/export" || fail "pcprof-export(1) does not describe --format $fmt"
	"$PCPROF" export --help | grep -q "^  $fmt " || fail "export --help does not list $fmt"
done
exit 0
