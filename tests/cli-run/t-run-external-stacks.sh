#!/bin/sh
# Call stacks in external mode (cli/sampler.c: the kernel's frame-pointer
# callchain, checked against the code): a static C program built with frame
# pointers shows the one function `leaf` under its two callers, main;mid
# (2/3 of the time) and main;other (1/3); a pure Go program shows
# main.burnA (2/3) and main.burnB (1/3) under main.main, and so does its
# stripped build (-ldflags="-s -w", also position-independent), named from
# .gopclntab; a cgo program whose C code keeps frame pointers shows the C
# function under main.burnA/main.burnB; --no-stacks
# records none.  Shares within 5 sd of the binomial count, samples >= 0.75
# x CPU seconds x rate.  A frame-pointer program's call to libc's strlen
# (which has no frame) keeps strlen's caller.
. "$(dirname "$0")/../cli-attach/lib.sh"
HZ=500

# perf events on one's own child: SKIP with the reason if refused here.
probe_perf

# stack_case NAME A B -- PROGRAM ARGS: run it externally, then in its folded
# stacks the samples whose stack ends with A (an extended regular
# expression for whole frames, root first) are 2/3 of those ending with A or B, and the samples cover the CPU
# time the shell's children used.
stack_case()
{
	name=$1 a=$2 b=$3
	shift 4
	rm -f "$T/p.data" "$T/p.folded"
	children_cpu >"$T/c0"
	"$PCPROF" run -o "$T/p.data" --hz $HZ --mode external "$@" >"$T/out" 2>"$T/err"
	rc=$?
	children_cpu >"$T/c1"
	cat "$T/err"
	[ $rc = 3 ] || fail "$name: exit status $rc, want the program's 3"
	"$PCPROF" export -f folded -o "$T/p.folded" "$T/p.data" || fail "$name: export"
	awk -v a="$a" -v b="$b" -v name="$name" '
		{ if ($1 ~ ("(^|;)" a "$")) na += $2; else if ($1 ~ ("(^|;)" b "$")) nb += $2; all += $2 }
		END {
		n = na + nb; want = n * 2 / 3; sd = sqrt(n * 2 / 9)
		lo = want - 5 * sd; hi = want + 5 * sd
		printf "%s: stacks ...;%s %d, ...;%s %d of %d samples (want %.1f, bounds %.1f..%.1f)\n",
			name, a, na, b, nb, all, want, lo, hi
		exit !(n >= 50 && na >= lo && na <= hi && n >= 0.9 * all) }' "$T/p.folded" ||
		{ sort -k2 -n -r "$T/p.folded" | head -n 20; fail "$name: the stacks do not show the 2:1 split"; }
	dump "$T/p.data"
	id=$(procs)
	ticks=$(field "$id" ticks)
	awk -v n="$ticks" -v c="$(echo "$(cat "$T/c1") - $(cat "$T/c0")" | bc)" -v hz=$HZ -v name="$name" 'BEGIN {
		want = 0.75 * c * hz
		printf "%s: %d samples for %.2f s CPU at %d Hz (want >= %.0f)\n", name, n, c, hz, want
		exit !(n >= want && n > 0) }' || fail "$name: too few samples"
}

# 1. static C with frame pointers: one leaf, two callers
cat >"$T/chain.c" <<'END'
#include <stdlib.h>
#include <time.h>

volatile double sink;

__attribute__((noinline)) void leaf(long n)
{
	double x = sink;
	for (long i = 0; i < n; i++)
		x = x * 1.0000001 + 1e-9;
	sink = x;
}

__attribute__((noinline)) void mid(long n)
{
	leaf(n);
	sink += 1; /* no tail call */
}

__attribute__((noinline)) void other(long n)
{
	leaf(n);
	sink += 1;
}

int main(int argc, char **argv)
{
	/* CPU seconds, not wall-clock ones: a loaded machine cannot starve
	 * the check of samples */
	double secs = argc > 1 ? atof(argv[1]) : 1;
	/* Each round a random length (2:1 all the same): a fixed round
	 * can lock to the sampling period on a quiet machine, and the
	 * samples then see the same phase of it again and again (seen:
	 * 79% for mid). */
	unsigned long r = 12345;
	while ((double)clock() < secs * CLOCKS_PER_SEC) {
		r = r * 6364136223846793005UL + 1442695040888963407UL;
		long n = 50000 + (long)((r >> 33) % 100000);
		mid(2 * n);
		other(n);
	}
	return 3;
}
END
cc -static -O1 -fno-omit-frame-pointer -fno-inline -o "$T/chain" "$T/chain.c" 2>"$T/cc" ||
	{ echo "SKIP: cannot link static programs: $(head -n1 "$T/cc")"; exit 77; }
