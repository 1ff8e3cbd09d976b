# unfollowed.sh - shared by tests/cli-run/t-run-unfollowed*.sh (sourced
# after lib.sh): programs that pcprof run's library cannot enter after an
# exec must be named in the summary's "lost:" part with the CPU time they
# burned (issue 8, "never lie").
#
# Every program burns BURN seconds of CPU with `hot main BURN` (or its
# static copy), which stops at BURN of its thread's CPU time: the time not
# sampled is BURN plus its start-up and exit, so it is checked within
# [BURN, BURN + SLACK], never against wall-clock time.
BURN=0.3
SLACK=0.1
SPAWNER=$PWD/${B:-build}/tests/targets/spawner

# static_hot: $ST, a statically linked copy of hot (SKIP if none can be
# linked), and $NOEXEC, a copy without execute permission
static_hot()
{
	ST=$T/hot-static
	cc -D_GNU_SOURCE -static -O1 -pthread -o "$ST" tests/targets/hot.c -ldl 2>"$T/cc" ||
		{ echo "SKIP: cannot link static programs: $(grep -m1 error "$T/cc")"; exit 77; }
	readelf -l "$ST" | grep -q INTERP && fail "cc -static made a dynamic program"
	NOEXEC=$T/noexec
	cp "$ST" "$NOEXEC" && chmod a-x "$NOEXEC" || fail "cannot make $NOEXEC"
}

# run_case NAME STATUS CMD...: pcprof run CMD into $T/NAME.data; pcprof
# must end with STATUS; the summary goes to $T/err
run_case()
{
	name=$1 want=$2
	shift 2
	"$PCPROF" run -o "$T/$name.data" -- "$@" >"$T/out" 2>"$T/err"
	st=$?
	[ "$st" = "$want" ] || fail "$name: pcprof run exited $st, want $want: $(cat "$T/err")"
}

# in_bounds WHAT VALUE [BELOW]: VALUE within [BURN - BELOW, BURN + SLACK]
in_bounds()
{
	awk -v v="$2" -v b="$BURN" -v s="$SLACK" -v d="${3:-0}" 'BEGIN { exit !(v >= b - d && v <= b + s) }' ||
		fail "$1: $2 s not sampled, want [$BURN - ${3:-0}, $BURN + $SLACK]: $(cat "$T/err")"
}

# expect_named WHAT PROGRAM REASON: the summary says that the CPU time of
# one image, PROGRAM, was not sampled, and why; the recorded part is small
expect_named()
{
	line=$(cat "$T/err")
	case $line in
	*"lost: "*" s CPU of 1 process image the library could not enter ($2: $3)"*) ;;
	*) fail "$1: summary does not name $2 ($3): $line" ;;
	esac
	cpu=$(printf '%s\n' "$line" | sed -n 's/.*lost: \([0-9.]*\) s CPU of 1 process image.*/\1/p')
	in_bounds "$1" "$cpu"
	recorded=$(printf '%s\n' "$line" | sed -n 's/^pcprof run: [^,]*, \([0-9.]*\) s CPU.*/\1/p')
	awk -v r="$recorded" 'BEGIN { exit !(r < 0.1) }' || fail "$1: $recorded s recorded: $line"
}

# expect_image WHAT FILE STATUS: the data file has the image the library
# did not enter, after the one that exec'd it, with the program's exit
# status and its CPU time
expect_image()
{
	dump "$2"
	last=$(procs | tail -n1)
	first=$(procs | head -n1)
	[ "$(procs | wc -l)" = 2 ] && [ "${last%.*}" = "${first%.*}" ] && [ "${last#*.}" = 1 ] ||
		{ cat "$T/dump"; fail "$1: want the exec'ing image and the one after it"; }
	[ "$(field "$first" end)" = exec ] || { cat "$T/dump"; fail "$1: first image did not end by exec"; }
	[ "$(field "$last" end)" = exit ] && [ "$(field "$last" status)" = "$3" ] ||
		{ cat "$T/dump"; fail "$1: the status $3 is not the last image's"; }
	[ "$(field "$last" ticks)" = 0 ] || { cat "$T/dump"; fail "$1: samples in an image not entered"; }
	# pcprof had this one from /proc/PID/stat, in clock ticks (10 ms),
	# truncated and split by the tick: up to 3 ticks below
	ms=$(field "$last" cpu_ms)
	in_bounds "$1 (data file)" "$(awk -v m="$ms" 'BEGIN { print m / 1000 }')" 0.03
}

# static_named HOW HOWP: $ST started by spawner's HOW with its path, and by
# HOWP with its name (found in PATH): each named with its CPU time
static_named()
{
	run_case "$1" 0 "$SPAWNER" "$1" "$ST" main $BURN
	expect_named "$1" hot-static "statically linked"
	run_case "$2" 0 env PATH="$T:$PATH" "$SPAWNER" "$2" hot-static main $BURN
	expect_named "$2" hot-static "statically linked"
}
