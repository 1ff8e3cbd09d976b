#!/bin/sh
# Every command's options, both ways: each option its man page lists (the
# SYNOPSIS and the .It/.Op lines, long and short) is accepted by the
# command, and each short option letter the command accepts is in its
# page and its --help.  (t-man.sh compares the long options of --help
# with the page.)  A refused option is told by its message, getopt's
# "invalid/unrecognized option" or pcprof run's "unknown option", which
# names the command ("pcprof report: ...") as every other message does.
. "$(dirname "$0")/lib.sh"
mkdir "$T/empty"
# refused CMD OPT: CMD refuses OPT as an option it does not know
refused() {
	(cd "$T/empty" && timeout 20 "$PCPROF" "$1" "$2" </dev/null >/dev/null 2>"$T/err") || true
	grep -Eq "(invalid|unrecognized|unknown) option" "$T/err"
}
"$PCPROF" --help >"$T/cmds" || fail "pcprof --help"
cmds=$(sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p' "$T/cmds")
[ "$(echo $cmds | wc -w)" -ge 8 ] || fail "pcprof --help lists only: $cmds"
for c in $cmds; do
	page=man/pcprof-$c.1
	"$PCPROF" "$c" --help >"$T/help" || fail "$c --help"
	# a refused option is named with the command, like every other message
	refused "$c" --bogus || fail "pcprof $c takes --bogus: $(cat "$T/err")"
	head -1 "$T/err" | grep -q "^pcprof $c: .*--bogus" || fail "pcprof $c --bogus says: $(cat "$T/err")"
	{
		grep -E '^\.(It|Op) ' "$page"
		sed -n '/^\.Sh SYNOPSIS/,/^\.Sh /p' "$page"
	} | grep -oE 'Fl \\?-?[a-zA-Z][a-zA-Z-]*' | sed 's/^Fl \\*//' | sort -u >"$T/doc"
	[ -s "$T/doc" ] || fail "$page: no options found"
	while read -r o; do
		case $o in
		-*) refused "$c" "-$o" && fail "$page documents -$o, pcprof $c refuses it: $(cat "$T/err")" ;;
		*)
			for x in $(echo "$o" | sed 's/./& /g'); do
				refused "$c" "-$x" && fail "$page documents -$x, pcprof $c refuses it: $(cat "$T/err")"
			done
			;;
		esac
	done <"$T/doc"
	# the short letters the command takes: in the page and in --help
	for x in a b c d e f g h i j k l m n o p q r s t u v w x y z \
		A B C D E F G H I J K L M N O P Q R S T U V W X Y Z; do
		refused "$c" "-$x" && continue
		grep -v '^-' "$T/doc" | grep -q "$x" || fail "pcprof $c takes -$x, $page does not list it"
		grep -Eq -- "(^|[ [])-$x[], ]" "$T/help" || fail "pcprof $c takes -$x, its --help does not list it"
	done
done
exit 0
