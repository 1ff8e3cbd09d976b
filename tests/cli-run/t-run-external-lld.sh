#!/bin/sh
# The external sampler on a PIE whose load segments are packed, as lld
# links them: the code segment starts in the file page where the read-only
# one ends, so two segments are mapped from the same file offset.  The
# module's bias must come from the code segment, else every pc lands
# 0x1000 off and the profile is all [unknown] (C) or other functions (Go).
# Checked both ways the sampler learns of mappings, pcprof run --mode
# external (mmap records) and pcprof attach (/proc/PID/maps), on
# tests/targets/split (a 2:1 CPU split between split_a and split_b) linked
# by GNU ld with its own script so altered and by lld, and on a Go PIE
# linked by lld.
. "$(dirname "$0")/../cli-attach/lib.sh"

# packed FILE: whether a non-executable load segment of FILE shares the
# code segment's first file page (else FILE does not make the case)
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
		END { exit !packed }' "$T/phdrs" && return 0
	cat "$T/phdrs"
	return 1
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

# c_cases PROGRAM: run and attach on a build of split; in the attach, the
# executable's bias is where its first page is mapped (linked at 0).
c_cases()
{
	echo "# $1"
	run_case split_a split_b "$1" 1.5 "$T/beat" 3
	rm -f "$T/p.data"
	attach_case "$1" 1000 1.5
	base=$(awk -v f="$1" '$6 == f && $3 == "00000000" { print $1; exit }' "$T/before.maps")
	base=${base%%-*}
	[ -n "$base" ] || { cat "$T/before.maps"; fail "no mapping of offset 0 of $1"; }
	grep -q "^module .* $1 bias=0x$base " "$T/dump" ||
		{ grep "^module" "$T/dump"; fail "$1: executable's bias is not its load address 0x$base"; }
}

CFLAGS="-O1 -g -fno-omit-frame-pointer -pthread -fPIE -pie"
probe_perf
ran=

# 1. GNU ld, its default script with the page alignment before the code
# segment made to keep the offset in the page (as it does for data).
cc $CFLAGS -Wl,-z,separate-code -Wl,--verbose -o "$T/split-gnu" tests/targets/split.c >"$T/ld" 2>&1
sed -n '/^=======/,/^=======/p' "$T/ld" | sed '1d;$d' | awk '
	!done && $0 == "  . = ALIGN(CONSTANT (MAXPAGESIZE));" {
		print "  . = ALIGN(CONSTANT (MAXPAGESIZE)) + (. & (CONSTANT (MAXPAGESIZE) - 1));"
		done = 1
		next }
	{ print }' >"$T/packed.ld"
if [ -s "$T/packed.ld" ] && cc $CFLAGS -Wl,-z,separate-code -Wl,-T,"$T/packed.ld" -o "$T/split-gnu" \
	tests/targets/split.c 2>"$T/cc" && packed "$T/split-gnu"; then
	c_cases "$T/split-gnu"
	ran=gnu
else
	echo "# GNU ld did not make a packed PIE: $(head -n1 "$T/cc" 2>/dev/null)"
fi

# 2. lld
if ! cc $CFLAGS -fuse-ld=lld -o "$T/split-lld" tests/targets/split.c 2>"$T/cc"; then
	[ -n "$ran" ] || { echo "SKIP: cannot link with lld: $(head -n1 "$T/cc")"; exit 77; }
	echo "# cannot link with lld (the GNU ld case passed): $(head -n1 "$T/cc")"
	exit 0
fi
packed "$T/split-lld" || fail "lld did not pack the code segment into a shared page"
c_cases "$T/split-lld"

# 3. a Go PIE linked by lld (external linking), the Go target of
# t-run-external.sh
command -v go >/dev/null || { echo "# go is not installed: the Go case is not run"; exit 0; }
sed -n '/^go_source <<.END.$/,/^END$/p' "$(dirname "$0")/t-run-external.sh" | sed '1d;$d' >"$T/split.go"
go_source <"$T/split.go"
go_build -buildmode=pie -ldflags='-linkmode=external -extldflags=-fuse-ld=lld' -o "$T/split-go-lld" .
packed "$T/split-go-lld" || fail "lld did not pack the Go program's code segment into a shared page"
run_case main.burnA main.burnB "$T/split-go-lld" 0.6
exit 0
