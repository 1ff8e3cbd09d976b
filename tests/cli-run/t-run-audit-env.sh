#!/bin/sh
# The audit module reads its settings from the environment the process
# started with, on its own (lib/audit/nolibc.c reads /proc/self/environ in
# pieces): with a long environment before pcprof's variables, and a PCPROF_
# variable too long for the module's store, it still finds PCPROF_DIR and
# the rest, and a library closed before exit is marked unloaded, which only
# the audit module sees (t-run-dlopen.sh).
. "$(dirname "$0")/lib.sh"
"$HOT" dlopen 0.01 2>"$T/err" || { echo "SKIP: hot cannot dlopen libz.so.1: $(cat "$T/err")"; exit 77; }

long=$(head -c 30000 /dev/zero | tr '\0' x)
env A_LONG="$long" PCPROF_TOO_LONG="$long" "$PCPROF" run -o "$T/p.data" -- "$HOT" dlopen 0.05 \
	2>"$T/err" || fail "pcprof run exited $?: $(cat "$T/err")"
grep -q "without the audit module" "$T/err" && fail "audit module unused: $(cat "$T/err")"
dump "$T/p.data"
id=$(procs)
line=$(grep "^module $id [0-9]* /.*/libz\.so\.1[.0-9]* " "$T/dump") || { cat "$T/dump"; fail "no libz module"; }
epochs=$(echo "$line" | sed 's/.* epochs=\([0-9]*-[0-9]*\) .*/\1/')
[ "${epochs#*-}" -gt "${epochs%-*}" ] || fail "libz not marked unloaded: epochs=$epochs"
grep -q "^module $id [0-9]* \[vdso\] .* buildid=" "$T/dump" || fail "no vDSO with its build id"
no_raw_dirs
exit 0
