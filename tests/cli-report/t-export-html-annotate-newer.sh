#!/bin/sh
# The HTML page's source view says what pcprof annotate says on stderr
# when a source file was modified after its module was built (its lines
# may not match the samples): the same note, under that file, in hot_loop's
# listing; none when the source is older.  The note is the page's data
# (static text in its JSON), so a grep finds it; where chromium is
# installed, the listing opened in it shows it as a note row.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/cli-report/annlib.sh"

annaged "$T/src" "$T/ann2" "$T/a.data"
note="$T/src/anntarget.c is newer than $T/ann2: its lines may not match the samples"

"$PCPROF" export -f html -o "$T/old.html" "$T/a.data" 2>"$T/e" || fail "export: $(cat "$T/e")"
grep -q "is newer than" "$T/old.html" && fail "a note for an older source in the page"

# the source edited after the build (a line added at the top)
annedit "$T/src"
"$PCPROF" annotate --color=never -n 0 "$T/a.data" >/dev/null 2>"$T/e" || fail "annotate: $(cat "$T/e")"
grep -qxF "note: $note" "$T/e" || fail "annotate's note is not the expected one: $(cat "$T/e")"
"$PCPROF" export -f html -o "$T/new.html" "$T/a.data" 2>"$T/e" || fail "export: $(cat "$T/e")"
grep -qF "\"newer\":\"$note\"" "$T/new.html" ||
	fail "no note for the newer anntarget.c in the page: $(grep -o '"newer":"[^"]*"' "$T/new.html")"
# under anntarget.c only (annstep.h is older than the module)
grep -q "annstep.h\"[^}]*\"newer\"" "$T/new.html" && fail "a note for annstep.h"

chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$chromium" ]; then
	html_probe "$chromium" "$T/new.html" 'row=hot_loop&source'
	want="src 1 - - - - note $(printf '(note: %s)' "$note" | enc)"
	grep -qxF "$want" "$T/dom" || fail "no note row in the listing: $(grep '^src' "$T/dom" | head -5)"
else
	echo "# chromium not installed: the page's rows not checked"
fi
exit 0
