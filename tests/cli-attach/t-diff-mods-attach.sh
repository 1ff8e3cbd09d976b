#!/bin/sh
# A run and an attach of the same program name its modules the same way,
# so that pcprof diff matches their functions.  The program spends its time
# in a shared library loaded through a soname link (libdm.so.1 ->
# libdm.so.1.2.3, as most system libraries are): the loader names it
# libdm.so.1, /proc/PID/maps the file libdm.so.1.2.3.  Both recordings must
# name the file, and diff must find dm_spin in both (not "gone" in one and
# "new" in the other).  The attach's recording gives the target's command
# line as its command, which report's and diff's headers show.
. "$(dirname "$0")/lib.sh"
command -v cc >/dev/null || { echo "SKIP: cc not installed: no program to profile"; exit 77; }
probe_perf
mkdir "$T/lib"
cat >"$T/dm.c" <<'END'
volatile double dm_sink;
__attribute__((noinline)) void dm_spin(void)
{
	for (int i = 0; i < 100000; i++)
		dm_sink = dm_sink * 0.5 + i;
}
END
cat >"$T/main.c" <<'END'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
void dm_spin(void);
/* dm SECONDS [FILE]: burn SECONDS of CPU in dm_spin; write FILE (not empty)
   when burning has begun */
int main(int argc, char **argv)
{
	double want = atof(argv[1]);
	int told = 0;
	while ((double)clock() / CLOCKS_PER_SEC < want) {
		dm_spin();
		if (argc > 2 && !told++) {
			FILE *f = fopen(argv[2], "w");
			if (f) {
				fputs("1\n", f);
				fclose(f);
			}
		}
	}
	return 0;
}
END
cc -O1 -g -fPIC -shared -Wl,-soname,libdm.so.1 -o "$T/lib/libdm.so.1.2.3" "$T/dm.c" 2>"$T/cc" ||
	fail "cc libdm: $(cat "$T/cc")"
ln -s libdm.so.1.2.3 "$T/lib/libdm.so.1"
cc -O1 -g -o "$T/dm" "$T/main.c" "$T/lib/libdm.so.1" -Wl,-rpath,"$T/lib" 2>"$T/cc" ||
	fail "cc dm: $(cat "$T/cc")"
real=$(cd "$T/lib" && pwd -P)/libdm.so.1.2.3

"$PCPROF" run -q -o "$T/a.data" -- "$T/dm" 1 2>"$T/err" || fail "pcprof run: $(cat "$T/err")"
"$T/dm" 60 "$T/busy" &
pid=$!
wait_file "$T/busy"
"$PCPROF" attach -q -o "$T/b.data" -d 1.5 "$pid" 2>"$T/err"
rc=$?
kill "$pid"
wait "$pid" 2>/dev/null
[ $rc = 0 ] || { skip_if_denied "$T/err"; fail "pcprof attach exited $rc: $(cat "$T/err")"; }

for f in a b; do
	dump "$T/$f.data"
	grep -q "^module .* $real " "$T/dump" ||
		{ cat "$T/dump"; fail "$f.data does not name the library $real"; }
	grep -q "^module .*libdm\.so\.1 " "$T/dump" &&
		{ cat "$T/dump"; fail "$f.data names the library by its soname link"; }
done

"$PCPROF" diff "$T/a.data" "$T/b.data" >"$T/d" 2>&1 || fail "diff: $(cat "$T/d")"
row=$(awk '$11 == "dm_spin"' "$T/d")
[ -n "$row" ] || fail "no dm_spin row: $(cat "$T/d")"
[ "$(echo "$row" | wc -l)" = 1 ] || fail "dm_spin is two rows: $(cat "$T/d")"
set -- $row
[ "${12}" = libdm.so.1.2.3 ] || fail "dm_spin's module is ${12}: $row"
case ${10} in new* | gone*) fail "dm_spin is ${10}: $(cat "$T/d")" ;; esac

# the attach's command is the target's command line, in report and diff
grep -q "^ *command $T/dm 60 $T/busy\$" "$T/d" || fail "diff header: $(head -4 "$T/d")"
"$PCPROF" report "$T/b.data" >"$T/r" 2>&1 || fail "report: $(cat "$T/r")"
grep -q "^command  *$T/dm 60 $T/busy\$" "$T/r" || fail "report header: $(head -4 "$T/r")"
exit 0
