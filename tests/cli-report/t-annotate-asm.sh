#!/bin/sh
# pcprof annotate --asm: hot_loop of anntarget.c (annlib.sh), with exactly
# 700 samples at its HOT instruction, 200 at WARM and 100 at the STEP
# instruction inlined from annstep.h, disassembled from the file on disk:
# each address with its count and shares, under the header of its source
# line; an inlined function's instructions shown within its caller; a
# stripped copy still disassembles (by its unwind-table extent), its
# source listing says there are no lines; a rebuilt file (another build
# id) and a deleted one are refused with exit 1.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/cli-report/annlib.sh"
annrec "$T/a.data" "$T/ann"
ESC=$(printf '\033')

ann() {
	"$PCPROF" annotate --asm -i "$T/$1" "$2" >"$T/out" 2>"$T/e" || fail "annotate --asm $*: $(cat "$T/e")"
}
# the instruction row at address $1 (hex): "samples fn% all% ADDR: insn"
insn() {
	awk -v a="$1:" '$1 == a || $2 == a || $4 == a' "$T/out"
}

ann a.data hot_loop
grep -q '^Instructions of hot_loop (ann): 1000 samples' "$T/out" || fail "title: $(cat "$T/out")"
set -- $(insn "$HOT")
[ "$1 $2 $3 $4" = "700 70.00 70.00 $HOT:" ] || fail "HOT at $HOT: '$*': $(cat "$T/out")"
set -- $(insn "$WARM")
[ "$1 $2 $3 $4" = "200 20.00 20.00 $WARM:" ] || fail "WARM at $WARM: '$*'"
set -- $(insn "$STEP")
[ "$1 $4" = "100 $STEP:" ] || fail "STEP at $STEP: '$*'"
# every instruction of hot_loop (objdump's list), and only those counted
want=$(wc -l <"$T/addrs")
rows=$(grep -cE '^ +([0-9]+ +[0-9.]+ +[0-9.]+ +)?[0-9a-f]+:  ' "$T/out")
[ "$rows" = "$want" ] || fail "$rows instructions, objdump has $want: $(cat "$T/out")"
# the rows' counts add up to the function's (none outside its extent)
awk '$4 ~ /^[0-9a-f]+:$/ { n += $1 } END { print n }' "$T/out" | grep -qx 1000 ||
	fail "the instructions' counts do not add up to 1000: $(cat "$T/out")"
grep -q 'outside the function' "$T/out" && fail "samples outside hot_loop: $(cat "$T/out")"
# the source line headers: the STEP instruction under annstep.h's line
awk -v a="$STEP:" '/^ +[a-z0-9_]+\.[ch]:[0-9]+/ { h = $1 } $4 == a { print h; exit }' "$T/out" |
	grep -qx "annstep.h:$STEPL" || fail "STEP not under annstep.h:$STEPL: $(cat "$T/out")"
awk -v a="$HOT:" '/^ +[a-z0-9_]+\.[ch]:[0-9]+/ { h = $1 } $4 == a { print h; exit }' "$T/out" |
	grep -qx "anntarget.c:$HOTL" || fail "HOT not under anntarget.c:$HOTL"
grep -q "$ESC" "$T/out" && fail "escape codes in piped output"
"$PCPROF" annotate --asm --color=always -i "$T/a.data" hot_loop >"$T/out" 2>&1 || fail "color"
grep "$HOT:" "$T/out" | grep -q "^$ESC\[1;31m" || fail "--color=always: HOT not coloured: $(cat "$T/out")"

# the inlined function: within hot_loop, only its own samples
ann a.data mix_step
grep -q '^Instructions of mix_step \[inline\] in hot_loop (ann): 100 samples' "$T/out" ||
	fail "mix_step title: $(cat "$T/out")"
set -- $(insn "$STEP")
[ "$1 $2 $3 $4" = "100 100.00 10.00 $STEP:" ] || fail "mix_step at $STEP: '$*'"
set -- $(insn "$HOT")
[ "$1" = "$HOT:" ] || fail "mix_step has HOT's samples: '$*'"

# stripped: no lines, but the instructions and their counts
cp "$T/ann" "$T/stripped"
strip "$T/stripped" 2>/dev/null || skip "strip (binutils) failed"
annrec "$T/s.data" "$T/stripped"
"$PCPROF" annotate -i "$T/s.data" -n 1 >"$T/out" 2>"$T/e" || fail "stripped source: $(cat "$T/e")"
grep -q 'no line information' "$T/out" || fail "stripped: no line information not said: $(cat "$T/out")"
"$PCPROF" annotate --asm -i "$T/s.data" -n 1 >"$T/out" 2>"$T/e" || fail "stripped --asm: $(cat "$T/e")"
set -- $(insn "$HOT")
[ "$1 $4" = "700 $HOT:" ] || fail "stripped: HOT at $HOT: '$*': $(cat "$T/out")"

# pcs outside every module (the stacks fixture's 0x1234): nothing to read
"$FIX" stacks "$T/st.data" || fail "mkfixture stacks"
try 1 "0x1234: outside every mapped file" "$PCPROF" annotate --asm -i "$T/st.data" 0x1234

# the file rebuilt (another build id), then gone: refused (its names
# are gone too, as the report's: the function with most samples)
printf 'int changed;\n' >"$T/x.c"
cc -std=c11 -O1 -g -o "$T/ann" "$SRC" "$T/x.c" 2>"$T/cc" || fail "cc: $(cat "$T/cc")"
try 1 "$T/ann: not the file that was profiled.*build id" \
	"$PCPROF" annotate --asm -n 1 -i "$T/a.data"
rm "$T/ann"
try 1 "$T/ann: No such file" "$PCPROF" annotate --asm -n 1 -i "$T/a.data"
exit 0
