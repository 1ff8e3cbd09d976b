#!/bin/sh
# pcprof run records a call stack with every sample (the default), and none
# with --no-stacks.  What the unwinder's contract (lib/sig/unwind.h)
# guarantees, whatever walker is built in:
#   - the reader's checks pass (each sample's leaf frame is at its pc and
#     module, parents come first): dump would fail otherwise;
#   - per function, the ticks of stacks ending in it are at most its ticks
#     (a leaf is the sample's function), and stacks cover nearly all ticks
#     (only ticks paid without a signal, at exit, have none);
#   - a stack that ends in hot_leaf is the whole path (main, mid, hot_leaf,
#     in that order) or was cut short by a walk that could not go on
#     ([unknown] at its root);
#   - 300 levels of recursion: hot_leaf's stacks are 256 frames with
#     [truncated] at the root, or end in [unknown];
#   - --no-stacks: no stack, a smaller data file; the program's
#     PCPROF_STACKS is pcprof's choice, whatever pcprof's environment says;
#   - on an alternate signal stack barely larger than the kernel needs, the
#     handler keeps within it: the program runs as always (no stack then);
#   - exactly, with made-up stacks injected through the manual engine: a
#     stack table too small for them (--slots 1024) keeps every sample,
#     cuts some stacks to their outermost callers with [truncated] before
#     the leaf, and the summary counts those samples.
. "$(dirname "$0")/lib.sh"
STK=$PWD/${B:-build}/tests/targets/stacks
[ -x "$STK" ] || fail "missing $STK (make all)"

# check_stacks ID MODE: the rules above on the last dump; prints the number
# of hot_leaf stacks that went all the way (to main, or to the depth limit)
check_stacks()
{
	awk -v id="$1" -v mode="$2" -v ticks_out="$T/ticks" '
	$1 == "proc" && $2 == id { for (i = 3; i <= NF; i++) if ($i ~ /^ticks=/) ticks = substr($i, 7) }
	$1 == "fn" && $2 == id { fn[$3] += $5 }
	$1 == "stack" && $2 == id {
		n = split($4, f, ";")
		# ppdump names a pc outside every symbol 0xPC in a stack and
		# [unknown] in its fn lines
		leaf[f[n] ~ /^0x/ ? "[unknown]" : f[n]] += $3
		all += $3
		if (f[n] != "hot_leaf")
			next
		hot++
		hott += $3
		if (f[1] == "[unknown]")
			next
		if (mode == "main" || mode == "thread") {
			m = 0
			want = mode == "main" ? "main" : "alt_thread"
			for (i = 1; i < n - 1; i++) if (f[i] == want) m = i
			if (!m || f[n - 1] != "mid") { print "bad stack: " $4; bad = 1 }
		} else {
			ok = f[1] == "[truncated]" && n == 256
			for (i = 2; i < n; i++) if (f[i] != "deep") ok = 0
			if (!ok) { print "bad stack: " $4; bad = 1 }
		}
		whole++
		wholet += $3
	}
	END {
		print wholet + 0, hott + 0 >ticks_out
		for (l in leaf) if (leaf[l] > fn[l]) { print "stacks ending in " l ": " leaf[l] " ticks, the function has " fn[l]; bad = 1 }
		if (!hot) { print "no stack ends in hot_leaf"; bad = 1 }
		if (all < 0.8 * ticks) { print "stacks hold " all " of " ticks " ticks"; bad = 1 }
		if (bad) exit 1
		print whole + 0
	}' "$T/dump" >"$T/check" || { cat "$T/dump"; fail "$2: $(cat "$T/check")"; }
}

# (--no-timeline here and below: a sample per time bucket would make the
# file sizes compared below depend on the run's timing)
"$PCPROF" run --no-timeline -o "$T/s.data" -- "$STK" main 1 2>"$T/err" || fail "pcprof run exited $?"
dump "$T/s.data"
id=$(procs)
expect_hot "$id" hot_leaf 70
check_stacks "$id" main
whole=$(cat "$T/check")
grep -q "lost: none -> $T/s.data$" "$T/err" || fail "summary: $(cat "$T/err")"
grep -q "cut stack" "$T/err" && fail "stacks cut: $(cat "$T/err")"
no_raw_dirs

"$PCPROF" run -o "$T/d.data" -- "$STK" deep 0.5 2>"$T/err" || fail "pcprof run deep exited $?"
dump "$T/d.data"
check_stacks "$(procs)" deep
wholedeep=$(cat "$T/check")

# A small alternate signal stack (SA_ONSTACK: the handler runs there).  Not
# with the ASan build of the library, whose handler's frames (redzones) do
# not fit in 2 KiB above the kernel's minimum.
if [ "${SANITIZE#*address}" = "${SANITIZE:-}" ]; then
	"$PCPROF" run -q -o "$T/a.data" -- "$STK" altstack 0.5 || fail "altstack: exit $?"
	dump "$T/a.data"
	expect_hot "$(procs)" hot_leaf 70
	[ "$(field "$(procs)" end)" = exit ] || fail "altstack: end=$(field "$(procs)" end)"
