# owners.sh - shared by the tests/engines scripts on programs that own
# signals (sourced, not run): tests/cli-run/lib.sh, and `profiled`.
. "$(dirname "$0")/../cli-run/lib.sh"
ENGINE=${PROFIL_ENGINE:-auto}

# same NAME CMD...: run CMD unprofiled and under pcprof run; same stdout
# and status, one process recorded.  Leaves the dump in $T/dump, pcprof's
# stderr (its summary) in $T/NAME.err, and ticks, cpu_ms and hz set.
same()
{
	name=$1
	shift
	"$@" >"$T/$name.plain"
	plain=$?
	"$PCPROF" run -o "$T/$name.data" -- "$@" >"$T/$name.prof" 2>"$T/$name.err"
	prof=$?
	if [ $prof = 125 ] && [ "$ENGINE" = perf ] && grep -q perf "$T/$name.err"; then
		echo "SKIP: perf engine cannot run here: $(cat "$T/$name.err")"
		exit 77
	fi
	[ $prof = $plain ] || fail "$name: exit status $prof under pcprof, $plain without ($(cat "$T/$name.err"))"
	cmp -s "$T/$name.plain" "$T/$name.prof" || fail "$name: output differs under pcprof"
	dump "$T/$name.data"
	id=$(procs)
	[ "$(echo "$id" | wc -l)" = 1 ] || { cat "$T/dump"; fail "$name: want one process"; }
	engine=$(field "$id" engine)
	[ "$ENGINE" = auto ] || [ "$engine" = "$ENGINE" ] || fail "$name: engine $engine, not $ENGINE"
	ticks=$(field "$id" ticks)
	cpu_ms=$(field "$id" cpu_ms)
	hz=$(field "$id" hz)
}

# profiled NAME CMD...: `same`, and the recorded samples within
# [0.75, 1.25] x the CPU seconds pcprof measured x the rate.
profiled()
{
	same "$@"
	awk -v t="$ticks" -v c="$cpu_ms" -v h="$hz" -v n="$name" 'BEGIN {
		want = c / 1000 * h; lo = 0.75 * want; hi = 1.25 * want
		if (c < 300 || t < lo || t > hi) {
			printf "FAIL: %s: %d samples for %.3f s CPU at %d Hz, want [%.1f, %.1f] (and >= 0.3 s CPU)\n", n, t, c / 1000, h, lo, hi
			exit 1
		}
		printf "%s: %d samples for %.3f s CPU at %d Hz\n", n, t, c / 1000, h }' ||
		exit 1
}
