#!/bin/sh
# The external sampler on a PIE linked by lld, which packs its load
# segments: the code segment starts in the file page where the read-only
# one ends, so two segments are mapped from the same file offset.  The
# module's bias must come from the code segment, else every pc lands
# 0x1000 off and the profile is all [unknown].  Checked both ways the
# sampler learns of mappings: pcprof run --mode external (mmap records)
# and pcprof attach (/proc/PID/maps), on tests/targets/split (a 2:1 CPU
# split between split_a and split_b), and on a Go PIE.
. "$(dirname "$0")/../cli-attach/lib.sh"

cc -O1 -g -fno-omit-frame-pointer -pthread -fPIE -pie -fuse-ld=lld -o "$T/split-lld" \
	tests/targets/split.c 2>"$T/cc" || { echo "SKIP: cannot link with lld: $(head -n1 "$T/cc")"; exit 77; }
# packed FILE: SKIP unless the case exists in FILE, a non-executable load
# segment sharing the code segment's first file page.
packed()
{
	readelf -lW "$1" >"$T/phdrs" || fail "readelf -lW $1"
	awk 'function hex(s,  n, i) {
			n = 0
			for (i = 3; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return n }
		$1 == "LOAD" && / R E / && int(hex($2) / 4096) in ro { packed = 1 }
		$1 == "LOAD" && !/ R E / {
			for (p = int(hex($2) / 4096); p <= int((hex($2) + hex($5) - 1) / 4096); p++) ro[p] = 1 }
		END { exit !packed }' "$T/phdrs" ||
		{ echo "SKIP: lld did not pack the code segment of $1 into a shared page"; cat "$T/phdrs"; exit 77; }
}

# run_case A B PROGRAM ARGS...: pcprof run --mode external, A and B in 2:1
run_case()
{
	a=$1 b=$2
	shift 2
	rm -f "$T/p.data"
	"$PCPROF" run -o "$T/p.data" --hz 500 --mode external -- "$@" >"$T/out" 2>"$T/err"
	rc=$?
	cat "$T/err"
	[ $rc = 3 ] || fail "run $1: exit status $rc, want the program's 3"
	dump "$T/p.data"
	id=$(procs)
	[ "$(field "$id" engine)" = external ] || fail "run $1: engine $(field "$id" engine)"
	check_split "$id" "$a" "$b"
}
packed "$T/split-lld"
probe_perf

# 1. pcprof run --mode external
run_case split_a split_b "$T/split-lld" 1.5 "$T/beat" 3

# 2. pcprof attach; the executable's bias is where its first page is mapped
# (lld links it at 0).
rm -f "$T/p.data"
attach_case "$T/split-lld" 1000 1.5
base=$(awk -v f="$T/split-lld" '$6 == f && $3 == "00000000" { print $1; exit }' "$T/before.maps")
base=${base%%-*}
[ -n "$base" ] || { cat "$T/before.maps"; fail "no mapping of offset 0 of $T/split-lld"; }
grep -q "^module .* $T/split-lld bias=0x$base " "$T/dump" ||
	{ grep "^module" "$T/dump"; fail "executable's bias is not its load address 0x$base"; }

# 3. a Go PIE linked by lld (external linking), the Go target of
# t-run-external.sh: with the wrong bias its pcs fall on other Go functions.
sed -n '/^go_source <<.END.$/,/^END$/p' "$(dirname "$0")/t-run-external.sh" | sed '1d;$d' >"$T/split.go"
go_source <"$T/split.go"
go_build -buildmode=pie -ldflags='-linkmode=external -extldflags=-fuse-ld=lld' -o "$T/split-go-lld" .
packed "$T/split-go-lld"
run_case main.burnA main.burnB "$T/split-go-lld" 0.6
exit 0
