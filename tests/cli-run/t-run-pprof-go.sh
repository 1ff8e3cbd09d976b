#!/bin/sh
# go tool pprof on the pprof export of Go programs recorded by pcprof run
# (external mode, which picks itself for Go): the pure Go program of
# t-run-external.sh (main.burnA 2/3 and main.burnB 1/3 of the time, one
# loop each), also built position-independent (-top -cum, -list and
# -disasm), and the cgo program of t-run-external-stacks.sh (the C
# function burnc under both).  Checked with the real pprof:
#   -top -cum     main.main above the hot functions, its cum holding theirs
#                 (98% at least),
#                 the 2:1 split within 5 sd of the binomial count;
#   -list         main.burnA's own source file, 90% of its samples at least on the
#                 lines of its loop (at their line numbers in main.go);
#                 burnc's C lines in the cgo program;
#   -disasm       instructions of main.burnA (pprof reads the binary named
#                 by the mapping, or found through PPROF_BINARY_PATH after
#                 it moved) holding all of its samples;
#   -http         the top, flame graph, source and disassembly pages (and
#                 the graph, with Graphviz) name the hot functions.
# Counts are samples (-sample_index=samples).  No network: go runs offline
# with its caches in $T, the web UI on 127.0.0.1.
. "$(dirname "$0")/../cli-attach/lib.sh"
HZ=1000
GO=$(command -v go) || { echo "SKIP: go is not installed: no Go program, no go tool pprof"; exit 77; }
export HOME="$T" GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS= GOPROXY=off GOTOOLCHAIN=local
export PPROF_TMPDIR="$T"
. "$(dirname "$0")/../cli-report/pprofweb.sh"

# perf events on one's own child: SKIP with the reason if refused here.
probe_perf

# the two programs, from the tests that own them
mkdir -p "$T/cgosrc"
printf 'module cgosplit\n\ngo 1.13\n' >"$T/cgosrc/go.mod"
sed -n '/^go_source <<.END.$/,/^END$/p' "$(dirname "$0")/t-run-external.sh" | sed '1d;$d' >"$T/split.go"
go_source <"$T/split.go"
grep -q 'func burnA' "$T/gosrc/main.go" || fail "no Go program found in t-run-external.sh"
sed -n '/^cat >"$T\/cgosrc\/main.go" <<.END.$/,/^END$/p' "$(dirname "$0")/t-run-external-stacks.sh" |
	sed '1d;$d' >"$T/cgosrc/main.go"
grep -q 'double burnc' "$T/cgosrc/main.go" || fail "no cgo program found in t-run-external-stacks.sh"
# gobuild DIR OUT CGO [ARGS...]: build DIR's program (CGO_ENABLED=CGO,
# go build ARGS) into OUT
gobuild()
{
	dir=$1 out=$2 cgo=$3
	shift 3
	(cd "$dir" && CGO_ENABLED=$cgo CGO_CFLAGS="-O2 -g -fno-omit-frame-pointer" GOFLAGS=-mod=mod \
		nice "$GO" build "$@" -o "$out" .) >"$T/gobuild" 2>&1
	rc=$?
	chmod -R u+w "$T/gopath" 2>/dev/null
	return $rc
}
gobuild "$T/gosrc" "$T/split-go" 0 || { echo "SKIP: go build failed: $(head -n3 "$T/gobuild")"; exit 77; }

# record NAME PROGRAM SECS: pcprof run, pprof export to $T/NAME.pb.gz
record()
{
	"$PCPROF" run -o "$T/$1.data" --hz $HZ "$2" "$3" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc = 3 ] || fail "$1: pcprof run exit $rc, want the program's 3: $(cat "$T/err")"
	grep -q '(external: a Go binary' "$T/err" || fail "$1: not external mode: $(cat "$T/err")"
	"$PCPROF" export -f pprof -o "$T/$1.pb.gz" "$T/$1.data" 2>"$T/err" ||
		fail "$1: export: $(cat "$T/err")"
}

# pp ARGS...: go tool pprof counting samples, into $T/pp
pp()
{
	go tool pprof -sample_index=samples "$@" >"$T/pp" 2>"$T/perr" ||
		fail "go tool pprof $*: $(cat "$T/perr")"
}

