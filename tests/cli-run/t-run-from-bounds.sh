#!/bin/sh
# pcprof run --from reads the run's list of statuses and its command
# (pcprof-run, beside the recordings) within bounds (issue 19, item 15):
# line by line, a status only for a pid with a recording, the command to
# the 1 MiB a data file holds of it.  The kept recordings of a run whose
# data file could not be written (-o /dev/full), with 2,000,000 more
# status lines (pid 1, not recorded) and 100 MB more command: --from writes
# the data file, with the program's status, in a peak RSS less than 16 MB
# above what the list as kept takes.
# Before, the whole file was read into memory: 141 MB of peak RSS for
# these 128 MB (14 MB now).
. "$(dirname "$0")/lib.sh"
[ -x /usr/bin/time ] || { echo "SKIP: GNU time (/usr/bin/time) not installed: it measures memory"; exit 77; }

"$PCPROF" run -o /dev/full -- sh -c 'exit 7' 2>"$T/err"
rc=$?
[ $rc = 125 ] || fail "a data file on /dev/full: exit $rc: $(cat "$T/err")"
kept=$(sed -n 's/^pcprof run: the recordings are kept in \(.*\): pcprof run --from .*/\1/p' "$T/err")
[ -n "$kept" ] && [ -f "$kept/pcprof-run" ] || fail "no recordings kept: $(cat "$T/err")"
grep -q '^reaped [0-9]* 1792 ' "$kept/pcprof-run" || fail "no status 7 << 8: $(cat "$kept/pcprof-run")"
# pcprof's own peak RSS, on the same recordings as they were kept (a
# sanitizer build's is larger)
cp -R "$kept" "$T/plain"
/usr/bin/time -f '%M' -o "$T/time" "$PCPROF" run -q --from "$T/plain" -o "$T/plain.data" 2>"$T/err" ||
	fail "--from: exit $?: $(cat "$T/err")"
base=$(tail -n 1 "$T/time")
{
	sed '/^command$/,$d' "$kept/pcprof-run"
	yes 'reaped 1 0 0' | head -n 2000000
	sed -n '/^command$/,$p' "$kept/pcprof-run"
	head -c 100000000 /dev/zero | tr '\0' x
} >"$T/run"
size=$(wc -c <"$T/run")
mv "$T/run" "$kept/pcprof-run"
/usr/bin/time -f '%M' -o "$T/time" "$PCPROF" run -q --from "$kept" -o "$T/k.data" 2>"$T/err" ||
	fail "--from: exit $?: $(cat "$T/err")"
kb=$(tail -n 1 "$T/time")
echo "# --from with a list of $size bytes: $kb KB of peak RSS ($base KB with the list as kept)"
[ "$kb" -lt $((base + 16384)) ] || fail "--from: $kb KB of peak RSS, $base KB with the list as kept"
dump "$T/k.data"
id=$(procs)
[ "$(field "$id" status)" = 7 ] || fail "the program's status: $(grep '^proc' "$T/dump")"
len=$(sed -n 's/^profile [0-9]* command=//p' "$T/dump" | awk '{ print length($0) }')
[ "$len" = 1048576 ] || fail "the command: $len bytes, want the 1 MiB a data file holds"
no_raw_dirs
exit 0
