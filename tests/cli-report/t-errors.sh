#!/bin/sh
# Bad input and bad usage: one line on stderr naming the file and the
# problem, exit status 1 (bad data) or 2 (bad usage), never a crash.
. "$(dirname "$0")/lib.sh"

# files that are not data files
head -c 4096 /dev/urandom >"$T/garbage.data"
: >"$T/empty.data"
head -c 200 "$T/fx.data" >"$T/short.data"
size=$(wc -c <"$T/fx.data")
head -c $((size - 9)) "$T/fx.data" >"$T/cut.data"
cp "$T/fx.data" "$T/flip.data"
printf 'X' | dd of="$T/flip.data" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
mkdir "$T/dir.data"
for cmd in report "export --format folded -o $T/x.folded"; do
	for f in missing garbage empty short cut flip dir; do
		# shellcheck disable=SC2086
		try 1 "^pcprof (report|export): $T/$f.data: .+" "$PCPROF" $cmd "$T/$f.data"
	done
done
[ ! -e "$T/x.folded" ] || fail "export wrote a file from bad input"

# bad usage
try 2 "unknown format 'bogus' \(known: gmon, pprof, folded, speedscope, html\)" \
	"$PCPROF" export --format bogus "$T/fx.data"
try 2 "no --format" "$PCPROF" export "$T/fx.data"
try 2 "bad sort key 'size'" "$PCPROF" report --sort size "$T/fx.data"
try 2 "bad pid 'x'" "$PCPROF" report --pid x "$T/fx.data"
try 2 "bad limit '-1'" "$PCPROF" report --limit -1 "$T/fx.data"
try 1 "no process with pid 1 " "$PCPROF" report --pid 1 "$T/fx.data"

# outputs that cannot be written
try 1 "$T/no/such/dir/x.pb.gz: .*No such file or directory" \
	"$PCPROF" export --format pprof -o "$T/no/such/dir/x.pb.gz" "$T/fx.data"
: >"$T/plainfile"
try 1 "not a directory" "$PCPROF" export --format gmon -o "$T/plainfile" "$T/fx.data"
try 1 "-o takes a directory" "$PCPROF" export --format gmon -o - "$T/fx.data"

# recorded paths that are not ELF files now: a FIFO (opening it would
# block), a device, a directory, a relative path.  Their samples are kept
# as module+0xOFFSET, with a warning each, and the report ends.
"$FIX" write "$T/odd.data" --odd || fail "mkfixture --odd"
timeout 60 "$PCPROF" report "$T/odd.data" >"$T/odd" 2>&1 || fail "report on odd paths: exit $?"
for m in fifo zero / relative.so; do
	grep -Eq " 10 +0\.01 +$m\+0x1010 +$m\$" "$T/odd" || fail "no row for $m: $(cat "$T/odd")"
done
for w in "$T/fifo lost its symbols: not a regular file" \
	"/dev/zero lost its symbols: not a regular file" "/ lost its symbols: not a regular file" \
	"relative.so: not an absolute path"; do
	grep -q "^warning: $w" "$T/odd" || fail "no warning '$w'"
done
for fmt in gmon pprof folded speedscope html; do
	timeout 60 "$PCPROF" export -f $fmt -o "$T/odd.$fmt" "$T/odd.data" >"$T/oddx" 2>&1 ||
		fail "export $fmt on odd paths: exit $?: $(cat "$T/oddx")"
done
"$PCPROF" export -f gmon -o "$T/odd.gmon" "$T/odd.data" >"$T/oddg" 2>/dev/null || fail "gmon"
grep -q "gmon._.out: no ELF file to read it with (/ is gone or not ELF)" "$T/oddg" ||
	fail "gmon file for module / not named gmon._.out: $(cat "$T/oddg")"

# help
for c in report export; do
	"$PCPROF" $c --help >"$T/h" || fail "$c --help exit $?"
	grep -q "^usage: pcprof $c " "$T/h" || fail "$c --help: $(head -1 "$T/h")"
done
exit 0
