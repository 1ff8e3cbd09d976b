#!/bin/sh
# The stack walker reads a module's unwind information from the module's
# own file, as samples need it (lib/sig/unwind-tables.c; exactly:
# tests/stacks/t-unwind-rows, t-unwind-cache).  What pcprof run shows of it:
#   - stacks through libc stay whole: sh runs `stacks libc` (hot_leaf
#     reached from main through qsort's frames in libc) three times; in
#     every image, the first and the later ones alike, at least 90% of
#     hot_leaf's ticks have the whole stack, from _start through libc's
#     start-up and qsort frames, main, by_value and mid;
#   - the images write nothing of it to the run's directory (until
#     2026-11-29 each module's table was written there as unwind-ID.utab:
#     this test fails so on the code before);
#   - the descriptor a walk keeps of libc's file, in an image that runs, is
#     close-on-exec and numbered at least half the soft descriptor limit
#     (at most 1024), above the numbers a program is given first.
. "$(dirname "$0")/lib.sh"
STK=$PWD/${B:-build}/tests/targets/stacks
LIB=$PWD/${B:-build}/libprofil.so.1
[ -x "$STK" ] && [ -f "$LIB" ] || fail "missing $STK or $LIB (make all)"

# whole ID: "WHOLE HOT" ticks of hot_leaf's stacks in process ID of the last
# dump (ppdump names libc's frames by address: it has no symbols here)
whole()
{
	awk -v id="$1" '$1 == "stack" && $2 == id {
		n = split($4, f, ";")
		if (f[n] != "hot_leaf")
			next
		hot += $3
		m = 0
		for (i = 2; i < n; i++) if (f[i] == "main") m = i
		if (f[1] == "_start" && m > 2 && m < n - 3 && f[n - 1] == "mid" && f[n - 2] == "by_value")
			ok += $3
	} END { print ok + 0, hot + 0 }' "$T/dump"
}

# check_whole ID WHAT: at least 90% of hot_leaf's ticks are whole
check_whole()
{
	read -r w h <<EOW
$(whole "$1")
EOW
	[ "$h" -gt 0 ] && [ "$w" -ge $((h * 9 / 10)) ] ||
		{ grep "^stack $1 " "$T/dump"; fail "$2: $w of $h hot_leaf ticks with whole stacks"; }
	echo "# $2: $w of $h hot_leaf ticks with whole stacks"
}

"$PCPROF" run -q -o "$T/s.data" -- sh -c "$STK libc 0.4 && $STK libc 0.4 && $STK libc 0.4 &&
	ls \"\$PCPROF_DIR\"" >"$T/ls" || fail "pcprof run exited $? ($(cat "$T/ls"))"
dump "$T/s.data"
grep unwind "$T/ls" && fail "unwind files in the run's directory: $(cat "$T/ls")"
n=0
for id in $(awk '$1 == "proc" && $NF ~ /targets\/stacks$/ { print $2 }' "$T/dump"); do
	n=$((n + 1))
	check_whole "$id" "image $n of stacks"
done
[ $n = 3 ] || fail "want 3 images of stacks, found $n"
no_raw_dirs

# The descriptor kept, seen from outside while the image runs.
D=$T/rec
mkdir -m 700 "$D"
env PCPROF_DIR="$D" PCPROF_STACKS=1 LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$LIB" \
	"$STK" libc 1.5 &
pid=$!
# 0.2 s of its CPU: a few hundred walks through libc
i=0
until [ "$(awk '{ print $14 }' "/proc/$pid/stat" 2>/dev/null || echo 0)" -gt 20 ]; do
	i=$((i + 1))
	[ $i -le 600 ] || fail "the image never ran"
	sleep 0.05
done
libc=$(awk '$6 ~ /\/libc\.so/ { print $6; exit }' "/proc/$pid/maps")
[ -n "$libc" ] || fail "no libc in the image's maps"
lim=$(awk '$1 == "Max" && $2 == "open" { print $4 }' "/proc/$pid/limits")
low=$((lim / 2 < 1024 ? lim / 2 : 1024))
found=0
for f in /proc/$pid/fd/*; do
	[ "$(readlink "$f")" = "$libc" ] || continue
	fd=${f##*/}
	flags=$(awk '$1 == "flags:" { print $2 }' "/proc/$pid/fdinfo/$fd")
	[ "$fd" -ge "$low" ] || fail "libc's file kept as descriptor $fd, below $low (limit $lim)"
	# O_CLOEXEC is 02000000 (octal)
	[ $(((0$flags >> 19) & 1)) = 1 ] || fail "descriptor $fd of libc's file without close-on-exec (flags $flags)"
	found=$((found + 1))
done
[ $found -ge 1 ] || fail "no descriptor of $libc kept: $(ls -l /proc/$pid/fd/)"
echo "# $found descriptor(s) of $libc kept, numbered >= $low, close-on-exec"
wait $pid || fail "stacks exited $?"
exit 0
