#!/bin/sh
# Names where the symbol table has none.
# PLT stubs: samples in a stub are "NAME@plt", as objdump names it, never
# the symbol before the PLT (_init): every stub of mkfixture (objdump
# finds them) gets 250 samples, and each must be one row of its own; then
# a real run of GNU sort, whose comparisons call memcmp through the PLT.
# Stripped modules: one function with several unwind rows (libcold.so's
# cold_lib_multi, entry and body) is one row, at its FDE's start, and the
# note about the missing symbols stays.
. "$(dirname "$0")/lib.sh"
command -v objdump >/dev/null || skip "objdump not installed (binutils)"
command -v readelf >/dev/null || skip "readelf not installed (binutils)"

# ---- PLT stubs of the fixture: exact --------------------------------------
objdump -d -j .plt -j .plt.sec -j .plt.got "$FIX" |
	sed -n 's/^\([0-9a-f]*\) <\(.*@plt\)>:$/\1 \2/p' >"$T/stubs"
n=$(wc -l <"$T/stubs")
[ "$n" -ge 10 ] || fail "objdump found only $n PLT stubs in mkfixture"
[ "$n" -le 192 ] || fail "mkfixture has $n PLT stubs; its --plt takes at most 192"
args=$(awk '{ printf " --plt %s", $1 }' "$T/stubs")
# shellcheck disable=SC2086 # one word per option
"$FIX" write "$T/plt.data" $args || fail "mkfixture write --plt"
"$PCPROF" report -F "$T/plt.data" >"$T/out" 2>&1 || fail "report exit $?: $(cat "$T/out")"
while read -r addr name; do
	r=$(row "$T/out" "$name")
	[ "$(echo "$r" | awk '{ print $3 }')" = 250 ] ||
		fail "stub $name at 0x$addr: row '$r' (want 250 samples): $(cat "$T/out")"
done <"$T/stubs"
! grep -Eq ' _init +mkfixture' "$T/out" || fail "PLT samples under _init: $(cat "$T/out")"

# ---- a real program: GNU sort -----------------------------------------------
# Its comparisons go through memcmp@plt and __errno_location@plt: 0.8% of
# its samples (20 of 2389 measured at 1000 Hz).  At 2000 Hz for about
# 2.4 s, ~4800 samples, ~40 in stubs: below 5 is > 5 standard deviations
# off, so fewer is a failure, and none may be called _init.
command -v sort >/dev/null || skip "GNU sort not installed"
seq 1 3000000 | awk '{ srand(NR); print int(rand() * 1e9) " " $0 }' >"$T/in"
"$PCPROF" run -q --hz 2000 -o "$T/sort.data" -- sort "$T/in" -o "$T/sorted" 2>"$T/err" ||
	fail "pcprof run sort: exit $?: $(cat "$T/err")"
"$PCPROF" report -F "$T/sort.data" >"$T/out" 2>&1 || fail "report sort: $(cat "$T/out")"
total=$(awk '/^samples/ { print $2 }' "$T/out")
plt=$(awk '$5 ~ /@plt$/ && $6 == "sort" { n += $3 } END { print n + 0 }' "$T/out")
if [ "$total" -ge 3000 ]; then
	[ "$plt" -ge 5 ] || fail "$plt of $total samples in sort's PLT stubs, want >= 5: $(cat "$T/out")"
fi
! grep -Eq ' _init +sort' "$T/out" || fail "sort's PLT samples under _init: $(cat "$T/out")"
awk '$5 ~ /@plt$/' "$T/out" | grep -q 'memcmp@plt' || [ "$total" -lt 3000 ] ||
	fail "no memcmp@plt row in sort's report: $(cat "$T/out")"

# ---- a stripped library: one row per function, not per unwind row ---------
"$FIX" multi >"$T/multi" || fail "mkfixture multi"
label=$(awk '$1 == "multi_label" { print $2 }' "$T/multi")
start=$(awk '$1 == "multi_start" { print $2 }' "$T/multi")
mid=$(awk '$1 == "multi_mid" { print $2 }' "$T/multi")
# the premise, from readelf: entry and body lie in different rows of one FDE
readelf -wF ${B:-build}/tests/cli-report/libcold.so >"$T/frames"
# (fixed-width hex compares as text)
s16=$(printf '%016x' "$start")
m16=$(printf '%016x' "$mid")
rows=$(awk -v s="$s16" -v m="$m16" '
	/ FDE / { split($NF, r, /[=.]+/); in_fde = r[2] == s && m < r[3]; next }
	in_fde && /^[0-9a-f]+ / && $1 <= m { n++ }
	END { print n + 0 }' "$T/frames")
[ "$rows" -ge 2 ] || fail "cold_lib_multi has $rows unwind rows up to its body: $(cat "$T/frames")"
"$FIX" write "$T/multi.data" --multirow || fail "mkfixture write --multirow"
"$PCPROF" report -F "$T/multi.data" >"$T/out" 2>&1 || fail "report: $(cat "$T/out")"
r=$(row "$T/out" "$label")
[ "$(echo "$r" | awk '{ print $3 }')" = 500 ] || fail "no row $label with 500 samples: $(cat "$T/out")"
[ "$(awk '$6 == "libcold.so"' "$T/out" | wc -l)" = 3 ] ||
	fail "libcold.so: want 3 rows (cold_lib_spin, cold_lib_inner, cold_lib_multi): $(cat "$T/out")"
grep -q '^note: no debug symbols for .*libcold\.so' "$T/out" || fail "note lost: $(cat "$T/out")"
exit 0
