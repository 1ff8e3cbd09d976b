#!/bin/sh
# Counts are bounded on read (issue 19, item 11): a well-formed data file
# whose sample counts add up beyond 2^53 (six samples of 2^63 ticks in one
# function: its sum wraps to 0 three times in 64 bits) is refused by every
# command that reads it.  Before, report showed "1 sample" for 5.5e16 s
# and report -T wrote past the end of an array in build_threads
# (cli/model.c; a heap overflow under ASan).  A file exactly at the bound
# is read, with its exact sums; merging two of them would pass it and is
# refused at the write, naming the bound, with no file left behind.
. "$(dirname "$0")/lib.sh"
CRAFT=$ROOT/${B:-build}/tests/cli-report/mkcrafted
[ -x "$CRAFT" ] || fail "$CRAFT not built (make all)"

"$CRAFT" counts "$T/wrap.data" 9223372036854775808 6 || fail "mkcrafted counts"
msg='wrap.data: corrupted: process 4242: the sample counts add up to more than 2\^53$'
try 1 "$msg" "$PCPROF" report -T "$T/wrap.data"
try 1 "$msg" "$PCPROF" report -P -T --tree "$T/wrap.data"
for f in pprof folded speedscope html gmon; do
	try 1 "$msg" "$PCPROF" export -f $f -o "$T/out.$f" "$T/wrap.data"
done
try 1 "$msg" "$PCPROF" diff "$T/wrap.data" "$T/wrap.data"
try 1 "$msg" "$PCPROF" annotate "$T/wrap.data" 'counts.so*'
try 1 "$msg" "$PCPROF" merge -o "$T/m.data" "$T/wrap.data"
try 1 "$msg" "$PCPROF" archive -o "$T/a.ar" "$T/wrap.data"

# 2^53 exactly: read, and summed exactly
"$CRAFT" counts "$T/max.data" 4503599627370496 2 || fail "mkcrafted counts"
"$PCPROF" report -T "$T/max.data" >"$T/r" 2>"$T/e" || fail "report of 2^53 samples: $(cat "$T/e")"
grep -q '^samples    9007199254740992 (9007199254740.99 s)' "$T/r" ||
	fail "the sum of 2^53: $(grep '^samples' "$T/r")"
grep -Eq '^ +4242 +4242 +crafted +100\.0 +9007199254740992 ' "$T/r" ||
	fail "the thread's sum of 2^53: $(cat "$T/r")"
try 1 'm\.data: process 4242: the sample counts add up to more than 2\^53$' \
	"$PCPROF" merge -o "$T/m.data" "$T/max.data" "$T/max.data"
[ ! -e "$T/m.data" ] || fail "merge left $T/m.data"
[ -z "$(find "$T" -name '.m.data.*')" ] || fail "merge left a temporary file"
exit 0
