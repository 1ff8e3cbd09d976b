#!/bin/sh
# pcprof export --format gmon: one gmon.out per module, read back by gprof
# itself.  `gprof -b -p` must name the right functions with the fixture's
# exact times for the executable, for a shared library (static function
# included), for the stripped library (through the symbol list we write
# for --external-symbol-table), for the one whose symbols are in a debug
# file (read through that file) and for libc; 70000 samples in one function
# check the repeated records that carry counts above 65535.
. "$(dirname "$0")/lib.sh"
command -v gprof >/dev/null || skip "gprof not installed (binutils)"

"$PCPROF" export --format gmon -o "$T/gm" "$T/fx.data" >"$T/list" 2>"$T/err" ||
	fail "export exit $?: $(cat "$T/err")"
for m in mkfixture libhot.so libcold.so libc.so.6; do
	[ -s "$T/gm/gmon.$m.out" ] || fail "no gmon.$m.out"
done
[ -s "$T/gm/gmon.libcold.so.syms" ] || fail "no symbol list for the stripped libcold.so"
[ "$(head -c 4 "$T/gm/gmon.mkfixture.out")" = gmon ] || fail "bad magic"
# version 1, little-endian, right after the magic
[ "$(od -An -tu4 -j4 -N4 "$T/gm/gmon.mkfixture.out" | tr -d ' ')" = 1 ] || fail "bad version"

# Run the gprof command pcprof printed for a module; check "name seconds".
gp() { # module
	cmd=$(awk -v f="$T/gm/gmon.$1.out:" '$1 == f { $1 = ""; print }' "$T/list")
	[ -n "$cmd" ] || fail "no gprof command printed for $1: $(cat "$T/list")"
	# shellcheck disable=SC2086
	$cmd >"$T/gp.$1" 2>"$T/gperr" || fail "$cmd: $(cat "$T/gperr")"
	grep -q '^Each sample counts as 0.001 seconds' "$T/gp.$1" ||
		fail "$1: prof_rate is not the achieved 1000 Hz: $(cat "$T/gp.$1")"
}
has() { # module function count: gprof's self seconds = count / 1000
	s=$(awk -v n="$3" 'BEGIN { printf "%.2f", n / 1000 }')
	awk -v f="$2" -v s="$s" '$NF == f && $3 == s { ok = 1 } END { exit !ok }' "$T/gp.$1" ||
		fail "gprof $1: no '$2' with $s s: $(cat "$T/gp.$1")"
}
first() { # module function
	f=$(awk '/^ time/ { getline; print $NF; exit }' "$T/gp.$1")
	[ "$f" = "$2" ] || fail "gprof $1: first row $f, want $2"
}

gp mkfixture
first mkfixture fix_hot
has mkfixture fix_hot "$(expect fix_hot)"
has mkfixture fix_warm "$(expect fix_warm)"
has mkfixture fix_cold "$(expect fix_cold)"
gp libhot.so
first libhot.so hot_lib_spin
has libhot.so hot_lib_spin "$(expect hot_lib_spin)"
has libhot.so hot_lib_inner "$(expect hot_lib_inner)"
gp libcold.so
has libcold.so cold_lib_spin "$(expect cold_lib_spin)"
has libcold.so "$(expect cold_inner_label)" "$(expect cold_inner)"
gp libdbg.so
grep -q "gmon.libdbg.so.out: gprof -b -p [^ ]*/libdbg.so.debug " "$T/list" ||
	fail "gprof command for libdbg.so does not use its debug file: $(grep libdbg "$T/list")"
has libdbg.so dbg_lib_inner "$(expect dbg_lib_inner)"
gp libc.so.6
has libc.so.6 getppid "$(expect getppid)"

# 20 million samples in one bin: more than 256 copies of a 16-bit counter,
# so the counts and the rate are divided alike and gprof's seconds stay right
"$FIX" write "$T/huge.data" --huge || fail "mkfixture --huge"
"$PCPROF" export --format gmon -o "$T/hg" "$T/huge.data" >/dev/null 2>"$T/herr" ||
	fail "export --huge: $(cat "$T/herr")"
grep -q "^note: $T/hg/gmon.mkfixture.out: counts divided by 2 " "$T/herr" ||
	fail "no note about scaled counts: $(cat "$T/herr")"
gprof -b -p "$FIX" "$T/hg/gmon.mkfixture.out" >"$T/gp.huge" 2>&1 || fail "gprof --huge"
awk '$NF == "fix_hot" && $3 == "20000.00" { ok = 1 } END { exit !ok }' "$T/gp.huge" ||
	fail "gprof on 20 million samples: $(cat "$T/gp.huge")"
[ "$(wc -c <"$T/hg/gmon.mkfixture.out")" -lt 100000 ] || fail "gmon file for --huge is too big"

# samples outside every module are in no file, and we say so
grep -q "note: $(expect unknown) samples outside every mapped file" "$T/err" ||
	fail "no note about samples outside modules: $(cat "$T/err")"
exit 0
