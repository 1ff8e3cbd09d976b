#!/bin/bash
# attach-overhead.sh - the cost of external sampling (pcprof attach) against
# `perf record -F` attached the same way and against the preloaded library
# (pcprof run), at 100 Hz and 1 kHz, on a fixed amount of work (2:1 split).
# Runs are interleaved; medians of RUNS (5) are printed: the target's own
# CPU time (getrusage, so the sampling interrupts charged to it count) and
# the sampler's user+sys time.   bench/attach-overhead.sh [RUNS]
set -u
cd "$(dirname "$0")/.." || exit 1
P=$PWD/build/pcprof
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
cat >"$D/work.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>
static volatile double sink;
__attribute__((noinline)) void wa(long n) { double x = sink; for (long i = 0; i < n; i++) x = x * 1.0000001 + 1e-9; sink = x; }
__attribute__((noinline)) void wb(long n) { double x = sink; for (long i = 0; i < n; i++) x = x * 1.0000001 + 1e-9; sink = x; }
int main(int c, char **v)
{
	(void)c;
	usleep(50000); /* room for the sampler to attach */
	long n = atol(v[1]);
	for (int k = 0; k < 100; k++) { wa(2 * n / 300); wb(n / 300); }
	struct rusage r;
	getrusage(RUSAGE_SELF, &r);
	printf("%.4f\n", r.ru_utime.tv_sec + r.ru_utime.tv_usec * 1e-6 + r.ru_stime.tv_sec + r.ru_stime.tv_usec * 1e-6);
	return 0;
}
C
cc -O1 -o "$D/work" "$D/work.c" || exit 1
N=300000000
one() # MODE HZ -> "target_cpu [sampler_user sampler_sys]"
{
	case $1 in
	none) "$D/work" $N ;;
	attach | perf)
		"$D/work" $N >"$D/out" &
		pid=$!
		# In a shell of its own: its children's rusage is the sampler's
		# alone, whereas ours will include the target once reaped.
		if [ "$1" = attach ]; then
			cmd="\"$P\" attach -q -o \"$D/a.data\" --hz $2 $pid"
		else
			cmd="perf record -q -F $2 -p $pid -o \"$D/perf.data\" >/dev/null 2>&1"
		fi
		bash -c "TIMEFORMAT='%U %S'; time $cmd" 2>"$D/t"
		wait $pid
		echo "$(cat "$D/out") $(tail -n1 "$D/t")"
		;;
	preload) "$P" run -q -o "$D/r.data" --hz "$2" -- "$D/work" $N ;;
	esac
}
for i in $(seq "${1:-5}"); do
	for hz in 100 1000; do
		for m in none attach perf preload; do
			echo "$m $hz $(one $m $hz)"
		done
	done
done >"$D/res"
[ -n "${KEEP:-}" ] && cp "$D/res" "$KEEP"
awk '{ k = $1 " " $2; n[k]++; t[k, n[k]] = $3; s[k, n[k]] = $4 + $5 }
	function med(a, k, c,   i, j, v, tmp) {
		for (i = 1; i <= c; i++) v[i] = a[k, i]
		for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] < v[i]) { tmp = v[i]; v[i] = v[j]; v[j] = tmp }
		return v[int((c + 1) / 2)] }
	END { for (k in n) printf "%-12s target CPU %.4f s   sampler CPU %.3f s   (median of %d)\n", k, med(t, k, n[k]), med(s, k, n[k]), n[k] }' "$D/res" | sort
