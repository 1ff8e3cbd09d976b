#!/bin/sh
# pcprof export --format pprof: a gzipped profile.proto that `go tool pprof`
# reads without the binaries (pre-symbolized): the executable's mapping
# first, the fixture's exact times per function, source lines, and the
# thread labels (pid and tid numbers, process and thread names; -tagfocus
# slices by them).  No network: go runs offline with its caches in $T.
. "$(dirname "$0")/lib.sh"
command -v go >/dev/null || skip "go not installed (golang-go), needed for go tool pprof"
export HOME="$T" GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS= GOPROXY=off GOTOOLCHAIN=local
export PPROF_BINARY_PATH="$T/none" PPROF_TMPDIR="$T"

"$PCPROF" export --format pprof -o "$T/p.pb.gz" "$T/fx.data" 2>"$T/err" ||
	fail "export exit $?: $(cat "$T/err")"
[ "$(od -An -tx1 -N2 "$T/p.pb.gz" | tr -d ' ')" = 1f8b ] || fail "not gzip"

go tool pprof -top "$T/p.pb.gz" >"$T/top" 2>"$T/perr" || fail "pprof -top: $(cat "$T/perr")"
grep -q '^File: mkfixture$' "$T/top" || fail "mapping 1 is not the executable: $(head -3 "$T/top")"
grep -q '^Type: cpu$' "$T/top" || fail "sample type"
secs=$(awk -v n="$(expect total)" 'BEGIN { printf "%.2f", n / 1000 }')
grep -q "Total samples = ${secs}s" "$T/top" || fail "total: $(grep Total "$T/top"), want $secs s"
first=$(awk '/flat%/ { getline; print; exit }' "$T/top")
set -- $first
[ "$6" = fix_hot ] && [ "$1" = 70s ] || fail "first row: $first"
flat() { # function seconds
	awk -v f="$1" -v s="$2" '$6 == f && $1 == s { ok = 1 } END { exit !ok }' "$T/top" ||
		fail "pprof: no $1 with $2: $(cat "$T/top")"
}
flat hot_lib_spin 21s
flat fix_warm 5s
flat hot_lib_inner 5s
flat fix_cold 1s
# pprof drops rows under 0.5% of the total from -top; ask for them all
go tool pprof -top -nodefraction=0 "$T/p.pb.gz" >"$T/top" 2>"$T/perr" || fail "pprof -top all"
flat cold_lib_spin 0.80s
flat "$(expect cold_inner_label)" 0.80s
flat getppid 0.50s
flat dbg_lib_inner 0.70s
flat 0x1234 0.10s

go tool pprof -top -lines "$T/p.pb.gz" >"$T/lines" 2>"$T/perr" || fail "pprof -lines"
grep -Eq ' fix_hot .*mkfixture\.c:[0-9]+$' "$T/lines" || fail "no source line: $(cat "$T/lines")"

go tool pprof -tags "$T/p.pb.gz" >"$T/tags" 2>"$T/perr" || fail "pprof -tags"
# the child process (3000 samples) and the worker thread have their labels
grep -Eq '^ *pid: Total ' "$T/tags" && grep -Eq '^ +3\.0s \( *[0-9.]+%\): [0-9]+$' "$T/tags" &&
	grep -Eq '^ *thread: Total ' "$T/tags" && grep -Eq '\): worker$' "$T/tags" ||
	fail "labels: $(cat "$T/tags")"
grep -Eq '^ *process: Total ' "$T/tags" && grep -Eq '\): mkfixture$' "$T/tags" ||
	fail "no process label: $(cat "$T/tags")"
# -tagfocus on the worker thread keeps only its samples: 14 s of the
# first process's (hot_lib_spin 6 s, hot_lib_inner 5 s, fix_warm 3 s)
go tool pprof -top -nodefraction=0 -tagfocus=thread=worker "$T/p.pb.gz" >"$T/top" 2>"$T/perr" ||
	fail "pprof -tagfocus: $(cat "$T/perr")"
grep -q 'Showing nodes accounting for 14s, ' "$T/top" || fail "tagfocus thread: $(cat "$T/top")"
flat hot_lib_spin 6s
flat hot_lib_inner 5s
flat fix_warm 3s
! grep -q ' fix_hot$' "$T/top" || fail "fix_hot (main thread) kept: $(cat "$T/top")"

# A profile bigger than one chunk (4 MiB of protobuf) is written as several
# gzip members, compressed in parallel (cli/gzpar.c); concatenated they are
# one gzip file, which gzip and go tool pprof read whole: every sample.
"$FIX" samples "$T/big.data" 150000 || fail "mkfixture samples"
"$PCPROF" export --format pprof -o "$T/big.pb.gz" "$T/big.data" 2>"$T/err" ||
	fail "big export exit $?: $(cat "$T/err")"
gzip -t "$T/big.pb.gz" || fail "big export: gzip -t"
members=$(od -An -v -tx1 "$T/big.pb.gz" | tr -s ' \n' ' ' | grep -o '1f 8b 08' | wc -l)
[ "$members" -ge 2 ] || fail "big export: $members gzip member(s), want several"
go tool pprof -top -sample_index=samples "$T/big.pb.gz" >"$T/top" 2>"$T/perr" ||
	fail "pprof -top big: $(cat "$T/perr")"
grep -q 'Total samples = 150000 *$' "$T/top" || fail "big export: $(sed -n 1,8p "$T/top")"
exit 0