fi

# An alternate stack of 8 KiB, Rust's for every thread (its main one
# included): the kernel's frame leaves less room than a walk that may fault
# keeps, and the handler walks within the thread's stack bounds instead, a
# walk that cannot fault: whole stacks, in main and in a created thread.
# The ASan build's frames do not fit that walk either: it keeps no stack
# there, and the program still runs as always.
for mode in altstack8k altthread8k; do
	"$PCPROF" run -q -o "$T/$mode.data" -- "$STK" $mode 0.5 2>"$T/alt" ||
		fail "$mode: exit $? ($(cat "$T/alt"))"
	dump "$T/$mode.data"
	expect_hot "$(procs)" hot_leaf 70
	[ "$(field "$(procs)" end)" = exit ] || fail "$mode: end=$(field "$(procs)" end)"
	grep -q "^altstack: [1-9][0-9]* of 8192 bytes never written" "$T/alt" ||
		fail "$mode: $(cat "$T/alt")"
	echo "# $mode: $(cat "$T/alt")"
	[ "${SANITIZE#*address}" = "${SANITIZE:-}" ] || continue
	[ $mode = altstack8k ] && m=main || m=thread
	check_stacks "$(procs)" $m
	read -r wt ht <"$T/ticks"
	# A walk ends early only in code without table rows (none here):
	# nearly every tick's stack is whole.
	[ "$wt" -ge $((ht * 9 / 10)) ] && [ "$ht" -gt 0 ] ||
		{ cat "$T/dump"; fail "$mode: $wt of $ht hot_leaf ticks have whole stacks"; }
	echo "# $mode: $wt of $ht hot_leaf ticks with whole stacks"
done

# --no-stacks: addresses only, in a smaller file.
"$PCPROF" run -q --no-stacks --no-timeline -o "$T/n.data" -- "$STK" main 1 ||
	fail "--no-stacks run failed"
dump "$T/n.data"
expect_hot "$(procs)" hot_leaf 70
grep -q "^stack " "$T/dump" && { cat "$T/dump"; fail "--no-stacks recorded stacks"; }
[ "$(wc -c <"$T/n.data")" -lt "$(wc -c <"$T/s.data")" ] ||
	fail "--no-stacks data file $(wc -c <"$T/n.data") bytes, with stacks $(wc -c <"$T/s.data")"

# The program is told; pcprof's own environment does not decide.
"$PCPROF" run -q -o "$T/e.data" -- sh -c 'echo "$PCPROF_STACKS"' >"$T/env" || fail "env run"
[ "$(cat "$T/env")" = 1 ] || fail "PCPROF_STACKS='$(cat "$T/env")' by default, want 1"
PCPROF_STACKS=1 "$PCPROF" run -q --no-stacks -o "$T/e.data" -- sh -c 'echo "$PCPROF_STACKS"' \
	>"$T/env" || fail "env run"
[ "$(cat "$T/env")" = 0 ] || fail "PCPROF_STACKS='$(cat "$T/env")' with --no-stacks, want 0"

# A full stack table: 20 injected samples, each kept; the stacks that did
# not fit keep their root, 0x10000000, and show [truncated].
PROFIL_ENGINE=manual "$PCPROF" run --slots 1024 -o "$T/f.data" -- "$STK" fill 0 2>"$T/err" ||
	fail "fill: $(cat "$T/err")"
dump "$T/f.data"
[ "$(field "$(procs)" ticks)" = 20 ] || { cat "$T/dump"; fail "fill: want 20 ticks"; }
awk '$1 == "stack" { all += $3; if ($4 ~ /truncated/) { cut += $3
		if ($4 !~ /^0x10000000;(0x[0-9a-f]+;)*\[truncated\];0x1[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]$/) bad = bad " " $4 } }
	END { print all + 0, cut + 0, bad }' "$T/dump" >"$T/fill"
read -r all cut bad <"$T/fill"
[ "$all" = 20 ] && [ -z "$bad" ] || fail "fill: $all ticks with stacks, want 20; bad:$bad"
[ "$cut" -ge 1 ] && [ "$cut" -lt 20 ] || fail "fill: $cut of 20 stacks cut, want some"
grep -q "; $cut samples with a cut stack (stack table full: \[truncated\]; try --slots 4096) " \
	"$T/err" || fail "fill: summary does not count $cut cut stacks: $(cat "$T/err")"
grep -q "lost: none" "$T/err" || fail "fill: $(cat "$T/err")"

# Which walker is in: the placeholder stops at [unknown]; a real one must
# reach main (or the depth limit) for most samples.
echo "# whole stacks: $whole (main), $wholedeep (deep)"
exit 0
