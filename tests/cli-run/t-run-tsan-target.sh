#!/bin/sh
# pcprof run profiles a program built with ThreadSanitizer.  The runtime's
# 0.8 MB of initial-exec TLS does not fit in what the dynamic loader keeps
# once the audit module has a namespace of its own: before pcprof asked the
# loader for more room (GLIBC_TUNABLES, cli/exekind.h), such a program
# failed to start ("cannot allocate memory in static TLS block", exit 127).
# A tunable the user set already is left alone.
. "$(dirname "$0")/lib.sh"
# pcprof run of the ASan build preloads ASan's runtime, which cannot share a
# process with TSan's.
[ "${SANITIZE#*address}" = "${SANITIZE:-}" ] ||
	{ echo "SKIP: the ASan build preloads ASan's runtime, which cannot run with TSan's"; exit 77; }
cat >"$T/spin.c" <<'END'
#include <stdio.h>
#include <time.h>
int main(void)
{
	volatile double x = 1.0;
	while (clock() < CLOCKS_PER_SEC / 2)
		for (int i = 0; i < 100000; i++)
			x = x * 1.0000001 + 1e-9;
	puts("done");
	return 0;
}
END
cc -O1 -g -fsanitize=thread -o "$T/spin" "$T/spin.c" 2>"$T/cc" ||
	{ echo "SKIP: cannot build with -fsanitize=thread: $(head -n1 "$T/cc")"; exit 77; }
"$T/spin" >"$T/plain" 2>&1 || { echo "SKIP: a ThreadSanitizer program cannot run here: $(cat "$T/plain")"; exit 77; }

"$PCPROF" run -o "$T/p.data" -- "$T/spin" >"$T/out" 2>"$T/err" ||
	fail "pcprof run exited $?: $(cat "$T/out" "$T/err")"
[ "$(cat "$T/out")" = done ] || fail "output changed: $(cat "$T/out")"
dump "$T/p.data"
n=$(awk '$1 == "proc" { for (i = 2; i <= NF; i++) if ($i ~ /^ticks=/) { sub("ticks=", "", $i); print $i } }' "$T/dump")
# 0.5 s of CPU at 100 Hz: 50 expected; 5 sd of a Poisson count is 35
[ "${n:-0}" -ge 15 ] || fail "$n samples for 0.5 s of CPU: $(cat "$T/err")"

# the user's own tunables are kept, ours added after them
GLIBC_TUNABLES=glibc.malloc.check=0 "$PCPROF" run -o "$T/q.data" -- sh -c 'echo "$GLIBC_TUNABLES"' >"$T/out" 2>"$T/err" ||
	fail "pcprof run sh: $(cat "$T/err")"
[ "$(cat "$T/out")" = glibc.malloc.check=0 ] || fail "a plain program's GLIBC_TUNABLES changed: $(cat "$T/out")"
exit 0