# cumtop FILE: -top -cum of every node as "rank flat cum name" in $T/cum
cumtop()
{
	pp -top -cum -nodefraction=0 -edgefraction=0 "$1"
	awk '/ flat%/ { on = 1; next }
		on && NF >= 6 { name = $6; for (i = 7; i <= NF; i++) name = name " " $i
			print ++r, $1 == "0" ? 0 : $1, $4, name }' "$T/pp" >"$T/cum"
	[ -s "$T/cum" ] || fail "-top -cum: no rows: $(cat "$T/pp")"
}
# col NAME N: column N (1 rank, 2 flat, 3 cum) of function NAME in $T/cum
col()
{
	v=$(awk -v f="$1" -v c="$2" '{ r = $1; n = $2; k = $3; $1 = $2 = $3 = ""; sub(/^ +/, "")
		if ($0 == f) { print c == 1 ? r : c == 2 ? n : k; exit } }' "$T/cum")
	[ -n "$v" ] || fail "-top -cum: no $1: $(cat "$T/pp")"
	echo "$v"
}
# split NAME A B: A is 2/3 of A + B within 5 sd of the binomial count
split()
{
	awk -v a="$2" -v b="$3" -v name="$1" 'BEGIN {
		n = a + b; want = n * 2 / 3; sd = sqrt(n * 2 / 9)
		printf "%s: %d of %d (want %.1f, bounds %.1f..%.1f)\n", name, a, n, want, want - 5 * sd, want + 5 * sd
		exit !(n >= 50 && a >= want - 5 * sd && a <= want + 5 * sd) }' ||
		fail "$1: no 2:1 split: $(cat "$T/pp")"
}
# covers CUM PART: a caller's cum CUM holds PART, its callees' samples: 98%
# of them at least, for the odd sample whose stack missed the caller
covers()
{
	[ $((100 * $1)) -ge $((98 * $2)) ]
}
# routine_cum FILE: the cum total on the line after "ROUTINE ====" (its
# flat may lack a sample of Go's asynchronous preemption, in cum only)
routine_cum()
{
	awk '/^ROUTINE =/ { getline; print $2 == "." ? 0 : $2; exit }' "$1"
}
# disasm_sum FILE: the samples of FILE's instruction rows (ADDRESS: ...)
disasm_sum()
{
	awk '$3 ~ /^[0-9a-f]+:$/ && $1 != "." { s += $1 } END { print s + 0 }' "$1"
}

# gocheck NAME: -top -cum, -list and -disasm of $T/NAME.pb.gz, the pure Go
# program; main.burnA's samples in $a, its loop body's line in $lbody
gocheck()
{
	cumtop "$T/$1.pb.gz"
	mm=$(col main.main 1) ma=$(col main.burnA 1) mb=$(col main.burnB 1)
	[ "$mm" -lt "$ma" ] && [ "$mm" -lt "$mb" ] ||
		fail "$1 -top -cum: main.main (row $mm) not above main.burnA ($ma) and main.burnB ($mb): $(cat "$T/pp")"
	a=$(col main.burnA 3) b=$(col main.burnB 3) m=$(col main.main 3)
	# leaves: cum is flat, but for Go's asynchronous preemption, which
	# interrupts them (runtime.asyncPreempt called from their loop)
	pre=$(awk '$4 == "runtime.asyncPreempt.abi0" || $4 == "runtime.asyncPreempt" { n += $3 }
		END { print n + 0 }' "$T/cum")
	[ $((a - $(col main.burnA 2) + b - $(col main.burnB 2))) -le "$pre" ] ||
		fail "$1 -top -cum: a leaf's cum is not its flat (preemption: $pre): $(cat "$T/pp")"
	covers "$m" $((a + b)) || fail "$1 -top -cum: main.main's cum $m < main.burnA's $a + main.burnB's $b"
	split "$1 -top -cum: main.burnA" "$a" "$b"

	# -list: the loop's lines in main.go hold main.burnA's samples
	pp -list 'main\.burnA$' "$T/$1.pb.gz"
	cp "$T/pp" "$T/list"
	grep -q "^ROUTINE =* main\.burnA in $T/gosrc/main\.go\$" "$T/list" ||
		fail "$1 -list main.burnA: not its source file (a Go binary's lines: DWARF, else .gopclntab): $(cat "$T/list")"
	[ "$(routine_cum "$T/list")" = "$a" ] || fail "$1 -list main.burnA: cum $(routine_cum "$T/list"), -top said $a"
	# the loop of burnA: its for line and its body (the first of the two in
	# the file), at their own line numbers
	lfor=$(grep -n 'for i := 0; i < 2\*n; i++ {' "$T/gosrc/main.go" | head -n1 | cut -d: -f1)
	lbody=$(grep -n 'x = x\*1.0000001 + 1e-9' "$T/gosrc/main.go" | head -n1 | cut -d: -f1)
	awk -v f="$lfor" -v b="$lbody" -v total="$a" -v name="$1" '
		$3 == f ":" || $3 == b ":" { if ($1 != ".") s += $1; if ($3 == b ":" && $1 != ".") hot = $1
			if ($3 == b ":" && index($0, "x = x*1.0000001 + 1e-9")) text = 1 }
		END { printf "%s -list: %d of %d samples on lines %d and %d (%d on the body)\n", name, s, total, f, b, hot
		exit !(text && hot > 0 && s >= 0.9 * total) }' "$T/list" ||
		fail "$1 -list main.burnA: the loop's lines $lfor/$lbody do not hold its samples: $(cat "$T/list")"

	# -disasm: pprof reads the instructions from the binary the mapping names
	pp -disasm 'main\.burnA' "$T/$1.pb.gz"
	cp "$T/pp" "$T/dis"
	grep -q '^ROUTINE =* main\.burnA$' "$T/dis" || fail "$1 -disasm main.burnA: $(cat "$T/dis")"
	# its own samples: the flat of -top (cum may hold a preemption, above)
	fa=$(col main.burnA 2)
	[ "$(disasm_sum "$T/dis")" = "$fa" ] ||
		fail "$1 -disasm main.burnA: instructions hold $(disasm_sum "$T/dis") samples, want $fa: $(cat "$T/dis")"
	# pprof names a line at the first instruction of each run of them; the
	# samples skid to the one after the slow multiply (a CI run under
	# ASan: 268 on the instruction after line 31's first, which had none),
	# so an instruction belongs to the last line named above it
	awk -v b="$lbody" '$3 ~ /^[0-9a-f]+:$/ { if (match($0, /main\.go:[0-9]+$/)) line = substr($0, RSTART + 8)
		if (line == b && $1 != ".") hot = 1 } END { exit !hot }' "$T/dis" ||
		fail "$1 -disasm main.burnA: no sampled instruction of line $lbody: $(cat "$T/dis")"
}

