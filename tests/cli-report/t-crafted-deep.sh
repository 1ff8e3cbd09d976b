#!/bin/sh
# No reader recurses per frame (issue 19, item 12): a data file whose one
# stack is 100,000 frames deep (each frame a function of its own; 3 samples
# at the leaf, 1 at the frame halfway down) goes through every command that
# reads stacks.  Before, report --tree, export --format html and diff
# --html died of SIGSEGV (the C stack overflowed in recursive walks of the
# call tree).  report --tree indents 64 levels at most and writes deeper
# levels' depth in brackets, so its output stays linear in the frames
# (under 190 bytes a line, 19 MB here; 10 GB if it indented every level).
. "$(dirname "$0")/lib.sh"
CRAFT=$ROOT/${B:-build}/tests/cli-report/mkcrafted
[ -x "$CRAFT" ] || fail "$CRAFT not built (make all)"
"$CRAFT" deep "$T/d.data" 100000 || fail "mkcrafted deep"
D=$T/d.data
leaf=deep.so+0x1879f0 # 0x1000 + 16 * 99999
mid=deep.so+0xc4500   # 0x1000 + 16 * 50000
leaf_re='deep\.so\+0x1879f0' mid_re='deep\.so\+0xc4500'

# ok CMD...: CMD exits 0 (its stdout in $T/o, stderr in $T/e)
ok() {
	"$@" >"$T/o" 2>"$T/e" || fail "$*: exit $?: $(grep -v '^warning: ' "$T/e" | head -5)"
}

ok "$PCPROF" report --tree "$D"
[ "$(grep -c ' deep\.so+0x[0-9a-f]*  deep\.so$' "$T/o")" = 100000 ] ||
	fail "report --tree: not 100000 frames: $(grep -c deep.so "$T/o")"
grep -Eq "^ 75\.00   75\.00          3 {130}\[99999\] $leaf_re  deep\.so$" "$T/o" ||
	fail "report --tree: the leaf: $(grep -F "$leaf" "$T/o")"
grep -Eq "^100\.00   25\.00          4 {130}\[50000\] $mid_re  deep\.so$" "$T/o" ||
	fail "report --tree: the frame halfway: $(grep -F "$mid" "$T/o")"
size=$(wc -c <"$T/o")
[ "$size" -lt 19000000 ] || fail "report --tree wrote $size bytes for 100000 lines"

ok "$PCPROF" export -f html -o "$T/d.html" "$D"
# the flame graph's data holds every frame: 4 numbers each
sed -n 's/.*<script type="application\/json" id="fg-data">\(.*\)/\1/p' "$T/d.html" |
	sed 's/^{"total":4,"nodes":\[\([0-9,-]*\)\].*/\1/' | tr ',' '\n' >"$T/nodes"
[ "$(wc -l <"$T/nodes")" = 400000 ] || fail "export html: $(wc -l <"$T/nodes") numbers, want 400000"
ok "$PCPROF" diff --html "$T/dd.html" "$D" "$D"
grep -q '"delta":\[' "$T/dd.html" || fail "diff --html: no delta in the page"
for f in pprof folded speedscope gmon; do
	ok "$PCPROF" export -f $f -o "$T/d.$f" "$D"
done
[ "$(awk -F';' '{ print NF }' "$T/d.folded" | sort -n | tail -n 1)" = 100000 ] ||
	fail "folded: the deepest stack is not 100000 frames"
ok "$PCPROF" report -P -T -l "$D"
ok "$PCPROF" report --callers "$mid" "$D"
grep -q "^100\.00          4  deep\.so+0xc44f0  deep\.so$" "$T/o" || fail "--callers: $(cat "$T/o")"
ok "$PCPROF" report --callees "$mid" "$D"
grep -q "^ 75\.00          3  deep\.so+0xc4510  deep\.so$" "$T/o" || fail "--callees: $(cat "$T/o")"
grep -q "^ 25\.00          1  \[self\]$" "$T/o" || fail "--callees: [self]: $(cat "$T/o")"
ok "$PCPROF" annotate "$D" "$leaf"
ok "$PCPROF" diff "$D" "$D"
ok "$PCPROF" merge -o "$T/m.data" "$D" "$D"
ok "$PCPROF" report --tree -n 1 "$T/m.data"
grep -Eq "^ 75\.00   75\.00          6 {130}\[99999\] $leaf_re  deep\.so$" "$T/o" ||
	fail "merged: the leaf: $(grep -F "$leaf" "$T/o")"
exit 0
