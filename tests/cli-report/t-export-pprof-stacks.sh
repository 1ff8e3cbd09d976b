#!/bin/sh
# pprof export of real stacks with inline frames, read by go tool pprof:
# inltarget.c is copied into $T and built there with -O2 -g (so that
# pprof -list finds its source), profiled at 1000 Hz (hundreds of samples,
# nearly all in spin_step, inlined into churn).  -top -cum: churn's
# cumulative time holds spin_step's, marked (inline) by pprof; -list shows
# spin_step's samples on its own lines (BODY) and churn's on the call
# (CALL); -peek and -traces name churn as spin_step's caller; -raw: one
# location holds both functions (innermost first), functions start at
# their declaration lines, the mapping has the executable's build-id and
# the [IN] flag.  --no-inline: no inline function, no location of two
# lines, no [IN].
. "$(dirname "$0")/lib.sh"
command -v go >/dev/null || skip "go not installed (golang-go), needed for go tool pprof"
command -v cc >/dev/null || skip "cc not installed: no program to profile"
export HOME="$T" GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS= GOPROXY=off GOTOOLCHAIN=local
export PPROF_BINARY_PATH="$T/none" PPROF_TMPDIR="$T"
cp tests/cli-report/inltarget.c "$T/inltarget.c"
(cd "$T" && cc -O2 -g -o inl inltarget.c) 2>"$T/err" || fail "cc: $(cat "$T/err")"
PROFIL_HZ=1000 "$PCPROF" run -q -o "$T/i.data" "$T/inl" 1500000 >"$T/runout" 2>&1 ||
	fail "pcprof run: $(cat "$T/runout")"
"$PCPROF" export -f pprof -o "$T/p.pb.gz" "$T/i.data" 2>"$T/err" || fail "export: $(cat "$T/err")"
"$PCPROF" export -f pprof --no-inline -o "$T/n.pb.gz" "$T/i.data" 2>"$T/err" ||
	fail "export --no-inline: $(cat "$T/err")"
pprof() { # file output options...
	f=$1 o=$2
	shift 2
	go tool pprof "$@" "$f" >"$T/$o" 2>"$T/perr" || fail "pprof $*: $(cat "$T/perr")"
	grep -v '^Total: ' "$T/perr" | grep -q . && fail "pprof $* complains: $(cat "$T/perr")"
	return 0
}
body=$(grep -n 'BODY \*/$' "$T/inltarget.c" | cut -d: -f1 | tr '\n' ' ')
call=$(grep -n 'CALL \*/$' "$T/inltarget.c" | cut -d: -f1)
decl=$(grep -n '^static inline .* spin_step(' "$T/inltarget.c" | cut -d: -f1)
cdecl=$(grep -n ' churn(unsigned long n)$' "$T/inltarget.c" | cut -d: -f1)

# -top -cum: "flat flat% sum% cum cum% name..."
pprof "$T/p.pb.gz" top -top -cum -nodefraction=0
in=$(awk '$6 == "spin_step" && $7 == "(inline)" { print $1, $4 }' "$T/top")
[ -n "$in" ] || fail "no 'spin_step (inline)': $(cat "$T/top")"
ch=$(awk '$6 == "churn" && NF == 6 { print $4 }' "$T/top")
[ -n "$ch" ] || fail "no churn: $(cat "$T/top")"
set -- $in
awk -v a="${1%ms}" -v b="${ch%ms}" 'BEGIN { exit !(a + 0 >= 100 && b + 0 >= a + 0) }' ||
	fail "spin_step flat $1, churn cum $ch: $(cat "$T/top")"

# -list: the samples on spin_step's own lines, and churn's on the call
pprof "$T/p.pb.gz" ls -list '^spin_step$'
grep -q "^ROUTINE =* spin_step in $T/inltarget.c\$" "$T/ls" || fail "-list spin_step: $(cat "$T/ls")"
awk '$1 != "." && $3 ~ /^[0-9]+:$/ { print $3 }' "$T/ls" | tr -d : >"$T/hot"
[ -s "$T/hot" ] || fail "-list spin_step shows no sampled line: $(cat "$T/ls")"
while read -r l; do
	case " $body " in
	*" $l "*) ;;
	*) fail "-list spin_step: samples on line $l, not on its body ($body): $(cat "$T/ls")" ;;
	esac
done <"$T/hot"
pprof "$T/p.pb.gz" lc -list '^churn$'
awk -v l="$call:" '$3 == l && $2 != "."' "$T/lc" | grep -q . ||
	fail "-list churn: nothing on the call (line $call): $(cat "$T/lc")"

# -peek and -traces: churn calls spin_step
pprof "$T/p.pb.gz" pk -peek '^spin_step$'
# (pprof marks the inlined call: "churn (inline)" above "spin_step")
awk '/\| +churn( \(inline\))?$/ { c = 1 } /\| spin_step( \(inline\))?$/ { s = c }
	END { exit !s }' "$T/pk" ||
	fail "-peek: $(cat "$T/pk")"
pprof "$T/p.pb.gz" tr -traces
awk '$2 == "spin_step" && $3 == "(inline)" { getline; if ($1 == "churn") { getline
	if ($1 == "main") ok = 1 } } END { exit !ok }' "$T/tr" || fail "-traces: $(cat "$T/tr")"

# -raw: the location of two lines, start lines, the mapping
pprof "$T/p.pb.gz" raw -raw
awk -v a="spin_step $T/inltarget.c:" -v d="s=$decl" -v b="churn $T/inltarget.c:$call" \
	-v cd="s=$cdecl" 'index($0, a) && $NF == d { getline; if (index($0, b) && $NF == cd) ok = 1 }
	END { exit !ok }' "$T/raw" || fail "-raw: no location spin_step (s=$decl) in churn (s=$cdecl): $(cat "$T/raw")"
if command -v readelf >/dev/null; then
	id=$(readelf -n "$T/inl" | awk '/Build ID:/ { print $3 }')
	grep -Eq "^1: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ $T/inl $id \[FN\]\[FL\]\[LN\]\[IN\]\$" "$T/raw" ||
		fail "-raw: mapping 1 is not $T/inl $id with [IN]: $(cat "$T/raw")"
fi

# --no-inline
pprof "$T/n.pb.gz" ntop -top -nodefraction=0
grep -q 'spin_step' "$T/ntop" && fail "--no-inline has spin_step: $(cat "$T/ntop")"
pprof "$T/n.pb.gz" nraw -raw
awk '/^Locations/ { on = 1; next } /^Mappings/ { on = 0 } on && $1 !~ /^[0-9]+:$/' "$T/nraw" |
	grep -q . && fail "--no-inline: a location of two lines: $(cat "$T/nraw")"
grep -q '\[IN\]' "$T/nraw" && fail "--no-inline: [IN]: $(cat "$T/nraw")"
pprof "$T/n.pb.gz" nlc -list '^churn$'
awk -v l="$call:" '$3 == l && $1 != "."' "$T/nlc" | grep -q . ||
	fail "--no-inline -list churn: no samples of its own on the call (line $call): $(cat "$T/nlc")"
exit 0