# ---- 1. pure Go --------------------------------------------------------------
record go "$T/split-go" 0.5
gocheck go
# ... and through PPROF_BINARY_PATH once the binary has moved
mkdir "$T/bin"
mv "$T/split-go" "$T/bin/"
PPROF_BINARY_PATH="$T/bin" pp -disasm 'main\.burnA' "$T/go.pb.gz"
# (its instructions hold burnA's flat, $fa of gocheck: cum may hold a
# preemption sample, 309 against 308 in one run)
[ "$(disasm_sum "$T/pp")" = "$fa" ] ||
	fail "-disasm with PPROF_BINARY_PATH: $(disasm_sum "$T/pp") samples, want $fa: $(cat "$T/pp")"
mv "$T/bin/split-go" "$T/split-go"

# -http
web_start "$T/go.pb.gz"
web_get top "$T/w.top"
for n in main.main main.burnA main.burnB; do
	grep -qF "\"$n\"" "$T/w.top" || fail "-http top: no $n"
done
flame=$(web_flame)
web_get "$flame" "$T/w.flame"
grep -qF 'main.burnA' "$T/w.flame" && grep -qF 'main.main' "$T/w.flame" ||
	fail "-http $flame: no main.burnA under main.main"
web_get 'source?f=main\.burnA$' "$T/w.src"
grep -qF "$T/gosrc/main.go" "$T/w.src" || fail "-http source: not main.go: $(head -c 600 "$T/w.src")"
# the body's line: its number, samples (not "."), its text
grep -Eq "<span class=line> *$lbody</span> <span class=livesrc> *[0-9.]+m?s " "$T/w.src" &&
	grep -qF 'x = x*1.0000001 + 1e-9' "$T/w.src" || fail "-http source: line $lbody without samples"
web_get 'disasm?f=main\.burnA' "$T/w.dis"
grep -Eq '[0-9.]+m?s +[0-9a-f]+: .*main\.go:'"$lbody" "$T/w.dis" ||
	fail "-http disasm: no sampled instruction of line $lbody"
web_graph "$T/w.graph" main.burnA main.main
web_stop

# ---- 1b. pure Go, position-independent -------------------------------------
# go build -buildmode=pie linked by the C linker (-linkmode=external, as cgo
# programs are): .gopclntab is inside .data.rel.ro under no name, and the
# export had no source lines (-list: "No source information") before pcprof
# looked for it there
if ! command -v cc >/dev/null; then
	echo "# no C compiler: the externally linked PIE build is not tested"
