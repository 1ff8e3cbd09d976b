#!/bin/sh
# pcprof archive: record a program, archive the recording, rebuild the
# program (another build id) and later delete it: report and every export
# of the archive give the original names and lines, taken from inside it,
# and the plain recording does not.  A stripped program's debug file, found
# through --debug-dir at archive time, is packed too.  Errors: an archive
# of an archive, a truncated or corrupted archive (any byte of it), an
# unwritable output.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbg.sh"
command -v cmp >/dev/null || skip "cmp not installed"

prog arc "$T/prog"
hot=$(grep -n 'hot line' "$T/prog.c" | cut -d: -f1)
record "$T/prog" "$T/p.data"
"$PCPROF" report -F -l "$T/p.data" >"$T/before" 2>&1 || fail "report: $(cat "$T/before")"
"$PCPROF" archive -o "$T/p.ar" "$T/p.data" 2>"$T/msg" || fail "archive: $(cat "$T/msg")"
size=$(wc -c <"$T/p.ar")
grep -Eq "^pcprof archive: wrote $T/p.ar: $size bytes .*, [1-9][0-9]* module files" "$T/msg" ||
	fail "archive does not print its size ($size): $(cat "$T/msg")"
cmp -s "$T/p.data" "$T/p.data" || fail "the recording changed"
# default output: DATA.archive
(cd "$T" && "$PCPROF" archive p.data 2>/dev/null) || fail "archive with the default output"
[ -s "$T/p.data.archive" ] || fail "no p.data.archive"
# an archive is written whole or not at all, like every file pcprof writes
"$PCPROF" archive -o "$T/p.ar" "$T/p.data" 2>/dev/null || fail "archive over an existing file"

check() { # FILE WHAT: the original names and the hot line
	grep -Eq ' arc_spin +prog$' "$1" || fail "$2: no arc_spin: $(cat "$1")"
	# --lines prints the path (prog.c is outside the compilation directory)
	grep -Eq "[ /]prog\.c:$hot +arc_spin " "$1" || fail "$2: no line prog.c:$hot: $(cat "$1")"
	! grep -q 'lost its symbols' "$1" || fail "$2: a module lost its symbols: $(cat "$1")"
	! grep -q 'rebuilt_spin' "$1" || fail "$2: names from the rebuilt program: $(cat "$1")"
}
for step in rebuilt deleted; do
	if [ $step = rebuilt ]; then
		prog rebuilt "$T/prog" -O2
	else
		rm "$T/prog" "$T/prog.c"
	fi
	"$PCPROF" report -F -l "$T/p.ar" >"$T/r" 2>&1 || fail "report archive ($step): $(cat "$T/r")"
	check "$T/r" "report of the archive, program $step"
	# the same rows as before, but for the file name in the header
	grep -v '^file ' "$T/before" >"$T/b1"
	grep -v '^file ' "$T/r" >"$T/r1"
	cmp -s "$T/b1" "$T/r1" || fail "archive ($step) reports otherwise: $(diff "$T/b1" "$T/r1")"
	"$PCPROF" report -F "$T/p.data" >"$T/plain" 2>&1 || fail "report plain"
	! grep -q ' arc_spin ' "$T/plain" || fail "the plain recording still names arc_spin ($step)"
	for fmt in folded speedscope html pprof gmon; do
		"$PCPROF" export -f $fmt -o "$T/x.$fmt" "$T/p.ar" >"$T/xo" 2>&1 ||
			fail "export $fmt of the archive ($step): $(cat "$T/xo")"
		! grep -q 'lost its symbols' "$T/xo" || fail "export $fmt ($step): $(cat "$T/xo")"
	done
	grep -q 'arc_spin' "$T/x.folded" || fail "folded export ($step) lacks arc_spin"
	grep -q 'arc_spin' "$T/x.speedscope" || fail "speedscope export ($step) lacks arc_spin"
	gzip -dc "$T/x.pprof" | grep -aq 'arc_spin' || fail "pprof export ($step) lacks arc_spin"
done

# a stripped program: its debug file, found at archive time, goes in too
prog sarc "$T/sp"
id=$(build_id "$T/sp")
objcopy --only-keep-debug "$T/sp" "$T/sp.dbg" || fail "objcopy"
objcopy --strip-all "$T/sp" || fail "strip"
record "$T/sp" "$T/s.data"
mkdir -p "$T/dd/$(dirname "$(id_path "$id")")"
mv "$T/sp.dbg" "$T/dd/$(id_path "$id")"
"$PCPROF" archive -o "$T/s.ar" --debug-dir "$T/dd" "$T/s.data" 2>"$T/msg" ||
	fail "archive --debug-dir: $(cat "$T/msg")"
grep -Eq ', [1-9][0-9]* debug files' "$T/msg" || fail "the debug file was not packed: $(cat "$T/msg")"
rm -r "$T/dd" "$T/sp"
"$PCPROF" report -F "$T/s.ar" >"$T/r" 2>&1 || fail "report: $(cat "$T/r")"
grep -Eq ' sarc_spin +sp$' "$T/r" || fail "stripped program archived without its names: $(cat "$T/r")"

# errors: one message each, exit 1
try 1 'already an archive' "$PCPROF" archive -o "$T/again" "$T/p.ar"
[ ! -e "$T/again" ] || fail "an archive of an archive was written"
head -c 100 "$T/p.ar" >"$T/cut.ar"
try 1 "$T/cut.ar: .*(truncated|too short|corrupted)" "$PCPROF" report "$T/cut.ar"
# a byte flipped in the table: its checksum
n=$(wc -c <"$T/p.ar")
cp "$T/p.ar" "$T/bad.ar"
printf 'X' | dd of="$T/bad.ar" bs=1 seek=$((n - 30)) conv=notrunc 2>/dev/null
try 1 "$T/bad.ar: corrupted archive" "$PCPROF" report "$T/bad.ar"
# a byte flipped in the recording's member (right after the header)
cp "$T/p.ar" "$T/bad2.ar"
printf '\377\377\377\377' | dd of="$T/bad2.ar" bs=1 seek=40 conv=notrunc 2>/dev/null
try 1 "$T/bad2.ar: corrupted archive member" "$PCPROF" report "$T/bad2.ar"
# any byte damaged: an error or a report, never a crash or a hang (each
# byte of the header and the trailer, 40 spread over the members, the
# table's first 400 in steps of 7)
n=$(wc -c <"$T/p.ar")
toc=$(od -An -tu8 -j $((n - 24)) -N 8 "$T/p.ar" | tr -d ' ')
for at in $(awk -v n="$n" -v t="$toc" 'BEGIN {
	for (i = 0; i < 16; i++) print i
	for (i = t; i < n && i < t + 400; i += 7) print i
	for (i = n - 24; i < n; i++) print i
	for (i = 16; i < t; i += int(t / 40) + 1) print i }'); do
	cp "$T/p.ar" "$T/f.ar"
	printf '\125' | dd of="$T/f.ar" bs=1 seek="$at" conv=notrunc 2>/dev/null
	rc=0
	timeout 120 "$PCPROF" report "$T/f.ar" >"$T/fo" 2>&1 || rc=$?
	[ $rc -le 1 ] || fail "report of an archive damaged at byte $at: exit $rc: $(tail -5 "$T/fo")"
done
try 1 "$T/nodir/x.ar: " "$PCPROF" archive -o "$T/nodir/x.ar" "$T/p.data"
try 1 "$T/none.data: " "$PCPROF" archive "$T/none.data"
[ ! -e "$T/none.data.archive" ] || fail "an archive of nothing was written"
exit 0
