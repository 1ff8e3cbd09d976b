#!/bin/sh
# Seccomp filters that are not the program's: pcprof run in a container
# (Docker, systemd, Flatpak) runs under a filter of its own, which its
# program inherits.  Here `sandbox outer` puts such a filter (allow all
# but acct) around pcprof run itself.  The library must tell it from one
# the program installs (it counts the filters: pcprof run passes its own
# count, PCPROF_SECCOMP):
#   - a program that installs none is sampled as anywhere: "lost: none",
#     its samples within 5 sd of CPU x rate;
#   - one that installs its own through prctl stops there, named as in
#     t-run-seccomp.sh, on every engine, and its child exec'd under both
#     filters stays out.
# (A filter installed without libc inside a container is seen at the next
# start, fork, exec or exit only: docs/design.md, "Seccomp filters".)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/seccomp.sh"

"$SBX" outer true >"$T/out" 2>&1 || {
	grep -q "installing the filter" "$T/out" &&
		{ echo "SKIP: no seccomp filters here: $(cat "$T/out")"; exit 77; }
	fail "sandbox outer true: $(cat "$T/out")"
}
OUTER="$SBX outer"

# shellcheck disable=SC2086
$OUTER "$PCPROF" run --hz 500 -o "$T/c.data" -- "$HOT" main 0.2 >"$T/out" 2>"$T/err" ||
	fail "container: exit $?: $(cat "$T/err")"
grep -q "; lost: none" "$T/err" || fail "container: summary: $(cat "$T/err")"
dump "$T/c.data"
id=$(procs)
[ "$(field "$id" stop)" = 0 ] || fail "container: data file: stop=$(field "$id" stop)"
near "$(field "$id" ticks)" "$(awk -v ms="$(field "$id" cpu_ms)" 'BEGIN { print ms / 2 }')" \
	"container: samples of hot"

every_engine "kill-thread prctl 0.12 0.03" "kill-thread prctl 0.02 0.03 exec"
no_raw_dirs
exit 0
