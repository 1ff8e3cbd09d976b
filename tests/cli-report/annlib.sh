# annlib.sh - sourced by the t-annotate*.sh tests after lib.sh: builds
# anntarget.c (-O1 -g, as $T/ann) and finds, from its DWARF with binutils
# (not with pcprof, which is what is tested), the first instruction of
# hot_loop at each marked line, innermost: $HOT and $WARM (anntarget.c)
# and $STEP (annstep.h, inlined into hot_loop), link-time hex without 0x
# (annaddrs does it again for another build), and the line numbers $HOTL,
# $WARML, $STEPL.
#   annrec DATA BINARY   record BINARY with the manual engine: 700 samples
#                        at HOT, 200 at WARM, 100 at STEP, at 100 Hz
#   anncopy DIR BINARY DATA   the same for DIR/anntarget.c, a changed copy:
#                        annstep.h put beside it, built as BINARY, $HOTL,
#                        $WARML and the addresses its own, recorded to DATA
#   annaged DIR BINARY DATA   anntarget.c and annstep.h copied into DIR (made),
#                        an hour old, built as BINARY, recorded to DATA; then
#                        annedit DIR puts a line at the top of the copy
#                        (modified after BINARY: pcprof annotate's note)
command -v cc >/dev/null || skip "cc not installed: no program to profile"
for tool in objdump addr2line; do
	command -v $tool >/dev/null || skip "$tool not installed (binutils): cannot find the hot addresses"
done
SRC=$ROOT/tests/cli-report/anntarget.c
annbuild() {
	cc -std=c11 -O1 -g -o "$1" "$2" 2>"$T/cc" || fail "cc: $(cat "$T/cc")"
}
annbuild "$T/ann" "$SRC"
HOTL=$(grep -n 'HOT \*/$' "$SRC" | cut -d: -f1)
WARML=$(grep -n 'WARM \*/$' "$SRC" | cut -d: -f1)
STEPL=$(grep -n 'STEP \*/$' "$ROOT/tests/cli-report/annstep.h" | cut -d: -f1)
# annaddrs BINARY SYMBOL: set HOT, WARM, STEP for hot_loop as SYMBOL
annaddrs() {
	objdump -d --no-show-raw-insn "$1" | sed -n "/<$2>:/,/^\$/p" |
		awk -F: '/^ +[0-9a-f]+:/ { gsub(/ /, "", $1); print "0x" $1 }' >"$T/addrs"
	[ -s "$T/addrs" ] || fail "no $2 in objdump -d $1"
	# addr2line -i -a: the address, then its inline chain innermost first
	# shellcheck disable=SC2046
	addr2line -e "$1" -i -a $(cat "$T/addrs") |
		awk '/^0x/ { a = $1; first = 1; next }
			first { sub(/ \(discriminator.*/, ""); n = split($0, p, "/"); print a, p[n]; first = 0 }' \
			>"$T/where"
	HOT=$(first_at "anntarget.c:$HOTL")
	WARM=$(first_at "anntarget.c:$WARML")
	STEP=$(first_at "annstep.h:$STEPL")
	[ -n "$HOT" ] && [ -n "$WARM" ] && [ -n "$STEP" ] ||
		skip "this compiler left no instruction at a marked line: $(cat "$T/where")"
}
first_at() {
	awk -v w="$1" '$2 == w { sub(/^0x0*/, "", $1); print $1; exit }' "$T/where"
}
annaddrs "$T/ann" hot_loop
annrec() {
	PROFIL_ENGINE=manual PROFIL_HZ=100 "$PCPROF" run -q -o "$1" -- "$2" inject \
		"$HOT:700" "$WARM:200" "$STEP:100" >"$T/runout" 2>&1 ||
		fail "pcprof run $2: $(cat "$T/runout")"
}
anncopy() {
	cp "$ROOT/tests/cli-report/annstep.h" "$1/"
	annbuild "$2" "$1/anntarget.c"
	HOTL=$(grep -n 'HOT \*/$' "$1/anntarget.c" | cut -d: -f1)
	WARML=$(grep -n 'WARM \*/$' "$1/anntarget.c" | cut -d: -f1)
	annaddrs "$2" hot_loop
	annrec "$3" "$2"
}
annaged() {
	mkdir "$1" || fail "mkdir $1"
	cp "$SRC" "$ROOT/tests/cli-report/annstep.h" "$1/"
	touch -d '-1 hour' "$1/anntarget.c" "$1/annstep.h"
	annbuild "$2" "$1/anntarget.c"
	annrec "$3" "$2"
}
annedit() {
	{
		echo "/* edited */"
		cat "$SRC"
	} >"$1/anntarget.c"
}
