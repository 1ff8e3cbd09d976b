#!/bin/sh
# Processes in a pid namespace of their own whose recordings find no room
# (a full TMPDIR): each leaves a marker named by the pid pcprof knows it
# by, which says its CPU time once it ends (the two halves of issue 19,
# item 9: pid namespaces, and images not recorded for want of room).
# Before, the fork children's markers took their namespace's pids (1 and
# 2: "pids 1, 2, N" in the summary, pcprof reaping pids it could not
# match), and a marker made under /proc's pid was never renamed with its
# CPU time (the image's end compared it with getpid()).  Now the summary
# and the data file name 3 images, none as pid 1 or 2, the child's and
# the grandchild's with at least the 0.1 s each burned.  As root (the
# namespace and the tmpfs need it); SKIP where either is refused.
. "$(dirname "$0")/lib.sh"
GAPS=$PWD/${B:-build}/tests/targets/gaps
[ -x "$GAPS" ] || fail "missing $GAPS (make all)"

FS=$T/fs
mkdir "$FS"
if ! mount -t tmpfs -o size=12k pcprof-test "$FS" 2>"$T/mount.err"; then
	echo "SKIP: cannot mount a tmpfs: $(cat "$T/mount.err")"
	exit 77
fi
trap 'umount "$FS" 2>/dev/null || umount -l "$FS"; rm -rf "$T"' EXIT

TMPDIR=$FS "$PCPROF" run -o "$T/p.data" -- "$GAPS" pidns 0.1 >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 77 ] && { cat "$T/out"; exit 77; }
[ $rc = 0 ] || fail "exit $rc: $(cat "$T/out" "$T/err")"
grep -q "lost: 3 process images not recorded (no room for their recordings in $FS: No space left on device; pids [0-9, ]*; [0-9.]* s CPU)" \
	"$T/err" || fail "summary: $(cat "$T/err")"
pids=$(sed -n 's/.*not recorded (.*; pids \([0-9, ]*\);.*/\1/p' "$T/err" | tr -d ,)
for p in $pids; do
	[ "$p" -gt 2 ] || fail "an image named by its namespace's pid $p: $(cat "$T/err")"
done
dump "$T/p.data"
set -- $(procs)
[ $# = 3 ] || fail "$# images in the data file, want 3: $(grep '^proc' "$T/dump")"
for id in "$2" "$3"; do
	[ "${id%.*}" -gt 2 ] || fail "image $id: $(grep '^proc' "$T/dump")"
	[ "$(field "$id" cpu_ms)" -ge 95 ] ||
		fail "image $id: cpu_ms=$(field "$id" cpu_ms), want at least 95 (0.1 s burned)"
done
exit 0