stack_case static-c main\;mid\;leaf main\;other\;leaf -- "$T/chain" 1
# the walk ends at libc's start code, which has no frame pointer: [unknown]
# above it, never an address no function holds (a garbage link)
grep -q '0x' "$T/p.folded" &&
	{ cat "$T/p.folded"; fail "static-c: an unsymbolized frame in a stack"; }

# 1c. the same without frame pointers (-O2 -fomit-frame-pointer, as
# Debian builds): the kernel's walk fails at once, and the call-frame tables
# (.eh_frame) applied to the sample's registers and stack copy give the
# stacks, whole: from _start down
cc -static -O2 -fomit-frame-pointer -fno-inline -o "$T/chain-nofp" "$T/chain.c" ||
	fail "cc chain.c without frame pointers"
stack_case static-c-no-fp main\;mid\;leaf main\;other\;leaf -- "$T/chain-nofp" 1
awk '{ all += $2; if ($1 ~ /^_start;/) whole += $2 }
	END { printf "static-c-no-fp: %d of %d samples with stacks from _start\n", whole, all
	exit !(all >= 50 && whole >= 0.95 * all) }' "$T/p.folded" ||
	{ sort -k2 -n -r "$T/p.folded" | head; fail "static-c-no-fp: stacks end early"; }

# 1d. Debian's python3 (no frame pointers anywhere): its stacks reach
# _start through the interpreter's loop
PY=/usr/bin/python3
if [ -x "$PY" ]; then
	cat >"$T/burn.py" <<'END'
import resource, sys
def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
while cpu() < float(sys.argv[1]):
    leaf(20000)
END
	"$PCPROF" run -o "$T/p.data" --hz $HZ --mode external "$PY" "$T/burn.py" 0.6 2>"$T/err" ||
		{ cat "$T/err"; fail "python3: pcprof run"; }
	"$PCPROF" export -f folded -o "$T/p.folded" "$T/p.data" 2>/dev/null || fail "python3: export"
	awk '{ all += $2; if ($1 ~ /^_start;.*;_PyEval_EvalFrameDefault(;|$)/) whole += $2 }
		END { printf "python3: %d of %d samples with stacks from _start through the eval loop\n", whole, all
		exit !(all >= 50 && whole >= 0.9 * all) }' "$T/p.folded" ||
		{ sort -k2 -n -r "$T/p.folded" | head; fail "python3: stacks end early"; }
else
	echo "# no $PY: the python3 case is not run"
fi

# 1b. a frame-pointer program calling libc's strlen (no frame of its own,
# through the PLT): the walk alone would skip its caller, mid
cat >"$T/plt.c" <<'END'
#include <stdlib.h>
#include <string.h>
#include <time.h>

volatile size_t sink;
static char buf[1 << 16];

__attribute__((noinline)) void mid(void)
{
	for (int i = 0; i < 100; i++)
		sink += strlen(buf);
	sink += 1;
}

int main(int argc, char **argv)
{
	memset(buf, 'a', sizeof buf - 1);
	double secs = argc > 1 ? atof(argv[1]) : 1;
	while ((double)clock() < secs * CLOCKS_PER_SEC)
		mid();
	return 3;
}
END
cc -O1 -fno-omit-frame-pointer -fno-builtin -o "$T/plt" "$T/plt.c" || fail "cc plt.c"
"$PCPROF" run -o "$T/p.data" --hz $HZ --mode external "$T/plt" 0.5 2>"$T/err"
[ $? = 3 ] || { cat "$T/err"; fail "plt: exit status"; }
"$PCPROF" export -f folded -o "$T/p.folded" "$T/p.data" || fail "plt: export"
awk '$1 ~ /;strlen[^;]*$|;__strlen[^;]*$/ { n += $2; if ($1 ~ /(^|;)main;mid;[^;]*$/) k += $2 }
	END { printf "plt: %d of %d samples in strlen under main;mid\n", k, n
	exit !(n >= 100 && k >= 0.95 * n) }' "$T/p.folded" ||
	{ sort -k2 -n -r "$T/p.folded" | head; fail "plt: strlen's caller mid is missing"; }

