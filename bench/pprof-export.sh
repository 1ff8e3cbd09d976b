#!/bin/bash
# pprof-export.sh - time and size of `pcprof export --format pprof` of a
# profile with N sample records (default 10 million: mkfixture samples, 100
# threads x N/100 pcs in libc) at each zlib level of LEVELS (default
# "1 2 3 6 9"), interleaved, REPS (3) runs each; prints per level the
# medians of wall time, user+sys CPU time and the file size.
#   bench/pprof-export.sh [N]        environment: LEVELS, REPS
# Needs `make all` (build/pcprof, build/tests/cli-report/mkfixture).
set -u
cd "$(dirname "$0")/.." || exit 1
N=${1:-10000000}
LEVELS=${LEVELS:-1 2 3 6 9}
REPS=${REPS:-3}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
build/tests/cli-report/mkfixture samples "$D/p.data" "$N" || exit 1
for r in $(seq "$REPS"); do
	for l in $LEVELS; do
		/usr/bin/time -f "%e %U %S" -o "$D/t" env PCPROF_GZIP_LEVEL="$l" \
			build/pcprof export --format pprof -o "$D/p.pb.gz" "$D/p.data" || exit 1
		read -r wall user sys <"$D/t"
		echo "$l $wall $user $sys $(stat -c %s "$D/p.pb.gz")" >>"$D/runs"
		echo "run $r level $l: $wall s wall, $user user $sys sys" >&2
	done
done
echo "| level | wall s (median) | CPU s (median) | size MB (median) |"
echo "|---|---|---|---|"
for l in $LEVELS; do
	med() { awk -v l="$l" -v c="$1" '$1 == l { print (c == 3 ? $3 + $4 : $c) }' "$D/runs" |
		sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
	printf '| %s | %.2f | %.2f | %.1f |\n' "$l" "$(med 2)" "$(med 3)" \
		"$(awk -v s="$(med 5)" 'BEGIN { print s / 1e6 }')"
done
