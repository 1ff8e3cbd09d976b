#!/bin/sh
# The external sampler on a PIE linked by lld, which packs its load
# segments: the code segment starts in the file page where the read-only
# one ends, so two segments are mapped from the same file offset.  The
# module's bias must come from the code segment, else every pc lands
# 0x1000 off and the profile is all [unknown].  Checked both ways the
# sampler learns of mappings: pcprof run --mode external (mmap records)
# and pcprof attach (/proc/PID/maps), on tests/targets/split (a 2:1 CPU
# split between split_a and split_b).
. "$(dirname "$0")/../cli-attach/lib.sh"

cc -O1 -g -fno-omit-frame-pointer -pthread -fPIE -pie -fuse-ld=lld -o "$T/split-lld" \
	tests/targets/split.c 2>"$T/cc" || { echo "SKIP: cannot link with lld: $(head -n1 "$T/cc")"; exit 77; }
# The case only exists when a non-executable load segment shares the code
# segment's first file page.
readelf -lW "$T/split-lld" >"$T/phdrs" || fail "readelf -lW"
awk 'function hex(s,  n, i) {
		n = 0
		for (i = 3; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return n }
	$1 == "LOAD" {
	page = int(hex($2) / 4096)
	if ($0 ~ / R E / && page in ro) packed = 1
	if ($0 !~ / R E /) ro[page] = 1 }
	END { exit !packed }' "$T/phdrs" ||
	{ echo "SKIP: this lld does not pack the code segment into a shared page"; cat "$T/phdrs"; exit 77; }
probe_perf

# 1. pcprof run --mode external
"$PCPROF" run -o "$T/p.data" --hz 500 --mode external -- "$T/split-lld" 1.5 "$T/beat" 3 \
	>"$T/out" 2>"$T/err"
rc=$?
cat "$T/err"
[ $rc = 3 ] || fail "run: exit status $rc, want the program's 3"
dump "$T/p.data"
id=$(procs)
[ "$(field "$id" engine)" = external ] || fail "run: engine $(field "$id" engine)"
check_split "$id"

# 2. pcprof attach; the executable's bias is where its first page is mapped
# (lld links it at 0).
rm -f "$T/p.data"
attach_case "$T/split-lld" 1000 1.5
base=$(awk -v f="$T/split-lld" '$6 == f && $3 == "00000000" { print $1; exit }' "$T/before.maps")
base=${base%%-*}
[ -n "$base" ] || { cat "$T/before.maps"; fail "no mapping of offset 0 of $T/split-lld"; }
grep -q "^module .* $T/split-lld bias=0x$base " "$T/dump" ||
	{ grep "^module" "$T/dump"; fail "executable's bias is not its load address 0x$base"; }
exit 0
