#!/bin/sh
# The CPU time of a process image before the library's first sample (the
# kernel's exec, the dynamic loader, constructors that ran before
# libprofil's) is charged, without a stack, at the main executable's entry
# point.  Reports and exports name that pc [startup] in the executable's
# module, not PROG+0xENTRY (stripped) or _start, which read as the
# program's hot spot.  A shell loop runs 150 images of a program that
# does nothing, stripped PIE, stripped non-PIE and unstripped: [startup]
# is their top row, with most samples, and the function at the entry point
# (PROG+0xENTRY, _start) has few (a real signal may land in _start after
# libprofil's constructor); the export formats name it too.  A CPU-bound program's
# own function keeps its samples.
. "$(dirname "$0")/lib.sh"

command -v cc >/dev/null || { echo "SKIP: no C compiler"; exit 77; }
command -v readelf >/dev/null || { echo "SKIP: no readelf (binutils)"; exit 77; }
printf 'int main(void) { return 0; }\n' >"$T/nothing.c"
cc -O2 -s -o "$T/qpie" "$T/nothing.c" >"$T/cc" 2>&1 || fail "cc: $(cat "$T/cc")"
cc -O2 -s -no-pie -o "$T/qnopie" "$T/nothing.c" >"$T/cc" 2>&1 || fail "cc: $(cat "$T/cc")"
cc -O2 -o "$T/qsym" "$T/nothing.c" >"$T/cc" 2>&1 || fail "cc: $(cat "$T/cc")"
readelf -h "$T/qpie" | grep -q 'Type:.*DYN' || fail "cc -s made no PIE: $(readelf -h "$T/qpie" | grep Type:)"
readelf -h "$T/qnopie" | grep -q 'Type:.*EXEC' || fail "cc -no-pie made a PIE"

for q in qpie qnopie qsym; do
	PROFIL_HZ=2000 "$PCPROF" run -o "$T/$q.data" -- sh -c \
		'i=0; while [ $i -lt 150 ]; do "$0"; i=$((i + 1)); done' "$T/$q" \
		2>"$T/err" || fail "$q: pcprof run exited $?: $(cat "$T/err")"
	"$PCPROF" report "$T/$q.data" >"$T/$q.rep" 2>"$T/err" ||
		fail "$q: pcprof report exited $?: $(cat "$T/err")"
	# the flat rows: self% total% samples seconds function module
	entry=$(readelf -h "$T/$q" | awk '/Entry point address:/ { print $4 }')
	# more than half: the rest is mostly libprofil's own start-up (its
	# unwind tables), which an AddressSanitizer build makes several times
	# slower (41.7% for [startup] there in one CI run): there (half=0),
	# the top row only
	half=2
	case $SANITIZE in *address*) half=0 ;; esac
	awk -v q="$q" -v at="$q+$entry" -v half=$half '
		$2 ~ /^[0-9.]+$/ && NF == 6 && $3 ~ /^[0-9]+$/ {
			all += $3
			if (!top) { top = $5 " " $6; topn = $3 }
			if ($5 == "[startup]" && $6 == q) start = $3
			if ($5 == at || $5 == "_start")
				entry = $5 " " $3
		}
		END {
			# _start may get a real sample or two after it, not at its entry
			split(entry, e, " ")
			if (e[2] * 20 > all) {
				printf "FAIL: %s: %s has %d samples of %d: the entry point is [startup]\n", q, e[1], e[2], all
				exit 1
			}
			printf "# %s: [startup] %d of %d samples; top row: %s\n", q, start, all, top
			if (top != "[startup] " q || start != topn || (half && half * start < all)) {
				printf "FAIL: %s: want [startup] of %s the top row, with most samples\n", q, q
				exit 1
			}
		}' "$T/$q.rep" || { cat "$T/$q.rep"; exit 1; }
done

# The exports read the same names: folded stacks (the stack is the process
# name and the pc), speedscope's frames, the HTML page.
"$PCPROF" export -f folded -o "$T/q.folded" "$T/qpie.data" 2>"$T/err" || fail "folded: $(cat "$T/err")"
grep -q '^qpie;\[startup\] [0-9]*$' "$T/q.folded" || { cat "$T/q.folded"; fail "folded: no qpie;[startup]"; }
entry=$(readelf -h "$T/qpie" | awk '/Entry point address:/ { print $4 }')
awk -v at="qpie+$entry" '{ n = $NF; all += n; sub(/ [0-9]+$/, ""); k = split($0, f, ";") }
	f[k] == at { in_at += n }
	END { if (in_at * 20 > all) { printf "FAIL: folded: %d of %d samples end at %s\n", in_at, all, at; exit 1 } }' \
	"$T/q.folded" || exit 1
"$PCPROF" export -f speedscope -o "$T/q.json" "$T/qpie.data" 2>"$T/err" || fail "speedscope: $(cat "$T/err")"
grep -q '"name":"\[startup\]"' "$T/q.json" || fail "speedscope: no frame [startup]"
"$PCPROF" export -f html -o "$T/q.html" "$T/qpie.data" 2>"$T/err" || fail "html: $(cat "$T/err")"
grep -q '\[startup\]' "$T/q.html" || fail "html: no [startup]"

# A CPU-bound program: its function is the top row, as before.
"$PCPROF" run -o "$T/hot.data" -- "$HOT" main 0.3 2>"$T/err" || fail "hot: pcprof run exited $?"
"$PCPROF" report "$T/hot.data" >"$T/hot.rep" 2>"$T/err" || fail "hot: report: $(cat "$T/err")"
awk '$2 ~ /^[0-9.]+$/ && NF == 6 && $3 ~ /^[0-9]+$/ { print $5 " " $1; exit }' "$T/hot.rep" >"$T/top"
read -r fn pct <"$T/top"
[ "$fn" = hot_main ] && [ "${pct%.*}" -ge 80 ] || { cat "$T/hot.rep"; fail "hot: top row $fn $pct%, want hot_main >= 80%"; }
exit 0
