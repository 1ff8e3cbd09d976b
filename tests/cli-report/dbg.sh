# dbg.sh - sourced (after lib.sh) by the tests of debug info that follows the
# binary (t-debuginfo.sh, t-archive.sh).  Defines:
#   prog NAME OUT [CFLAGS...]  build a program whose hot function is
#                NAME_spin (it burns 0.3 s of CPU time in a loop on the line
#                marked "hot line") into OUT, with -g
#   record OUT DATA   pcprof run OUT at 1000 Hz into DATA
#   build_id FILE     the GNU build id of FILE, in hex
#   id_path ID        .build-id/xx/rest.debug for build id ID
command -v cc >/dev/null || skip "cc not installed: no program to profile"
command -v objcopy >/dev/null || skip "objcopy not installed (binutils)"
command -v readelf >/dev/null || skip "readelf not installed (binutils)"

prog() {
	name=$1 out=$2
	shift 2
	cat >"$out.c" <<END
#include <time.h>
static volatile unsigned long sink;
__attribute__((noinline)) void ${name}_spin(void)
{
	clock_t end = clock() + CLOCKS_PER_SEC * 3 / 10;
	while (clock() < end)
		for (unsigned long i = 0; i < 100000; i++)
			sink += i * 7; /* hot line */
}
int main(void)
{
	${name}_spin();
	return 0;
}
END
	cc -O1 -g "$@" -o "$out" "$out.c" 2>"$T/err" || fail "cc: $(cat "$T/err")"
}
record() {
	PROFIL_HZ=1000 "$PCPROF" run -q -o "$2" "$1" >"$T/runout" 2>&1 ||
		fail "pcprof run $1: $(cat "$T/runout")"
}
build_id() {
	readelf -n "$1" | awk '/Build ID:/ { print $3 }'
}
id_path() {
	echo ".build-id/$(echo "$1" | cut -c1-2)/$(echo "$1" | cut -c3-).debug"
}
