#!/bin/sh
# Source lines longer than the page shows (out-html-annotate.c cuts them
# at 240 bytes, on a character's start, and adds "…"): cold lines of 238
# to 246 bytes, ASCII and with a 2-byte character across the cut, in a
# stretch of anntarget.c's hot_loop.  The export succeeds and each line
# appears whole or cut with the ellipsis.  The cut once wrote the 4 bytes
# of "…" into the line's own buffer, 1-2 bytes past its end for lines of
# 241-242 bytes: make check-asan's AddressSanitizer build reports that.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/cli-report/annlib.sh"
mkdir "$T/src"
awk '{ print }
	/unsigned long x = n, y = 0;/ {
		print "\tif (n == 77777) {"
		for (len = 238; len <= 246; len++) {
			# "\t\tsink = n; /* " is 17 bytes with its tabs, " */" 3
			pad = ""
			for (i = 0; i < len - 20; i++) pad = pad "a"
			printf "\t\tsink = n; /* %s */\n", pad
			pad = substr(pad, 1, 220) "\303\251" substr(pad, 223)
			printf "\t\tsink = n; /* %s */\n", pad
		}
		print "\t}" }' "$SRC" >"$T/src/anntarget.c"
anncopy "$T/src" "$T/hlong" "$T/a.data"
"$PCPROF" export -f html -o "$T/a.html" "$T/a.data" 2>"$T/e" || fail "export: $(cat "$T/e")"
# 246 bytes: cut at 240 (tabs expand to 16 spaces, so the shown line is
# longer still), with the ellipsis
grep -q 'aaaaaaaa…' "$T/a.html" || fail "no line cut with an ellipsis"
exit 0
