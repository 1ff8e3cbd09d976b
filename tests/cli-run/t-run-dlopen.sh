#!/bin/sh
# A library the program loads with dlopen() and closes again before it
# ends is still a module of the profile, marked unloaded, and the time
# spent in it is charged to it (hot runs libz's crc32 for 0.3 s).
. "$(dirname "$0")/lib.sh"
"$HOT" dlopen 0.01 2>"$T/err" || { echo "SKIP: hot cannot dlopen libz.so.1: $(cat "$T/err")"; exit 77; }

"$PCPROF" run -q -o "$T/p.data" -- "$HOT" dlopen 0.3 || fail "pcprof run exited $?"
dump "$T/p.data"
id=$(procs)
# (named by the file libz.so.1 leads to, libz.so.1.2.13 here: cmd-run.c)
line=$(grep "^module $id [0-9]* /.*/libz\.so\.1[.0-9]* " "$T/dump") || { cat "$T/dump"; fail "no libz module"; }
epochs=$(echo "$line" | sed 's/.* epochs=\([0-9]*-[0-9]*\) .*/\1/')
[ "${epochs#*-}" -gt "${epochs%-*}" ] || fail "libz not marked unloaded: epochs=$epochs"
# At least 70% of the ticks in libz (nearly all land in crc32's loop).
pct=$(awk -v id="$id" '$1 == "fn" && $2 == id { all += $5; if ($4 ~ /^libz\.so\.1[.0-9]*$/) z += $5 }
	END { print all ? int(100 * z / all) : 0 }' "$T/dump")
[ "$pct" -ge 70 ] || { cat "$T/dump"; fail "libz has $pct% of the ticks"; }
no_raw_dirs
exit 0
