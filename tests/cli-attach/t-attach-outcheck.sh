#!/bin/sh
# The data file's place is checked before sampling starts, by attach as
# by run (file.c ofile_check): attach once sampled the whole --duration
# and only then found it could not write the file, losing the attachment.
# A device is written in place, so it is the device that must be
# writable, not its directory: `pcprof run -o /dev/null` was refused to
# any user but root ("cannot write in /dev").
. "$(dirname "$0")/lib.sh"
sleep 60 &
sp=$!
trap 'kill $sp 2>/dev/null; rm -rf "$T"' EXIT
rc=0
timeout 20 "$PCPROF" attach --duration 30 -o "$T/missing/a.data" $sp 2>"$T/err" || rc=$?
[ $rc = 1 ] || fail "attach -o into a missing directory: exit $rc (124: it sampled first): $(cat "$T/err")"
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "^pcprof attach: $T/missing/a.data: cannot write in $T/missing: " "$T/err" ||
	fail "attach -o into a missing directory: $(cat "$T/err")"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$T"
	mkdir -m 1777 "$T/tmp" && mkdir -m 755 "$T/ro" || fail "mkdir"
	rc=0
	(cd "$T/tmp" && TMPDIR=$T/tmp setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$PCPROF" run -q -o /dev/null -- true) 2>"$T/err" || rc=$?
	[ $rc = 0 ] || fail "pcprof run -o /dev/null as another user: exit $rc: $(cat "$T/err")"
	rc=0
	(cd "$T/tmp" && TMPDIR=$T/tmp setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$PCPROF" run -q -o "$T/ro/x.data" -- true) 2>"$T/err" || rc=$?
	[ $rc = 125 ] && grep -q "cannot write in $T/ro: " "$T/err" ||
		fail "pcprof run -o in an unwritable directory: exit $rc: $(cat "$T/err")"
fi
exit 0
