#!/bin/sh
# A profiled program has the address space it has alone (issue 19, item 4),
# on every engine:
#   1. VmPeak of a program with no thread, and of one with 4 threads that
#      never call malloc, grows by at most 8 MiB under pcprof run (each
#      process mapped its whole recording twice, 60 MiB each time, and a
#      thread's start arguments freed in the new thread gave it a malloc
#      arena of 64 MiB: +123 MiB and +450 MiB);
#   2. under RLIMIT_AS of 16, 32, 64 and 128 MiB, a program that creates as
#      many threads as it can alone with 4 MiB of the limit to spare creates
#      them all profiled, and is recorded (pthread_create failed with EAGAIN
#      under 64 and 128 MiB, and 16 and 32 MiB left the image unrecorded);
#   3. a program that mallocs 100 MiB under a 200 MiB limit does so
#      profiled too, and is recorded (malloc failed).
# Not under ASan: its runtime, which pcprof run of that build preloads into
# the program, reserves terabytes of address space for its shadow.
. "$(dirname "$0")/lib.sh"
case "${SANITIZE:-}" in
*address*)
	echo "SKIP: ASan's runtime, preloaded into the program, needs terabytes of address space"
	exit 77
	;;
esac
CROWD=$PWD/${B:-build}/tests/targets/crowd

# limited WHAT ENGINE KIB MODE ARGS: "crowd MODE ARGS" under RLIMIT_AS of
# KIB KiB, profiled with ENGINE, says "ok" and is recorded with samples
# (the image "crowd as" exec'd under the limit, its second)
limited()
{
	what=$1 engine=$2
	shift 2
	"$PCPROF" run -o "$T/p.data" --engine "$engine" -- "$CROWD" as "$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc = 0 ] && [ "$(cat "$T/out")" = ok ] ||
		fail "$engine, $what: exit $rc: $(cat "$T/out" "$T/err")"
	dump "$T/p.data"
	id=$(awk '$1 == "proc" && $2 ~ /\.1$/ { print $2 }' "$T/dump")
	[ -n "$id" ] && [ "$(field "$id" ticks)" -ge 1 ] ||
		fail "$engine, $what: the program was not recorded: $(cat "$T/err")"
}

tried=0
for engine in thread-timer perf process-timer; do
	# 1. VmPeak, alone and profiled
	for n in 0 4; do
		read -r alone _ <<EOF
$("$CROWD" vm $n)
EOF
		"$PCPROF" run -o "$T/p.data" --engine $engine -- "$CROWD" vm $n >"$T/out" 2>"$T/err" ||
			fail "$engine, vm $n: $(cat "$T/out" "$T/err")"
		if [ $engine = perf ] && ! grep -q "(perf" "$T/err"; then
			echo "# the perf engine cannot run here: not tried ($(cat "$T/err"))"
			continue 2
		fi
		read -r peak _ <"$T/out"
		echo "# $engine, $n threads: VmPeak $alone KiB alone, $peak KiB profiled"
		[ "$peak" -le $((alone + 8192)) ] ||
			fail "$engine, $n threads: VmPeak $peak KiB profiled, $alone KiB alone: more than 8 MiB apart"
	done
	tried=$((tried + 1))

	# 2. threads under RLIMIT_AS
	for mib in 16 32 64 128; do
		kib=$((mib * 1024))
		read -r most room <<EOF
$("$CROWD" as $kib most)
EOF
		n=$most
		[ "$room" -ge 4096 ] || n=$((most - 1))
		if [ "$n" -lt 1 ]; then
			echo "# $mib MiB: $most threads alone with $room KiB to spare: not tried"
			continue
		fi
		limited "RLIMIT_AS $mib MiB, $n threads (alone: $most, $room KiB to spare)" \
			$engine $kib threads $n
	done

	# 3. malloc under RLIMIT_AS
	[ "$("$CROWD" as 204800 malloc 100)" = ok ] || fail "malloc of 100 MiB under 200 MiB alone"
	limited "malloc of 100 MiB under RLIMIT_AS 200 MiB" $engine 204800 malloc 100
done
[ $tried -ge 2 ] || fail "only $tried engines tried"
no_raw_dirs
