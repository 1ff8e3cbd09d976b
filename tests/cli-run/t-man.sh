#!/bin/sh
# pcprof(1) and pcprof-run(1) pass mandoc's lint with no warning, and every
# option `pcprof run --help` lists is documented in pcprof-run(1).
set -u
cd "$(dirname "$0")/../.." || exit 1
command -v mandoc >/dev/null || { echo "SKIP: mandoc not installed"; exit 77; }
out=$(mandoc -T lint -W warning man/pcprof.1 man/pcprof-run.1 2>&1) || true
[ -z "$out" ] || { echo "$out"; exit 1; }
page=$(mandoc -T markdown man/pcprof-run.1)
opts=$(${B:-build}/pcprof run --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
[ -n "$opts" ] || { echo "no options in pcprof run --help"; exit 1; }
for o in $opts; do
	echo "$page" | grep -q -- "$o" || { echo "pcprof-run(1) does not document $o"; exit 1; }
done