# 2. --no-stacks: no frames
rm -f "$T/p.data"
"$PCPROF" run -o "$T/p.data" --hz $HZ --mode external --no-stacks "$T/chain" 0.2 2>"$T/err"
[ $? = 3 ] || fail "--no-stacks: exit status"
dump "$T/p.data"
grep -q '^stack ' "$T/dump" && { head "$T/dump"; fail "--no-stacks recorded stacks"; }
"$PCPROF" export -f folded -o "$T/ns.folded" "$T/p.data" || fail "--no-stacks: export"
grep -q 'main;' "$T/ns.folded" && fail "--no-stacks: folded stacks have callers"

# 3. pure Go, and its stripped build
command -v go >/dev/null || { echo "SKIP: go is not installed (the C cases passed)"; exit 77; }
sed -n '/^go_source <<.END.$/,/^END$/p' "$(dirname "$0")/t-run-external.sh" | sed '1d;$d' >"$T/split.go"
go_source <"$T/split.go"
grep -q 'func burnA' "$T/gosrc/main.go" || fail "no Go program found in t-run-external.sh"
go_build -o "$T/split-go" .
go_build -ldflags="-s -w" -o "$T/split-go-stripped" .
stack_case go main.main\;main.burnA main.main\;main.burnB -- "$T/split-go" 0.6
readelf -S "$T/split-go-stripped" 2>/dev/null | grep -q '\.symtab' &&
	fail "the stripped Go build has a .symtab"
stack_case go-stripped main.main\;main.burnA main.main\;main.burnB -- "$T/split-go-stripped" 0.6
"$PCPROF" report --callers main.burnA "$T/p.data" >"$T/report" || fail "report --callers"
grep -q 'main\.main' "$T/report" || { cat "$T/report"; fail "report: main.burnA's caller is not main.main"; }
# a position-independent stripped build keeps its table in
# .data.rel.ro.gopclntab
if (cd "$T/gosrc" && CGO_ENABLED=0 GOFLAGS=-mod=mod GOCACHE="$T/gocache" GOPATH="$T/gopath" \
	GOPROXY=off GOTOOLCHAIN=local "$GO" build -buildmode=pie -ldflags="-s -w" \
	-o "$T/split-go-pie" .) >"$T/gobuild" 2>&1; then
	chmod -R u+w "$T/gopath" 2>/dev/null
	stack_case go-pie-stripped main.main\;main.burnA main.main\;main.burnB -- "$T/split-go-pie" 0.4
else
	echo "# go build -buildmode=pie failed here, not tested: $(head -n1 "$T/gobuild")"
fi

# 4. cgo, its C code built with frame pointers: the C function under the Go
# callers, through runtime.asmcgocall (a stack switcher)
command -v cc >/dev/null || { echo "# no C compiler: the cgo case is not run"; exit 0; }
mkdir -p "$T/cgosrc"
printf 'module cgosplit\n\ngo 1.13\n' >"$T/cgosrc/go.mod"
cat >"$T/cgosrc/main.go" <<'END'
package main

/*
double burnc(long n)
{
	double x = 0;
	for (long i = 0; i < n; i++)
		x = x * 1.0000001 + 1e-9;
	return x;
}
*/
import "C"

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

func cpu() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// rounds of random length, 2:1 all the same (see t-run-external.sh)
var n = 20000
var r uint64 = 12345

//go:noinline
func burnA() float64 { return float64(C.burnc(C.long(2 * n))) }

//go:noinline
func burnB() float64 { return float64(C.burnc(C.long(n))) }

func main() {
	secs, _ := strconv.ParseFloat(os.Args[1], 64)
	s := 0.0
	for cpu() < secs {
		r = r*6364136223846793005 + 1442695040888963407
		n = 10000 + int((r>>33)%20000)
		s += burnA() + burnB()
	}
	fmt.Printf("beats=%d maxgap_ms=0\n", int(s))
	os.Exit(3)
}
END
if (cd "$T/cgosrc" && CGO_ENABLED=1 CGO_CFLAGS="-O2 -fno-omit-frame-pointer" GOFLAGS=-mod=mod \
	GOCACHE="$T/gocache" GOPATH="$T/gopath" GOPROXY=off GOTOOLCHAIN=local \
	"$GO" build -o "$T/split-cgo" .) >"$T/gobuild" 2>&1; then
	chmod -R u+w "$T/gopath" 2>/dev/null
	stack_case cgo 'main\.main;main\.burnA;.*;burnc' 'main\.main;main\.burnB;.*;burnc' -- "$T/split-cgo" 0.6
else
	echo "# cgo build failed here, not tested: $(head -n1 "$T/gobuild")"
fi
exit 0
