#!/bin/sh
# Go inline frames from .gopclntab: in a pure Go program, burn calls stepA
# twice as often as stepB, both inlined into it, each with mix inlined into
# it in turn.  The profile must show burn;stepA;mix and burn;stepB;mix (with
# what interrupts them above: Go's asynchronous preemption) with
# a 2:1 split, stepA and mix marked [inline], as well in a build stripped
# of its symbols and DWARF (-ldflags=-s -w), where .gopclntab is all there
# is, as in a plain one (where libdw finds no unit for Go's addresses);
# and in position-independent builds (-buildmode=pie), plain and stripped,
# linked by Go (the table a section of its own) and, with a C compiler, by
# the C linker (-linkmode=external, as cgo programs are: the table inside
# .data.rel.ro under no name).  pcprof report -l must give mix's body line
# in main.go, as main.mix [inline], in each of them.
. "$(dirname "$0")/../cli-attach/lib.sh"
HZ=500
SECS=1
probe_perf

go_source <<'END'
var sink float64

func mix(x float64) float64 {
	return x*1.0000001 + 1e-9
}

// stepA and stepB: the same code, each inlined into burn with mix
// inlined into it; burn calls stepA twice as often.  Rounds of random
// length, so that they cannot lock to the sampling period.
func stepA(x float64) float64 {
	return mix(x)
}

func stepB(x float64) float64 {
	return mix(x)
}

var n = 20000
var r uint64 = 12345

//go:noinline
func burn() {
	x := sink
	for i := 0; i < 2*n; i++ {
		x = stepA(x)
	}
	for i := 0; i < n; i++ {
		x = stepB(x)
	}
	sink = x
}

func main() {
	secs, _ := strconv.ParseFloat(os.Args[1], 64)
	for cpu() < secs {
		r = r*6364136223846793005 + 1442695040888963407
		n = 10000 + int((r>>33)%20000)
		burn()
	}
	fmt.Println("done")
	os.Exit(3)
}
END
go_build -gcflags=-m -o "$T/inline" .
for call in 'call to stepA' 'call to stepB' 'call to mix'; do
	grep -q "inlining $call" "$T/gobuild" ||
		{ echo "SKIP: this Go does not inline the $call: $(cat "$T/gobuild")"; exit 77; }
done

go_build -gcflags=-m -ldflags="-s -w" -o "$T/inline-s" .
progs="inline inline-s inline-pie inline-pie-s"
go_build -gcflags=-m -buildmode=pie -o "$T/inline-pie" .
go_build -gcflags=-m -buildmode=pie -ldflags="-s -w" -o "$T/inline-pie-s" .
if command -v cc >/dev/null; then
	go_build -gcflags=-m -buildmode=pie -ldflags="-linkmode=external" -o "$T/inline-pie-ext" .
	go_build -gcflags=-m -buildmode=pie -ldflags="-s -w -linkmode=external" -o "$T/inline-pie-ext-s" .
	progs="$progs inline-pie-ext inline-pie-ext-s"
else
	echo "# no C compiler: the externally linked PIE builds are not tested"
fi
# the PIE builds are position-independent (ELF type ET_DYN, little-endian)
for prog in $progs; do
	case $prog in *pie*) [ "$(od -An -tx1 -j16 -N1 "$T/$prog" | tr -d ' ')" = 03 ] ||
		fail "$prog: not position-independent" ;;
	esac
done
lmix=$(grep -n 'return x\*1.0000001 + 1e-9' "$T/gosrc/main.go" | cut -d: -f1)

for prog in $progs; do
	children_cpu >"$T/c0"
	"$PCPROF" run -o "$T/p.data" --hz $HZ "$T/$prog" $SECS >"$T/out" 2>"$T/err"
	rc=$?
	children_cpu >"$T/c1"
	[ $rc = 3 ] || { cat "$T/err"; fail "$prog: exit status $rc, want the program's 3"; }
	[ "$(cat "$T/out")" = done ] || fail "$prog: output changed: $(cat "$T/out")"
	"$PCPROF" export -f folded -o "$T/folded" "$T/p.data" || fail "$prog: export"
	"$PCPROF" report "$T/p.data" >"$T/report" || fail "$prog: report"
	awk -v c="$(echo "$(cat "$T/c1") - $(cat "$T/c0")" | bc)" -v hz=$HZ -v name=$prog '
		/;main\.burn;main\.stepA;main\.mix( |;)/ { a += $NF }
		/;main\.burn;main\.stepB;main\.mix( |;)/ { b += $NF }
		/main\.(stepA|stepB|mix)/ && !/;main\.burn;main\.step[AB];main\.mix( |;)/ { bad = bad $0 "\n" }
		{ all += $NF }
		END {
			n = a + b; want = n * 2 / 3; sd = sqrt(n * 2 / 9)
			lo = want - 5 * sd; hi = want + 5 * sd
			printf "%s: burn;stepA;mix %d of %d samples in the inlined code (want %.1f, bounds %.1f..%.1f)\n",
				name, a, n, want, lo, hi
			printf "%s: %d samples for %.2f s CPU at %d Hz (want >= %.0f)\n", name, all, c, hz, 0.75 * c * hz
			if (bad != "") printf "%s: inlined functions elsewhere:\n%s", name, bad
			exit !(bad == "" && n >= 50 && a >= lo && a <= hi && all >= 0.75 * c * hz) }' \
		"$T/folded" || { cat "$T/folded"; fail "$prog: no 2:1 split in burn's inlined code"; }
	for f in main.stepA main.stepB main.mix; do
		grep -q " $f \[inline\] " "$T/report" || { cat "$T/report"; fail "$prog: $f is not marked [inline]"; }
	done
	grep -q ' main\.burn  ' "$T/report" || { cat "$T/report"; fail "$prog: main.burn is missing"; }
	# mix's body line, from .gopclntab's line table, holds most samples
	"$PCPROF" report -l "$T/p.data" >"$T/lines" || fail "$prog: report -l"
	awk -v f="$T/gosrc/main.go:$lmix" -v l="$lmix" -v name=$prog '$5 == f && $6 == "main.mix" && $7 == "[inline]" { n = $3 }
		$3 ~ /^[0-9]+$/ && NF >= 6 { all += $3 }
		END { printf "%s: %d of %d samples on main.go:%d as main.mix [inline]\n", name, n, all, l
		exit !(n >= 0.5 * all) }' "$T/lines" || { cat "$T/lines"; fail "$prog: no samples on mix's line $lmix"; }
done
exit 0