elif ! gobuild "$T/gosrc" "$T/split-go-pie" 0 -buildmode=pie -ldflags=-linkmode=external; then
	echo "# the externally linked PIE build failed here, not tested: $(head -n3 "$T/gobuild")"
else
	[ "$(od -An -tx1 -j16 -N1 "$T/split-go-pie" | tr -d ' ')" = 03 ] || fail "split-go-pie: not position-independent"
	record go-pie "$T/split-go-pie" 0.5
	gocheck go-pie
fi

# ---- 2. cgo ------------------------------------------------------------------
command -v cc >/dev/null || { echo "# no C compiler: the cgo case is not run"; exit 0; }
gobuild "$T/cgosrc" "$T/split-cgo" 1 || { echo "# cgo build failed here, not tested: $(head -n1 "$T/gobuild")"; exit 0; }
record cgo "$T/split-cgo" 0.5
cumtop "$T/cgo.pb.gz"
# burnc's cum can equal main.main's (a tie, in name order); it holds 90% at
# least of main.burnA's and main.burnB's (the rest: the cgo call itself)
mm=$(col main.main 1) ma=$(col main.burnA 1)
[ "$mm" -lt "$ma" ] ||
	fail "cgo -top -cum: main.main (row $mm) not above main.burnA ($ma): $(cat "$T/pp")"
a=$(col main.burnA 3) b=$(col main.burnB 3) m=$(col main.main 3) c=$(col burnc 2)
covers "$m" $((a + b)) && [ "$(col burnc 3)" = "$c" ] && covers "$m" "$c" && [ $((10 * c)) -ge $((9 * (a + b))) ] ||
	fail "cgo -top -cum: cum of main.main $m, main.burnA $a, main.burnB $b, burnc $c: $(cat "$T/pp")"
split "cgo -top -cum: main.burnA" "$a" "$b"
# burnc's loop line in the cgo preamble of main.go
pp -list '^burnc$' "$T/cgo.pb.gz"
lc=$(grep -n 'for (long i = 0; i < n; i++)' "$T/cgosrc/main.go" | cut -d: -f1)
grep -q "^ROUTINE =* burnc in $T/cgosrc/main\.go\$" "$T/pp" ||
	fail "cgo -list burnc: not main.go: $(cat "$T/pp")"
awk -v l="$lc" -v c="$c" '$3 ~ /^[0-9]+:$/ && $1 != "." { s += $1 } $3 == l ":" && $1 != "." { k = $1 }
	END { printf "cgo -list: %d of %d samples of burnc on line %d\n", k, c, l; exit !(k > 0 && s >= 0.9 * c) }' "$T/pp" ||
	fail "cgo -list burnc: no samples on line $lc: $(cat "$T/pp")"
# main.burnA's Go line (its file is main.go, not some C file of the runtime)
pp -list 'main\.burnA$' "$T/cgo.pb.gz"
grep -q "^ROUTINE =* main\.burnA in $T/cgosrc/main\.go\$" "$T/pp" ||
	fail "cgo -list main.burnA: not main.go: $(cat "$T/pp")"
la=$(grep -n '^func burnA' "$T/cgosrc/main.go" | cut -d: -f1)
grep -Eq "^ +([0-9]+|\.) +$a +$la:" "$T/pp" || fail "cgo -list main.burnA: line $la without cum $a: $(cat "$T/pp")"
pp -disasm 'burnc' "$T/cgo.pb.gz"
awk '/^ROUTINE =* burnc$/ { on = 1; next } /^ROUTINE/ { on = 0 } on' "$T/pp" >"$T/dis"
[ "$(disasm_sum "$T/dis")" = "$c" ] ||
	fail "cgo -disasm burnc: $(disasm_sum "$T/dis") samples in instructions, want $c: $(cat "$T/pp")"
web_start "$T/cgo.pb.gz"
web_get top "$T/w.top"
for n in main.main main.burnA burnc; do
	grep -qF "\"$n\"" "$T/w.top" || fail "cgo -http top: no $n"
done
web_get "$flame" "$T/w.flame"
grep -qF 'burnc' "$T/w.flame" || fail "cgo -http $flame: no burnc"
web_get 'source?f=^burnc$' "$T/w.src"
grep -Eq "<span class=line> *$lc</span> <span class=livesrc> *[0-9.]+m?s " "$T/w.src" ||
	fail "cgo -http source: burnc's line $lc without samples"
web_stop
exit 0
