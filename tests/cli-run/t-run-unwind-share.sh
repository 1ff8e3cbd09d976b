#!/bin/sh
# The process images of one run share their unwind tables (design:
# lib/sig/unwind-tables.c, docs/design.md "Stacks: unwinding"; exactly:
# tests/stacks/t-unwind-share): the first image that builds a module's
# table leaves it in the recording directory, later images read it
# instead of building it.  What pcprof run shows of it:
#   - stacks through libc stay whole: sh runs `stacks libc` (hot_leaf
#     reached from main through qsort's frames in libc) three times; in
#     every image, the first and the later ones alike, at least 90% of
#     hot_leaf's ticks have the whole stack, from _start through libc's
#     start-up and qsort frames, main, by_value and mid;
#   - the tables are in the run's directory (libc's named by its build id)
#     while it runs, and pcprof removes them with the recordings;
#   - damaged tables (truncated, a byte changed in the rows or in the key,
#     readable by the group, a symlink) leave the images alive and their
#     stacks whole;
#   - tables truncated under a running image that read them cost it
#     nothing (it holds copies: a mapping would raise SIGBUS).
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
libc=$(awk '$1 == "module" && $4 ~ /\/libc\.so/ { for (i = 5; i <= NF; i++)
	if ($i ~ /^buildid=/) { print substr($i, 9); exit } }' "$T/dump")
[ -n "$libc" ] || fail "no build id for libc: $(grep '^module' "$T/dump")"
grep -q "^unwind-$libc\\.utab$" "$T/ls" || fail "no table of libc ($libc): $(cat "$T/ls")"
n=0
for id in $(awk '$1 == "proc" && $NF ~ /targets\/stacks$/ { print $2 }' "$T/dump"); do
	n=$((n + 1))
	check_whole "$id" "image $n of stacks"
done
[ $n = 3 ] || fail "want 3 images of stacks, found $n"
no_raw_dirs

# Damaged tables, in a recording directory of our own (pcprof run --from
# reads it afterwards).
D=$T/rec
mkdir -m 700 "$D"
rec()
{
	PCPROF_DIR=$D PCPROF_STACKS=1 LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$LIB" "$@"
}
rec "$STK" libc 0.1 || fail "stacks exited $?"
ls "$D"/unwind-*.utab >/dev/null || fail "no tables in $D: $(ls -l "$D")"
k=0
for f in "$D"/*.utab; do
	chmod 600 "$f"
	size=$(wc -c <"$f")
	case $((k % 5)) in
	0) truncate -s $((size - 1)) "$f" ;;
	1) printf 'X' | dd of="$f" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null ;;
	2) printf 'X' | dd of="$f" bs=1 seek=40 conv=notrunc 2>/dev/null ;; # the build id
	3) chmod 640 "$f" ;;
	4) mv "$f" "$T/good.utab" && ln -s "$T/good.utab" "$f" ;;
	esac
	[ -L "$f" ] || [ $((k % 5)) = 3 ] || chmod 400 "$f"
	k=$((k + 1))
done
[ $k -ge 3 ] || fail "only $k tables to damage"
rec "$STK" libc 0.4 || fail "stacks with damaged tables exited $?"
"$PCPROF" run -q --from "$D" -o "$T/d.data" 2>"$T/err" || fail "--from: $(cat "$T/err")"
dump "$T/d.data"
id=$(awk '$1 == "proc" && $NF ~ /targets\/stacks$/ { print $2 }' "$T/dump" | tail -n1)
check_whole "$id" "stacks beside damaged tables"

# Truncated while in use: the image lives.
D=$T/rec2
mkdir -m 700 "$D"
rec "$STK" libc 0.1 || fail "stacks exited $?"
env PCPROF_DIR="$D" PCPROF_STACKS=1 LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$LIB" \
	"$STK" libc 1.5 & # $! is its pid
pid=$!
# its start (and the tables' reading) is over once it has burnt 0.1 s
i=0
until [ "$(awk '{ print $14 }' "/proc/$pid/stat" 2>/dev/null || echo 0)" -gt 10 ]; do
	i=$((i + 1))
	[ $i -le 600 ] || fail "the second image never ran"
	sleep 0.05
done
for f in "$D"/*.utab; do
	chmod 600 "$f" && truncate -s 0 "$f"
done
wait $pid || fail "stacks with its tables truncated under it exited $?"
exit 0
